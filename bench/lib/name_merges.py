"""The name index's merge steps under a stream of small commits, after a bulk seed (issue 32,
target 3; bench/name-merges.sh). The index is made as the server makes it: FTS5 tables of trigrams
without positions or lengths, with secure-delete, each holding a part of PART_IDS rowids
(`lead_names_<rowid / PART_IDS>`, migration 0027); PART_IDS 0 makes the one index of every name
that migration 0026 made. SEEDED names go in in one transaction and each part is 'optimize'd, as
bench/purge.sh seeds its database (lib/seed_sqlite.py). Then COMMITS commits of PER_COMMIT names
each, and after each commit merge steps of 128 pages on the part it wrote until FTS5 has nothing
left, as the server's writer merges while no write waits (ADR 0061); when a commit made a part,
steps of -32 pages on the part before it until it is one segment (ADR 0068). The names are purge.sh's:
"Давня Олена N" seeded, "Олена" inserted (lib/wrk-post.lua).

Prints each commit after which a merge step took over 15 ms: how many steps it took, their sum
and the longest. SQLite is pysqlite3-binary's (3.51), near the server's bundled one.

    python3 bench/lib/name_merges.py DATABASE SEEDED COMMITS PER_COMMIT PART_IDS
"""

import sys
import time

import pysqlite3 as sqlite3

path, seeded, commits, per_commit, part_ids = sys.argv[1], *map(int, sys.argv[2:6])
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA journal_mode = WAL")
# Not the server's FULL: the steps' own work is timed here, not this disk's syncs.
db.execute("PRAGMA synchronous = OFF")
made = set()


def table(rowid):
    """The table that holds `rowid`, made as the writer makes a part."""
    name = f"lead_names_{rowid // part_ids}" if part_ids else "lead_search"
    if name not in made:
        db.execute(
            f"CREATE VIRTUAL TABLE {name} USING fts5("
            "name, content = '', tokenize = 'trigram', detail = 'none', columnsize = 0)"
        )
        db.execute(f"INSERT INTO {name} ({name}, rank) VALUES ('secure-delete', 1)")
        made.add(name)
    return name


def merge_until_done(name, pages=128):
    """The writer's idle merging: 'merge' steps of `pages` until one changes fewer than two rows (a
    negative number for a closed part: every level into one segment)."""
    steps = []
    while True:
        before = db.total_changes
        start = time.perf_counter()
        db.execute(f"INSERT INTO {name} ({name}, rank) VALUES ('merge', ?)", (pages,))
        steps.append((time.perf_counter() - start) * 1000)
        if db.total_changes - before < 2:
            return steps


start = time.perf_counter()
db.execute("BEGIN")
for rowid in range(1, seeded + 1):
    db.execute(f"INSERT INTO {table(rowid)} (rowid, name) VALUES (?, ?)", (rowid, f"давня олена {rowid}"))
db.execute("COMMIT")
for name in made:
    db.execute(f"INSERT INTO {name} ({name}) VALUES ('optimize')")
shape = f"parts of {part_ids:,} ids" if part_ids else "one index"
print(f"seeded {seeded:,} names ({shape}) in {time.perf_counter() - start:.1f} s (SQLite {sqlite3.sqlite_version})")

rowid = seeded + 1
all_steps = []
for commit in range(1, commits + 1):
    written = set()
    made_before = set(made)
    db.execute("BEGIN")
    for _ in range(per_commit):
        name = table(rowid)
        db.execute(f"INSERT INTO {name} (rowid, name) VALUES (?, 'олена')", (rowid,))
        written.add(name)
        rowid += 1
    db.execute("COMMIT")
    steps = [step for name in sorted(written) for step in merge_until_done(name)]
    closed = [f"lead_names_{int(name.rsplit('_', 1)[1]) - 1}" for name in made - made_before if part_ids]
    for name in (name for name in closed if name in made):
        closed_steps = merge_until_done(name, -32)
        print(f"after commit {commit:,}: {name} closed, merged into one segment in {len(closed_steps)} "
              f"steps, {sum(closed_steps):.0f} ms in all, the longest {max(closed_steps):.1f} ms")
        steps += closed_steps
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
    + f"; the longest step {max(all_steps):.1f} ms, the median {sorted(all_steps)[len(all_steps) // 2]:.2f} ms"
)
