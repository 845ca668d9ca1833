#!/usr/bin/env bash
# Where an insert's time goes under the 64-connection insert load: system calls per insert,
# inserts per commit, CPU by thread, perf samples by function. Evidence for RESULTS.md; no targets.
#   bench/profile.sh [--seconds 6] [--conns 64]
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_wrk
need_zayavka
command -v perf >/dev/null 2>&1 || _apt_install linux-perf
exec python3 "$BENCH_DIR/lib/profile.py" "$@"
