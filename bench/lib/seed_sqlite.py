"""Runs one statement that seeds leads into a zayavka SQLite database (read from stdin), as the
server's writer would: with the two functions the schema's index and trigger call, which the
sqlite3 shell does not have (`zayavka_reverse` for the reversed number, `zayavka_fold` for the
name search, the server's lower case for these names), and with the names the inserts queued
indexed before the commit (migration 0023; the writer's `index_queued_names`).

The name index is then merged into one segment (FTS5's 'optimize'). A server's writer merges its
segments while it has nothing else to write (ADR 0061). After one bulk load, once the server's
first commits added segments beside the loaded ones, its merge steps held inserts for 60-90 ms in
`purge.sh`'s first ten seconds, which a year written by the server does not show
(bench/RESULTS.md, 29 Nov 22:48-22:53).

    python3 bench/lib/seed_sqlite.py DATABASE < statement.sql
"""

import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
db.create_function("zayavka_reverse", 1, lambda text: text[::-1], deterministic=True)
db.create_function(
    "zayavka_fold",
    1,
    lambda text: text.lower().replace("ʼ", "'").replace("’", "'").replace("`", "'"),
    deterministic=True,
)
db.execute(sys.stdin.read())
db.execute(
    """INSERT INTO lead_search (rowid, name)
    SELECT queued.id, zayavka_fold(lead.name) FROM names_to_index AS queued JOIN "CRN" AS lead USING (id)"""
)
db.execute("DELETE FROM names_to_index")
db.commit()
db.execute("INSERT INTO lead_search (lead_search) VALUES ('optimize')")
db.commit()
