"""A store that is its own context manager: ``with`` it, and it is closed on the way out."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class ClosedOnExit:
    """``with store: ...`` closes ``store`` at the end (its ``close``), whatever happened."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
