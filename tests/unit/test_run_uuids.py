"""A run, storage suite and campaign has its UUID from its creation (recorded, imported,
started), not from its first publish; an evidence bundle carries its runs' UUIDs and the
library that imports it keeps them (a run imported again is skipped; imported again on
purpose it is a new run, with a new UUID); a bundle's UUID that is none is refused."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import uuid
import zipfile
from pathlib import Path

import numpy as np
import pytest

from compare_runs import store_run
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.export.bundle import BundleError, write_bundle
from pairbench.export.bundle_import import import_bundle
from pairbench.library import Library
from pairbench.library.campaigns import create_campaign
from pairbench.library.suites import create_suite
from testkit import FIXTURES

IPERF3_JSON = FIXTURES / "iperf3" / "tcp_t5_json.out"


def _uuids(path: Path, table: str = "runs") -> dict[int, str | None]:
    """id → uuid, read with plain SQLite (not through the code under test)."""
    with sqlite3.connect(path) as conn:
        return {int(i): u for i, u in conn.execute(f"SELECT id, uuid FROM {table} ORDER BY id")}


def _is_v4(key: str | None) -> bool:
    return key is not None and key == str(uuid.UUID(key)) and uuid.UUID(key).version == 4


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(["--library", str(library), *argv], Environment(stdout=out, stderr=err))
    return code, out.getvalue(), err.getvalue()


def test_an_imported_run_has_its_uuid_before_any_team_library(tmp_path: Path) -> None:
    library = tmp_path / "library.sqlite"
    code, _, err = _cli(library, "import", "iperf3", str(IPERF3_JSON))
    assert code == 0, err
    code, _, err = _cli(library, "import", "iperf3", str(IPERF3_JSON), "--label", "again")
    assert code == 0, err
    keys = list(_uuids(library).values())
    assert len(keys) == 2 and all(_is_v4(k) for k in keys) and keys[0] != keys[1]


def test_a_suite_and_a_campaign_have_their_uuid_from_their_start(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    with Library.open(path) as lib:
        create_suite(lib, "file", "local", {"size": "1MiB"})
        create_campaign(lib, "study", {"name": "study"}, [], 7)
    for table in ("suites", "campaigns"):
        [key] = _uuids(path, table).values()
        assert _is_v4(key), table


def _bundle_of_one_run(tmp_path: Path) -> tuple[Path, str]:
    """A bundle of a run never published, and the run's UUID in its library."""
    alice = tmp_path / "alice.sqlite"
    with Library.open(alice) as lib:
        run_id = store_run(
            lib,
            summary={"throughput_bps": 9.4e8},
            series={"throughput_bps": (np.arange(1.0, 4.0), np.full(3, 9.4e8))},
        )
        write_bundle(lib, [run_id], tmp_path / "evidence.zip")
    key = _uuids(alice)[run_id]
    assert _is_v4(key)
    return tmp_path / "evidence.zip", str(key)


def test_a_bundle_carries_its_runs_uuids_and_an_import_keeps_them(tmp_path: Path) -> None:
    bundle, key = _bundle_of_one_run(tmp_path)
    with zipfile.ZipFile(bundle) as zf:
        [name] = [n for n in zf.namelist() if n.endswith("run.json")]
        assert json.loads(zf.read(name))["uuid"] == key
    bob = tmp_path / "bob.sqlite"
    with Library.open(bob) as lib:
        [(_, new_id)] = import_bundle(lib, bundle).imported
    assert _uuids(bob) == {new_id: key}


def test_a_run_imported_again_is_skipped_by_its_uuid_and_on_purpose_is_a_new_run(
    tmp_path: Path,
) -> None:
    bundle, key = _bundle_of_one_run(tmp_path)
    bob = tmp_path / "bob.sqlite"
    with Library.open(bob) as lib:
        [(_, first)] = import_bundle(lib, bundle).imported
        # The same run, relabelled here: still the same run (its UUID), so skipped.
        lib.conn.execute("UPDATE runs SET label = 'renamed here' WHERE id = ?", (first,))
        again = import_bundle(lib, bundle)
        assert again.imported == () and [here for _, here in again.skipped] == [first]
        [(_, copy)] = import_bundle(lib, bundle, allow_duplicates=True).imported
    keys = _uuids(bob)
    assert keys[first] == key and _is_v4(keys[copy]) and keys[copy] != key


@pytest.mark.parametrize("bad", ["not-a-uuid", "", 42, "1b4e28ba-2fa1-11d2-883f", ["x"]])
def test_a_bundles_uuid_that_is_none_is_refused_and_nothing_is_stored(
    tmp_path: Path, bad: object
) -> None:
    bundle, _ = _bundle_of_one_run(tmp_path)
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(bundle) as src, zipfile.ZipFile(forged, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("run.json"):
                record = json.loads(data)
                record["uuid"] = bad
                data = json.dumps(record).encode()
            dst.writestr(info.filename, data)
    bob = tmp_path / "bob.sqlite"
    code, out, err = _cli(bob, "import-bundle", str(forged))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "is not a UUID" in err and "Traceback" not in err
    assert _uuids(bob) == {}
    with Library.open(bob) as lib, pytest.raises(BundleError, match=r"run\.json: its uuid"):
        import_bundle(lib, forged)


def test_a_copied_library_keeps_its_runs_uuids(tmp_path: Path) -> None:
    library = tmp_path / "library.sqlite"
    assert _cli(library, "import", "iperf3", str(IPERF3_JSON))[0] == 0
    copy = tmp_path / "copy.sqlite"
    shutil.copyfile(library, copy)
    assert _uuids(copy) == _uuids(library) and all(_uuids(copy).values())
