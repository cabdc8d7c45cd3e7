"""Linking a run's records, and the guards of seal()."""

from __future__ import annotations

import datetime as dt
import math
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record import (
    GENESIS,
    RecordError,
    canonical_bytes,
    key_id,
    link_records,
    record_id,
    seal,
)

RUN = [{"record_type": "run_start"}, {"record_type": "test", "x": 1}, {"record_type": "run_end"}]


def test_record_id_covers_everything_but_itself() -> None:
    import hashlib

    record = {"b": 1, "a": "x", "record_id": "ignored"}
    expected = "sha256:" + hashlib.sha256(canonical_bytes({"a": "x", "b": 1})).hexdigest()
    assert record_id(record) == expected


def test_link_records_fields_and_input_untouched() -> None:
    original = [dict(r) for r in RUN]
    linked = link_records(original, run_id="r1", prev_record_id=GENESIS, start_seq=0)
    assert original == RUN
    assert [r["seq"] for r in linked] == [0, 1, 2]
    assert [r["run_seq"] for r in linked] == [0, 1, 2]
    assert {r["run_id"] for r in linked} == {"r1"}
    assert linked[0]["prev_record_id"] == GENESIS
    assert linked[1]["prev_record_id"] == linked[0]["record_id"]
    assert linked[2]["record_count"] == 2
    assert linked[2]["record_ids"] == [linked[0]["record_id"], linked[1]["record_id"]]
    assert all(r["record_id"] == record_id(r) for r in linked)


def test_link_records_continues_a_ledger() -> None:
    first = link_records(RUN, run_id="r1", prev_record_id=GENESIS, start_seq=0)
    second = link_records(
        RUN, run_id="r2", prev_record_id=first[-1]["record_id"], start_seq=len(first)
    )
    assert [r["seq"] for r in second] == [3, 4, 5]
    assert [r["run_seq"] for r in second] == [0, 1, 2]
    assert second[0]["prev_record_id"] == first[-1]["record_id"]


@pytest.mark.parametrize(
    ("records", "kw", "match"),
    [
        (RUN[1:], {}, "run_start"),
        (RUN[:-1], {}, "run_end"),
        ([RUN[0], RUN[0], RUN[2]], {}, "'test'"),
        (RUN[:1], {}, "at least"),
        ([{**RUN[0], "run_id": "other"}, *RUN[1:]], {}, "belongs to run 'other'"),
        (RUN, {"start_seq": 3}, "genesis"),
        (RUN, {"prev_record_id": "sha256:" + "a" * 64}, "genesis"),
        (RUN, {"prev_record_id": "nope"}, "prev_record_id"),
        (RUN, {"run_id": ""}, "run_id"),
        (RUN, {"start_seq": -1}, "start_seq"),
    ],
)
def test_link_records_refuses(records: Any, kw: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {"run_id": "r", "prev_record_id": GENESIS, "start_seq": 0, **kw}
    with pytest.raises(RecordError, match=match):
        link_records(records, **args)


def test_seal_guards(rec: SimpleNamespace) -> None:
    key = Ed25519PrivateKey.generate()
    kid = key_id(key.public_key())
    other = key_id(Ed25519PrivateKey.generate().public_key())
    with pytest.raises(RecordError, match="not the id of the signing key"):
        seal(rec.make_predicate(), None, key, other)
    predicate = rec.make_predicate()
    predicate["key_id"] = other
    with pytest.raises(RecordError, match="names the key"):
        seal(predicate, None, key, kid)
    with pytest.raises(RecordError, match="subjects do not match"):
        seal(rec.make_predicate(), [{"name": "x", "digest": {"sha256": "0" * 64}}], key, kid)
    predicate = rec.make_predicate()
    predicate["records"][1]["value"] = math.nan
    with pytest.raises(RecordError, match=r"\$\.records\[1\]\.value"):
        seal(predicate, None, key, kid)


def test_seal_fills_key_id_and_accepts_datetimes(rec: SimpleNamespace) -> None:
    key = Ed25519PrivateKey.generate()
    predicate = rec.make_predicate()
    predicate.pop("key_id", None)
    predicate["timestamp"] = dt.datetime(2026, 1, 15, 10, 20, 30, tzinfo=dt.UTC)
    env = seal(predicate, None, key, key_id(key.public_key()))
    statement = rec.decode(env)
    assert statement["predicate"]["key_id"] == key_id(key.public_key())
    assert statement["predicate"]["timestamp"] == "2026-01-15T10:20:30Z"
    assert [s["name"] for s in statement["subject"]] == ["dataset:cases.csv", "model:model.onnx"]
