"""bench/profile.sh: where an insert's time goes, under the 64-connection insert load.

Not a benchmark with targets: it gathers the evidence behind RESULTS.md's notes. While wrk runs
POST /rest/v1/CRN at 64 connections against a fresh zayavka, it counts the server's system calls
(perf tracepoints), samples its CPU (perf, cpu-clock; the release binary is stripped, so its own
code shows as one block beside the kernel's and libc's named functions), splits its CPU time by
thread from /proc, and counts the rows the window stored.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (run_main, ANON_KEY, BENCH, OUT, BenchError, log, machine, new_workdir,  # noqa: E402
                    print_machine, remove_workdir, start_zayavka, thread_cpu_seconds)
from inserts import WRK_POST, count_rows, run_wrk  # noqa: E402

SYSCALLS = ["fdatasync", "fsync", "pwrite64", "pread64", "write", "writev", "sendto", "read",
            "recvfrom", "epoll_wait", "epoll_pwait", "futex", "sched_yield", "accept4", "openat",
            "fcntl", "close"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=6.0, help="length of the measured window")
    ap.add_argument("--conns", type=int, default=64)
    args = ap.parse_args()
    window = args.seconds
    print_machine(machine())
    work = new_workdir("profile-")
    try:
        with start_zayavka(work) as z:
            url = z.url("/rest/v1/CRN")
            run_wrk(url, "zayavka", 16, 1, "50")  # warm-up: the phone metadata, the page cache
            wrk = subprocess.Popen(
                ["wrk", "-t2", f"-c{args.conns}", f"-d{window + 2:g}s", "--timeout", "10s",
                 "-s", str(WRK_POST), url, "--", "zayavka", ANON_KEY, "67"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(1.0)
            db = work / "b.db"
            rows0, threads0 = count_rows(db, "CRN"), thread_cpu_seconds(z.pid)
            events = ",".join(f"syscalls:sys_enter_{s}" for s in SYSCALLS)
            perf_data = OUT / "perf.data"
            stat = subprocess.Popen(["perf", "stat", "-x", ",", "-e", events, "-p", str(z.pid),
                                     "--", "sleep", f"{window:g}"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            record = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", "1999",
                                       "-p", str(z.pid), "-o", str(perf_data), "--", "sleep",
                                       f"{window:g}"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            _, stat_err = stat.communicate()
            record.communicate()
            rows1, threads1 = count_rows(db, "CRN"), thread_cpu_seconds(z.pid)
            wrk.communicate()
    finally:
        remove_workdir(work)

    inserts = rows1 - rows0
    if inserts <= 0:
        raise BenchError("no insert was stored during the window")
    counts = {}
    for line in stat_err.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[2].startswith("syscalls:sys_enter_"):
            counts[parts[2].removeprefix("syscalls:sys_enter_")] = (
                int(parts[0]) if parts[0].isdigit() else 0)
    print(f"\nwindow: {window:g} s at {args.conns} connections: {inserts:,} inserts stored "
          f"({inserts / window:,.0f}/s)")
    syncs = counts.get("fdatasync", 0) + counts.get("fsync", 0)
    if syncs:
        print(f"commits (fsync + fdatasync): {syncs:,} = {syncs / window:,.0f}/s; "
              f"{inserts / syncs:.1f} inserts per commit")
    print("system calls per insert: " + ", ".join(
        f"{name} {n / inserts:.2f}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n))
    cpu = {k: v - threads0.get(k, 0.0) for k, v in threads1.items()}
    total = sum(cpu.values())
    print(f"server CPU: {total:.2f} s in the window = {total / window * 100:.0f}% of one core, "
          f"{total * 1e6 / inserts:.0f} µs per insert; by thread: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1]) if v))

    def report(sort: str, limit: int) -> list[str]:
        out = subprocess.run(["perf", "report", "-i", str(perf_data), "--stdio", "--no-children",
                              "--sort", sort, "--percent-limit", "0.8"],
                             capture_output=True, text=True)
        lines = [line for line in out.stdout.splitlines() if line.strip() and not line.startswith("#")]
        return lines[:limit]

    print("\nCPU samples by object (perf, cpu-clock):")
    print("\n".join(report("dso", 8)))
    print("\nCPU samples by function (the stripped binary's own code is unnamed):")
    print("\n".join(report("dso,sym", 30)))
    return 0


if __name__ == "__main__":
    run_main(main, "profile")
