"""``python -m bench [NAME ...] [--quick]``: run the benchmarks and print their verdicts."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Sequence

from bench import (
    bundle_size,
    bundle_start,
    campaign_overhead,
    campaign_window,
    cli_start,
    compare_draw,
    compare_export,
    ingest,
    kill_loss,
    library_bytes,
    library_check,
    library_refresh,
    load,
    overhead,
    parser_worst,
    parsers,
    runs_filter,
    runs_list,
    storage_suite,
    subsecond_live,
    team_list,
    team_live,
    team_publish,
    telemetry_cost,
    ui_lag,
    ui_plot_redraw,
)
from bench.common import NotRunnable, Out, Verdict

Benchmark = Callable[[bool, Out], Verdict]

# An explicit registry, in the order they run.
BENCHMARKS: dict[str, Benchmark] = {
    ingest.NAME: ingest.run,
    load.NAME: load.run,
    library_check.NAME: library_check.run,
    library_bytes.NAME: library_bytes.run,
    library_refresh.NAME: library_refresh.run,
    kill_loss.NAME: kill_loss.run,
    runs_list.NAME: runs_list.run,
    runs_filter.NAME: runs_filter.run,
    cli_start.NAME: cli_start.run,
    overhead.NAME: overhead.run,
    telemetry_cost.NAME: telemetry_cost.run,
    storage_suite.NAME: storage_suite.run,
    campaign_overhead.NAME: campaign_overhead.run,
    parsers.NAME: parsers.run,
    parser_worst.NAME: parser_worst.run,
    compare_draw.NAME: compare_draw.run,
    compare_export.NAME: compare_export.run,
    bundle_size.NAME: bundle_size.run,
    bundle_start.NAME: bundle_start.run,
    ui_lag.NAME: ui_lag.run,
    ui_plot_redraw.NAME: ui_plot_redraw.run,
    subsecond_live.NAME: subsecond_live.run,
    campaign_window.NAME: campaign_window.run,
    team_publish.NAME: team_publish.run,
    team_list.NAME: team_list.run,
    team_live.NAME: team_live.run,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description="Measure Pairbench's own cost against a baseline measured in the same run. "
        "Reports only: the exit status is 0 even when a target is missed (MISS).",
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer and smaller repetitions (smoke test)"
    )
    return parser


def _say(text: str) -> None:
    print(text, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the chosen benchmarks; 0 unless the command line is wrong."""
    args = _parser().parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        print(
            f"python -m bench: unknown benchmark {', '.join(unknown)} "
            f"(known: {', '.join(BENCHMARKS)})",
            file=sys.stderr,
        )
        return 2
    names = list(dict.fromkeys(args.names)) or list(BENCHMARKS)
    load1, _, _ = os.getloadavg()
    _say(
        f"bench: Python {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load average {load1:.2f}{', quick' if args.quick else ''}"
    )
    for name in names:
        start = time.monotonic()
        try:
            verdict = BENCHMARKS[name](args.quick, _say)
        except NotRunnable as exc:  # this machine lacks something: said, not a failure
            _say(f"{name}: NOT RUN ({exc})")
            continue
        except Exception as exc:  # report the failure, then go on with the others
            traceback.print_exc()
            _say(f"{name}: ERROR {type(exc).__name__}: {exc} MISS")
            continue
        _say(f"  ({time.monotonic() - start:.1f} s)")
        _say(verdict.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
