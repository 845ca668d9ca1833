#!/usr/bin/env bash
# The landing page's JavaScript, brotli, as served, against its budget (64,000 bytes); exit 1 when
# over. A few seconds; bench/smoke (and so CI) runs it.
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_curl
need_zayavka
exec python3 "$BENCH_DIR/lib/budget.py" "$@"
