#!/usr/bin/env bash
# What this disk's syncs alone cost the inserts' p99 (issue 32, target 3): a commit's write and
# sync every 3 ms, alone and beside a checkpoint of 8,000 pages every half second, alternating
# (lib/disk_syncs.py). No zayavka runs: a slow sync here is the disk's, not the server's.
#   bench/disk-syncs.sh [--runs 4] [--seconds 20] [--pages 8000] [--sync fsync|fdatasync]
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"

runs=4 seconds=20 pages=8000 how=fsync
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --pages) pages=$2; shift 2 ;;
    --sync) how=$2; shift 2 ;;
    *) echo "usage: bench/disk-syncs.sh [--runs N] [--seconds S] [--pages N] [--sync fsync|fdatasync]" >&2; exit 2 ;;
  esac
done
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/disk-syncs-XXXXXX")
trap 'rm -rf "$dir"' EXIT
for _ in $(seq "$runs"); do
  for beside in 0 "$pages"; do
    python3 "$BENCH_DIR/lib/disk_syncs.py" "$dir" "$beside" "$seconds" "$how"
  done
done
