#!/usr/bin/env bash
# A server's first minute on a filled database (issue 32, targets 2 and 3; ADR 0056): per
# repetition a fresh server, idle once its start's work is done (the month of the promise figures
# read ahead, when its log says so), then an admin signs in and asks for the promise figures twice.
# Prints the two requests' times (curl's time_total) and the server's RSS idle, after the sign-in
# (Argon2 takes about 20 MB), after the figures, and at its peak (VmHWM).
#   bench/restart.sh DATABASE_URL [--reps 2]
#   (sqlite://PATH or postgres://…, filled by the `scale` example; ZAYAVKA_BIN picks the binary)
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_curl
need_zayavka

url=${1:?usage: bench/restart.sh DATABASE_URL [--reps N]}
shift
reps=2
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: bench/restart.sh DATABASE_URL [--reps N]" >&2; exit 2 ;;
  esac
done
bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/restart-XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
  rm -rf "$dir"
}
trap cleanup EXIT
password='a long enough bench password'
echo "$password" | ZAYAVKA_DATABASE_URL="$url" "$bin" admin add-user restart@bench.test --password-stdin \
  >/dev/null 2>&1 || true
kb() { awk -v key="$1:" '$1 == key { print $2 }' "/proc/$server/status"; }

for rep in $(seq "$reps"); do
  # A year of leads is kept: the default retention would make the first minute a purge (inboxes.sh).
  start_zayavka "$bin" "$url" "$dir/server.log" ZAYAVKA_LOG=info ZAYAVKA_TRUSTED_PROXIES=127.0.0.1 \
    ZAYAVKA_RETENTION_DAYS=400 ZAYAVKA_HOLD_DAYS=400
  wait_idle "$server"
  idle=$(kb VmRSS)
  curl -sf -c "$dir/jar" -o /dev/null -H 'content-type: application/json' -H "origin: http://127.0.0.1:$port" \
    -d "{\"email\":\"restart@bench.test\",\"password\":\"$password\"}" "http://127.0.0.1:$port/admin/api/login"
  signed_in=$(kb VmRSS)
  first=$(curl -sf -b "$dir/jar" -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/admin/api/stats/promise")
  second=$(curl -sf -b "$dir/jar" -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/admin/api/stats/promise")
  after=$(kb VmRSS) peak=$(kb VmHWM)
  ahead=$(grep -o 'read ahead.*' "$dir/server.log" | grep -o 'leads=[0-9]*.*' | head -n 1 || true)
  kill "$server"; wait "$server" 2>/dev/null || true; server=
  echo "rep $rep: figures $(python3 -c "print(round($first * 1000, 1), round($second * 1000, 1))") ms;" \
    "RSS idle $((idle / 1024)), signed in $((signed_in / 1024)), after the figures $((after / 1024)), peak $((peak / 1024)) MB;" \
    "read ahead: ${ahead:-no}"
done
