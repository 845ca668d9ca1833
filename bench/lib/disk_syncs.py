"""How long this disk makes a commit's sync wait, with and without a checkpoint beside it (issue
32, target 3; bench/disk-syncs.sh). A "WAL" of 4 MiB is written 8 KiB at a time, each write
followed by a sync, every 3 ms for SECONDS seconds, as the writer's commits are. With PAGES above
0, a thread beside it writes PAGES random 4 KiB pages into a "database" of 512 MiB and syncs it,
then rests for as long as 8,000 pages take every half second, as the checkpointer does
(ADR 0063). Prints the WAL syncs' p99 and longest, and how many took over 20 and 50 ms.

    python3 bench/lib/disk_syncs.py DIR PAGES SECONDS fsync|fdatasync
"""

import os
import random
import sys
import threading
import time

folder, pages, seconds, how = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
sync = os.fsync if how == "fsync" else os.fdatasync
database = os.open(f"{folder}/database", os.O_RDWR | os.O_CREAT)
os.ftruncate(database, 512 << 20)
wal = os.open(f"{folder}/wal", os.O_RDWR | os.O_CREAT)
os.write(wal, b"\0" * (4 << 20))
os.fsync(wal)
done = threading.Event()
checkpoints = []


def checkpointer():
    page = b"x" * 4096
    while not done.is_set():
        for _ in range(pages):
            os.pwrite(database, page, random.randrange((512 << 20) // 4096) * 4096)
        start = time.perf_counter()
        os.fsync(database)
        checkpoints.append(time.perf_counter() - start)
        done.wait(0.5 * pages / 8000)


beside = threading.Thread(target=checkpointer)
if pages:
    beside.start()
waits, offset, end = [], 0, time.time() + seconds
while time.time() < end:
    os.pwrite(wal, b"y" * 8192, offset)
    offset = (offset + 8192) % (4 << 20)
    start = time.perf_counter()
    sync(wal)
    waits.append(time.perf_counter() - start)
    time.sleep(0.003)
done.set()
if pages:
    beside.join()
waits.sort()
checkpoint = f", the checkpoint's sync {sorted(checkpoints)[len(checkpoints) // 2] * 1000:.0f} ms (median)" if checkpoints else ""
print(
    f"{how}, {pages} pages beside: {len(waits)} WAL syncs, p99 {waits[int(len(waits) * 0.99)] * 1000:.1f} ms, "
    f"longest {waits[-1] * 1000:.1f} ms, {sum(w > 0.02 for w in waits)} over 20 ms, "
    f"{sum(w > 0.05 for w in waits)} over 50 ms{checkpoint}"
)
