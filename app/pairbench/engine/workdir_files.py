"""Files of a run's work directory on its host: the folders made and the files uploaded before
the main command starts (``Commands.folders``, ``Commands.files``), and the files brought back
once it ended (``Commands.collect``: fio's logs), bounded in number and size."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from pairbench.domain.failures import TransportError
from pairbench.library import Library
from pairbench.library.analyses import store_analysis
from pairbench.remote.base import Transport
from pairbench.tools.base import CollectedFile, Commands

if TYPE_CHECKING:
    from pairbench.engine.execute import Prepared

MAX_FILES: Final = 48
MAX_FILE_BYTES: Final = 512 * 1024
MAX_TOTAL_BYTES: Final = 8 * 1024 * 1024
COLLECT_TIMEOUT_S: Final = 60.0

# Each regular file (not a link) of the work directory ($1) that a pattern names: a header
# "MARK SIZE TAKEN NAME", at most TAKEN bytes of it (the first ones), a newline and MARK alone
# on a line. MARK is a random word of the caller's; the files, their count and the bytes in
# all are bounded by the arguments. A constant script: the patterns are its arguments.
COLLECT_SCRIPT: Final = r"""
cd -- "$1" || exit 3
mark=$2 max=$3 left=$4 most=$5; shift 5
n=0
for pat in "$@"; do
  for f in $pat; do
    case "$f" in *"
"*) continue ;; esac
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    n=$((n + 1)); [ "$n" -gt "$most" ] && break 2
    size=$(stat -c %s -- "$f") || continue
    take=$max; [ "$take" -gt "$left" ] && take=$left
    printf '%s %s %s %s\n' "$mark" "$size" "$take" "$f"
    head -c "$take" -- "$f"
    printf '\n%s\n' "$mark"
    left=$((left - take))
  done
done
exit 0
"""


async def prepare_workdir(host: Transport, workdir: str, commands: Commands) -> None:
    """Make the command's folders in ``workdir``, then upload its files there."""
    if commands.folders:
        folders = [f"{workdir}/{folder}" for folder in commands.folders]
        result = await host.run(["mkdir", "-p", "--", *folders], timeout_s=10)
        if result.exit_status != 0:
            raise TransportError(
                f"host {host.host_name}: cannot make {', '.join(commands.folders)} in the work "
                f"directory: {result.stderr.strip()[:200]}"
            )
    for name, content in commands.files.items():
        await host.write_file(f"{workdir}/{name}", content)


def collect_argv(workdir: str, mark: str, patterns: Sequence[str]) -> list[str]:
    """argv that prints the files of ``workdir`` that ``patterns`` name (``COLLECT_SCRIPT``)."""
    limits = (str(MAX_FILE_BYTES), str(MAX_TOTAL_BYTES), str(MAX_FILES))
    return ["sh", "-c", COLLECT_SCRIPT, "sh", workdir, mark, *limits, *patterns]


def parse_collected(text: str, mark: str) -> dict[str, CollectedFile]:
    """The files in ``COLLECT_SCRIPT``'s output, by name (a file cut short by the output's
    end is left out)."""
    files: dict[str, CollectedFile] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        head = lines[index].split(" ", 3)
        index += 1
        if len(head) != 4 or head[0] != mark or not (head[1].isdigit() and head[2].isdigit()):
            continue
        try:
            end = lines.index(mark, index)
        except ValueError:
            break
        size, taken = int(head[1]), int(head[2])
        files[head[3]] = CollectedFile("\n".join(lines[index:end]), size, size <= taken)
        index = end + 1
    return files


async def collect_files(
    host: Transport, workdir: str, patterns: Sequence[str]
) -> dict[str, CollectedFile]:
    """The files of ``workdir`` on ``host`` that ``patterns`` name, by name (bounded:
    ``MAX_FILES`` files, the first ``MAX_FILE_BYTES`` of each, ``MAX_TOTAL_BYTES`` in all)."""
    mark = f"==pairbench-{secrets.token_hex(8)}=="
    result = await host.run(collect_argv(workdir, mark, patterns), timeout_s=COLLECT_TIMEOUT_S)
    if result.exit_status != 0:
        raise TransportError(
            f"host {host.host_name}: cannot read the work directory's files: "
            f"{result.stderr.strip()[:200] or f'status {result.exit_status}'}"
        )
    return parse_collected(result.stdout, mark)


async def store_collected(
    lib: Library,
    run_id: int,
    prepared: Prepared,
    host: Transport,
    where: tuple[str, Sequence[str]],
) -> str | None:
    """Bring back the files (``where``: the work directory and the patterns) and store what
    the tool makes of them (``Tool.collected_analyses``) with the run; a failure is returned
    as the run's note, never the run's end."""
    workdir, patterns = where
    tool = prepared.tool
    try:
        files = await collect_files(host, workdir, patterns)
        if tool.collected_analyses is not None:
            for kind, payload in tool.collected_analyses(prepared.spec.params, files).items():
                store_analysis(lib, run_id, kind, payload)
    except (TransportError, TimeoutError, OSError) as exc:
        return f"the run's files ({', '.join(patterns)}) not kept: {exc}"
    except Exception as exc:  # a bug in the tool's reading: the run is kept
        return f"the run's files not kept: {type(exc).__name__}: {str(exc)[:200]}"
    return None
