"""A storage suite's purges, as CloudHarmony's: at its start (after the target's checks and
fio's own host check, before the suite is stored) and again before a stage prepared again
(``engine.storage_suite``). A device is purged with ``blkdiscard``, else a zero fill
(``engine.storage_target.purge_device``); a directory suite's purge is a new test file in
its own private directory (``engine.storage_files``), never a name others could plant."""

from __future__ import annotations

from pairbench.domain.storage import SuiteParams
from pairbench.engine.storage_files import renew_test_file
from pairbench.engine.storage_suite import Purge
from pairbench.engine.storage_target import check_device_unused, purge_device
from pairbench.remote.base import Transport


async def purge_at_start(transport: Transport, params: SuiteParams, test_dir: str) -> str:
    """The suite's first purge, a note for its facts. Called once the target and fio's host
    check passed (a device unused, checked as fio's writes are), before the suite is stored:
    ``RunError`` (nothing stored) for a device that nothing purges. A directory suite's test
    file is new already: its directory ``test_dir`` was just made."""
    if not params.purge:
        return "not purged (--no-purge)"
    if params.on_device:
        return await purge_device(transport, params.target, params.size)
    return f"a new test file in {test_dir}, the suite's own directory"


def purger(transport: Transport, params: SuiteParams, test_dir: str) -> Purge:
    """How the suite's target is purged again before a stage prepared again: a device checked
    again as fio's runs check it (``TargetChangedError`` when it is now in use), then as at
    the start; a directory suite's test file removed in its checked directory
    (``renew_test_file``), fio's next job making it anew."""

    async def purge() -> str:
        if params.on_device:
            await check_device_unused(transport, params.target)
            return await purge_device(transport, params.target, params.size)
        return await renew_test_file(transport, params.target, test_dir)

    return purge
