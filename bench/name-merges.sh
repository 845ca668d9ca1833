#!/usr/bin/env bash
# When the name index's merges hold the writer (issue 32, target 3): purge.sh's seed (one bulk
# load, then 'optimize'), then a stream of small commits each followed by merge steps, as the
# server's writer does; prints the commits after which a step took over 15 ms, and the merging of
# each part a commit closed into one segment (ADR 0068; lib/name_merges.py).
# The index is in parts of 100,000 ids, as the server's (migration 0027); --part-ids 0 makes the
# one index of every name before it.
#   bench/name-merges.sh [--seeded 1100000] [--commits 20000] [--per-commit 16] [--part-ids 100000]
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_bench_venv

seeded=1100000 commits=20000 per_commit=16 part_ids=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --seeded) seeded=$2; shift 2 ;;
    --commits) commits=$2; shift 2 ;;
    --per-commit) per_commit=$2; shift 2 ;;
    --part-ids) part_ids=$2; shift 2 ;;
    *) echo "usage: bench/name-merges.sh [--seeded N] [--commits N] [--per-commit N] [--part-ids N]" >&2; exit 2 ;;
  esac
done
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/name-merges-XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$BENCH_DIR/.venv/bin/python" "$BENCH_DIR/lib/name_merges.py" "$dir/names.db" "$seeded" "$commits" "$per_commit" "$part_ids"
