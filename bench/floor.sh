#!/usr/bin/env bash
# The machine's floor against an insert, as #23 measures it: on one server (one binary, one fresh
# SQLite database), `GET /healthz` and the durable `POST /rest/v1/CRN`, alternating, each for the
# same seconds at the same connections (wrk, one thread, loopback), with a POST the rules refuse
# between them (what an insert costs before storage); medians and their ratios.
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

# Each load prints wrk's WRKJSON line (lib/wrk-report.lua): "requests/s p99_ms" from it.
load() {
  wrk -t1 -c"$conns" -d"${seconds}s" "$@" | python3 -c '
import json, sys
for line in sys.stdin:
    if line.startswith("WRKJSON "):
        r = json.loads(line[8:])
        errors = r["err_connect"] + r["err_read"] + r["err_write"] + r["err_timeout"]
        rate, p99 = r["requests"] / r["duration_us"] * 1e6, r["p99_us"] / 1000
        print(f"{rate:.0f} {p99:.2f} {errors}")'
}
gets=() refused=() posts=()
codes=(67 68 63 66 73 93 95 96 97 98)
for rep in $(seq "$reps"); do
  gets+=("$(load -s "$BENCH_DIR/lib/wrk-get.lua" "http://127.0.0.1:$port/healthz")")
  refused+=("$(load -s "$BENCH_DIR/lib/wrk-refused.lua" "http://127.0.0.1:$port/rest/v1/CRN" -- bench-anon-key)")
  # A mobile code of its own each repetition: no insert repeats an earlier phone.
  posts+=("$(load -s "$BENCH_DIR/lib/wrk-post.lua" "http://127.0.0.1:$port/rest/v1/CRN" \
    -- zayavka bench-anon-key "${codes[$(( (rep - 1) % 10 ))]}")")
  echo "repetition $rep (requests/s, p99 ms, socket errors): GET /healthz ${gets[-1]}; POST refused (400) ${refused[-1]}; POST stored (201) ${posts[-1]}"
done
rss=$(ps -o rss= -p "$server")
python3 - "$conns" "$rss" "$(IFS=,; echo "${gets[*]}")" "$(IFS=,; echo "${refused[*]}")" "$(IFS=,; echo "${posts[*]}")" <<'PY'
import statistics, sys
conns, rss = sys.argv[1], int(sys.argv[2])
def medians(arg):
    runs = [list(map(float, run.split())) for run in arg.split(",")]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
(get, get_p99), (refused, refused_p99), (post, post_p99) = map(medians, sys.argv[3:6])
print(f"{conns} connections, medians (requests/s, p99):")
print(f"  GET /healthz             {get:>8,.0f}/s  p99 {get_p99:.2f} ms")
print(f"  POST refused, 400        {refused:>8,.0f}/s  p99 {refused_p99:.2f} ms  ({refused / get:.2f} of GET)")
print(f"  POST stored, 201         {post:>8,.0f}/s  p99 {post_p99:.2f} ms  ({post / get:.2f} of GET)")
print(f"server RSS after: {rss / 1024:.1f} MiB")
PY
