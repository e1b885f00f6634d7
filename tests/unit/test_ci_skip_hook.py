"""The CI skip hook itself (``tests/conftest.py`` ``pytest_sessionfinish``): under ``CI=true`` a
skipped test fails the session and says so; without CI a skip is only a skip.

Each case runs a small session in a fresh pytest process (``runpytest_subprocess``: ``CI`` is
read when ``testkit`` is imported) whose conftest takes the hook from ``tests/conftest.py``, as a
plain session and on two pytest-xdist workers (as ``make test`` runs the suite).
"""

from __future__ import annotations

import pytest

from testkit import REPO

pytest_plugins = ["pytester"]

TESTS = REPO / "tests"

# The session's conftest: our hook, loaded from the real file (its imports resolved as in the
# suite: tests/ on sys.path).
CONFTEST = f"""
import importlib.util
import sys

sys.path.insert(0, {str(TESTS)!r})
_path = {str(TESTS / "conftest.py")!r}
_spec = importlib.util.spec_from_file_location("pairbench_suite_conftest", _path)
_suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_suite)
pytest_sessionfinish = _suite.pytest_sessionfinish
"""

SESSION = """
import pytest

def test_passes():
    pass

def test_skipped():
    pytest.skip("the tool is not installed")
"""

ALL_PASS = """
def test_passes():
    pass
"""


# A plain session, and one on two pytest-xdist workers (where the skips reach the hook
# through the controller's reports).
PLAIN: tuple[str, ...] = ()
WORKERS = pytest.mark.parametrize("workers", [PLAIN, ("-n", "2")], ids=["plain", "xdist"])


def _run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    ci: str | None,
    tests: str,
    workers: tuple[str, ...],
) -> pytest.RunResult:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_session=tests)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rs", *workers)


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_skip_fails_the_session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    result = _run(pytester, monkeypatch, ci, SESSION, PLAIN)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*CI=true: 1 skipped test(s) count as failures*"])


def test_under_ci_a_skip_on_a_worker_fails_the_session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _run(pytester, monkeypatch, "true", SESSION, ("-n", "2"))
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*CI=true: 1 skipped test(s) count as failures*"])


@pytest.mark.parametrize("ci", [None, "false"])
def test_without_ci_a_skip_is_only_a_skip(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None
) -> None:
    result = _run(pytester, monkeypatch, ci, SESSION, PLAIN)
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*count as failures*")


@WORKERS
def test_under_ci_a_session_without_skips_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    result = _run(pytester, monkeypatch, "true", ALL_PASS, workers)
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.no_fnmatch_line("*count as failures*")
