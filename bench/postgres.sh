#!/usr/bin/env bash
# zayavka's durable insert on PostgreSQL against PostgreSQL's own floor on this machine: `pgbench`
# inserting one row per transaction into the same "CRN" table (same columns, indexes and
# constraints, made by zayavka's migrations), at the same concurrency. Alternating loads, medians,
# their ratio.
#   bench/postgres.sh [--seconds 5] [--conns 64] [--reps 3] [--smoke]
#   ZAYAVKA_BIN picks the binary; BENCH_PG_URL the database (default: the local `test` database)
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_wrk
need_curl
need_zayavka
command -v pgbench >/dev/null 2>&1 || _apt_install postgresql-contrib
command -v psql >/dev/null 2>&1 || _apt_install postgresql-client

seconds=5 conns=64 reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --conns) conns=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --smoke) seconds=1 conns=8 reps=1; shift ;;
    *) echo "usage: bench/postgres.sh [--seconds N] [--conns N] [--reps N] [--smoke]" >&2; exit 2 ;;
  esac
done

bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
base="${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
schema="bench_$$"
dir=$(mktemp -d)
psql -q "$base" -c "CREATE SCHEMA $schema"
server=
cleanup() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
  psql -q "$base" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
start_zayavka "$bin" "$base?options=-csearch_path%3D$schema" "$dir/log"

# pgbench's transaction: the lead's row as zayavka writes it, a phone of its own each time.
cat >"$dir/insert.sql" <<'SQL'
\set n random(1000000, 9999999)
INSERT INTO "CRN" (name, phone, phone_e164, confirmation, comment, policy_version)
  VALUES ('Олена', '+38050' || :n, '+38050' || :n, 'Так', NULL, 'bench');
SQL

# "transactions/s p99_ms failures 0" from pgbench, in wrk_load's shape (-j 1 like wrk's one thread; prepared statements).
pgbench_load() {
  PGOPTIONS="-c search_path=$schema" pgbench -n -M prepared -c "$conns" -j 1 -T "$seconds" \
    -f "$dir/insert.sql" -l --log-prefix="$dir/latency" "$base" >"$dir/pgbench.out" 2>&1 \
    || { cat "$dir/pgbench.out" >&2; return 1; }
  python3 - "$dir" <<'PY'
import glob, re, sys
out = open(f"{sys.argv[1]}/pgbench.out").read()
tps = float(re.search(r"tps = ([0-9.]+) \(without initial connection time\)", out).group(1))
failed = int(re.search(r"number of failed transactions: (\d+)", out).group(1))
latencies = sorted(int(line.split()[2]) for path in glob.glob(f"{sys.argv[1]}/latency.*") for line in open(path))
print(f"{tps:.0f} {latencies[int(len(latencies) * 0.99)] / 1000:.2f} {failed} 0")
PY
  rm -f "$dir"/latency.*
}

zayavka=() pg=()
codes=(67 68 63 66 73 93 95 96 97 98)
for rep in $(seq "$reps"); do
  zayavka+=("$(wrk_load -s "$BENCH_DIR/lib/wrk-post.lua" "http://127.0.0.1:$port/rest/v1/CRN" \
    -- zayavka bench-anon-key "${codes[$(( (rep - 1) % 10 ))]}")")
  pg+=("$(pgbench_load)")
  echo "repetition $rep (per second, p99 ms, errors, non-2xx): zayavka POST ${zayavka[-1]}; pgbench INSERT ${pg[-1]}"
done
stored=$(psql -qtA "$base" -c "SELECT count(*) FROM $schema.\"CRN\"")
python3 - "$conns" "$stored" "$(IFS=,; echo "${zayavka[*]}")" "$(IFS=,; echo "${pg[*]}")" <<'PY'
import statistics, sys
conns, stored = sys.argv[1], int(sys.argv[2])
runs = {name: [list(map(float, run.split())) for run in arg.split(",")]
        for name, arg in (("zayavka", sys.argv[3]), ("pgbench", sys.argv[4]))}
errors = sum(run[2] + run[3] for r in runs.values() for run in r)
median = {name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)) for name, rs in runs.items()}
print(f"{conns} connections, PostgreSQL, medians:")
print(f"  zayavka POST /rest/v1/CRN   {median['zayavka'][0]:>8,.0f}/s  p99 {median['zayavka'][1]:.2f} ms")
print(f"  pgbench one-row INSERT      {median['pgbench'][0]:>8,.0f}/s  p99 {median['pgbench'][1]:.2f} ms")
print(f"  zayavka / pgbench {median['zayavka'][0] / median['pgbench'][0]:.2f}; {stored:,} rows stored in all")
if errors or min(median[n][0] for n in median) <= 0:
    sys.exit(f"postgres: {errors:.0f} errors or a load with no requests")
PY
