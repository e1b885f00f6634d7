"""The storage suite's plan: SNIA PTS tests (iops, latency, throughput) as CloudHarmony's
block-storage suite runs them with fio — their jobs per round, tracking variables and the
parameters a suite records."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from decimal import Decimal
from typing import Any, Final

from pairbench.domain.quantities import QuantityError, size_bytes


class StorageTest(enum.StrEnum):
    """The three PTS tests of the suite."""

    IOPS = "iops"
    LATENCY = "latency"
    THROUGHPUT = "throughput"


class SteadyRule(enum.StrEnum):
    """Which steady-state rule ends a stage: the specification's (PTS-E 1.1, unrounded), or
    CloudHarmony block-storage's arithmetic (its units and roundings, its verdict)."""

    PTS = "pts"
    CLOUDHARMONY = "cloudharmony"


class SuiteStatus(enum.StrEnum):
    """How a suite stands: running, or ended and how."""

    RUNNING = "running"
    COMPLETED = "completed"  # every stage steady or out of rounds
    CANCELLED = "cancelled"  # stopped by the user: finished jobs kept, resumable
    INTERRUPTED = "interrupted"  # the program died or the connection was lost: resumable
    FAILED = "failed"  # a job could not run (fio refused, the target went away): resumable

    @property
    def resumable(self) -> bool:
        return self is not SuiteStatus.COMPLETED


# Read percentages of each mix (100 = all reads), and block sizes, in the order PTS runs
# them: mixes outer, block sizes inner.
IOPS_MIXES: Final = (100, 95, 65, 50, 35, 5, 0)
IOPS_BLOCK_SIZES: Final = ("1m", "128k", "64k", "32k", "16k", "8k", "4k", "512")
LATENCY_MIXES: Final = (100, 65, 0)
LATENCY_BLOCK_SIZES: Final = ("16k", "8k", "4k", "512")
THROUGHPUT_BLOCK_SIZES: Final = ("1m", "128k")
PRECONDITION_BLOCK_SIZE: Final = "128k"

_BS_BYTES: Final = {"1m": 2**20, "128k": 2**17, "64k": 2**16, "32k": 2**15, "16k": 2**14}
_BS_BYTES.update({"8k": 2**13, "4k": 2**12, "512": 512})
# CloudHarmony's names for block sizes in its CSV columns (``iops_4k_0_100``).
_BS_WORDS: Final = {"1m": "1m", "128k": "128k", "64k": "64k", "32k": "32k", "16k": "16k"}
_BS_WORDS.update({"8k": "8k", "4k": "4k", "512": "512b"})


def block_size_bytes(bs: str) -> int:
    """Bytes of one of the suite's block sizes."""
    return _BS_BYTES[bs]


def block_size_word(bs: str) -> str:
    """A block size as reports print it: 1m, 128k, ..., 4k, 512b."""
    return _BS_WORDS[bs]


def mix_word(read_pct: int) -> str:
    """A read/write mix as reports print it: ``65/35``."""
    return f"{read_pct}/{100 - read_pct}"


@dataclass(frozen=True, slots=True)
class Job:
    """One fio job of a round: a block size and a read percentage, random or sequential."""

    bs: str
    read_pct: int
    sequential: bool = False

    @property
    def rw(self) -> str:
        """fio's ``rw``: reads or writes alone, else the mixed workload."""
        if self.read_pct == 100:
            return "read" if self.sequential else "randread"
        if self.read_pct == 0:
            return "write" if self.sequential else "randwrite"
        return "rw" if self.sequential else "randrw"

    @property
    def name(self) -> str:
        """``4k 65/35``: how tables and progress name the job."""
        return f"{block_size_word(self.bs)} {mix_word(self.read_pct)}"


@dataclass(frozen=True, slots=True)
class Stage:
    """A sequence of rounds with its own steady state: the jobs of one round, and the job and
    figure whose value per round is the tracking variable."""

    name: str
    jobs: tuple[Job, ...]
    tracked: Job
    metric: str  # a fio summary field of ``tracked``'s run
    metric_label: str
    # Purged and preconditioned again before it (as CloudHarmony does before the 128 KiB
    # throughput stage), when the suite's ``prep_each_stage`` says so.
    prepared_again: bool = False

    def job_index(self, job: Job) -> int:
        return self.jobs.index(job)


def stages_of(test: StorageTest) -> tuple[Stage, ...]:
    """The stages of a test, in order (throughput: 1024 KiB, then 128 KiB)."""
    if test is StorageTest.IOPS:
        jobs = tuple(Job(bs, mix) for mix in IOPS_MIXES for bs in IOPS_BLOCK_SIZES)
        return (Stage("iops", jobs, Job("4k", 0), "write_iops", "write IOPS, 4k 0/100"),)
    if test is StorageTest.LATENCY:
        jobs = tuple(Job(bs, mix) for mix in LATENCY_MIXES for bs in LATENCY_BLOCK_SIZES)
        label = "mean write latency (µs), 4k 0/100"
        return (Stage("latency", jobs, Job("4k", 0), "write_lat_mean_us", label),)
    return tuple(
        Stage(
            f"throughput {block_size_word(bs)}",
            (Job(bs, 100, sequential=True), Job(bs, 0, sequential=True)),
            Job(bs, 0, sequential=True),
            "write_bytes_per_s",
            f"write throughput (B/s), {block_size_word(bs)}",
            prepared_again=index > 0,
        )
        for index, bs in enumerate(THROUGHPUT_BLOCK_SIZES)
    )


def parse_size(text: str) -> int:
    """Bytes of a suite's size such as ``4GiB``, ``512M`` (MiB, as fio reads it) or
    ``1073741824`` (``domain/quantities``, whole and above 0); ValueError otherwise."""
    try:
        size = size_bytes(text.strip(), bare="iec")
    except QuantityError:
        size = Decimal(0)
    if "." in text or size <= 0 or size != size.to_integral_value():
        raise ValueError(f"a size such as 4GiB, 512MiB or 1073741824 bytes, got {text!r}")
    return int(size)


# A suite's defaults (PTS-E 1.1's and CloudHarmony's), the one place they are written: the
# CLI's options, the window's form, campaign cells and the steady-state rule read them here.
DEFAULT_IODEPTH: Final = 64
DEFAULT_ROUND_SECONDS: Final = 60
DEFAULT_MAX_ROUNDS: Final = 25
DEFAULT_PRECONDITION_PASSES: Final = 2
DEFAULT_DATA_EXCURSION: Final = 0.20  # the window's max - min at most 20 % of its mean
DEFAULT_SLOPE_EXCURSION: Final = 0.10  # the fitted line's rise at most 10 % of the mean


@dataclass(frozen=True, slots=True)
class SuiteParams:
    """What a suite runs with; stored with it, so a resumed suite runs the same jobs.

    ``target`` is a block device (``/dev/...``) or a directory for a test file of ``size``
    bytes; ``size`` on a device is the active range (0: all of it). ``threads`` is fio's
    ``numjobs``, ``iodepth`` the I/O in flight per thread (the latency test uses 1 and 1).
    ``steady_state`` is the rule that ends a stage. ``prep_each_stage``: a stage marked
    ``prepared_again`` (throughput's 128 KiB) is purged (``purge``) and preconditioned
    (unless ``precondition_once``) again first, as CloudHarmony does; False in suites
    stored before Pairbench did so, which resume as they began.
    """

    test: StorageTest
    target: str
    size: int = 0
    threads: int = 1
    iodepth: int = DEFAULT_IODEPTH
    round_seconds: int = DEFAULT_ROUND_SECONDS
    max_rounds: int = DEFAULT_MAX_ROUNDS
    precondition_passes: int = DEFAULT_PRECONDITION_PASSES
    purge: bool = True
    data_excursion: float = DEFAULT_DATA_EXCURSION
    slope_excursion: float = DEFAULT_SLOPE_EXCURSION
    ioengine: str = "libaio"
    direct: bool = True  # O_DIRECT (off where the file system lacks it: said in the facts)
    extra: Mapping[str, str] = field(default_factory=dict)
    steady_state: SteadyRule = SteadyRule.PTS
    prep_each_stage: bool = False
    precondition_once: bool = False

    @property
    def on_device(self) -> bool:
        return self.target.startswith("/dev/")

    def job_threads(self) -> int:
        return 1 if self.test is StorageTest.LATENCY else self.threads

    def job_iodepth(self) -> int:
        return 1 if self.test is StorageTest.LATENCY else self.iodepth

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["test"] = self.test.value
        data["steady_state"] = self.steady_state.value
        data["extra"] = dict(self.extra)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SuiteParams:
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["test"] = StorageTest(values["test"])
        values["steady_state"] = SteadyRule(values.get("steady_state", SteadyRule.PTS.value))
        values["extra"] = dict(values.get("extra") or {})
        return cls(**values)

    def precondition_passes_before(self, stage: int) -> int:
        """Preconditioning passes before stage ``stage`` (0-based)."""
        if stage == 0:
            return self.precondition_passes
        again = self.prep_each_stage and stages_of(self.test)[stage].prepared_again
        return self.precondition_passes if again and not self.precondition_once else 0

    def purge_before(self, stage: int) -> bool:
        """Whether the target is purged again before stage ``stage`` (>= 1)."""
        return self.purge and self.prep_each_stage and stages_of(self.test)[stage].prepared_again

    def estimated_seconds(self, rounds: int) -> float:
        """Seconds of fio for ``rounds`` rounds of every stage (preconditioning aside)."""
        jobs = sum(len(stage.jobs) for stage in stages_of(self.test))
        return float(rounds * jobs * self.round_seconds)


@dataclass(frozen=True, slots=True)
class JobKey:
    """Where a job sits in a suite: stage (0-based), round (1-based), job (0-based).
    Preconditioning passes are stage -1, one job each, rounds 1..passes."""

    stage: int
    round: int
    job: int

    @property
    def precondition(self) -> bool:
        return self.stage < 0

    @property
    def before_stage(self) -> int:
        """The stage a preconditioning pass comes before (0 for stage −1, 1 for −2)."""
        return -1 - self.stage


def precondition_stage(stage: int) -> int:
    """The JobKey stage of the preconditioning passes before stage ``stage``: −1 before the
    first, −2 before the second (throughput's 128 KiB stage, prepared again)."""
    return -1 - stage


# CloudHarmony's limits on fio's numjobs (its threads_per_target_max, threads_per_core_max).
THREADS_PER_TARGET_MAX: Final = 8
THREADS_PER_CORE_MAX: Final = 2


def suite_threads(
    asked: int | None,
    cpus: int,
    per_target_max: int = THREADS_PER_TARGET_MAX,
    per_core_max: int = THREADS_PER_CORE_MAX,
) -> int:
    """fio's ``numjobs`` for one target, as CloudHarmony sets its ``threads``: the number
    asked (default: the host's CPUs), at most ``per_target_max``, and at most
    ``per_core_max`` × the CPUs; at least 1."""
    threads = asked if asked is not None else cpus
    threads = max(1, min(threads, per_target_max))
    if threads > per_core_max * cpus:
        threads = max(1, per_core_max * cpus)
    return threads


# fio's own figures of a job's (group-reported) first entry, kept beside Pairbench's summary
# figures: what CloudHarmony's code reads of ``jobs[0]`` (``iops``; ``bw``, KiB/s;
# ``lat_ns`` mean and max, ns), per direction.
FIO_FIGURES: Final = ("iops", "bw", "lat_ns_mean", "lat_ns_max")


def fio_figure_key(direction: str, name: str) -> str:
    """``write_fio_bw``: the stored key of one of ``FIO_FIGURES`` for a direction."""
    return f"{direction}_fio_{name}"


def estimate_text(params: SuiteParams, window: int = 5) -> str:
    """How long the suite's fio jobs take: from ``window`` rounds to ``max_rounds``."""
    low = params.estimated_seconds(window)
    high = params.estimated_seconds(params.max_rounds)
    if params.max_rounds == window:
        return f"{_duration(low)} of fio jobs ({window} rounds)"
    rounds = f"{window} to {params.max_rounds} rounds"
    return f"{_duration(low)} to {_duration(high)} of fio jobs ({rounds})"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"
