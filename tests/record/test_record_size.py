"""A record too large for any reader is refused when sealed, and the run writes nothing.

Every reader of a record (``respai verify``, ``report``, ``pack``, ``export``) refuses a
JSON file over :data:`respai.limits.MAX_JSON_BYTES`. A record that large (tens of
thousands of declared groups) could never be checked, so sealing refuses it (exit 2).
The limit is lowered here so the case stays small.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.golden.case import write_case
from tests.record.conftest import make_predicate

from respai.cli import main
from respai.record import RecordError, key_id, seal, statement


def test_seal_refuses_a_record_no_reader_would_accept(monkeypatch: pytest.MonkeyPatch) -> None:
    key = Ed25519PrivateKey.generate()
    seal(make_predicate(), None, key, key_id(key.public_key()))  # fits the real limit
    monkeypatch.setattr(statement, "MAX_JSON_BYTES", 4096)
    with pytest.raises(RecordError, match="MAX_JSON_BYTES") as info:
        seal(make_predicate(), None, key, key_id(key.public_key()))
    assert "Declare fewer values" in (info.value.hint or "")


@pytest.mark.parametrize("first_run", [False, True])
def test_evaluate_exits_2_and_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    first_run: bool,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    if not first_run:  # on a first run the key the run would create is not kept either
        assert main(["keys", "new"]) == 0
    write_case(tmp_path)
    before = sorted(p.as_posix() for p in tmp_path.rglob("*"))
    monkeypatch.setattr(statement, "MAX_JSON_BYTES", 64 * 1024)
    assert main(["evaluate", "spec.yaml", "--out", "out"]) == 2
    err = capsys.readouterr().err
    assert "MAX_JSON_BYTES" in err
    # the case declares 2 + 5 + 2 + 48 values and the 10 cells of sex x race
    assert re.search(r"it holds 67 groups over 5 grouping\(s\) \(about [0-9.]+ KiB each\)", err)
    assert sorted(p.as_posix() for p in tmp_path.rglob("*")) == before  # no out, ledger, key
