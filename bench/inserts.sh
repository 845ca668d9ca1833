#!/usr/bin/env bash
# Durable inserts (POST /rest/v1/CRN at 1, 16 and 64 connections) beside the same server's GET /
# and PocketBase creating the same record, then peak RSS, binary size and cold start.
#   bench/inserts.sh            full run (about 2.5 minutes), figures for RESULTS.md
#   bench/inserts.sh --smoke    a few seconds: checks only that every figure is produced
# Other options: --seconds N --reps N --conns 1,16,64 --cold-starts N (see --help).
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_wrk
need_pocketbase
need_zayavka
exec python3 "$BENCH_DIR/lib/inserts.py" "$@"
