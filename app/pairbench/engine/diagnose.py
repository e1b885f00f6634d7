"""A stored run's verdict: computed from its series, telemetry and parameters, and stored.

``diagnose_run`` reads what ``analysis/diagnosis.py`` needs from the library (the run, its
series, the samplers' ``telemetry`` analysis) and the tool's knowledge (its target rate,
which host sends, TCP or UDP: ``tools/targets.py``). The engine stores the verdict with every
run it runs (``store_diagnosis``); ``run_verdict`` gives a run's stored verdict, or computes
one (nothing stored) for a run that has none: an import, a run from an older Pairbench.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pairbench.analysis.diagnosis import DiagnosisInput, diagnose
from pairbench.analysis.telemetry_view import SeriesLike
from pairbench.domain import Run
from pairbench.domain.diagnosis import DIAGNOSIS_KIND, Diagnosis, from_payload
from pairbench.domain.telemetry import TELEMETRY_KIND
from pairbench.engine.observer import RunObserver, TelemetryObserver
from pairbench.library import Library
from pairbench.library.analyses import get_analyses, store_analysis
from pairbench.library.runs import get_run
from pairbench.library.series import load_series
from pairbench.tools.targets import data_sender, run_target, socket_proto


def diagnosis_input(
    run: Run, series: Sequence[SeriesLike], telemetry: Mapping[str, Any] | None
) -> DiagnosisInput:
    """What the diagnosis reads of a run."""
    tool, params = run.spec.tool, run.spec.params
    sender = data_sender(tool, params)
    return DiagnosisInput(
        tool=tool,
        status=run.status.value,
        summary=dict(run.summary),
        series=series,
        telemetry=telemetry,
        target=run_target(tool, params),
        sender="client" if sender == "client" else "server" if sender == "server" else None,
        proto=socket_proto(tool, params),
        rmem_max={
            role: str(facts.get("rmem_max", ""))
            for role, facts in run.host_facts.items()
            if isinstance(facts, Mapping)
        },
    )


def verdict_of(
    run: Run, series: Sequence[SeriesLike], analyses: Mapping[str, Mapping[str, Any]]
) -> Diagnosis:
    """The run's stored verdict, else the one its series and telemetry give now."""
    stored = from_payload(analyses.get(DIAGNOSIS_KIND))
    if stored is not None:
        return stored
    return diagnose(diagnosis_input(run, series, analyses.get(TELEMETRY_KIND)))


def run_verdict(lib: Library, run_id: int) -> Diagnosis:
    """``verdict_of`` a stored run (reads only)."""
    analyses = get_analyses(lib, run_id)
    if DIAGNOSIS_KIND in analyses and from_payload(analyses[DIAGNOSIS_KIND]) is not None:
        return verdict_of(get_run(lib, run_id), (), analyses)
    return verdict_of(get_run(lib, run_id), load_series(lib, run_id), analyses)


def store_diagnosis(lib: Library, run_id: int, telemetry: Mapping[str, Any] | None) -> Diagnosis:
    """Compute the finished run's verdict from what it stored, store it (and the samplers'
    ``telemetry`` analysis), and return it."""
    if telemetry is not None:
        store_analysis(lib, run_id, TELEMETRY_KIND, telemetry)
    run = get_run(lib, run_id)
    verdict = diagnose(diagnosis_input(run, load_series(lib, run_id), telemetry))
    store_analysis(lib, run_id, DIAGNOSIS_KIND, verdict.payload())
    return verdict


def finish_verdict(
    lib: Library, run_id: int, telemetry: Mapping[str, Any] | None, observer: RunObserver
) -> str | None:
    """At a run's end: store its telemetry and verdict and tell an observer that wants it;
    a failure is returned as a note (it must not lose the run), else None."""
    try:
        verdict = store_diagnosis(lib, run_id, telemetry)
    except Exception as exc:  # a bug in the diagnosis: the run is stored all the same
        return f"diagnosis failed: {type(exc).__name__}: {exc}"
    if isinstance(observer, TelemetryObserver):
        observer.on_diagnosis(verdict.payload())
    return None
