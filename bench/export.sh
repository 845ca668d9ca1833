#!/usr/bin/env bash
# The inbox's exports of many leads: for each format, a fresh server on a SQLite file of N leads
# (default 100,000, seeded straight into the table), one admin download, and the server's RSS
# before it, its peak during it (VmHWM) and after; the file's size and the time it took.
#   bench/export.sh [N]
set -euo pipefail
source "$(dirname "$0")/lib/setup.sh"
need_curl
need_zayavka
command -v sqlite3 >/dev/null 2>&1 || _apt_install sqlite3
bin="${ZAYAVKA_BIN:-$REPO_DIR/target/release/zayavka}"
leads="${1:-100000}"
dir=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$dir"' EXIT
url="sqlite://$dir/leads.db"

# The schema from the binary itself (a first start), then the leads, all within the retention time.
start_zayavka "$bin" "$url" "$dir/seed.log"
kill "$server"; wait "$server" 2>/dev/null || true
sqlite3 "$dir/leads.db" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $leads)
  INSERT INTO \"CRN\" (created_at, name, phone, phone_e164, confirmation, comment, policy_version, utm_source, referrer)
  SELECT strftime('%Y-%m-%dT%H:%M:%f000Z', 'now', '-' || (i * 10) || ' seconds'), 'Олена Шевчук-Коваленко ' || i,
    '067' || printf('%07d', i), '+38067' || printf('%07d', i), 'Так',
    'Прошу передзвонити після 18:00, цікавить консультація щодо послуги №' || i, 'bench', 'google',
    'example.org' FROM n ORDER BY i DESC;"
echo 'a long enough bench password' | ZAYAVKA_DATABASE_URL="$url" "$bin" admin add-user bench@example.org --password-stdin >/dev/null 2>&1

kib() { awk -v key="$1:" '$1 == key { printf "%d", $2 / 1024 }' "/proc/$server/status"; }
for format in xlsx csv; do
  start_zayavka "$bin" "$url" "$dir/$format.log"
  curl -sf -c "$dir/jar" -o /dev/null -H 'content-type: application/json' -H "origin: http://127.0.0.1:$port" \
    -d '{"email":"bench@example.org","password":"a long enough bench password"}' "http://127.0.0.1:$port/admin/api/login"
  before=$(kib VmRSS)
  took=$( { /usr/bin/time -f '%e' curl -sf -b "$dir/jar" -o "$dir/out.$format" "http://127.0.0.1:$port/admin/api/export.$format"; } 2>&1 )
  printf '%s: %d leads, %s bytes in %s s; RSS %s MB before, peak %s MB, %s MB after\n' "$format" "$leads" \
    "$(stat -c %s "$dir/out.$format")" "$took" "$before" "$(kib VmHWM)" "$(kib VmRSS)"
  kill "$server"; wait "$server" 2>/dev/null || true
done
