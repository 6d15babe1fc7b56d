"""pytest plugin for CI: the PostgreSQL and real-browser tests are mandatory.

Loaded with ``-p _ci_strict``, tests/ on PYTHONPATH (``.ci/run`` does that). It turns the run into a
failure when

* a test marked ``postgres`` or ``browser`` is skipped (or xfails),
* a whole test module is skipped at collection time (``pytest.importorskip``,
  ``pytest.skip(allow_module_level=True)``), since its markers can't be seen then,
* no test of a mandatory marker passed at all (so deleting or deselecting them
  can't make CI green).

Works with pytest-xdist: reports from the workers are judged on the controller.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

MANDATORY = ("postgres", "browser")

_skipped: list[tuple[str, str, str]] = []  # (marker, nodeid, reason)
_module_skips: list[tuple[str, str]] = []  # (nodeid, reason)
_passed: dict[str, int] = defaultdict(int)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _reason(report: Any) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _module_skips.append((report.nodeid, _reason(report)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    markers = [m for m in MANDATORY if m in report.keywords]
    if not markers:
        return
    if report.skipped:
        for marker in markers:
            _skipped.append((marker, report.nodeid, _reason(report)))
    elif report.when == "call" and report.passed:
        for marker in markers:
            _passed[marker] += 1


def _problems() -> list[str]:
    problems = [f"[{marker}] skipped: {nodeid} ({reason})"
                for marker, nodeid, reason in _skipped]
    problems += [f"module skipped at collection: {nodeid} ({reason})"
                 for nodeid, reason in _module_skips]
    problems += [f"[{marker}] no test with this marker passed"
                 for marker in MANDATORY if _passed[marker] == 0]
    return problems


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _is_worker(session.config):
        return
    if _problems() and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _is_worker(config):
        return
    problems = _problems()
    counts = ", ".join(f"{m}: {_passed[m]} passed" for m in MANDATORY)
    if problems:
        terminalreporter.section("CI strict mode: FAILED", sep="=", red=True, bold=True)
        for line in problems:
            terminalreporter.write_line(line)
    else:
        terminalreporter.section("CI strict mode: ok", sep="=", green=True)
    terminalreporter.write_line(f"mandatory markers: {counts}")
