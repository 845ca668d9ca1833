"""bench/budget.sh: the landing page's JavaScript against its budget (issue 23: 64 KB brotli).

Every script the landing page loads by itself (its module script and the chunks it preloads), as
the server sends them with `Accept-Encoding: br`, summed. Exit 1 when the sum is over the budget:
bench/smoke runs this, so CI fails on the change that makes the landing page's scripts outgrow it.
"""

from __future__ import annotations

import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BenchError, log, new_workdir, remove_workdir, run_main, start_zayavka, table  # noqa: E402
from page import TARGET_JS_BYTES as BUDGET_BYTES, fetch, page_resources  # noqa: E402


def measure(base: str) -> list[dict]:
    html = urllib.request.urlopen(base + "/").read().decode()
    scripts = [path for kind, path in page_resources(base, html) if kind == "JS"]
    if not scripts:
        raise BenchError("the landing page loads no script: the resource list is wrong")
    return [{"path": path, "br": fetch(base + path, "br")} for path in scripts]


def main() -> int:
    work = new_workdir("budget-")
    try:
        with start_zayavka(work) as z:
            log("budget: the landing page's scripts, brotli")
            rows = measure(z.url(""))
    finally:
        remove_workdir(work)
    total = sum(r["br"]["body"] for r in rows)
    cells = [[r["path"], r["br"]["encoding"], f"{r['br']['body']:,}"] for r in rows]
    cells.append(["total", "", f"{total:,}"])
    print("the landing page's JavaScript as served (bodies, Accept-Encoding: br):")
    print(table(cells, ["script", "served as", "bytes"]))
    print(f"budget: {total:,} of {BUDGET_BYTES:,} bytes ({100 * total / BUDGET_BYTES:.1f} %)")
    if total > BUDGET_BYTES:
        print(f"\nOVER BUDGET by {total - BUDGET_BYTES:,} bytes: the landing page's scripts must stay within "
              f"{BUDGET_BYTES:,} bytes brotli. `cd web && npm run analyze` shows what they hold "
              "(dist-stats/stats.html).", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    run_main(main, "budget")
