#!/usr/bin/env bash
# The machine's floor against an insert, as #23 measures it: on one server (one binary, one fresh
# SQLite database), `GET /healthz` and the durable `POST /rest/v1/CRN`, alternating, each for the
# same seconds at the same connections (wrk, one thread, loopback); medians and their ratio.
#   bench/floor.sh [--seconds 5] [--conns 64] [--reps 3]        ZAYAVKA_BIN picks the binary
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_wrk
need_curl
need_zayavka

seconds=5 conns=64 reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --conns) conns=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: bench/floor.sh [--seconds N] [--conns N] [--reps N]" >&2; exit 2 ;;
  esac
done

bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/floor-XXXXXX")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The settings the other insert benchmarks use (bench/lib/common.py: zayavka_env).
env -i PATH="$PATH" ZAYAVKA_LISTEN="127.0.0.1:$port" ZAYAVKA_DATABASE_URL="sqlite://$dir/b.db" \
  ZAYAVKA_ANON_KEY=bench-anon-key ZAYAVKA_LOG=warn ZAYAVKA_RATE_LIMIT_PER_MINUTE=0 \
  ZAYAVKA_MIN_FILL_SECONDS=0 ZAYAVKA_HOLD_WITHOUT_PROOF=false "$bin" serve >"$dir/log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done

rate() { awk '/Requests\/sec/ {print $2}'; }
gets=() posts=()
codes=(67 68 63 66 73 93 95 96 97 98)
for rep in $(seq "$reps"); do
  gets+=("$(wrk -t1 -c"$conns" -d"${seconds}s" "http://127.0.0.1:$port/healthz" | rate)")
  # A mobile code of its own each repetition: no insert repeats an earlier phone.
  posts+=("$(wrk -t1 -c"$conns" -d"${seconds}s" -s "$BENCH_DIR/lib/wrk-post.lua" \
    "http://127.0.0.1:$port/rest/v1/CRN" -- zayavka bench-anon-key "${codes[$(( (rep - 1) % 10 ))]}" | rate)")
  echo "repetition $rep: GET /healthz ${gets[-1]}/s, POST ${posts[-1]}/s"
done
rss=$(ps -o rss= -p "$server")
python3 - "$conns" "$rss" "${gets[*]}" "${posts[*]}" <<'PY'
import statistics, sys
conns, rss, gets, posts = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
get, post = statistics.median(map(float, gets)), statistics.median(map(float, posts))
print(f"{conns} connections, medians: GET /healthz {get:,.0f}/s, POST {post:,.0f}/s, "
      f"POST / GET {post / get:.2f}; server RSS after {rss / 1024:.1f} MiB")
PY
