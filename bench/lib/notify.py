"""bench/notify.sh: does sending notifications slow the visitor's submit?

Durable inserts (POST /rest/v1/CRN, as bench/inserts.sh sends them: every request a new lead with
a phone number of its own) at 16 and 64 connections, against zayavka in three configurations:

  (a) no notification channel;
  (b) a webhook (ZAYAVKA_WEBHOOK_URL) to a fast receiver on 127.0.0.1 that this script starts:
      a small asyncio HTTP/1.1 server answering every POST 200 at once and counting lead_ids;
  (c) a webhook whose receiver is down (a free port nobody listens on: connection refused), so
      every notification fails, the outbox grows and retries run with backoff.

Each repetition runs the three in an order that rotates by one from a repetition to the next,
each on a fresh server and database (started just before its loads, stopped after them): a 1 s
warm-up, then one load per connection count. Figures are medians over repetitions; ratios are
taken between medians of the same run.

For (b), after each load the script waits until the receiver has every lead stored so far and
reports the backlog at the load's end (stored - received) and the drain time: from the end of the
load to the arrival of the last new lead_id. After a clean stop, the receiver's requests and
distinct lead_ids are compared with the leads stored: each lead once.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (run_main, BenchError, ChildProcess, Server, cpu_seconds, fsync_latency_ms, free_port,  # noqa: E402
                    http_status, log, machine, median, new_workdir, print_machine, remove_workdir,
                    thread_cpu_delta, thread_cpu_seconds,
                    finish, table, zayavka_bin, zayavka_env, zayavka_identity)
from inserts import OPERATOR_CODES, measured, run_wrk  # noqa: E402

CONFIGS = ["a", "b", "c"]
LABEL = {"a": "(a) no channel", "b": "(b) webhook, receiver up", "c": "(c) webhook, receiver down"}
DRAIN_TIMEOUT_S = 240.0
# The server's threads by name: tokio's workers and its blocking pool share one.
WRITER_THREAD, TOKIO_THREADS = "sqlite-writer", "tokio-rt-worker"


# ---------------------------------------------------------------- the receiver (its own process)


def receiver_main(port: int) -> None:
    """A webhook receiver: 200 to every POST at once, on keep-alive HTTP/1.1 connections; counts
    requests per lead_id and when each first arrived. GET /stats answers the counts as JSON."""
    counts: dict[int, int] = {}
    events: dict[str, int] = {}
    st = {"requests": 0, "bad": 0, "connections": 0, "first_at": None, "last_at": None,
          "last_new_at": None}
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    def stats() -> dict:
        return st | {"distinct": len(counts), "max_per_lead": max(counts.values(), default=0),
                     "events": events, "clock": time.monotonic()}

    class Conn(asyncio.Protocol):
        def connection_made(self, transport):  # type: ignore[override]
            self.transport = transport
            self.buf = bytearray()
            st["connections"] += 1

        def data_received(self, data: bytes) -> None:
            self.buf += data
            while True:
                end = self.buf.find(b"\r\n\r\n")
                if end < 0:
                    return
                lines = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
                length, close = 0, False
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    name = name.strip().lower()
                    if name == "content-length":
                        length = int(value)
                    elif name == "connection" and value.strip().lower() == "close":
                        close = True
                    elif name == "transfer-encoding":
                        st["bad"] += 1  # zayavka sends a Content-Length
                if len(self.buf) < end + 4 + length:
                    return
                body = bytes(self.buf[end + 4:end + 4 + length])
                del self.buf[:end + 4 + length]
                method, path = (lines[0].split(" ") + ["", ""])[:2]
                if method == "POST":
                    now = time.monotonic()
                    try:
                        message = json.loads(body)
                        lead, event = int(message["lead_id"]), str(message["event"])
                    except (ValueError, KeyError, TypeError):
                        st["bad"] += 1
                    else:
                        st["requests"] += 1
                        events[event] = events.get(event, 0) + 1
                        seen = counts.get(lead, 0)
                        counts[lead] = seen + 1
                        if not seen:
                            st["last_new_at"] = now
                        st["first_at"] = st["first_at"] or now
                        st["last_at"] = now
                    self.transport.write(ok)
                elif path == "/stats":
                    payload = json.dumps(stats()).encode()
                    self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                         b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
                else:
                    self.transport.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                if close:
                    self.transport.close()
                    return

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        stop = loop.create_future()
        loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
        loop.add_signal_handler(signal.SIGINT, stop.set_result, None)
        server = await loop.create_server(Conn, "127.0.0.1", port, backlog=1024)
        async with server:
            await stop

    asyncio.run(serve())


class Receiver(ChildProcess):
    """The receiver above, started as a process of its own (so its CPU is counted apart)."""

    stop_timeout = 10

    def __init__(self, workdir: Path):
        self.port = free_port()
        self._log = open(workdir / "receiver.log", "wb")
        self.proc = subprocess.Popen([sys.executable, __file__, "--receiver", str(self.port)],
                                     stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while http_status(self.port, "/stats", timeout=0.5) != 200:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise BenchError(f"the webhook receiver did not start; log: "
                                 f"{(workdir / 'receiver.log').read_text(errors='replace')[-1000:]}")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def stats(self) -> dict:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", "/stats")
            return json.loads(conn.getresponse().read())
        finally:
            conn.close()



# ---------------------------------------------------------------- servers and readings


def start_server(workdir: Path, config: str, webhook_url: str | None) -> Server:
    port = free_port()
    env = zayavka_env(port, workdir / f"{config}.db")
    for k in [k for k in env if k.lower() in ("http_proxy", "https_proxy", "all_proxy")]:
        del env[k]  # the webhook goes straight to 127.0.0.1
    if webhook_url:
        env["ZAYAVKA_WEBHOOK_URL"] = webhook_url
    return Server(f"zayavka-{config}", [str(zayavka_bin()), "serve"], env, port, "/readyz", workdir)


def db_counts(db: Path) -> dict:
    """Leads, outbox rows, those not sent, and attempts so far (read-only, beside the server)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        leads = conn.execute('SELECT count(*) FROM "CRN"').fetchone()[0]
        outbox, pending, attempts = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE sent_at IS NULL), coalesce(sum(attempts), 0) "
            "FROM outbox").fetchone()
        return {"leads": leads, "outbox": outbox, "pending": pending, "attempts": attempts}
    finally:
        conn.close()


def leads_count(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return conn.execute('SELECT count(*) FROM "CRN"').fetchone()[0]
    finally:
        conn.close()


def metric(server: Server, name: str) -> float:
    """A counter of /metrics (summed over its labels); 0 when it has no sample yet."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    return sum(float(v) for v in re.findall(rf"^{name}(?:\{{[^}}]*\}})? (\S+)$", text, re.M))


def wait_drained(receiver: Receiver, server: Server, db: Path, load_end: float,
                 timeout: float) -> dict:
    """(b) after a load: how far behind the receiver was when the load stopped, and how long
    until it had every lead stored."""
    at_end = receiver.stats()
    cpu0, threads0 = cpu_seconds(server.pid), thread_cpu_seconds(server.pid)
    time.sleep(0.2)  # requests still in flight when wrk stopped are committed by now
    stored = leads_count(db)
    deadline = time.monotonic() + timeout
    while True:
        s = receiver.stats()
        if s["distinct"] >= stored:
            break
        if time.monotonic() > deadline:
            raise BenchError(f"(b): the receiver had {s['distinct']:,} of {stored:,} leads "
                             f"{timeout:g} s after the load")
        time.sleep(0.02)
    cpu1, threads1 = cpu_seconds(server.pid), thread_cpu_seconds(server.pid)
    drain = max(0.0, (s["last_new_at"] or load_end) - load_end)
    backlog = max(0, stored - at_end["distinct"])
    # The last outbox_sent is written just after the receiver's answer.
    while db_counts(db)["pending"] and time.monotonic() < deadline:
        time.sleep(0.02)
    return {"stored": stored, "received_at_end": at_end["distinct"], "backlog_at_end": backlog,
            "drain_s": drain, "drain_rate": backlog / drain if drain > 0 else float("nan"),
            "server_cpu_s_drain": cpu1 - cpu0,
            "threads_cpu_s_drain": thread_cpu_delta(threads0, threads1),
            "requests": s["requests"], "distinct": s["distinct"]}


# ---------------------------------------------------------------- one configuration, one repetition


def run_config(config: str, work: Path, conns_list: list[int], seconds: float, warmup: float,
               drain_timeout: float) -> dict:
    db = work / f"{config}.db"
    out: dict = {"loads": {}, "drain": {}, "warmup_ok": 0}
    receiver = Receiver(work) if config == "b" else None
    try:
        url = receiver.url if receiver else (
            f"http://127.0.0.1:{free_port()}/hook" if config == "c" else None)
        with start_server(work, config, url) as server:
            post = server.url("/rest/v1/CRN")
            codes = iter(OPERATOR_CODES)
            if warmup:
                w = run_wrk(post, "zayavka", 16, warmup, next(codes))
                out["warmup_ok"] = w["ok"]
                if receiver:
                    wait_drained(receiver, server, db, time.monotonic(), drain_timeout)
            for c in conns_list:
                code = next(codes)
                before = db_counts(db)
                failed0 = metric(server, "zayavka_notifications_failed_total")
                log_bytes0 = server.log_path.stat().st_size
                rcpu0 = cpu_seconds(receiver.pid) if receiver else 0.0
                rstats0 = receiver.stats() if receiver else None
                r = measured(server, post, "zayavka", c, seconds, rss=False, code=code)
                load_end = time.monotonic()
                r["receiver_cores"] = ((cpu_seconds(receiver.pid) - rcpu0) / seconds
                                       if receiver else 0.0)
                if receiver:
                    d = wait_drained(receiver, server, db, load_end, drain_timeout)
                    d["stored_in_load"] = d["stored"] - before["leads"]
                    d["received_in_load"] = d["received_at_end"] - rstats0["distinct"]
                    out["drain"][c] = d
                after = db_counts(db)
                r["leads_in_load"] = after["leads"] - before["leads"]
                r["outbox_after"] = after
                r["failed_attempts"] = metric(server, "zayavka_notifications_failed_total") - failed0
                r["log_bytes"] = server.log_path.stat().st_size - log_bytes0
                out["loads"][c] = r
                log(f"    {LABEL[config]:<27} {c:>3} conns: {r['rps']:>8,.0f}/s p99 "
                    f"{r['p99_us'] / 1000:.2f} ms"
                    + (f"; backlog at end {out['drain'][c]['backlog_at_end']:,}, drained in "
                       f"{out['drain'][c]['drain_s']:.2f} s" if receiver else "")
                    + (f"; outbox pending {after['pending']:,}, failed attempts "
                       f"{r['failed_attempts']:,.0f}" if config == "c" else ""))
        # Stopped cleanly: every acknowledged lead stored; for (b), each received once.
        out["final"] = db_counts(db)
        out["acked"] = out["warmup_ok"] + sum(r["ok"] for r in out["loads"].values())
        if receiver:
            out["receiver"] = receiver.stats()
    finally:
        if receiver:
            receiver.stop()
    return out


def ms(us: float) -> str:
    return f"{us / 1000:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true",
                    help="seconds-long run that checks only that every figure is produced")
    ap.add_argument("--seconds", type=float, help="length of each load (default 5; smoke 1)")
    ap.add_argument("--reps", type=int, help="repetitions (default 3; smoke 1)")
    ap.add_argument("--conns", help="connection counts, comma-separated (default 16,64; smoke 16)")
    ap.add_argument("--receiver", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.receiver:
        receiver_main(args.receiver)
        return 0
    seconds = args.seconds or (1.0 if args.smoke else 5.0)
    reps = args.reps or (1 if args.smoke else 3)
    conns_list = [int(c) for c in (args.conns or ("16" if args.smoke else "16,64")).split(",")]
    if len(conns_list) >= len(OPERATOR_CODES):
        raise BenchError(f"at most {len(OPERATOR_CODES) - 1} connection counts")
    warmup = 0.0 if args.smoke else 1.0
    drain_timeout = 30.0 if args.smoke else DRAIN_TIMEOUT_S

    m = machine()
    zayavka_bin()
    ident = zayavka_identity()
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")[0]
    started = time.monotonic()
    disk = fsync_latency_ms(50 if args.smoke else 200)

    log(f"notify: {reps} repetition(s) x 3 configurations x {len(conns_list)} connection counts, "
        f"loads of {seconds:g} s")
    repetitions = []
    for i in range(reps):
        order = CONFIGS[i % 3:] + CONFIGS[:i % 3]
        log(f"repetition {i + 1}/{reps}: order {'-'.join(order)}")
        work = new_workdir("notify-")
        try:
            rep = {"order": order}
            for config in order:
                rep[config] = run_config(config, work, conns_list, seconds, warmup, drain_timeout)
            repetitions.append(rep)
        finally:
            remove_workdir(work)

    # ---- figures
    def med(config: str, c: int, key: str) -> float:
        return median([rep[config]["loads"][c][key] for rep in repetitions])

    def med_thread(config: str, c: int, name: str) -> float:
        return median([rep[config]["loads"][c]["threads_cpu_s"].get(name, 0.0)
                       / (rep[config]["loads"][c]["duration_us"] / 1e6) for rep in repetitions])

    figures: dict = {"per_conns": {}}
    rows, cpu_rows = [], []
    for c in conns_list:
        f = {}
        for config in CONFIGS:
            f[config] = {k: med(config, c, k) for k in
                         ("rps", "p50_us", "p99_us", "server_cpu_us_per_req", "server_cores",
                          "wrk_cores", "receiver_cores", "others_cores", "failed_attempts",
                          "log_bytes")}
            f[config]["writer_cores"] = med_thread(config, c, WRITER_THREAD)
            f[config]["runtime_cores"] = med_thread(config, c, TOKIO_THREADS)
            f[config]["rps_per_rep"] = [rep[config]["loads"][c]["rps"] for rep in repetitions]
        for config in ("b", "c"):
            f[config]["ratio_rps"] = f[config]["rps"] / f["a"]["rps"]
            f[config]["ratio_p99"] = f[config]["p99_us"] / f["a"]["p99_us"]
        if repetitions and "b" in repetitions[0] and repetitions[0]["b"]["drain"]:
            f["b_drain"] = {k: median([rep["b"]["drain"][c][k] for rep in repetitions])
                            for k in ("stored_in_load", "received_in_load", "backlog_at_end",
                                      "drain_s", "drain_rate", "server_cpu_s_drain")}
            for name, key in ((WRITER_THREAD, "writer_cpu_s_drain"), (TOKIO_THREADS, "tokio_cpu_s_drain")):
                f["b_drain"][key] = median([rep["b"]["drain"][c]["threads_cpu_s_drain"].get(name, 0.0)
                                            for rep in repetitions])
        f["c_pending_after"] = median([rep["c"]["loads"][c]["outbox_after"]["pending"]
                                       for rep in repetitions])
        figures["per_conns"][c] = f
        for config in CONFIGS:
            g = f[config]
            rows.append([str(c), LABEL[config], f"{g['rps']:,.0f}", ms(g["p50_us"]), ms(g["p99_us"]),
                         "—" if config == "a" else f"{g['ratio_rps']:.2f}x",
                         "—" if config == "a" else f"{g['ratio_p99']:.2f}x",
                         " / ".join(f"{x:,.0f}" for x in g["rps_per_rep"])])
            cpu_rows.append([str(c), LABEL[config], f"{g['server_cpu_us_per_req']:.0f}",
                             f"{g['server_cores']:.2f}", f"{g['writer_cores']:.2f}",
                             f"{g['writer_cores'] * 1e6 / g['rps']:.0f}",
                             f"{g['runtime_cores']:.2f}", f"{g['wrk_cores']:.2f}",
                             f"{g['receiver_cores']:.2f}",
                             f"{max(0.0, g['others_cores'] - g['receiver_cores']):.2f}"])

    # Sanity: the benchmark broke if a load produced nothing or errors, an acknowledged lead was
    # lost, (b) did not deliver each lead exactly once, or (c) never tried to send.
    problems = []
    for i, rep in enumerate(repetitions, 1):
        for config in CONFIGS:
            run = rep[config]
            for c, r in run["loads"].items():
                if r["requests"] == 0 or r["rps"] <= 0:
                    problems.append(f"rep {i} {LABEL[config]} at {c} connections: no requests")
                if r["errors"]:
                    problems.append(f"rep {i} {LABEL[config]} at {c} connections: {r['errors']} "
                                    f"errors (status {r['err_status']}, timeout {r['err_timeout']})")
            if run["final"]["leads"] < run["acked"]:
                problems.append(f"rep {i} {LABEL[config]}: acknowledged {run['acked']:,} leads but "
                                f"stored {run['final']['leads']:,}")
            leads, outbox = run["final"]["leads"], run["final"]["outbox"]
            if config == "a" and outbox:
                problems.append(f"rep {i} (a): {outbox} outbox rows without a channel")
            if config in ("b", "c") and outbox != leads:
                problems.append(f"rep {i} {LABEL[config]}: {outbox:,} outbox rows for {leads:,} leads")
        b = rep["b"]
        rv = b["receiver"]
        if not (rv["requests"] == rv["distinct"] == b["final"]["leads"]) or rv["bad"] or \
                b["final"]["pending"]:
            problems.append(f"rep {i} (b): {b['final']['leads']:,} leads stored, the receiver got "
                            f"{rv['requests']:,} requests for {rv['distinct']:,} leads "
                            f"({rv['bad']} malformed), {b['final']['pending']:,} not sent")
        if not rep["c"]["final"]["attempts"]:
            problems.append(f"rep {i} (c): no send was attempted")

    # ---- report
    print()
    print_machine(m)
    print(f"tools: {wrk_version}; {ident}")
    print(f"disk under bench/out: 16 KiB append + fsync takes p10 {disk['p10']:.2f} / p50 "
          f"{disk['p50']:.2f} / p90 {disk['p90']:.2f} ms")
    print(f"loads: POST /rest/v1/CRN, every request a new lead; wrk -t2, {seconds:g} s each, "
          f"loopback, median of {reps} repetition(s), the configurations' order rotating per "
          f"repetition; each configuration on a fresh server and database; latencies in ms "
          f"(wrk's histogram); ratios between medians, against (a)")
    print()
    print(table(rows, ["conns", "configuration", "inserts/s", "p50", "p99", "inserts/s vs (a)",
                       "p99 vs (a)", "per repetition /s"]))
    print()
    print("CPU during the loads, in cores (of " f"{os.cpu_count()}), medians; server µs per insert:")
    print(table(cpu_rows, ["conns", "configuration", "server µs/insert", "server", "sqlite-writer",
                           "writer µs/insert", "tokio workers", "wrk", "receiver",
                           "rest of machine"]))
    if "b_drain" in figures["per_conns"][conns_list[0]]:
        print()
        print("(b) the receiver after each load (medians): leads stored during the load, leads it "
              "had received by the load's end, the backlog then, and the drain time from the "
              "load's end to the last lead's arrival:")
        drain_rows = []
        for c in conns_list:
            d = figures["per_conns"][c]["b_drain"]
            per_notification = 1e6 / max(d['backlog_at_end'], 1)
            drain_rows.append([str(c), f"{d['stored_in_load']:,.0f}", f"{d['received_in_load']:,.0f}",
                               f"{d['backlog_at_end']:,.0f}", f"{d['drain_s']:.2f}",
                               f"{d['drain_rate']:,.0f}",
                               f"{d['server_cpu_s_drain'] * per_notification:.0f}",
                               f"{d['writer_cpu_s_drain'] * per_notification:.0f}",
                               f"{d['tokio_cpu_s_drain'] * per_notification:.0f}",
                               " / ".join(f"{rep['b']['drain'][c]['drain_s']:.2f}"
                                          for rep in repetitions)])
        print(table(drain_rows, ["conns", "stored in load", "received by its end", "backlog at end",
                                 "drain s", "drained /s", "server µs/notification in drain",
                                 "of which writer", "of which tokio threads",
                                 "drain s per repetition"]))
    stored_b = sum(rep["b"]["final"]["leads"] for rep in repetitions)
    req_b = sum(rep["b"]["receiver"]["requests"] for rep in repetitions)
    distinct_b = sum(rep["b"]["receiver"]["distinct"] for rep in repetitions)
    print(f"(b) delivery: {stored_b:,} leads stored; the receiver got {req_b:,} requests for "
          f"{distinct_b:,} distinct lead_ids (max per lead "
          f"{max(rep['b']['receiver']['max_per_lead'] for rep in repetitions)}); "
          f"{sum(rep['b']['final']['pending'] for rep in repetitions)} outbox rows unsent")
    print("(c) after each load (medians): outbox rows not sent / failed send attempts during the "
          "load / server log bytes written during the load: " + "; ".join(
              f"{c} conns {figures['per_conns'][c]['c_pending_after']:,.0f} / "
              f"{figures['per_conns'][c]['c']['failed_attempts']:,.0f} / "
              f"{figures['per_conns'][c]['c']['log_bytes']:,.0f}" for c in conns_list))
    acked = sum(rep[k]["acked"] for rep in repetitions for k in CONFIGS)
    stored = sum(rep[k]["final"]["leads"] for rep in repetitions for k in CONFIGS)
    print(f"durability check: {acked:,} inserts acknowledged, {stored:,} stored after clean stops")
    print(f"\ntook {time.monotonic() - started:.0f} s")

    return finish("notify", {"machine": m, "fsync_ms": disk, "smoke": args.smoke,
                             "seconds": seconds, "zayavka": ident, "reps": reps,
                             "figures": figures, "repetitions": repetitions}, problems)


if __name__ == "__main__":
    run_main(main, "notify")
