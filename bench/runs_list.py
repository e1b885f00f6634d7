"""runs_list: ``pairbench runs list --json`` at 10,000 varied runs vs the raw SQLite query.

Both sides run in a fresh interpreter, alternately: the CLI as a user starts it (the
``pairbench`` command, its package compiled to bytecode, as installed), the baseline as
``python -c`` connecting with sqlite3 and fetching the same rows (same columns, same order).
So both pay the interpreter's start, and the ratio shows what Pairbench adds: its imports,
opening the library (checks, migrations) and turning the rows into the JSON text (8 MB),
written in parts. In-process
figures (the services call vs ``fetchall``) are printed for information, and the text is
checked to be ``json.dumps`` of ``run_fields`` of every run, byte for byte.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from bench.cli_start import alternate, compile_pairbench, console_script
from bench.common import Out, Verdict, fmt, median, spread
from bench.runs_library import RUNS, build
from pairbench.export.run_json import run_fields
from pairbench.library import Library
from pairbench.services.runs import find_runs, runs_list_json

NAME = "runs_list"
# `runs list --json` may take this many times as long as the raw query, both in a subprocess.
TARGET_RATIO = 3.0
COLUMNS = (
    "id, pair, tool, tool_version, params, status, started_at, ended_at, summary, "
    "summary_complete, host_facts, label, tags, notes, error"
)
RAW_SQL = f"SELECT {COLUMNS} FROM runs ORDER BY started_at DESC, id DESC"
RAW_SCRIPT = (
    f"import sqlite3, sys\nrows = sqlite3.connect(sys.argv[1]).execute({RAW_SQL!r}).fetchall()"
)


def _in_process(path: Path, repeats: int) -> tuple[list[float], list[float], bool]:
    ours: list[float] = []
    raw: list[float] = []
    with Library.open(path) as lib:
        same = runs_list_json(lib) == json.dumps([run_fields(r) for r in find_runs(lib)])
        conn = sqlite3.connect(path)
        for _ in range(repeats):
            start = time.perf_counter()
            runs_list_json(lib)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            conn.execute(RAW_SQL).fetchall()
            raw.append(time.perf_counter() - start)
        conn.close()
    return ours, raw, same


def run(quick: bool, out: Out) -> Verdict:
    repeats = 5 if quick else 11
    runs = 2_000 if quick else RUNS
    with tempfile.TemporaryDirectory(prefix="pb-bench-runs-") as tmp:
        path = Path(tmp) / "library.sqlite"
        built = build(path, runs)
        Library.open(path).close()  # migrated and checked once, as a user's library is
        compile_pairbench()
        cli, raw = alternate(
            [*console_script(), "--library", str(path), "runs", "list", "--json"],
            [sys.executable, "-c", RAW_SCRIPT, str(path)],
            repeats,
        )
        ours, fetch, same = _in_process(path, repeats)
    ratio = median(cli) / median(raw)
    out(f"  library of {runs} runs built in {built:.1f} s")
    out(f"  raw sqlite3 query in a subprocess (baseline): {spread(raw, 1e3, 'ms')}")
    out(f"  pairbench runs list --json: {spread(cli, 1e3, 'ms')}")
    out(f"  in process: runs_list_json {spread(ours, 1e3, 'ms')}")
    out(f"  in process: fetchall {spread(fetch, 1e3, 'ms')}")
    out(f"  in process ratio: {fmt(median(ours) / median(fetch))}; same text as run_fields: {same}")
    return Verdict(
        NAME,
        ratio,
        TARGET_RATIO,
        "the raw query in a subprocess",
        info=f"CLI {fmt(median(cli) * 1e3)} ms, raw {fmt(median(raw) * 1e3)} ms",
        note="" if same else "OUTPUT DIFFERS from run_fields",
    )
