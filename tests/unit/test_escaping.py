"""Hostile labels stay harmless everywhere: escaping per format, and every export and CLI text
output fuzzed with hostile labels, notes, tags and names in a real library."""

from __future__ import annotations

import csv
import io
import re
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compare_runs import DAY, store_run
from pairbench.analysis.compare import Comparison, compare
from pairbench.analysis.compare_runs import GroupBy
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.export.bundle import write_bundle
from pairbench.export.escaping import (
    CSV_FORMULA_STARTS,
    csv_cell,
    csv_field,
    csv_line,
    csv_text_value,
    html_text,
    markdown_cell,
    markdown_row,
    markdown_text,
    terminal_text,
)
from pairbench.export.runs_csv import runs_csv
from pairbench.export.selection import load_inputs
from pairbench.export.table_render import comparison_csv, to_html, to_markdown
from pairbench.export.tables import comparison_report
from pairbench.library import Library
from pairbench.library.hosts import add_host, add_pair
from pairbench.library.runs import get_run

# Every character a terminal must never receive raw (newline aside: the CLI's own line ends):
# C0, DEL, C1, line separators, bidi controls, lone surrogates, U+FFFE and U+FFFF.
TERMINAL_UNSAFE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufffe\uffff]"
)
# The same for text files (Markdown, HTML): tab, newline and carriage return aside.
FILE_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
SCRIPT = re.compile("<script", re.IGNORECASE)
RUNS_LIST_WIDTH = 170  # id 12, started 19, pair 32, tool 12, status 11, result 24, label 48 + gaps


# --- the functions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain label", "plain label"),
        ("a|b", "a\\|b"),
        ("back\\slash", "back\\\\slash"),
        ("two\nlines\r\nthree\rfour", "two<br>lines<br>three<br>four"),
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        ("a & b", "a &amp; b"),
        ("[click](javascript:x)", "\\[click\\](javascript:x)"),
        ("![img](http://e.vil/i.png)", "!\\[img\\](http://e.vil/i.png)"),
        ("`code` *em* _em_ ~del~", "\\`code\\` \\*em\\* \\_em\\_ \\~del\\~"),
        ("\x1b[31mred", "\\\\x1b\\[31mred"),
        ("nul\x00", "nul\\\\x00"),
        ("- 1. # not a list in a cell", "- 1. # not a list in a cell"),
    ],
)
def test_markdown_cell(text: str, expected: str) -> None:
    assert markdown_cell(text) == expected


def test_markdown_row_and_text() -> None:
    assert markdown_row(["a|b", "c"]) == "| a\\|b | c |"
    assert markdown_text("two\nlines") == "two lines"
    assert markdown_text("# not a heading") == "\\# not a heading"
    assert markdown_text("- not a list") == "\\- not a list"
    assert markdown_text("+ not a list") == "\\+ not a list"
    assert markdown_text("12. not a list") == "12\\. not a list"
    assert markdown_text("---") == "\\---"
    assert markdown_text("mid-word - stays") == "mid-word - stays"
    assert markdown_text("<b>x</b>") == "&lt;b&gt;x&lt;/b&gt;"


def test_html_text() -> None:
    assert html_text("<script>\"x\" & 'y'</script>") == (
        "&lt;script&gt;&quot;x&quot; &amp; &#x27;y&#x27;&lt;/script&gt;"
    )
    assert html_text("tab\tnew\nline\r") == "tab\tnew\nline\r"  # whitespace in HTML
    assert html_text("\x1b[31m\x00\u202e\uffff") == "\\x1b[31m\\x00\\u202e\\uffff"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-", "'-"),
        ("-inf", "'-inf"),  # as text: a spreadsheet would read a formula
        ("'quoted", "''quoted"),  # one more quote, so reading back is unambiguous
        ("-3.5", "-3.5"),  # a plain number as text stays a number
        ("+1e9", "+1e9"),
        ("-.5", "-.5"),
        (-3.5, "-3.5"),
        (float("-inf"), "-inf"),  # a real number is never quoted
        (42, "42"),
        (None, ""),
        ("", ""),
        ("safe = text", "safe = text"),
    ],
)
def test_csv_cell(value: str | float | None, expected: str) -> None:
    assert csv_cell(value) == expected


def test_csv_line_quotes_what_would_break_the_row() -> None:
    line = csv_line(["a\rb", 'say "hi"', "x,y", "=1", -1.5, None, 3])
    assert line == '"a\rb","say ""hi""","x,y",\'=1,-1.5,,3\n'
    expected = ["a\rb", 'say "hi"', "x,y", "'=1", "-1.5", "", "3"]
    assert next(csv.reader(io.StringIO(line, newline=""))) == expected
    assert csv_field("plain") == "plain"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("a\nb\r\nc\td", "a\\nb\\r\\nc\\td"),
        ("\x00\x07\x7f\x9b\x85", "\\x00\\x07\\x7f\\x9b\\x85"),
        ("abc\u202edef\u2066\u200f", "abc\\u202edef\\u2066\\u200f"),
        ("line\u2028sep", "line\\u2028sep"),
        ("ünïcode ✓ 日本", "ünïcode ✓ 日本"),
    ],
)
def test_terminal_text(text: str, expected: str) -> None:
    assert terminal_text(text) == expected


def test_terminal_text_cuts_long_text_with_an_ellipsis() -> None:
    assert terminal_text("x" * 10_000, 12) == "x" * 11 + "…"
    assert terminal_text("exactly12chr", 12) == "exactly12chr"
    assert terminal_text("exactly13chrs", 12) == "exactly13ch…"
    # an escape is never cut in half
    assert terminal_text("ab\x1bcdef", 5) == "ab…"
    assert terminal_text("\x1b" * 100, 10) == "\\x1b\\x1b…"
    with pytest.raises(ValueError):
        terminal_text("x", 0)


# --- the functions, fuzzed -----------------------------------------------------------------

ATOMS = (
    "<script>alert(1)</script>",
    "<SCRIPT src=//e.vil>",
    "<img src=x onerror=alert(1)>",
    "|",
    "||",
    "\n",
    "\r",
    "\r\n",
    "\\",
    "\\|",
    "=cmd|' /C calc'!A0",
    "=1+2",
    "+",
    "-",
    "@",
    "@SUM(A1)",
    "\t",
    "'",
    '"',
    ",",
    "-3.5",
    "+1e9",
    "\x1b[31m",
    "\x1b]0;pwned\x07",
    "\x1b[2J",
    "\x00",
    "\x7f",
    "\x9b",
    "\x85",
    "\x0b",
    "\u202e",
    "\u2066",
    "\u200f",
    "\u2028",
    "[x](javascript:alert(1))",
    "![i](http://e.vil/i.png)",
    "`",
    "*",
    "_",
    "# ",
    "- ",
    "1. ",
    "&amp;",
    "\ufeff",
    "\uffff",
    "ünï ✓",
)
LONG = 10_000


def _long(atom: str) -> str:
    return (atom * (LONG // len(atom) + 1))[:LONG]


hostile = st.one_of(
    st.lists(st.one_of(st.sampled_from(ATOMS), st.text(max_size=6)), min_size=1, max_size=6).map(
        "".join
    ),
    st.sampled_from(ATOMS),
    st.text(max_size=30),
    st.sampled_from(ATOMS).map(_long),  # 10 kB of one hostile piece
)
FAST = settings(max_examples=300, deadline=None)


@FAST
@given(hostile, st.one_of(st.none(), st.integers(1, 200)))
def test_terminal_text_is_safe_and_bounded(text: str, max_len: int | None) -> None:
    shown = terminal_text(text, max_len)
    assert not TERMINAL_UNSAFE.search(shown) and "\n" not in shown
    if max_len is not None:
        assert len(shown) <= max_len
        if len(text) <= max_len and not TERMINAL_UNSAFE.search(text) and "\n" not in text:
            assert shown == text  # nothing to hide, short enough: unchanged
    shown.encode("utf-8")  # even a lone surrogate is escaped, so this never fails


@FAST
@given(hostile)
def test_markdown_cell_stays_in_its_cell(text: str) -> None:
    cell = markdown_cell(text)
    assert "<" not in cell.replace("<br>", "") and ">" not in cell.replace("<br>", "")
    assert not FILE_UNSAFE.search(cell) and "\n" not in cell and "\r" not in cell
    assert _split_row(f"| {cell} | x |") == [cell.strip(), "x"]


@FAST
@given(hostile)
def test_html_text_is_inert(text: str) -> None:
    escaped = html_text(text)
    assert "<" not in escaped and ">" not in escaped and '"' not in escaped
    assert not FILE_UNSAFE.search(escaped)


@FAST
@given(st.one_of(hostile, st.text()))
def test_csv_cell_is_never_a_formula_and_reads_back(text: str) -> None:
    cell = csv_cell(text)
    assert not cell.startswith(CSV_FORMULA_STARTS) or _is_number(cell)
    assert csv_text_value(cell) == text
    [row] = list(csv.reader(io.StringIO(csv_line([text, "end"]), newline="")))
    assert row == [cell, "end"]


# --- hostile runs in a real library --------------------------------------------------------


@dataclass(frozen=True)
class Hostile:
    """User text from an imported file, everywhere a run, pair or host holds text."""

    labels: tuple[str, str]
    notes: str
    tags: dict[str, str]
    pair: str
    description: str
    host: str
    param: str
    kernels: tuple[str, str]
    title: str


hostiles = st.builds(
    Hostile,
    labels=st.tuples(hostile, hostile),
    notes=hostile,
    tags=st.dictionaries(hostile, hostile, max_size=2),
    pair=hostile.filter(lambda s: s not in ("", "local")),
    description=hostile,
    host=hostile.filter(lambda s: s != "localhost"),
    param=hostile,
    kernels=st.tuples(hostile, hostile),
    title=hostile,
)
FUZZ = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _store(lib: Library, h: Hostile) -> list[int]:
    """Two finished runs with every text field hostile, on a hostile pair of hostile hosts."""
    client = Host(h.host + "-c", "10.0.0.1", user="bench", tags=dict(h.tags))
    server = Host(h.host + "|s", "10.0.0.2", user="bench", auth=AuthMethod.AGENT)
    add_host(lib, client)
    add_host(lib, server)
    add_pair(lib, HostPair(h.pair, client, server, "10.1.0.2", h.description, dict(h.tags)))
    t = np.arange(1.0, 6.0)
    ids = []
    for i, (label, kernel) in enumerate(zip(h.labels, h.kernels, strict=True)):
        rate = 9.4e8 - 1e7 * i
        ids.append(
            store_run(
                lib,
                pair=h.pair,
                label=label,
                summary={"throughput_bps": rate},
                series={"throughput_bps": (t, rate + t)},
                params={"duration": "5", h.param[:64] or "p": h.param},
                tags=dict(h.tags),
                facts={"client": {"kernel": kernel}, "server": {"kernel": kernel}},
                started_at=DAY + 60 * i,
                duration=5.0,
                notes=h.notes,
            )
        )
    return ids


def _split_row(line: str) -> list[str]:
    """The cells of a GFM table row: split at pipes not escaped by a backslash."""
    assert line.startswith("|") and line.endswith("|"), line
    cells, cell, i = [], "", 1
    while i < len(line) - 1:
        char = line[i]
        if char == "\\":
            cell += line[i : i + 2]
            i += 2
            continue
        if char == "|":
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
        i += 1
    cells.append(cell.strip())
    return cells


def _markdown_tables(text: str) -> list[list[list[str]]]:
    """Every GFM table: its header, then its body rows (the delimiter row checked, dropped)."""
    lines = text.split("\n")
    tables: list[list[list[str]]] = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("|"):
            assert i + 1 < len(lines) and re.fullmatch(r"\|(:?-+:?\|)+", lines[i + 1]), lines[i]
            header = _split_row(lines[i])
            assert lines[i + 1].count("|") - 1 == len(header)
            rows = [header]
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_split_row(lines[i]))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def _check_markdown(text: str, tables: int | None = None) -> list[list[list[str]]]:
    """No raw HTML, no control characters, and each table's rows as wide as its header."""
    assert not SCRIPT.search(text)
    assert "<" not in text.replace("<br>", "").replace("`numpy.fromfile(path, '<f8')`", "")
    assert not FILE_UNSAFE.search(text)
    assert text.splitlines() == text.split("\n")[: len(text.splitlines())]  # no other breaks
    found = _markdown_tables(text)
    for table in found:
        assert {len(row) for row in table} == {len(table[0])}, table
    if tables is not None:
        assert len(found) == tables
    return found


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.tags.add(tag)


def _check_html(text: str, cmp: Comparison) -> None:
    assert not SCRIPT.search(text)
    assert not FILE_UNSAFE.search(text)
    root = ET.fromstring(text.split("\n", 1)[1])  # still well-formed XML after the doctype
    tables = root.findall(".//table")
    headline = tables[0]
    assert len(headline.findall("./tbody/tr")) == len(cmp.table.rows)
    for table in tables:
        width = len(table.findall("./thead/tr/th"))
        assert all(len(tr.findall("td")) == width for tr in table.findall("./tbody/tr"))
    parser = _Tags()
    parser.feed(text)
    allowed = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "section"}
    allowed |= {"table", "thead", "tbody", "tr", "th", "td", "ul", "li", "p"}
    assert parser.tags <= allowed


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _check_csv(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert {len(row) for row in rows} == {len(rows[0])}
    for row in rows:
        for cell in row:
            assert not cell.startswith(CSV_FORMULA_STARTS) or _is_number(cell), cell
    return rows


def _compare(lib: Library, ids: list[int]) -> Comparison:
    return compare(load_inputs(lib, ids), group_by=GroupBy.parse("label"))


@FUZZ
@given(hostiles)
def test_hostile_text_stays_harmless_in_every_export(h: Hostile) -> None:
    with tempfile.TemporaryDirectory() as tmp, Library.open(Path(tmp) / "lib.sqlite") as lib:
        ids = _store(lib, h)
        cmp = _compare(lib, ids)
        report = comparison_report(cmp, title=h.title)

        # Markdown: every table keeps its columns and rows; no raw HTML anywhere.
        tables = _check_markdown(to_markdown(report))
        assert len(tables[0]) == 1 + len(cmp.table.rows)

        _check_html(to_html(report), cmp)

        # CSV: no formula; the group names (labels) and descriptions read back exactly.
        rows = _check_csv(comparison_csv(cmp))
        assert len(rows) == 1 + len(cmp.table.rows)
        for row, table_row in zip(rows[1:], cmp.table.rows, strict=True):
            assert csv_text_value(row[0]) == table_row.group
            assert csv_text_value(row[1]) == table_row.description

        inputs = load_inputs(lib, ids)
        long_rows = _check_csv(runs_csv([(i.run, i.series) for i in inputs]))
        assert long_rows[0] == ["run_id", "section", "stream", "key", "unit", "t", "value"]
        for run_id in ids:
            run = get_run(lib, run_id)
            mine = [r for r in long_rows[1:] if r[0] == str(run_id)]
            fields = {r[3]: csv_text_value(r[6]) for r in mine if r[1] == "run"}
            assert fields["label"] == run.label and fields["notes"] == run.notes
            assert fields["pair"] == run.spec.pair
            tags = {csv_text_value(r[3]): csv_text_value(r[6]) for r in mine if r[1] == "tag"}
            assert tags == dict(run.tags)
            params = {csv_text_value(r[3]): csv_text_value(r[6]) for r in mine if r[1] == "param"}
            assert params == dict(run.spec.params)
            facts = [csv_text_value(r[6]) for r in mine if r[1] == "host_fact"]
            assert facts == [run.host_facts["client"]["kernel"]] * 2

        # The evidence bundle's README table and its comparison table.
        path = Path(tmp) / "bundle.zip"
        write_bundle(lib, ids, path)
        with zipfile.ZipFile(path) as zf:
            readme = zf.read("README.md").decode()
            comparison = zf.read("tables/comparison.md").decode()
        [runs_table] = _check_markdown(readme, tables=1)
        assert len(runs_table) == 1 + len(ids) and len(runs_table[0]) == 7
        _check_markdown(comparison)


def _cli(library_path: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    status = run_cli(list(argv), env)
    return status, out.getvalue(), err.getvalue()


def _check_terminal(text: str) -> list[str]:
    found = TERMINAL_UNSAFE.search(text)
    assert found is None, f"{found.group()!r} reaches the terminal"
    return text.split("\n")


@FUZZ
@given(hostiles)
def test_hostile_text_stays_harmless_in_the_terminal(h: Hostile) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "lib.sqlite"
        with Library.open(path) as lib:
            ids = _store(lib, h)

        status, out, err = _cli(path, "runs", "list")
        assert status == 0, err
        lines = _check_terminal(out)
        assert len(lines) == 2 + len(ids) + 1 and lines[-1] == ""  # header, rule, runs, newline
        assert all(len(line) <= RUNS_LIST_WIDTH for line in lines), max(map(len, lines))

        for run_id, label in zip(ids, h.labels, strict=True):
            status, out, err = _cli(path, "runs", "show", str(run_id))
            assert status == 0, err
            _check_terminal(out)
            if label:
                assert f"  label     {terminal_text(label)}\n" in out  # whole, not cut

        status, out, err = _cli(path, "compare", *map(str, ids), "--group-by", "label")
        assert status == 0, err
        _check_terminal(out)
        status, out, err = _cli(path, "compare", *map(str, ids), f"--title={h.title}")
        assert status == 0, err
        _check_terminal(out)

        for command in (["hosts", "list"], ["pairs", "list"]):
            status, out, err = _cli(path, *command)
            assert status == 0, err
            _check_terminal(out)
        for command in (["hosts", "show", "--", h.host + "-c"], ["pairs", "show", "--", h.pair]):
            status, out, err = _cli(path, *command)
            assert status == 0, err
            _check_terminal(out)
