#!/usr/bin/env bash
# The landing page: bytes on the wire as served (HTML with its inline CSS, JS; uncompressed, gzip,
# brotli) and Lighthouse mobile scores with FCP, LCP and TBT, median of 3 runs.
#   bench/page.sh            full run (about 40 s); exit 1 when the bytes or the LCP (median) are over target
#   bench/page.sh --smoke    one Lighthouse run: checks only that every figure is produced (reports the rest)
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_curl
need_chromium
need_lighthouse
need_zayavka
exec python3 "$BENCH_DIR/lib/page.py" "$@"
