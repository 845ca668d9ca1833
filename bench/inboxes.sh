#!/usr/bin/env bash
# Twenty open inboxes (issue 32, target 6): on a filled database (the `scale` example's fill),
# N operators sign in (real accounts, real password hashes) and each replays what its desk asks for
# while shown: the figures (`GET /admin/api/stats`) and the call-next list
# (`GET /admin/api/leads?filter=due`) once a minute (`REFRESH_SHOWN_MS`, web/src/admin/clock.ts),
# the sessions spread over the minute. The server's CPU time (user + system, /proc/PID/stat) over
# the minutes, as a share of one core; the same minutes of an idle server before, for comparison.
#   bench/inboxes.sh DATABASE_URL [--inboxes 20] [--minutes 3]
#   (sqlite://PATH or postgres://…; ZAYAVKA_BIN picks the binary)
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_curl
need_zayavka

url=${1:?usage: bench/inboxes.sh DATABASE_URL [--inboxes N] [--minutes N]}
shift
inboxes=20 minutes=3
while [ $# -gt 0 ]; do
  case "$1" in
    --inboxes) inboxes=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    *) echo "usage: bench/inboxes.sh DATABASE_URL [--inboxes N] [--minutes N]" >&2; exit 2 ;;
  esac
done
bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/inboxes-XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
  rm -rf "$dir"
}
trap cleanup EXIT
hz=$(getconf CLK_TCK)
password='a long enough bench password'

# Accounts of their own, so the fill's operators (made without a password) are left as they are.
for n in $(seq "$inboxes"); do
  echo "$password" | ZAYAVKA_DATABASE_URL="$url" "$bin" admin add-user "inbox$n@bench.test" --password-stdin \
    >/dev/null 2>&1 || true
done
# Each inbox from an address of its own (as behind a proxy), so the sign-ins' limits per address
# stay those of one person.
# The fill spreads its leads over a year, and a server starts its hourly chores at once: with the
# default retention (180 days) and hold (30 days) its first minutes would be the purge of half the
# table, not twenty inboxes. A campaign that keeps a year of leads keeps them this long.
start_zayavka "$bin" "$url" "$dir/server.log" ZAYAVKA_TRUSTED_PROXIES=127.0.0.1 \
  ZAYAVKA_RETENTION_DAYS=400 ZAYAVKA_HOLD_DAYS=400
for n in $(seq "$inboxes"); do
  curl -sf -c "$dir/jar$n" -o /dev/null -H 'content-type: application/json' -H "origin: http://127.0.0.1:$port" \
    -H "x-forwarded-for: 10.0.0.$n" \
    -d "{\"email\":\"inbox$n@bench.test\",\"password\":\"$password\"}" "http://127.0.0.1:$port/admin/api/login"
done

# The idle server over one minute: its own scans, with nobody asking.
idle_from=$(cpu_ticks "$server")
sleep 60
idle=$(python3 -c "print(round(($(cpu_ticks "$server") - $idle_from) / $hz / 60 * 100, 2))")

gap=$(python3 -c "print(60 / $inboxes)")
busy_from=$(cpu_ticks "$server") started=$(date +%s.%N) requests=0 slowest=0
for _ in $(seq "$minutes"); do
  for n in $(seq "$inboxes"); do
    for path in /admin/api/stats '/admin/api/leads?filter=due'; do
      took=$(curl -sf -b "$dir/jar$n" -H "x-forwarded-for: 10.0.0.$n" -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port$path")
      slowest=$(python3 -c "print(max($slowest, $took))")
      requests=$((requests + 1))
    done
    sleep "$gap"
  done
done
wall=$(python3 -c "import time; print(time.time() - $started)")
busy=$(python3 -c "print(round(($(cpu_ticks "$server") - $busy_from) / $hz / $wall * 100, 2))")
echo "$inboxes inboxes, $minutes min, $requests requests (slowest $(python3 -c "print(round($slowest * 1000, 1))") ms):" \
  "server CPU ${busy}% of one core; idle ${idle}%; load average $(cut -d' ' -f1-3 /proc/loadavg)"
