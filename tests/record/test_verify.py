"""Verification: the intact record passes; every tampering fails with the check named."""

from __future__ import annotations

import base64
import copy
import datetime as dt
import itertools
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.record import (
    CHECK_NAMES,
    GENESIS,
    KeyEntry,
    KeyRing,
    VerificationError,
    canonical_bytes,
    key_id,
    record_id,
    seal,
    verify_envelope,
    verify_or_raise,
)

Path = tuple[str | int, ...]


def leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))
    else:
        yield path


def get(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


def put(value: Any, path: Path, new: Any) -> None:
    for part in path[:-1]:
        value = value[part]
    value[path[-1]] = new


def mutate(old: Any, text: str | None = None) -> Any:
    if isinstance(old, bool):
        return not old
    if old is None:
        return 0
    if isinstance(old, int):
        return old + 1
    if isinstance(old, float):
        return old + 1.0 if old + 1.0 != old else old * 2
    assert isinstance(old, str)
    if text is not None and text != old:
        return text
    return old + "x"


def failed(envelope: Any, keys: KeyRing, **kw: Any) -> tuple[str, ...]:
    return verify_envelope(envelope, keys, **kw).failed


def test_intact_record_verifies(sealed: dict[str, Any], ring: KeyRing) -> None:
    report = verify_envelope(sealed, ring)
    assert report.ok, report.checks
    assert tuple(c.name for c in report.checks) == CHECK_NAMES
    assert report.predicate is not None
    assert report.predicate["records"][0]["prev_record_id"] == GENESIS
    assert verify_envelope(json.dumps(sealed).encode(), ring).ok
    assert verify_or_raise(sealed, ring).ok
    assert report.to_json()["ok"] is True


def test_sealed_chain_fields(rec: SimpleNamespace, sealed: dict[str, Any]) -> None:
    records = rec.decode(sealed)["predicate"]["records"]
    assert [r["seq"] for r in records] == [0, 1, 2, 3, 4]
    assert [r["run_seq"] for r in records] == [0, 1, 2, 3, 4]
    for before, after in itertools.pairwise(records):
        assert after["prev_record_id"] == before["record_id"]
    for r in records:
        assert r["record_id"] == record_id(r)
    assert records[-1]["record_count"] == 4
    assert records[-1]["record_ids"] == [r["record_id"] for r in records[:-1]]


# -- every leaf ------------------------------------------------------------------------


def _expect_leaf_failure(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, path: Path, new: Any
) -> None:
    statement = rec.decode(sealed)
    put(statement, path, new)
    names = failed(rec.with_statement(sealed, statement), ring)
    assert "signature" in names, (path, names)
    if path[:2] == ("predicate", "records"):
        assert "record_id" in names, (path, names)


def test_every_leaf_mutated_fails(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace
) -> None:
    statement = rec.decode(sealed)
    paths = list(leaves(statement))
    assert len(paths) > 100
    for path in paths:
        _expect_leaf_failure(sealed, ring, rec, path, mutate(get(statement, path)))


@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_any_leaf_mutated_any_way_fails(
    data: st.DataObject, sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace
) -> None:
    statement = rec.decode(sealed)
    path = data.draw(st.sampled_from(list(leaves(statement))), label="leaf")
    old = get(statement, path)
    if isinstance(old, str):
        new = mutate(old, data.draw(st.text(max_size=20), label="text"))
    elif isinstance(old, bool) or old is None:
        new = mutate(old)
    else:
        new = data.draw(
            st.one_of(
                st.integers(-(2**53) + 1, 2**53 - 1),
                st.floats(allow_nan=False, allow_infinity=False),
                st.none(),
                st.booleans(),
                st.text(max_size=5),
                # 0 and 0.0 are the same JSON number, so not a change at all.
            ).filter(lambda v: canonical_bytes(v) != canonical_bytes(old)),
            label="new",
        )
    _expect_leaf_failure(sealed, ring, rec, path, new)


# -- records dropped, swapped, added ---------------------------------------------------


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4])
def test_dropped_record_fails(
    index: int,
    sealed: dict[str, Any],
    ring: KeyRing,
    rec: SimpleNamespace,
    signing_key: Ed25519PrivateKey,
) -> None:
    statement = rec.decode(sealed)
    del statement["predicate"]["records"][index]
    # A dropped tail leaves an intact chain prefix: the missing run_end catches it.
    expected = {"run_brackets"} if index == 4 else {"chain", "run_brackets"}
    assert {"signature", *expected} <= set(failed(rec.with_statement(sealed, statement), ring))
    # Even signed again by the rightful key, the chain and the run_end give it away.
    names = failed(rec.resign(statement, signing_key), ring)
    assert "signature" not in names
    assert expected <= set(names)


def test_swapped_records_fail(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    records = statement["predicate"]["records"]
    records[1], records[2] = records[2], records[1]
    assert {"signature", "chain", "run_brackets"} <= set(
        failed(rec.with_statement(sealed, statement), ring)
    )
    names = failed(rec.resign(statement, signing_key), ring)
    assert set(names) == {"chain", "run_brackets"}


def test_added_record_fails(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    records = statement["predicate"]["records"]
    records.insert(2, copy.deepcopy(records[1]))
    assert {"chain", "run_brackets"} <= set(failed(rec.resign(statement, signing_key), ring))


# -- re-signing ------------------------------------------------------------------------


def test_resigned_with_another_key_fails_signature(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, other_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    statement["predicate"]["records"][3]["value"] = 0.9
    report = verify_envelope(rec.resign(statement, other_key), ring)
    assert "signature" in report.failed
    detail = report.check("signature").detail  # type: ignore[union-attr]
    assert "unknown key" in detail
    assert key_id(other_key.public_key()) in detail


def test_forged_with_another_key_even_when_consistent(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, other_key: Ed25519PrivateKey
) -> None:
    # A forger who fixes every id and the key id still lacks the key.
    statement = rec.decode(sealed)
    predicate = statement["predicate"]
    predicate["records"][1]["verdict"] = "FAIL"
    predicate["key_id"] = key_id(other_key.public_key())
    rec.relink(predicate["records"])
    assert failed(rec.resign(statement, other_key), ring) == ("signature",)
    other_ring = KeyRing.from_public_key(other_key.public_key())
    assert verify_envelope(rec.resign(statement, other_key), other_ring).ok


def test_resigned_same_key_without_fixing_ids_fails_record_id_only(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    statement["predicate"]["records"][1]["value"] = 0.05
    report = verify_envelope(rec.resign(statement, signing_key), ring)
    assert report.failed == ("record_id",)
    detail = report.check("record_id").detail  # type: ignore[union-attr]
    assert "seq 1" in detail
    assert "selection_rate_gap" in detail


def test_fixed_id_but_broken_chain_fails_chain(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    records = statement["predicate"]["records"]
    records[2]["value"] = 0.01
    records[2]["record_id"] = record_id(records[2])
    names = failed(rec.resign(statement, signing_key), ring)
    assert "chain" in names
    assert "record_id" not in names
    assert "signature" not in names


def test_relinked_to_another_origin_fails_chain_only(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    records = statement["predicate"]["records"]
    records[0]["prev_record_id"] = "sha256:" + "ab" * 32
    rec.relink(records)
    report = verify_envelope(rec.resign(statement, signing_key), ring)
    assert report.failed == ("chain",)
    assert "genesis" in report.check("chain").detail  # type: ignore[union-attr]


def test_non_canonical_payload_fails_canonical_payload_only(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    pretty = json.dumps(statement, indent=2).encode()
    report = verify_envelope(rec.resign(statement, signing_key, payload=pretty), ring)
    assert report.failed == ("canonical_payload",)


def test_duplicate_key_payload_stops_after_canonical_payload(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    body = json.dumps(statement, separators=(",", ":"))
    dup = ('{"_type":"x",' + body[1:]).encode()
    report = verify_envelope(rec.resign(statement, signing_key, payload=dup), ring)
    assert "canonical_payload" in report.failed
    assert "repeats the object key" in report.check("canonical_payload").detail  # type: ignore[union-attr]
    assert report.check("schema") is None
    assert not report.ok


# -- keys in the ring ------------------------------------------------------------------


def _ring(key: Ed25519PrivateKey, **window: Any) -> KeyRing:
    pub = key.public_key()
    return KeyRing((KeyEntry(key_id(pub), pub, **window),))


T0 = dt.datetime(2026, 1, 15, 10, 20, 30, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("window", "why"),
    [
        ({"not_after": T0 - dt.timedelta(days=1)}, "expired"),
        ({"not_before": T0 + dt.timedelta(days=1)}, "not yet valid"),
        ({"revoked_at": T0 + dt.timedelta(days=30)}, "revoked"),
    ],
)
def test_key_outside_its_window_fails_signature(
    window: dict[str, Any], why: str, sealed: dict[str, Any], signing_key: Ed25519PrivateKey
) -> None:
    report = verify_envelope(sealed, _ring(signing_key, **window))
    assert report.failed == ("signature",)
    assert why in report.check("signature").detail  # type: ignore[union-attr]


def test_key_inside_its_window_verifies(
    sealed: dict[str, Any], signing_key: Ed25519PrivateKey
) -> None:
    window = {"not_before": T0 - dt.timedelta(days=1), "not_after": T0 + dt.timedelta(days=1)}
    assert verify_envelope(sealed, _ring(signing_key, **window)).ok


def test_bad_signature_from_a_known_key_is_named(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace
) -> None:
    statement = rec.decode(sealed)
    statement["predicate"]["caveats"].append("added later")
    detail = verify_envelope(rec.with_statement(sealed, statement), ring).check("signature")
    assert detail is not None
    assert "bad signature" in detail.detail


def test_record_naming_another_key_fails(
    rec: SimpleNamespace, signing_key: Ed25519PrivateKey, other_key: Ed25519PrivateKey
) -> None:
    env = seal(rec.make_predicate(), None, signing_key, key_id(signing_key.public_key()))
    statement = rec.decode(env)
    statement["predicate"]["key_id"] = key_id(other_key.public_key())
    report = verify_envelope(
        rec.resign(statement, signing_key), KeyRing.from_public_key(signing_key.public_key())
    )
    assert report.failed == ("signature",)
    assert "names key" in report.check("signature").detail  # type: ignore[union-attr]


def test_two_signatures_one_good(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, other_key: Ed25519PrivateKey
) -> None:
    env = copy.deepcopy(sealed)
    env["signatures"].insert(0, rec.resign(rec.decode(sealed), other_key)["signatures"][0])
    assert verify_envelope(env, ring).ok


# -- the envelope ----------------------------------------------------------------------


def test_undecodable_payload_stops_after_envelope(sealed: dict[str, Any], ring: KeyRing) -> None:
    report = verify_envelope(dict(sealed, payload="***"), ring)
    assert [c.name for c in report.checks] == ["envelope"]
    assert report.failed == ("envelope",)
    assert verify_envelope(b"not json", ring).failed == ("envelope",)
    assert verify_envelope(b"[]", ring).failed == ("envelope",)


def test_wrong_payload_type_fails_envelope_and_signature(
    sealed: dict[str, Any], ring: KeyRing
) -> None:
    names = failed(dict(sealed, payloadType="application/json"), ring)
    assert names == ("envelope", "signature")


def test_no_signatures(sealed: dict[str, Any], ring: KeyRing) -> None:
    assert failed(dict(sealed, signatures=[]), ring) == ("envelope", "signature")


def test_wrong_statement_type_and_subjects(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    statement = rec.decode(sealed)
    statement["predicateType"] = "https://example.org/other/v1"
    statement["subject"][0]["digest"]["sha256"] = "00" * 32
    assert set(failed(rec.resign(statement, signing_key), ring)) == {"statement", "subjects"}


def test_expected_prev_and_seq(
    rec: SimpleNamespace, signing_key: Ed25519PrivateKey, ring: KeyRing
) -> None:
    first = seal(rec.make_predicate(), None, signing_key, key_id(signing_key.public_key()))
    last_id = rec.decode(first)["predicate"]["records"][-1]["record_id"]
    second = seal(
        rec.make_predicate(),
        None,
        signing_key,
        key_id(signing_key.public_key()),
        prev_record_id=last_id,
        start_seq=5,
    )
    assert verify_envelope(second, ring, expected_prev=last_id, expected_seq=5).ok
    report = verify_envelope(second, ring)
    assert report.ok
    assert "outside this record" in report.check("chain").detail  # type: ignore[union-attr]
    assert failed(second, ring, expected_prev="sha256:" + "cd" * 32) == ("chain",)
    assert failed(second, ring, expected_seq=6) == ("chain",)


def test_verify_or_raise_names_failed_checks(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace
) -> None:
    statement = rec.decode(sealed)
    statement["predicate"]["records"][1]["verdict"] = "FAIL"
    with pytest.raises(VerificationError) as info:
        verify_or_raise(rec.with_statement(sealed, statement), ring)
    assert "signature" in info.value.failed
    assert "record_id" in info.value.failed
    assert "signature, " in info.value.message
    assert info.value.exit_code == 1
    assert info.value.hint is not None and "record_id:" in info.value.hint


def test_url_safe_envelope_verifies(sealed: dict[str, Any], ring: KeyRing) -> None:
    env = copy.deepcopy(sealed)
    env["payload"] = base64.urlsafe_b64encode(base64.b64decode(env["payload"])).decode()
    for sig in env["signatures"]:
        sig["sig"] = base64.urlsafe_b64encode(base64.b64decode(sig["sig"])).decode().rstrip("=")
    assert verify_envelope(env, ring).ok


def test_hostile_shapes_never_crash(
    sealed: dict[str, Any], ring: KeyRing, rec: SimpleNamespace, signing_key: Ed25519PrivateKey
) -> None:
    for predicate in (
        None,
        [],
        "x",
        {"records": "no"},
        {"records": [1, None, "x"]},
        {"records": []},
    ):
        statement = rec.decode(sealed)
        statement["predicate"] = predicate
        report = verify_envelope(rec.resign(statement, signing_key), ring)
        assert not report.ok
        assert len(report.checks) == len(CHECK_NAMES)
    for payload in (b"1", b"[]", b'"s"', b"null"):
        report = verify_envelope(rec.resign(None, signing_key, payload=payload), ring)
        assert not report.ok
