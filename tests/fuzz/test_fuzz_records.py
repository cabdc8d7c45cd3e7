"""Fuzzing records and keys.json: ``respai verify`` never crashes, and verifies only
what was signed.

A genuine record comes from ``respai evaluate`` on a small file. Then:

* its bytes are mutated: ``respai verify`` exits 0 only when the signed content is
  unchanged, else 1 (or 2), never anything else. "Unchanged" is the DSSE content: the
  payload type, the decoded payload and the decoded signatures. The envelope is plain
  JSON and its base64 is read with or without padding, standard or URL-safe (DSSE
  tools write both), so re-indenting the file or re-padding the base64 changes bytes
  but not what was signed;
* one value of the signed Statement is replaced by a hostile one (wrong type, huge or
  non-finite number, control characters, deep nesting), with the old signature (exit 1)
  or signed again with the same key (exit 0 or 1: the checks past the signature read
  hostile content too);
* ``keys.json`` is mutated: ``respai verify --keys`` exits 0, 1 or 2, never 70.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.cli import main
from respai.record import load_private_key, sign_envelope
from respai.record.dsse import b64decode_any

pytestmark = pytest.mark.fuzz

SPEC = """\
system:
  name: fuzz-target
  version: "1.0"
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  probability: score
  unit: person_id
  attributes:
    sex: [female, male]
  min_cell: 5
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.05}
"""
CASES = "person_id,label,prediction,score,sex\n" + "".join(
    f"{i + 1},{i % 2},{(i // 2) % 2},{(i * 37 % 100) / 100:.2f},{('female', 'male')[i % 2]}\n"
    for i in range(40)
)


@dataclass(frozen=True)
class Signed:
    """A genuine signed record and the files to verify it with."""

    record: bytes
    public_pem: bytes
    keys_json: bytes
    private_key: Path
    statement: Any


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Signed]:
    folder = tmp_path_factory.mktemp("signed")
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (folder / "cases.csv").write_text(CASES, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(folder / "home"))
        mp.chdir(folder)
        code = main(["evaluate", "spec.yaml", "--out", "out", "--no-ledger"])
    assert code in (0, 1, 3, 4), code
    (keys_json,) = (folder / "home").glob("keys.json")
    (private,) = (folder / "home").glob("*.key")
    record = (folder / "out" / "record.json").read_bytes()
    statement = json.loads(base64.b64decode(json.loads(record)["payload"]))
    yield Signed(
        record,
        (folder / "out" / "public_key.pem").read_bytes(),
        keys_json.read_bytes(),
        private,
        statement,
    )


def _signed_content(data: bytes) -> object:
    """What a DSSE signature covers, or ``None`` when ``data`` is no envelope."""
    try:
        env = json.loads(data)
        sigs = [(s.get("keyid"), b64decode_any(s["sig"])) for s in env["signatures"]]
        return (env["payloadType"], b64decode_any(env["payload"]), sigs)
    except Exception:
        return None


def _folder(root: Path, record: bytes, **files: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(dir=root))
    (folder / "record.json").write_bytes(record)
    for name, data in files.items():
        (folder / name.replace("_", ".")).write_bytes(data)
    return folder


def _verify(cli: Any, folder: Path, argv: list[str], allowed: tuple[int, ...]) -> Any:
    before = cli.snapshot(folder)
    run = cli.run(["verify", "record.json", *argv, "--json"], folder)
    cli.check(run, allowed, folder, before)
    return run


def test_the_genuine_record_verifies(signed: Signed, cli: Any, tmp_path: Path) -> None:
    folder = _folder(tmp_path, signed.record, key_pem=signed.public_pem)
    assert _verify(cli, folder, ["--key", "key.pem"], (0,)).code == 0
    folder = _folder(tmp_path, signed.record, keys_json=signed.keys_json)
    assert _verify(cli, folder, ["--keys", "keys.json"], (0,)).code == 0


JSON_TOKENS = (b'"', b"{", b"}", b"[", b"]", b",", b":", b"=", b"-", b"_", b"null", b" ")


@settings(settings.get_profile("respai-fuzz"), max_examples=100)
@given(data=st.data())
def test_mutated_record_bytes(
    data: st.DataObject, signed: Signed, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    record = data.draw(mutate(signed.record, JSON_TOKENS), label="record.json")
    folder = _folder(tmp_path, record, key_pem=signed.public_pem)
    try:
        run = _verify(cli, folder, ["--key", "key.pem"], (0, 1, 2))
        if run.code == 0:
            assert _signed_content(record) == _signed_content(signed.record), run.err
    finally:
        shutil.rmtree(folder)


@settings(settings.get_profile("respai-fuzz"), max_examples=80)
@given(data=st.data())
def test_mutated_envelope_fields(
    data: st.DataObject, signed: Signed, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    """The same, with the edits aimed at the envelope around the payload's base64."""
    text = signed.record
    start = text.index(b'"payload": "') + len(b'"payload": "')
    end = text.index(b'"', start)
    head = data.draw(mutate(text[:start], JSON_TOKENS), label="head")
    tail = data.draw(mutate(text[end:], JSON_TOKENS), label="tail")
    record = head + text[start:end] + tail
    folder = _folder(tmp_path, record, key_pem=signed.public_pem)
    try:
        run = _verify(cli, folder, ["--key", "key.pem"], (0, 1, 2))
        if run.code == 0:
            assert _signed_content(record) == _signed_content(signed.record), run.err
    finally:
        shutil.rmtree(folder)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*prefix, i))


#: Stands for a 4,400-digit integer, written into the payload after ``json.dumps``: a
#: Python int that long cannot be turned into text (nor shown by hypothesis).
HUGE = "<a 4,400-digit integer>"

HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**53, -(2**63), HUGE, float("inf"), float("nan"), -0.0, 1e308]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["\x1b[2J", "\u202e", "\x00", "sha256:" + "0" * 64, "", "9" * 30]),
    st.just([]),
    st.just({}),
    st.just([[[[[[[[[[[]]]]]]]]]]]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


def _replace(statement: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = json.loads(json.dumps(statement))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copy


@settings(settings.get_profile("respai-fuzz"), max_examples=60)
@given(data=st.data())
def test_a_changed_value_never_verifies_unsigned_and_never_crashes_signed(
    data: st.DataObject, signed: Signed, cli: Any, tmp_path: Path
) -> None:
    paths = sorted(_paths(signed.statement), key=repr)
    path = data.draw(st.sampled_from(paths), label="path")
    value = data.draw(HOSTILE, label="value")
    changed = _replace(signed.statement, path, value)
    if changed == signed.statement:
        return
    payload = json.dumps(changed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    payload = payload.replace(json.dumps(HUGE), "9" * 4400)
    envelope = json.loads(signed.record)
    envelope["payload"] = base64.b64encode(payload.encode("utf-8", "surrogatepass")).decode()
    folder = _folder(tmp_path, json.dumps(envelope).encode(), key_pem=signed.public_pem)
    try:
        assert _verify(cli, folder, ["--key", "key.pem"], (1,)).code == 1
        kid = envelope["signatures"][0]["keyid"]
        resigned = sign_envelope(
            payload.encode("utf-8", "surrogatepass"),
            load_private_key(signed.private_key, None),
            kid,
        )
        (folder / "record.json").write_text(json.dumps(resigned), encoding="utf-8")
        _verify(cli, folder, ["--key", "key.pem"], (0, 1))
    finally:
        shutil.rmtree(folder)


KEYS_TOKENS = (
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"null",
    b'"not_after": "2000-01-01T00:00:00Z", ',
    b'"revoked": "1999-13-40T99:00:00Z", ',
    b'"not_before": "9999-12-31T23:59:59Z", ',
    b'"key_id": "sha256:' + b"0" * 64 + b'", ',
    b'"public_key": "-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----\\n", ',
    b'"keys": [], ',
)


@settings(settings.get_profile("respai-fuzz"), max_examples=150)
@given(data=st.data())
def test_mutated_keys_json(
    data: st.DataObject, signed: Signed, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    keys = data.draw(mutate(signed.keys_json, KEYS_TOKENS), label="keys.json")
    folder = _folder(tmp_path, signed.record, keys_json=keys)
    try:
        _verify(cli, folder, ["--keys", "keys.json"], (0, 1, 2))
    finally:
        shutil.rmtree(folder)
