#!/usr/bin/env bash
# What each part of the schema costs an insert (issue 32, target 5): the store's own CPU time a
# lead, with no HTTP (`scale fill`'s inserts: the store and SQLite on one process), into a new
# SQLite database with the whole schema, and into new databases with one part dropped before the
# fill. The differences are what the inbox's fast reads (counters, name search, the call desk's
# indexes) ask of every insert. Variants alternate within each repetition; medians.
#   bench/parts.sh [--leads 100000] [--reps 3]
#   (ZAYAVKA_BIN and SCALE_BIN pick the binaries: target/release/zayavka, target/release/examples/scale)
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_zayavka
command -v sqlite3 >/dev/null 2>&1 || _apt_install sqlite3

leads=100000 reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --leads) leads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: bench/parts.sh [--leads N] [--reps N]" >&2; exit 2 ;;
  esac
done
zayavka="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
scale="${SCALE_BIN:-$REPO_DIR/target/release/examples/scale}"
[ -x "$scale" ] || (cd "$REPO_DIR" && cargo build --release --locked --example scale >&2)

# Each variant: a name and the SQL that drops its part from a new database.
call_desk='DROP INDEX "CRN_next_call_at"; DROP INDEX "CRN_to_call"; DROP INDEX "CRN_to_call_by";
  DROP INDEX "CRN_call_order"; DROP INDEX "CRN_to_escalate"; DROP INDEX "CRN_call_back_to_tell";
  DROP INDEX "CRN_to_call_sent";'
counters='DROP TRIGGER counters_lead_insert;'
names='DROP TRIGGER lead_names_insert;'
reversed='DROP INDEX "CRN_month_phone_reversed";'
variants=(
  "whole schema|"
  "without the counters' insert trigger|$counters"
  "without the name search's queue|$names"
  "without the call desk's 7 indexes|$call_desk"
  "without the reversed phone index|$reversed"
  "without all four|$counters $names $call_desk $reversed"
)

out="$BENCH_DIR/out/parts-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$out"
# A database with today's schema and no lead: what the server makes at its first start.
touch "$out/new.db"
ZAYAVKA_DATABASE_URL="sqlite://$out/new.db" "$zayavka" leads figures >/dev/null 2>&1
for rep in $(seq "$reps"); do
  for i in "${!variants[@]}"; do
    drop="${variants[$i]#*|}"
    rm -f "$out"/fill.db*
    cp "$out/new.db" "$out/fill.db"
    [ -z "$drop" ] || sqlite3 "$out/fill.db" "$drop"
    "$scale" fill "sqlite://$out/fill.db" --leads "$leads" --seed "$rep" --leads-only 2>/dev/null |
      sed -n 's/^inserts: \([0-9]*\) leads\/s, \([0-9.]*\) µs of CPU a lead$/\1 \2/p' >>"$out/$i.txt"
  done
done
rm -f "$out"/fill.db* "$out/new.db"

median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "$leads leads into a new SQLite database, $reps repetitions, medians (raw: $out)"
printf '%-40s %12s %16s\n' "schema" "leads/s" "CPU µs a lead"
for i in "${!variants[@]}"; do
  [ "$(wc -l <"$out/$i.txt")" = "$reps" ] || { echo "bench: a fill printed no figures ($out/$i.txt)" >&2; exit 1; }
  rate=$(cut -d' ' -f1 "$out/$i.txt" | median)
  cpu=$(cut -d' ' -f2 "$out/$i.txt" | median)
  printf '%-40s %12s %16s\n' "${variants[$i]%%|*}" "$rate" "$cpu"
done
