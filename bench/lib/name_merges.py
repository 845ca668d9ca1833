"""The name index's merge steps under a stream of small commits, after a bulk seed (issue 32,
target 3; bench/name-merges.sh). An FTS5 table made as migration 0026 makes `lead_search`
(trigrams, no positions, no lengths, secure-delete) gets SEEDED names in one transaction and an
'optimize', as bench/purge.sh seeds its database (lib/seed_sqlite.py). Then COMMITS commits of
PER_COMMIT names each, and after each commit merge steps of 128 pages until FTS5 has nothing left,
as the server's writer merges while no write waits (ADR 0061). The names are purge.sh's: "Давня
Олена N" seeded, "Олена" inserted (lib/wrk-post.lua).

Prints each commit after which a merge step took over 15 ms: how many steps it took, their sum
and the longest. SQLite is pysqlite3-binary's (3.51), near the server's bundled one.

    python3 bench/lib/name_merges.py DATABASE SEEDED COMMITS PER_COMMIT
"""

import sys
import time

import pysqlite3 as sqlite3

path, seeded, commits, per_commit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
# Not the server's FULL: the steps' own work is timed here, not this disk's syncs.
db.execute("PRAGMA synchronous = OFF")
db.execute(
    "CREATE VIRTUAL TABLE lead_search USING fts5("
    "name, content = '', tokenize = 'trigram', detail = 'none', columnsize = 0)"
)
db.execute("INSERT INTO lead_search (lead_search, rank) VALUES ('secure-delete', 1)")


def merge_until_done():
    """The writer's idle merging: 'merge' steps of 128 pages until one changes fewer than two rows."""
    steps = []
    while True:
        before = db.total_changes
        start = time.perf_counter()
        db.execute("INSERT INTO lead_search (lead_search, rank) VALUES ('merge', 128)")
        steps.append((time.perf_counter() - start) * 1000)
        if db.total_changes - before < 2:
            return steps


start = time.perf_counter()
db.execute("BEGIN")
db.executemany(
    "INSERT INTO lead_search (rowid, name) VALUES (?, ?)",
    ((i, f"давня олена {i}") for i in range(1, seeded + 1)),
)
db.execute("COMMIT")
db.execute("INSERT INTO lead_search (lead_search) VALUES ('optimize')")
print(f"seeded {seeded:,} names in {time.perf_counter() - start:.1f} s (SQLite {sqlite3.sqlite_version})")

rowid = seeded + 1
all_steps = []
for commit in range(1, commits + 1):
    db.execute("BEGIN")
    for _ in range(per_commit):
        db.execute("INSERT INTO lead_search (rowid, name) VALUES (?, 'олена')", (rowid,))
        rowid += 1
    db.execute("COMMIT")
    steps = merge_until_done()
    all_steps += steps
    if max(steps) > 15:
        print(
            f"after commit {commit:,}: {len(steps)} merge steps, {sum(steps):.0f} ms in all, "
            f"the longest {max(steps):.1f} ms"
        )
slow = sorted(s for s in all_steps if s > 15)
print(
    f"{commits:,} commits of {per_commit}: {len(all_steps):,} merge steps, {len(slow)} over 15 ms"
    + (f" ({', '.join(f'{s:.0f}' for s in slow[-5:])} ms the longest)" if slow else "")
)
