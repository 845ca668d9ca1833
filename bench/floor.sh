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
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$dir"' EXIT
start_zayavka "$bin" "sqlite://$dir/b.db" "$dir/log"

gets=() refused=() posts=()
codes=(67 68 63 66 73 93 95 96 97 98)
for rep in $(seq "$reps"); do
  gets+=("$(wrk_load -s "$BENCH_DIR/lib/wrk-get.lua" "http://127.0.0.1:$port/healthz")")
  refused+=("$(wrk_load -s "$BENCH_DIR/lib/wrk-refused.lua" "http://127.0.0.1:$port/rest/v1/CRN" -- bench-anon-key)")
  # A mobile code of its own each repetition: no insert repeats an earlier phone.
  posts+=("$(wrk_load -s "$BENCH_DIR/lib/wrk-post.lua" "http://127.0.0.1:$port/rest/v1/CRN" \
    -- zayavka bench-anon-key "${codes[$(( (rep - 1) % 10 ))]}")")
  echo "repetition $rep (requests/s, p99 ms, socket errors, non-2xx): GET /healthz ${gets[-1]}; POST refused (400) ${refused[-1]}; POST stored (201) ${posts[-1]}"
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
