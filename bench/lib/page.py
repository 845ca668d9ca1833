"""bench/page.sh: the landing page (1b): bytes on the wire as served, and Lighthouse (mobile).

Bytes are what curl receives from the server itself (`Accept-Encoding: br`, `gzip`, or none),
bodies and response headers counted apart. Lighthouse runs against the same server with its
default mobile settings (simulated slow 4G, 4x CPU slowdown) in Debian's Chromium; each figure
is the median of the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (run_main, BENCH, OUT, BenchError, log, machine, median, new_workdir,  # noqa: E402
                    print_machine, zayavka_identity, remove_workdir, finish, start_zayavka, table, verdict)

TARGET_FIRST_PAINT_BYTES = 14 * 1024   # HTML + CSS, compressed, headers included
TARGET_PERFORMANCE = 98
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
        "inline_css_bytes": inline_css,
        "first_paint_br_body": sum(r["br"]["body"] for r in first_paint),
        "first_paint_br_with_headers": sum(r["br"]["body"] + r["br"]["headers"] for r in first_paint),
        "first_paint_gzip_with_headers": sum(r["gzip"]["body"] + r["gzip"]["headers"]
                                             for r in first_paint),
    }


def lighthouse(url: str, runs: int) -> dict:
    exe = BENCH / "node_modules/.bin/lighthouse"
    if not exe.exists():
        raise BenchError(f"{exe} is missing: bench/page.sh installs it (npm ci in bench/)")
    env = dict(os.environ)
    env.setdefault("CHROME_PATH", "/usr/bin/chromium")
    if not Path(env["CHROME_PATH"]).exists():
        raise BenchError(f"no Chromium at {env['CHROME_PATH']} (CHROME_PATH)")
    results = []
    for i in range(runs):
        report = OUT / f"lighthouse-{i + 1}.json"  # kept for a look after the run
        report.unlink(missing_ok=True)
        argv = [str(exe), url, "--quiet", "--output=json", f"--output-path={report}",
                f"--chrome-flags={CHROME_FLAGS}", "--form-factor=mobile",
                f"--only-categories={','.join(CATEGORIES)}"]
        log(f"  lighthouse run {i + 1}/{runs}")
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
        r["requests"] = len(lhr["audits"]["network-requests"]["details"]["items"])
        r["failed_audits"] = sorted(
            a["id"] for cat in ("accessibility", "best-practices", "seo")
            for ref in lhr["categories"][cat]["auditRefs"]
            for a in [lhr["audits"][ref["id"]]]
            if ref.get("weight", 0) > 0 and a.get("score") is not None and a["score"] < 1)
        r["lighthouse_version"] = lhr["lighthouseVersion"]
        r["chrome"] = lhr.get("environment", {}).get("hostUserAgent", "")
        r["throttling"] = lhr["configSettings"]["throttlingMethod"]
        results.append(r)
    return {"runs": results,
            "median": {k: median([r[k] for r in results])
                       for k in CATEGORIES + list(METRICS) + ["total-byte-weight", "requests"]}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--smoke", action="store_true",
                    help="one Lighthouse run: checks only that every figure is produced")
    ap.add_argument("--runs", type=int, help="Lighthouse runs (default 3; smoke 1)")
    args = ap.parse_args()
    runs = args.runs or (1 if args.smoke else 3)
    m = machine()
    ident = zayavka_identity()
    started = time.monotonic()
    work = new_workdir("page-")
    try:
        with start_zayavka(work) as z:
            base = z.url("")
            log("page: bytes on the wire")
            sizes = measure_bytes(base)
            log(f"page: Lighthouse, {runs} run(s)")
            lh = lighthouse(base + "/", runs)
    finally:
        remove_workdir(work)

    # ---- report
    print()
    print_machine(m)
    first = lh["runs"][0]
    print(f"tools: Lighthouse {first['lighthouse_version']} ({first['throttling']} throttling, "
          f"mobile), {first['chrome'].split(' ')[-2] if first['chrome'] else 'Chromium'}; curl")
    print(ident)
    print()
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
    not_compressed = [f"{r['path']} ({enc})" for r in sizes["rows"] for enc in ("gzip", "br")
                      if r[f"{enc}_served_as"] != enc and r["identity"]["body"] > 1024]
    if not_compressed:
        print("served without the asked encoding: " + ", ".join(not_compressed))
    print()
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
    failed = sorted({a for r in lh["runs"] for a in r["failed_audits"]})
    if failed:
        print("audits not passed (accessibility / best practices / SEO): " + ", ".join(failed))
    print()
    print("targets (issue 'Measured speed'):")
    fp = sizes["first_paint_br_with_headers"]
    targets = [
        (f"first-paint bytes (HTML + CSS, br, headers included) <= {TARGET_FIRST_PAINT_BYTES:,}",
         fp <= TARGET_FIRST_PAINT_BYTES, f"{fp:,} bytes"),
        (f"Lighthouse performance >= {TARGET_PERFORMANCE}", med["performance"] >= TARGET_PERFORMANCE,
         f"{med['performance']:g}"),
    ] + [(f"Lighthouse {LABELS[c]} = {TARGET_OTHER}", med[c] >= TARGET_OTHER, f"{med[c]:g}")
         for c in CATEGORIES[1:]]
    for name, ok, value in targets:
        print(f"  {verdict(ok):<11}  {name}: {value}")
    print(f"\ntook {time.monotonic() - started:.0f} s")
    problems = []
    if not sizes["rows"] or any(r[e]["body"] <= 0 for r in sizes["rows"] for e in ENCODINGS):
        problems.append("a byte count is missing")
    if not any(r["kind"] == "JS" for r in sizes["rows"]):
        problems.append("the page loads no script: the resource list is wrong")
    if not all(med[k] > 0 for k in ("first-contentful-paint", "largest-contentful-paint")):
        problems.append("Lighthouse gave no paint timings")
    return finish("page", {"machine": m, "smoke": args.smoke, "bytes": sizes, "lighthouse": lh,
                           "targets": [{"target": n, "holds": ok, "value": v} for n, ok, v in targets]},
                  problems)


if __name__ == "__main__":
    run_main(main, "page")
