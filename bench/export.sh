#!/usr/bin/env bash
# The exports of many leads, on SQLite and on PostgreSQL: a database of N leads (default 2,000,000,
# seeded straight into the table with SQL), then per repetition a fresh server and one admin
# download of the inbox's CSV (time, bytes, the server's peak RSS during it: VmHWM, reset after
# signing in), the command line's CSV
# and JSON Lines (time, its own peak RSS), and, when N fits one sheet, the inbox's Excel file.
# Medians over the repetitions; the targets are at least 200,000 leads/s and at most 64 MB of
# server RSS (ADR 0029).
#   bench/export.sh [--leads N] [--reps N] [--engine sqlite|postgres|both]   (or bench/export.sh N)
#   ZAYAVKA_BIN picks the binary; BENCH_PG_URL the PostgreSQL database (default: the local `test`)
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_curl
need_zayavka
need_bench_venv
command -v psql >/dev/null 2>&1 || _apt_install postgresql-client

leads=2000000 reps=3 engines="sqlite postgres"
while [ $# -gt 0 ]; do
  case "$1" in
    --leads) leads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --engine) engines=$([ "$2" = both ] && echo "sqlite postgres" || echo "$2"); shift 2 ;;
    [0-9]*) leads=$1; shift ;;
    *) echo "usage: bench/export.sh [--leads N] [--reps N] [--engine sqlite|postgres|both]" >&2; exit 2 ;;
  esac
done
bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
base="${BENCH_PG_URL:-postgres://postgres@127.0.0.1:5432/test}"
schema="bench_export_$$"
mkdir -p "$BENCH_DIR/out"
dir=$(mktemp -d "$BENCH_DIR/out/export-XXXXXX")
server=
cleanup() {
  [ -n "$server" ] && { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
  psql -q "$base" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
stop() { kill "$server"; wait "$server" 2>/dev/null || true; server=; }
# The server's CPU time so far (user + system), in seconds: a figure the machine's other load
# changes less than the wall-clock time.
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$server/stat"; }
mb() { awk -v key="$1:" '$1 == key { printf "%.1f", $2 / 1024 }' "/proc/$server/status"; }

# N leads sent over the last N seconds (23 days for 2 M: all within the retention time), each with a comment
# and attribution, one in ten held, one in five reached, one in seven a repeat of the lead before.
seed_sqlite() {
  # Through Python: the schema calls functions the sqlite3 shell does not have.
  seed_sqlite_db "$bin" "$1" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $leads)
    INSERT INTO "CRN" (created_at, name, phone, phone_e164, confirmation, comment, policy_version, status,
      reached_at, repeat_of, held, utm_source, utm_medium, referrer)
    SELECT strftime('%Y-%m-%dT%H:%M:%f000Z', 'now', '-' || ($leads - i) || ' seconds'),
      'Олена Шевчук-Коваленко ' || i, '067' || printf('%07d', i), '+38067' || printf('%07d', i), 'Так',
      'Прошу передзвонити після 18:00, цікавить консультація щодо послуги №' || i, 'bench',
      CASE WHEN i % 5 = 0 THEN 'reached' ELSE 'new' END,
      CASE WHEN i % 5 = 0 THEN strftime('%Y-%m-%dT%H:%M:%f000Z', 'now', '-' || ($leads - i - 60) || ' seconds') END,
      CASE WHEN i % 7 = 0 THEN i - 1 END, CASE WHEN i % 10 = 0 THEN 'no_proof' END,
      'google', 'cpc', 'https://example.org/' FROM n
SQL
}
seed_postgres() {
  psql -q "$base" -c "SET search_path = $schema;
    INSERT INTO \"CRN\" (id, created_at, name, phone, phone_e164, confirmation, comment, policy_version, status,
      reached_at, repeat_of, held, utm_source, utm_medium, referrer)
    OVERRIDING SYSTEM VALUE
    SELECT i, now() - make_interval(secs => $leads - i), 'Олена Шевчук-Коваленко ' || i,
      '067' || lpad(i::text, 7, '0'), '+38067' || lpad(i::text, 7, '0'), 'Так',
      'Прошу передзвонити після 18:00, цікавить консультація щодо послуги №' || i, 'bench',
      CASE WHEN i % 5 = 0 THEN 'reached' ELSE 'new' END,
      CASE WHEN i % 5 = 0 THEN now() - make_interval(secs => $leads - i - 60) END,
      CASE WHEN i % 7 = 0 THEN i - 1 END, CASE WHEN i % 10 = 0 THEN 'no_proof' END,
      'google', 'cpc', 'https://example.org/' FROM generate_series(1, $leads) AS i;
    SELECT setval(pg_get_serial_sequence('\"CRN\"', 'id'), $leads); ANALYZE \"CRN\";" >/dev/null
}

median() { python3 -c 'import statistics, sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }
rate() { python3 -c "import sys; print(f'{$leads / float(sys.argv[1]):,.0f}')" "$1"; }

for engine in $engines; do
  if [ "$engine" = sqlite ]; then
    url="sqlite://$dir/leads.db"
  else
    psql -q "$base" -c "CREATE SCHEMA $schema"
    url="$base?options=-csearch_path%3D$schema"
  fi
  # The schema from the binary itself (a first start), then the leads.
  start_zayavka "$bin" "$url" "$dir/seed.log"
  stop
  seeded=$(date +%s.%N)
  if [ "$engine" = sqlite ]; then seed_sqlite "$dir/leads.db"; else seed_postgres; fi
  echo "$engine: $leads leads seeded in $(python3 -c "import time; print(round(time.time() - $seeded))") s"
  echo 'a long enough bench password' | ZAYAVKA_DATABASE_URL="$url" "$bin" admin add-user bench@example.org --password-stdin >/dev/null 2>&1

  inbox_s=() inbox_mb=() inbox_cpu=() cli_csv_s=() cli_csv_mb=() cli_jsonl_s=() cli_jsonl_mb=()
  for rep in $(seq "$reps"); do
    start_zayavka "$bin" "$url" "$dir/server.log"
    curl -sf -c "$dir/jar" -o /dev/null -H 'content-type: application/json' -H "origin: http://127.0.0.1:$port" \
      -d '{"email":"bench@example.org","password":"a long enough bench password"}' "http://127.0.0.1:$port/admin/api/login"
    before=$(mb VmRSS)
    # The peak from here on: signing in (Argon2 takes tens of MB for a moment) is not the export's.
    echo 5 >"/proc/$server/clear_refs"
    cpu_before=$(cpu_s)
    took=$( { /usr/bin/time -f '%e' curl -sf -b "$dir/jar" -o "$dir/out.csv" "http://127.0.0.1:$port/admin/api/export.csv"; } 2>&1 )
    lines=$(($(wc -l <"$dir/out.csv") - 1))
    [ "$lines" -eq "$leads" ] || { echo "bench: the inbox's CSV holds $lines leads, not $leads" >&2; exit 1; }
    inbox_s+=("$took") inbox_mb+=("$(mb VmHWM)")
    inbox_cpu+=("$(python3 -c "print(round($(cpu_s) - $cpu_before, 2))")")
    echo "$engine rep $rep: inbox CSV $(stat -c %s "$dir/out.csv") bytes in $took s (server CPU ${inbox_cpu[-1]} s); server RSS $before MB before, peak ${inbox_mb[-1]} MB"
    if [ "$rep" = 1 ] && [ "$leads" -le 1048575 ]; then
      took=$( { /usr/bin/time -f '%e' curl -sf -b "$dir/jar" -o "$dir/out.xlsx" "http://127.0.0.1:$port/admin/api/export.xlsx"; } 2>&1 )
      echo "$engine rep $rep: inbox Excel $(stat -c %s "$dir/out.xlsx") bytes in $took s; server RSS peak $(mb VmHWM) MB"
    fi
    stop
    for format in csv jsonl; do
      # A failed or cut-short export must not get a figure: its status is kept, its leads counted.
      ZAYAVKA_DATABASE_URL="$url" /usr/bin/time -o "$dir/time" -f '%e %M' "$bin" leads export --format "$format" >"$dir/out.$format" ||
        { echo "bench: zayavka leads export --format $format failed" >&2; exit 1; }
      read -r took kib <"$dir/time"
      lines=$(wc -l <"$dir/out.$format")
      [ "$format" = jsonl ] || lines=$((lines - 1))
      [ "$lines" -eq "$leads" ] || { echo "bench: the command line's $format holds $lines leads, not $leads" >&2; exit 1; }
      echo "$engine rep $rep: command line $format $(stat -c %s "$dir/out.$format") bytes in $took s; its peak RSS $((kib / 1024)) MB"
      if [ "$format" = csv ]; then cli_csv_s+=("$took") cli_csv_mb+=("$((kib / 1024))"); else cli_jsonl_s+=("$took") cli_jsonl_mb+=("$((kib / 1024))"); fi
    done
  done
  s=$(median "${inbox_s[@]}") m=$(median "${inbox_mb[@]}") c=$(median "${inbox_cpu[@]}")
  echo "== $engine, $leads leads, median of $reps: inbox CSV $s s ($(rate "$s") leads/s), server CPU $c s ($(rate "$c") leads per CPU-second), server peak RSS $m MB"
  s=$(median "${cli_csv_s[@]}") m=$(median "${cli_csv_mb[@]}")
  echo "== $engine, $leads leads, median of $reps: command line CSV $s s ($(rate "$s") leads/s), peak RSS $m MB"
  s=$(median "${cli_jsonl_s[@]}") m=$(median "${cli_jsonl_mb[@]}")
  echo "== $engine, $leads leads, median of $reps: command line JSON Lines $s s ($(rate "$s") leads/s), peak RSS $m MB"
done
