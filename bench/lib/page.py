"""bench/page.sh: the landing page (1b): bytes on the wire as served, and Lighthouse (mobile).

A full run fails (exit 1) when the page outgrows its bytes (first paint, JavaScript) or its largest
paint comes later than TARGET_LCP_MS; `--smoke` (one Lighthouse run, in CI) reports them and fails
only when a figure is missing, since one simulated run on a shared machine is no verdict.

Bytes are what curl receives from the server itself (`Accept-Encoding: br`, `gzip`, or none),
bodies and response headers counted apart. Lighthouse runs against the same server with its
default mobile settings (simulated slow 4G, 4x CPU slowdown) in Debian's Chromium; each figure
is the median of the runs. With --baseline BIN a second binary (e.g. the build before a change)
is served beside it and their Lighthouse runs alternate, so before and after come from one run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (run_main, BENCH, OUT, BenchError, log, machine, median, new_workdir,  # noqa: E402
                    print_machine, zayavka_bin, zayavka_identity, remove_workdir, finish, start_zayavka, table,
                    verdict)

TARGET_FIRST_PAINT_BYTES = 14 * 1024   # HTML + CSS, compressed, headers included
# All JavaScript the landing page loads, brotli bodies: 64 KB as issue 23 counts them (its "78 KB"
# were 78,170 bytes). bench/budget.sh fails above it; here it is one target among the others.
TARGET_JS_BYTES = 64_000
TARGET_FCP_MS = 800                    # Lighthouse mobile, simulated, median
TARGET_LCP_MS = 800                    # issue 32: the largest paint is the first one
TARGET_TBT_MS = 50                     # issue 32
TARGET_PERFORMANCE = 100               # issue 32 (issue 23 asked for 98)
TARGET_OTHER = 100                     # accessibility, best practices, SEO

CHROME_FLAGS = ("--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                "--disable-background-networking --disable-component-update --disable-sync")
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
METRICS = {"first-contentful-paint": "FCP", "largest-contentful-paint": "LCP",
           "total-blocking-time": "TBT", "speed-index": "SI", "cumulative-layout-shift": "CLS"}
ENCODINGS = ["identity", "gzip", "br"]
LABELS = {"accessibility": "accessibility", "best-practices": "best practices", "seo": "SEO"}


def fetch(url: str, encoding: str) -> dict:
    """Body and header bytes as received (curl does not decode without --compressed)."""
    argv = ["curl", "-sS", "-o", "-", "-D", "-", "--http1.1", "-w",
            "\n__CURL__ %{http_code} %{size_download} %{size_header}",
            "-H", f"Accept-Encoding: {encoding}", url]
    out = subprocess.run(argv, capture_output=True, timeout=30)
    if out.returncode != 0:
        raise BenchError(f"curl {url}: {out.stderr.decode(errors='replace')}")
    tail = out.stdout.rsplit(b"\n__CURL__ ", 1)[1].decode().split()
    status, body, header = int(tail[0]), int(tail[1]), int(tail[2])
    if status != 200:
        raise BenchError(f"GET {url} answered {status}")
    head = out.stdout[:header].decode("latin-1").lower()
    served = re.search(r"^content-encoding:\s*(\S+)", head, re.M)
    return {"body": body, "headers": header, "encoding": served.group(1) if served else "identity"}


def page_resources(base: str, html: str) -> list[tuple[str, str]]:
    """(kind, path) of every same-origin file the landing page loads by itself."""
    found: list[tuple[str, str]] = []
    for tag in re.findall(r"<(?:script|link)\b[^>]*>", html):
        src = re.search(r'\b(?:src|href)="([^"]+)"', tag)
        if not src or not src.group(1).startswith("/") or src.group(1).startswith("//"):
            continue
        path = src.group(1)
        if tag.startswith("<script"):
            kind = "JS"
        elif re.search(r'rel="stylesheet"', tag):
            kind = "CSS"
        elif re.search(r'rel="modulepreload"', tag):
            kind = "JS"
        elif re.search(r'rel="(?:icon|shortcut icon)"', tag):
            kind = "icon"
        elif re.search(r'rel="(?:preload|manifest)"', tag):
            kind = "other"
        else:
            continue
        if (kind, path) not in found:
            found.append((kind, path))
    # A page's loader (an inline module script) imports its scripts after the first paint.
    for loader in re.findall(r'<script type="module">(.*?)</script>', html, re.S):
        for path in re.findall(r'"(/[^"]+\.js)"', loader):
            if ("JS", path) not in found:
                found.append(("JS", path))
    for style in re.findall(r"<style[^>]*>(.*?)</style>", html, re.S):
        for url in re.findall(r"url\(['\"]?(/[^'\")]+)", style):
            if ("font/image", url) not in found:
                found.append(("font/image", url))
    return found


def measure_bytes(base: str) -> dict:
    import urllib.request
    html = urllib.request.urlopen(base + "/").read().decode()
    inline_css = sum(len(s.encode()) for s in re.findall(r"<style[^>]*>(.*?)</style>", html, re.S))
    resources = [("HTML (inline CSS)", "/")] + page_resources(base, html)
    rows = []
    for kind, path in resources:
        sizes = {enc: fetch(base + path, enc) for enc in ENCODINGS}
        rows.append({"kind": kind, "path": path, **{enc: sizes[enc] for enc in ENCODINGS}})
    for r in rows:
        for enc in ("gzip", "br"):
            r[f"{enc}_served_as"] = r[enc]["encoding"]
    first_paint = [r for r in rows if r["kind"] in ("HTML (inline CSS)", "CSS")]
    return {
        "rows": rows,
        "js_br_body": sum(r["br"]["body"] for r in rows if r["kind"] == "JS"),
        "inline_css_bytes": inline_css,
        "first_paint_br_body": sum(r["br"]["body"] for r in first_paint),
        "first_paint_br_with_headers": sum(r["br"]["body"] + r["br"]["headers"] for r in first_paint),
        "first_paint_gzip_with_headers": sum(r["gzip"]["body"] + r["gzip"]["headers"]
                                             for r in first_paint),
    }


def lighthouse_run(url: str, report: Path) -> dict:
    """One Lighthouse run (a fresh Chromium profile each time); its report is kept for a look."""
    exe = BENCH / "node_modules/.bin/lighthouse"
    if not exe.exists():
        raise BenchError(f"{exe} is missing: bench/page.sh installs it (npm ci in bench/)")
    env = dict(os.environ)
    env.setdefault("CHROME_PATH", "/usr/bin/chromium")
    if not Path(env["CHROME_PATH"]).exists():
        raise BenchError(f"no Chromium at {env['CHROME_PATH']} (CHROME_PATH)")
    report.unlink(missing_ok=True)
    argv = [str(exe), url, "--quiet", "--output=json", f"--output-path={report}",
            f"--chrome-flags={CHROME_FLAGS}", "--form-factor=mobile",
            f"--only-categories={','.join(CATEGORIES)}"]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    # Now and then Chromium's trace misses the navigation's start (NO_NAVSTART, seen once in CI on
    # 2026-11-27, not in six runs after it); Lighthouse's own advice is to run it again, once.
    if out.returncode != 0 and "Please run Lighthouse again" in out.stderr:
        log(f"  lighthouse asked to be run again ({out.stderr.strip().splitlines()[-1][-200:]}); running it again")
        report.unlink(missing_ok=True)
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    if out.returncode != 0 or not report.exists():
        raise BenchError(f"lighthouse failed ({out.returncode}): {out.stderr[-2000:]}")
    lhr = json.loads(report.read_text())
    if lhr.get("runtimeError"):
        raise BenchError(f"lighthouse: {lhr['runtimeError']}")
    r = {c: lhr["categories"][c]["score"] for c in CATEGORIES}
    if any(v is None for v in r.values()):
        raise BenchError(f"lighthouse gave no score: {r}")
    r = {c: round(v * 100) for c, v in r.items()}
    for audit in METRICS:
        r[audit] = lhr["audits"][audit]["numericValue"]
    r["total-byte-weight"] = lhr["audits"]["total-byte-weight"]["numericValue"]
    requests = lhr["audits"]["network-requests"]["details"]["items"]
    r["requests"] = len(requests)
    # What each request was, and at which priority Chromium fetched it: Lighthouse's simulation
    # counts a High or VeryHigh request that finished before the first paint as needed for it.
    r["requests_detail"] = [{"url": q["url"].split("/", 3)[-1], "priority": q.get("priority"),
                             "transferSize": q.get("transferSize")} for q in requests]
    r["failed_audits"] = sorted(
        a["id"] for cat in ("accessibility", "best-practices", "seo")
        for ref in lhr["categories"][cat]["auditRefs"]
        for a in [lhr["audits"][ref["id"]]]
        if ref.get("weight", 0) > 0 and a.get("score") is not None and a["score"] < 1)
    r["lighthouse_version"] = lhr["lighthouseVersion"]
    r["chrome"] = lhr.get("environment", {}).get("hostUserAgent", "")
    r["throttling"] = lhr["configSettings"]["throttlingMethod"]
    return r


def summarize(results: list[dict]) -> dict:
    return {"runs": results,
            "median": {k: median([r[k] for r in results])
                       for k in CATEGORIES + list(METRICS) + ["total-byte-weight", "requests"]}}


def print_bytes(sizes: dict) -> None:
    rows, totals = [], {enc: [0, 0] for enc in ENCODINGS}
    for r in sizes["rows"]:
        cells = [f"{r['kind']} {r['path']}"]
        for enc in ENCODINGS:
            cells.append(f"{r[enc]['body']:,}")
            totals[enc][0] += r[enc]["body"]
            totals[enc][1] += r[enc]["headers"]
        cells.append(f"{r['br']['headers']:,}")
        rows.append(cells)
    rows.append(["total"] + [f"{totals[enc][0]:,}" for enc in ENCODINGS] + [f"{totals['br'][1]:,}"])
    print("bytes on the wire, as served (bodies; response headers apart):")
    print(table(rows, ["file", "uncompressed", "gzip", "br", "headers (br)"]))
    print(f"inline CSS in the HTML: {sizes['inline_css_bytes']:,} bytes uncompressed")
    print(f"first-paint bytes (HTML + CSS, br): {sizes['first_paint_br_body']:,} body, "
          f"{sizes['first_paint_br_with_headers']:,} with headers "
          f"(gzip: {sizes['first_paint_gzip_with_headers']:,} with headers)")
    print(f"all JavaScript of the page (br bodies): {sizes['js_br_body']:,} bytes")
    not_compressed = [f"{r['path']} ({enc})" for r in sizes["rows"] for enc in ("gzip", "br")
                      if r[f"{enc}_served_as"] != enc and r["identity"]["body"] > 1024]
    if not_compressed:
        print("served without the asked encoding: " + ", ".join(not_compressed))


def print_lighthouse(lh: dict) -> None:
    med = lh["median"]
    lrows = [[f"run {i + 1}"] + [str(r[c]) for c in CATEGORIES]
             + [f"{r['first-contentful-paint']:.0f}", f"{r['largest-contentful-paint']:.0f}",
                f"{r['total-blocking-time']:.0f}", f"{r['speed-index']:.0f}",
                f"{r['cumulative-layout-shift']:.3f}", f"{r['total-byte-weight']:,.0f}"]
             for i, r in enumerate(lh["runs"])]
    lrows.append(["median"] + [f"{med[c]:g}" for c in CATEGORIES]
                 + [f"{med['first-contentful-paint']:.0f}", f"{med['largest-contentful-paint']:.0f}",
                    f"{med['total-blocking-time']:.0f}", f"{med['speed-index']:.0f}",
                    f"{med['cumulative-layout-shift']:.3f}", f"{med['total-byte-weight']:,.0f}"])
    print("Lighthouse, mobile (scores 0-100; FCP, LCP, TBT, Speed Index in ms; "
          "bytes as Lighthouse counts them):")
    print(table(lrows, ["", "performance", "accessibility", "best practices", "SEO",
                        "FCP", "LCP", "TBT", "SI", "CLS", "bytes"]))
    first = lh["runs"][0]
    print("requests (Chromium's fetch priority): " + ", ".join(
        f"/{q['url']} {q['priority']}" for q in first["requests_detail"]))
    failed = sorted({a for r in lh["runs"] for a in r["failed_audits"]})
    if failed:
        print("audits not passed (accessibility / best practices / SEO): " + ", ".join(failed))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--smoke", action="store_true",
                    help="one Lighthouse run: checks only that every figure is produced")
    ap.add_argument("--runs", type=int, help="Lighthouse runs (default 3; smoke 1)")
    ap.add_argument("--baseline", metavar="BIN", default=os.environ.get("ZAYAVKA_BASELINE_BIN"),
                    help="another zayavka binary (e.g. before a change), measured in the same run")
    args = ap.parse_args()
    runs = args.runs or (1 if args.smoke else 3)
    m = machine()
    builds = {"zayavka": None}
    if args.baseline:
        builds = {"before": zayavka_bin(args.baseline), "after": None}
    started = time.monotonic()
    work = new_workdir("page-")
    sizes: dict[str, dict] = {}
    results: dict[str, list[dict]] = {name: [] for name in builds}
    try:
        with contextlib.ExitStack() as stack:
            servers = {name: stack.enter_context(start_zayavka(work, f"{name}.db", binary=binary, name=name))
                       for name, binary in builds.items()}
            for name, z in servers.items():
                log(f"page: bytes on the wire ({name})")
                sizes[name] = measure_bytes(z.url(""))
            log(f"page: Lighthouse, {runs} run(s) each" + (", before and after in turn" if args.baseline else ""))
            for i in range(runs):
                for name, z in servers.items():
                    log(f"  lighthouse run {i + 1}/{runs} ({name})")
                    suffix = "" if len(servers) == 1 else f"-{name}"
                    results[name].append(lighthouse_run(z.url("/"), OUT / f"lighthouse{suffix}-{i + 1}.json"))
    finally:
        remove_workdir(work)
    lh = {name: summarize(r) for name, r in results.items()}

    # ---- report
    print()
    print_machine(m)
    first = next(iter(lh.values()))["runs"][0]
    print(f"tools: Lighthouse {first['lighthouse_version']} ({first['throttling']} throttling, "
          f"mobile), {first['chrome'].split(' ')[-2] if first['chrome'] else 'Chromium'}; curl")
    for name, binary in builds.items():
        print(f"{name}: {zayavka_identity(binary)}")
    for name in builds:
        print()
        if len(builds) > 1:
            print(f"== {name}")
        print_bytes(sizes[name])
        print()
        print_lighthouse(lh[name])
    if args.baseline:
        b, a = lh["before"]["median"], lh["after"]["median"]
        print()
        print(table([[label, fmt(b[key]), fmt(a[key])] for label, key, fmt in [
            ("FCP, ms (median)", "first-contentful-paint", lambda v: f"{v:.0f}"),
            ("LCP, ms (median)", "largest-contentful-paint", lambda v: f"{v:.0f}"),
            ("TBT, ms (median)", "total-blocking-time", lambda v: f"{v:.0f}"),
            ("performance (median)", "performance", lambda v: f"{v:g}"),
        ]] + [["JavaScript, br bytes", f"{sizes['before']['js_br_body']:,}", f"{sizes['after']['js_br_body']:,}"],
              ["first-paint bytes (HTML + CSS, br, headers)", f"{sizes['before']['first_paint_br_with_headers']:,}",
               f"{sizes['after']['first_paint_br_with_headers']:,}"]],
            ["before / after", "before", "after"]))
    print()
    print("targets (issues 'Measured speed', 23, 32; [checked]: a full run fails when it falls short):")
    name = list(builds)[-1]
    med, size = lh[name]["median"], sizes[name]
    fp = size["first_paint_br_with_headers"]
    lcp = med["largest-contentful-paint"]
    # (label, holds, figure, whether a full run fails when it falls short)
    targets = [
        (f"first-paint bytes (HTML + CSS, br, headers included) <= {TARGET_FIRST_PAINT_BYTES:,}",
         fp <= TARGET_FIRST_PAINT_BYTES, f"{fp:,} bytes", True),
        (f"all JavaScript of the landing page, br <= {TARGET_JS_BYTES:,}",
         size["js_br_body"] <= TARGET_JS_BYTES, f"{size['js_br_body']:,} bytes", True),
        (f"Lighthouse LCP (median) <= {TARGET_LCP_MS} ms", lcp <= TARGET_LCP_MS, f"{lcp:.0f} ms", True),
        (f"Lighthouse FCP (median) <= {TARGET_FCP_MS} ms", med["first-contentful-paint"] <= TARGET_FCP_MS,
         f"{med['first-contentful-paint']:.0f} ms", False),
        (f"Lighthouse TBT (median) <= {TARGET_TBT_MS} ms", med["total-blocking-time"] <= TARGET_TBT_MS,
         f"{med['total-blocking-time']:.0f} ms", False),
        (f"Lighthouse performance >= {TARGET_PERFORMANCE}", med["performance"] >= TARGET_PERFORMANCE,
         f"{med['performance']:g}", False),
    ] + [(f"Lighthouse {LABELS[c]} = {TARGET_OTHER}", med[c] >= TARGET_OTHER, f"{med[c]:g}", False)
         for c in CATEGORIES[1:]]
    for label, ok, value, enforced in targets:
        print(f"  {verdict(ok):<11}  {label}: {value}" + ("  [checked]" if enforced else ""))
    print(f"\ntook {time.monotonic() - started:.0f} s")
    problems = []
    for name in builds:
        rows = sizes[name]["rows"]
        if not rows or any(r[e]["body"] <= 0 for r in rows for e in ENCODINGS):
            problems.append(f"{name}: a byte count is missing")
        if not any(r["kind"] == "JS" for r in rows):
            problems.append(f"{name}: the page loads no script: the resource list is wrong")
        if not all(lh[name]["median"][k] > 0 for k in ("first-contentful-paint", "largest-contentful-paint")):
            problems.append(f"{name}: Lighthouse gave no paint timings")
    code = finish("page", {"machine": m, "smoke": args.smoke, "bytes": sizes, "lighthouse": lh,
                           "targets": [{"target": n, "holds": ok, "value": v} for n, ok, v, _ in targets]},
                  problems)
    over = [f"{n}: {v}" for n, ok, v, enforced in targets if enforced and not ok]
    if args.smoke:
        # Byte counts do not vary between runs, so the smoke fails on them; timings need a full run.
        timed = [o for o in over if o.startswith("Lighthouse")]
        if timed:
            print("smoke: not checked in one run: " + "; ".join(timed))
        over = [o for o in over if o not in timed]
    if over:
        print("\nTHE PAGE CHECK FAILED:", *over, sep="\n  ", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    run_main(main, "page")
