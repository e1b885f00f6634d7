"""A journal, beside the library file, of how many samples each recording run has committed.

SQLite keeps a run's newest commits in the write-ahead log until a checkpoint. If another
program deletes that log while a run records (or the disk loses it), those commits vanish
without a trace inside the database. The recorder therefore also notes, after every commit,
how many samples the run has committed so far, in one small file per run outside SQLite.
When the library is next opened, a run whose recording process died with fewer samples in the
library than its journal says, or that is missing altogether, is reported instead of being
silently short. The journal is never the library's own file, ``-wal`` or ``-shm``.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Progress:
    """What one recording run had committed at its last flush."""

    run_id: int
    started_at: float
    pair: str
    tool: str
    samples: int
    owner_host: str
    owner_pid: int
    owner_token: str
    updated_at: float


class ProgressJournal:
    """One JSON file per recording run in ``LIBRARY.progress/``; written atomically."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def beside(cls, library_path: Path) -> ProgressJournal:
        """The journal of the library at ``library_path``."""
        return cls(library_path.with_name(f"{library_path.name}.progress"))

    def _file(self, run_id: int) -> Path:
        return self.directory / f"run-{run_id}.json"

    def write(self, progress: Progress) -> None:
        """Note a run's committed samples (best effort: a full disk must not stop the run)."""
        target = self._file(progress.run_id)
        temp = target.with_suffix(".tmp")
        try:
            self.directory.mkdir(mode=0o700, exist_ok=True)
            temp.write_text(json.dumps(asdict(progress)), encoding="utf-8")
            os.replace(temp, target)
        except OSError:
            with contextlib.suppress(OSError):
                temp.unlink()

    def forget(self, run_id: int) -> None:
        """The run is finished (its outcome committed): drop its entry."""
        with contextlib.suppress(OSError):
            self._file(run_id).unlink()

    def entries(self) -> list[Progress]:
        """Every entry that can be read (a torn or foreign file is skipped)."""
        found: list[Progress] = []
        try:
            files = sorted(self.directory.glob("run-*.json"))
        except OSError:
            return found
        for path in files:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found.append(Progress(**data))
            except (OSError, ValueError, TypeError):
                continue
        return found
