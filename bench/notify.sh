#!/usr/bin/env bash
# Does notifying slow the visitor's submit? Durable inserts (POST /rest/v1/CRN at 16 and 64
# connections) with (a) no channel, (b) a webhook to a fast local receiver, (c) a webhook whose
# receiver is down, alternating per repetition; for (b) also the backlog's drain time after the
# load and received vs stored (each lead once).
#   bench/notify.sh            full run (about 4 minutes), figures for RESULTS.md
#   bench/notify.sh --smoke    a few seconds: checks only that every figure is produced
# Other options: --seconds N --reps N --conns 16,64 (see --help).
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_wrk
need_zayavka
exec python3 "$BENCH_DIR/lib/notify.py" "$@"
