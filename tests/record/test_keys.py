"""Key files, passphrases, keys.json validity windows, rotation."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record import (
    KeyMaterialError,
    KeyRing,
    default_key_dir,
    format_timestamp,
    key_id,
    load_private_key,
    load_public_key,
    new_key,
    now_utc,
    passphrase_from_env_or_prompt,
    retire_key,
    revoke_key,
    seal,
    verify_envelope,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_new_key_files_and_modes(tmp_path: Path) -> None:
    directory = tmp_path / "a" / "keys"
    files = new_key(directory, passphrase=None)
    assert mode(directory) == 0o700
    assert mode(files.private_key) == 0o600
    assert files.private_key.name == f"respai-{files.key_id[7:19]}.key"
    assert files.public_key.name == f"respai-{files.key_id[7:19]}.pub"
    assert not files.encrypted
    assert b"BEGIN PRIVATE KEY" in files.private_key.read_bytes()
    private = load_private_key(files.private_key, None)
    public = load_public_key(files.public_key)
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert files.key_id == "sha256:" + hashlib.sha256(raw).hexdigest() == key_id(public)
    assert key_id(private.public_key()) == files.key_id

    data = json.loads(files.keys_json.read_text())
    (entry,) = data["keys"]
    assert entry["key_id"] == files.key_id
    assert entry["algorithm"] == "ed25519"
    assert base64.b64decode(entry["public_key_raw_b64"]) == raw
    assert entry["public_key_pem"] == files.public_key.read_text()
    assert entry["not_before"].endswith("Z")
    assert entry["not_after"] is None
    assert entry["revoked_at"] is None


def test_second_key_is_added_to_keys_json(tmp_path: Path) -> None:
    a = new_key(tmp_path, passphrase=None)
    b = new_key(tmp_path, passphrase=None)
    ids = [e["key_id"] for e in json.loads((tmp_path / "keys.json").read_text())["keys"]]
    assert ids == [a.key_id, b.key_id]
    assert len(KeyRing.load(tmp_path / "keys.json")) == 2


def test_existing_directory_mode_left_alone(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    new_key(tmp_path, passphrase=None)
    assert mode(tmp_path) == 0o755


def test_never_overwrites_a_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = Ed25519PrivateKey.generate()
    monkeypatch.setattr(Ed25519PrivateKey, "generate", staticmethod(lambda: key))
    first = new_key(tmp_path, passphrase=None)
    before = first.private_key.read_bytes()
    with pytest.raises(KeyMaterialError, match="already exists"):
        new_key(tmp_path, passphrase=None)
    assert first.private_key.read_bytes() == before


def test_passphrase_round_trip(tmp_path: Path) -> None:
    files = new_key(tmp_path, passphrase=b"correct horse")
    assert files.encrypted
    assert b"BEGIN ENCRYPTED PRIVATE KEY" in files.private_key.read_bytes()
    key = load_private_key(files.private_key, b"correct horse")
    assert key_id(key.public_key()) == files.key_id


def test_wrong_or_missing_passphrase(tmp_path: Path) -> None:
    files = new_key(tmp_path, passphrase=b"correct horse")
    with pytest.raises(KeyMaterialError) as info:
        load_private_key(files.private_key, b"battery staple")
    assert "passphrase" in info.value.message
    assert "wrong" in info.value.message
    assert str(files.private_key) in info.value.message
    with pytest.raises(KeyMaterialError, match="encrypted and no passphrase") as info:
        load_private_key(files.private_key, None)
    assert info.value.hint is not None and "RESPAI_KEY_PASSPHRASE" in info.value.hint


def test_passphrase_for_unencrypted_key_is_ignored(tmp_path: Path) -> None:
    files = new_key(tmp_path, passphrase=None)
    assert key_id(load_private_key(files.private_key, b"x").public_key()) == files.key_id


@pytest.mark.parametrize("loose", [0o644, 0o640, 0o604, 0o660])
def test_key_readable_by_others_is_refused(tmp_path: Path, loose: int) -> None:
    files = new_key(tmp_path, passphrase=None)
    files.private_key.chmod(loose)
    with pytest.raises(KeyMaterialError) as info:
        load_private_key(files.private_key, None)
    assert f"{loose:04o}" in info.value.message
    assert "other users" in info.value.message
    assert info.value.hint == f"Run: chmod 600 {files.private_key}"
    assert info.value.exit_code == 2


def test_not_a_key_and_not_ed25519(tmp_path: Path) -> None:
    junk = tmp_path / "junk.key"
    fd = os.open(junk, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"hello")
    os.close(fd)
    with pytest.raises(KeyMaterialError, match="does not hold a PEM private key"):
        load_private_key(junk, None)
    ecdsa = tmp_path / "ec.key"
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(ecdsa, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, pem)
    os.close(fd)
    with pytest.raises(KeyMaterialError, match="Ed25519 keys only"):
        load_private_key(ecdsa, None)
    with pytest.raises(KeyMaterialError, match="does not exist"):
        load_private_key(tmp_path / "missing.key", None)
    with pytest.raises(KeyMaterialError, match="PEM public key"):
        load_public_key(junk)


def test_passphrase_from_env_or_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_KEY_PASSPHRASE", "s3cret \u00e9")
    assert passphrase_from_env_or_prompt(prompt=False) == "s3cret \u00e9".encode()
    monkeypatch.setenv("RESPAI_KEY_PASSPHRASE", "")
    assert passphrase_from_env_or_prompt(prompt=False) is None
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE")
    # Under pytest standard input is not a terminal: no prompt, no passphrase.
    assert passphrase_from_env_or_prompt(prompt=True) is None
    monkeypatch.setenv("OTHER_VAR", "x")
    assert passphrase_from_env_or_prompt("OTHER_VAR", prompt=False) == b"x"


def test_default_key_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert default_key_dir() == tmp_path / "home"
    monkeypatch.delenv("RESPAI_HOME")
    assert default_key_dir() == tmp_path / "xdg" / "respai" / "keys"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_key_dir() == tmp_path / ".config" / "respai" / "keys"


def test_keyring_windows_and_retire(tmp_path: Path) -> None:
    files = new_key(tmp_path, passphrase=None)
    ring = KeyRing.load(files.keys_json)
    now = now_utc()
    assert ring.find(files.key_id, now)[1] == "valid"
    key, reason = ring.find(files.key_id, now - dt.timedelta(days=1))
    assert key is None
    assert "not yet valid" in reason
    assert ring.find("sha256:" + "0" * 64, now) == (None, "unknown key")

    retire_key(files.keys_json, files.key_id, now + dt.timedelta(hours=1))
    ring = KeyRing.load(files.keys_json)
    assert ring.find(files.key_id, now + dt.timedelta(minutes=30))[1] == "valid"
    key, reason = ring.find(files.key_id, now + dt.timedelta(hours=2))
    assert key is None
    assert reason.startswith("expired")
    with pytest.raises(KeyMaterialError, match="already has not_after"):
        retire_key(files.keys_json, files.key_id, now)
    with pytest.raises(KeyMaterialError, match="not listed"):
        retire_key(files.keys_json, "sha256:" + "1" * 64, now)

    revoke_key(files.keys_json, files.key_id, now + dt.timedelta(days=9))
    ring = KeyRing.load(files.keys_json)
    # Revocation means compromise: nothing verifies, whatever the record's time.
    assert ring.find(files.key_id, now + dt.timedelta(minutes=30))[1].startswith("revoked")


def test_keyring_union_joins_rings_and_keeps_the_stricter_window(tmp_path: Path) -> None:
    a = new_key(tmp_path / "a", passphrase=None)
    b = new_key(tmp_path / "b", passphrase=None)
    ring_a, ring_b = KeyRing.load(a.keys_json), KeyRing.load(b.keys_json)
    joined = ring_a.union(ring_b)
    now = now_utc()
    assert [e.key_id for e in joined] == [a.key_id, b.key_id]
    assert joined.find(a.key_id, now)[1] == "valid" and joined.find(b.key_id, now)[1] == "valid"
    assert b.key_id not in ring_a and len(ring_a.union()) == 1
    assert len(joined.union(ring_a, ring_b)) == 2  # a key listed twice is one entry

    # The same key retired in one copy of keys.json and revoked in another: the union
    # keeps the retirement and the revocation, whichever ring came first.
    retired = tmp_path / "retired.json"
    retired.write_bytes(a.keys_json.read_bytes())
    retire_key(retired, a.key_id, now + dt.timedelta(hours=1))
    later = now + dt.timedelta(hours=2)
    for ring in (ring_a.union(KeyRing.load(retired)), KeyRing.load(retired).union(ring_a)):
        assert ring.find(a.key_id, later)[1].startswith("expired")
        assert ring.find(a.key_id, now)[1] == "valid"
    revoked = tmp_path / "revoked.json"
    revoked.write_bytes(retired.read_bytes())
    revoke_key(revoked, a.key_id, now + dt.timedelta(days=1))
    ring = KeyRing.load(revoked).union(ring_a, ring_b)
    assert ring.find(a.key_id, now)[1].startswith("revoked")
    assert ring.find(b.key_id, now)[1] == "valid"


def test_rotation_keeps_old_records_verifiable(tmp_path: Path, rec: SimpleNamespace) -> None:
    old = new_key(tmp_path, passphrase=None)
    new = new_key(tmp_path, passphrase=None)
    t = now_utc()
    retire_key(old.keys_json, old.key_id, t + dt.timedelta(hours=1))

    def signed(files: object, when: dt.datetime) -> dict[str, object]:
        predicate = rec.make_predicate()
        predicate["timestamp"] = format_timestamp(when)
        key = load_private_key(files.private_key, None)  # type: ignore[attr-defined]
        return seal(predicate, None, key, files.key_id)  # type: ignore[attr-defined]

    ring = KeyRing.load(old.keys_json)
    assert verify_envelope(signed(old, t + dt.timedelta(minutes=5)), ring).ok
    assert verify_envelope(signed(new, t + dt.timedelta(hours=3)), ring).ok
    late = verify_envelope(signed(old, t + dt.timedelta(hours=3)), ring)
    assert late.failed == ("signature",)
    assert "expired" in late.check("signature").detail  # type: ignore[union-attr]


def test_malformed_keys_json(tmp_path: Path) -> None:
    path = tmp_path / "keys.json"
    path.write_text("{")
    with pytest.raises(KeyMaterialError, match="not valid JSON"):
        KeyRing.load(path)
    path.write_text('{"keys": {}}')
    with pytest.raises(KeyMaterialError, match="keys"):
        KeyRing.load(path)
    files = new_key(tmp_path / "k", passphrase=None)
    data = json.loads(files.keys_json.read_text())
    data["keys"][0]["key_id"] = "sha256:" + "ab" * 32
    path.write_text(json.dumps(data))
    with pytest.raises(KeyMaterialError, match="key's id is"):
        KeyRing.load(path)
    data = json.loads(files.keys_json.read_text())
    data["keys"][0]["not_after"] = "yesterday"
    path.write_text(json.dumps(data))
    with pytest.raises(KeyMaterialError, match=r"keys\[0\]\.not_after"):
        KeyRing.load(path)
    with pytest.raises(KeyMaterialError, match="does not exist"):
        KeyRing.load(tmp_path / "nope.json")


def _revoked_listing(tmp_path: Path) -> tuple[object, dict[str, object], str]:
    files = new_key(tmp_path / "keys", passphrase=None)
    entry = json.loads(files.keys_json.read_text())["keys"][0]
    revoked = format_timestamp(now_utc() - dt.timedelta(hours=1))
    return files, entry, revoked


def test_keys_json_listing_a_key_twice_is_refused(
    tmp_path: Path, rec: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    from respai.cli import main
    from respai.sealing import find_signing_key

    files, entry, revoked = _revoked_listing(tmp_path)
    # The unrevoked entry first: a reader taking the first copy would trust the key.
    listing = {"keys": [entry, {**entry, "revoked_at": revoked}]}
    files.keys_json.write_text(json.dumps(listing))  # type: ignore[attr-defined]
    with pytest.raises(KeyMaterialError, match=r"lists the key sha256:\w+ twice"):
        KeyRing.load(files.keys_json)  # type: ignore[attr-defined]
    with pytest.raises(KeyMaterialError, match="twice"):
        find_signing_key(files.private_key)  # type: ignore[attr-defined]
    key = load_private_key(files.private_key, None)  # type: ignore[attr-defined]
    record = tmp_path / "record.json"
    record.write_text(json.dumps(seal(rec.make_predicate(), None, key, files.key_id)))  # type: ignore[attr-defined]
    assert main(["verify", str(record), "--keys", str(files.keys_json)]) == 2  # type: ignore[attr-defined]
    err = capsys.readouterr().err
    assert "twice" in err and "Traceback" not in err


def test_keys_json_repeating_a_field_is_refused(tmp_path: Path) -> None:
    from respai.sealing import find_signing_key

    files, entry, revoked = _revoked_listing(tmp_path)
    body = json.dumps({**entry, "revoked_at": revoked})
    # "revoked_at": "<time>", then "revoked_at": null in the same object.
    text = '{"keys": [' + body[:-1] + ', "revoked_at": null}]}'
    files.keys_json.write_text(text)  # type: ignore[attr-defined]
    with pytest.raises(KeyMaterialError, match="repeats the object key 'revoked_at'"):
        KeyRing.load(files.keys_json)  # type: ignore[attr-defined]
    with pytest.raises(KeyMaterialError, match="revoked_at"):
        find_signing_key(files.private_key)  # type: ignore[attr-defined]
    with pytest.raises(KeyMaterialError, match="revoked_at"):
        new_key(tmp_path / "keys", passphrase=None)  # nothing appended to a doctored file
    assert len(list((tmp_path / "keys").glob("*.key"))) == 1


def _flip_seed_bit(path: Path) -> None:
    key = load_private_key(path, None)
    seed = bytearray(
        key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
    )
    seed[5] ^= 0x01
    flipped = Ed25519PrivateKey.from_private_bytes(bytes(seed)).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path.write_bytes(flipped)


def test_a_key_file_that_is_not_the_named_key_is_refused(tmp_path: Path) -> None:
    from respai.sealing import find_signing_key, signing_key

    files = new_key(tmp_path / "keys", passphrase=None)
    _flip_seed_bit(files.private_key)
    with pytest.raises(KeyMaterialError, match="damaged or replaced"):
        find_signing_key(files.private_key)
    with pytest.raises(KeyMaterialError, match="damaged or replaced"):
        signing_key(None, tmp_path / "keys")  # the default folder's newest key
    assert len(list((tmp_path / "keys").glob("*.key"))) == 1  # no new key made instead


def test_a_key_keys_json_does_not_list_is_refused(tmp_path: Path) -> None:
    from respai.sealing import find_signing_key

    listed = new_key(tmp_path / "keys", passphrase=None)
    other = new_key(tmp_path / "other", passphrase=None)
    # A renamed file: its name matches its key, but keys.json lists another key there.
    renamed = listed.private_key.with_name(other.private_key.name)
    other.private_key.rename(renamed)
    listed.keys_json.write_text(
        json.dumps({"keys": [json.loads(listed.keys_json.read_text())["keys"][0]]})
    )
    with pytest.raises(KeyMaterialError, match="does not list it"):
        find_signing_key(renamed)
    # A file named for the listed key that holds another key.
    listed.private_key.unlink()
    renamed.rename(listed.private_key)
    with pytest.raises(KeyMaterialError, match="damaged or replaced"):
        find_signing_key(listed.private_key)
    # A key with a name of its own, beside a keys.json listing only the other key.
    own = listed.private_key.with_name("signer.key")
    listed.private_key.rename(own)
    with pytest.raises(KeyMaterialError, match="does not list it"):
        find_signing_key(own)
