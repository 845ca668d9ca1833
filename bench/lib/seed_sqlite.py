"""Runs one statement that seeds leads into a zayavka SQLite database (read from stdin), as the
server's writer would: with the two functions the schema's index and trigger call, which the
sqlite3 shell does not have (`zayavka_reverse` for the reversed number, `zayavka_fold` for the
name search, the server's lower case for these names), and with the names the inserts queued
indexed before the commit (migrations 0023 and 0027; the writer's `names::index_queued`), and
their words left for the store to count when it next opens.

Each part of the name index is then merged into one segment (FTS5's 'optimize'). A server's
writer merges its segments while it has nothing else to write (ADR 0061). After one bulk load,
once the server's first commits added segments beside the loaded ones, its merge steps held
inserts for 60-90 ms in `purge.sh`'s first ten seconds, which a year written by the server does
not show (bench/RESULTS.md, 29 Nov 22:48-22:53).

SQLite is pysqlite3-binary's (3.51, bench/requirements.txt): the sqlite3 module's 3.40 cannot set
FTS5's 'secure-delete' on a new part.

    bench/.venv/bin/python bench/lib/seed_sqlite.py DATABASE < statement.sql
    ZAYAVKA_DATABASE_URL=sqlite://DATABASE zayavka admin users   # counts the words, then serve
"""

import sys

import pysqlite3 as sqlite3

db = sqlite3.connect(sys.argv[1])
db.create_function("zayavka_reverse", 1, lambda text: text[::-1], deterministic=True)
db.create_function(
    "zayavka_fold",
    1,
    lambda text: text.lower().replace("ʼ", "'").replace("’", "'").replace("`", "'"),
    deterministic=True,
)
db.execute(sys.stdin.read())
# The writer's `names::index_queued`: each queued name into its part of the index, one FTS5 table
# a part of PART_IDS ids (migration 0027), made as the writer makes it.
PART_IDS = 100_000
parts = [row[0] for row in db.execute(f"SELECT DISTINCT id / {PART_IDS} FROM names_to_index")]
for part in parts:
    table = f"lead_names_{part}"
    if db.execute("SELECT 1 FROM lead_name_parts WHERE part = ?", (part,)).fetchone() is None:
        db.execute(
            f"CREATE VIRTUAL TABLE {table} USING fts5("
            "name, content = '', tokenize = 'trigram', detail = 'none', columnsize = 0)"
        )
        db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1)")
        db.execute("INSERT INTO lead_name_parts (part) VALUES (?)", (part,))
    db.execute(
        f"""INSERT INTO {table} (rowid, name)
        SELECT queued.id, zayavka_fold(lead.name) FROM names_to_index AS queued JOIN "CRN" AS lead USING (id)
        WHERE queued.id >= ? AND queued.id < ?""",
        (part * PART_IDS, (part + 1) * PART_IDS),
    )
db.execute("DELETE FROM names_to_index")
# The words of the names (migrations 0030, 0031) are counted by the store the next time it opens
# (`name_words::count_left`), as for names stored before those migrations: the caller opens it
# once (`zayavka admin users`). That count takes every name, so the seed is for a database with no
# leads before it, as the benches make. Uncounted, the purge's first deleted name took a word out of an
# index that never held it, and SQLite called the file malformed (5 Dec).
db.execute("INSERT OR IGNORE INTO name_words_to_count (migration) VALUES (31)")
db.commit()
for part in parts:
    db.execute(f"INSERT INTO lead_names_{part} (lead_names_{part}) VALUES ('optimize')")
db.commit()
