#!/usr/bin/env bash
# The machine's floor against an insert, as #23 and #32 measure it: on one server (one binary, one
# fresh SQLite database), `GET /healthz` and the durable `POST /rest/v1/CRN`, alternating, each for
# the same seconds at the same connections (wrk, one thread, loopback), with a POST the rules refuse
# between them (what an insert costs before storage); medians and their ratios, in requests/s and
# in the server's own CPU time per request (/proc/PID/stat, the work a load left behind included).
#   bench/floor.sh [--seconds 5] [--conns 64] [--reps 3] [--baseline BIN] [--filled DATABASE_URL]
#                  [--engine sqlite|postgres] [--varied-names]
#   (ZAYAVKA_BIN picks the binary; with --engine postgres each new database is a schema of its own
#   in BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/test, and each stored load also says
#   the write-ahead log it wrote per insert)
# With --baseline, BIN runs as a second server on a database of its own, its loads right after
# the same loads of ZAYAVKA_BIN in every repetition: before and after, side by side.
# With --filled, the same binary runs as one more server on that database (a year of leads from
# `cargo run --release --example scale -- fill`; the inserts are added to it), its loads right after
# the empty database's: does an insert slow down as the data grows (issue 32, target 4)?
# With --varied-names, the stored inserts carry names of 24 first names and 27,000 surnames (nearly
# every pair of words new) instead of one name (lib/wrk-post.lua).
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_wrk
need_curl
need_zayavka

seconds=5 conns=64 reps=3 baseline= filled= engine=sqlite name_shape=
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --conns) conns=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --baseline) baseline=$2; shift 2 ;;
    --filled) filled=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    --varied-names) name_shape=varied; shift ;;
    *) echo "usage: bench/floor.sh [--seconds N] [--conns N] [--reps N] [--baseline BIN] [--filled URL]" \
         "[--engine sqlite|postgres] [--varied-names]" >&2
       exit 2 ;;
  esac
done

bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/floor-XXXXXX")
servers=() schemas=()
base="${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  for schema in "${schemas[@]}"; do psql -q "$base" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1; done
  rm -rf "$dir"
}
trap cleanup EXIT
# A new, empty database named $1 of the engine chosen: its URL in $url.
new_database() {
  if [ "$engine" = postgres ]; then
    local schema="floor_${1}_$$"
    psql -q "$base" -c "CREATE SCHEMA $schema"
    schemas+=("$schema") url="$base?options=-csearch_path%3D$schema"
  else
    url="sqlite://$dir/$1.db"
  fi
}
# A filled file copied just before is still being written back to disk for about half a minute, and
# that writeback would fall on the first repetition's syncs (bench/RESULTS.md, 29 Nov 17:00).
if [ -n "$filled" ]; then sync; fi
new_database after
start_zayavka "$bin" "$url" "$dir/after.log"
servers+=("$server") ports=("$port") names=(after)
if [ -n "$baseline" ]; then
  new_database before
  start_zayavka "$baseline" "$url" "$dir/before.log"
  servers+=("$server") ports+=("$port") names+=(before)
fi
if [ -n "$filled" ]; then
  # A year of leads is kept a year: the hourly chores must not purge it under the load.
  start_zayavka "$bin" "$filled" "$dir/filled.log" ZAYAVKA_RETENTION_DAYS=400 ZAYAVKA_HOLD_DAYS=400
  servers+=("$server") ports+=("$port") names+=(filled)
fi

# PostgreSQL's write-ahead log so far, for the whole cluster (the loads run one at a time): its
# bytes, its full-page images (a page's first change after a checkpoint is logged whole) and its
# checkpoints, which version 17 moved from pg_stat_bgwriter to pg_stat_checkpointer.
if [ "$engine" = postgres ]; then
  checkpoints="SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter"
  if [ "$(psql -Atq "$base" -c "SHOW server_version_num")" -ge 170000 ]; then
    checkpoints="SELECT num_timed + num_requested FROM pg_stat_checkpointer"
  fi
fi
wal_so_far() {
  psql -Atq -F ' ' "$base" -c "SELECT pg_current_wal_lsn() - '0/0', wal_fpi, ($checkpoints) FROM pg_stat_wal"
}
declare -A runs
codes=(67 68 63 66 73 93 95 96 97 98)
for rep in $(seq "$reps"); do
  for i in "${!servers[@]}"; do
    server=${servers[$i]} port=${ports[$i]} name=${names[$i]}
    get=$(wrk_load -s "$BENCH_DIR/lib/wrk-get.lua" "http://127.0.0.1:$port/healthz")
    refused=$(wrk_load -s "$BENCH_DIR/lib/wrk-refused.lua" "http://127.0.0.1:$port/rest/v1/CRN" -- bench-anon-key)
    if [ "$engine" = postgres ]; then wal_before=$(wal_so_far); fi
    # A mobile code of its own each repetition: no insert repeats an earlier phone.
    post=$(wrk_load -s "$BENCH_DIR/lib/wrk-post.lua" "http://127.0.0.1:$port/rest/v1/CRN" \
      -- zayavka bench-anon-key "${codes[$(( (rep - 1) % 10 ))]}" $name_shape)
    runs[$name.get]+="$get,"; runs[$name.refused]+="$refused,"; runs[$name.post]+="$post,"
    wal=
    if [ "$engine" = postgres ]; then
      wal=$(python3 - "$post" $wal_before $(wal_so_far) <<'PY'
import sys
stored = max(float(sys.argv[1].split()[5]), 1)
bytes_, images, checkpoints = (float(b) - float(a) for a, b in zip(sys.argv[2:5], sys.argv[5:8]))
print(f"; WAL per stored insert {bytes_ / stored:,.0f} B, {images / stored:.2f} full-page images"
      f" ({checkpoints:.0f} checkpoints)")
PY
)
    fi
    echo "repetition $rep, $name (requests/s, p99 ms, socket errors, non-2xx, server CPU µs/request):" \
      "GET /healthz $get; POST refused (400) $refused; POST stored (201) $post$wal"
  done
  # The statistics of the leads stored so far, as autovacuum would take them: this project's
  # PostgreSQL runs without it, and a table of leads never analysed is planned as scans of every
  # lead, so the empty schemas slowed repetition by repetition (bench/RESULTS.md, 3 Dec 20:12).
  if [ "$engine" = postgres ]; then psql -q "$base" -c ANALYZE; fi
done
if [ -n "$filled" ]; then
  python3 - "${runs[after.post]}" "${runs[filled.post]}" <<'PY'
import statistics, sys
empty, filled = ([float(run.split()[0]) for run in arg.split(",") if run] for arg in sys.argv[1:3])
ratio = statistics.median(filled) / statistics.median(empty)
verdict = "holds" if ratio >= 0.9 else "falls short"
print(f"stored inserts into the filled database: {statistics.median(filled):,.0f}/s against "
      f"{statistics.median(empty):,.0f}/s into the empty one, {ratio:.2f}× (≥ 0.9×: {verdict})")
# Each repetition's own ratio: the first ones after a start also pay for what the filled file left
# undone (FTS5's pending merges of the name index, bench/RESULTS.md 29 Nov).
print("  each repetition, filled / empty: " + ", ".join(f"{f / e:.2f}" for f, e in zip(filled, empty)))
PY
fi
for i in "${!servers[@]}"; do
  name=${names[$i]}
  rss=$(ps -o rss= -p "${servers[$i]}")
  python3 - "$name" "$conns" "$rss" "$(uptime)" "${runs[$name.get]}" "${runs[$name.refused]}" "${runs[$name.post]}" <<'PY'
import statistics, sys
name, conns, rss, uptime = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def medians(arg):
    runs = [list(map(float, run.split())) for run in arg.split(",") if run]
    return [statistics.median(r[i] for r in runs) for i in (0, 1, 4)]
(get, get_p99, get_cpu), (refused, refused_p99, refused_cpu), (post, post_p99, post_cpu) = map(medians, sys.argv[5:8])
print(f"{name}: {conns} connections, medians (requests/s, p99, server CPU per request):")
print(f"  GET /healthz       {get:>8,.0f}/s  p99 {get_p99:6.2f} ms  CPU {get_cpu:6.1f} µs")
print(f"  POST refused, 400  {refused:>8,.0f}/s  p99 {refused_p99:6.2f} ms  CPU {refused_cpu:6.1f} µs"
      f"  ({refused / get:.2f} of GET's rate, {refused_cpu / get_cpu:.2f}× its CPU)")
print(f"  POST stored, 201   {post:>8,.0f}/s  p99 {post_p99:6.2f} ms  CPU {post_cpu:6.1f} µs"
      f"  ({post / get:.2f} of GET's rate, {post_cpu / get_cpu:.2f}× its CPU)")
verdict = "holds" if post_cpu <= 2.0 * get_cpu else "falls short"
print(f"  an insert costs at most twice a GET (server CPU ≤ 2.0×): {verdict}")
print(f"  server RSS after: {rss / 1024:.1f} MiB; {uptime.strip()}")
PY
done
