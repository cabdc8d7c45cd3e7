"""Sign an evaluation: find or create the key, seal the record, append it to the ledger.

The signing key is the one given with ``--key``, else the newest key in the default key
folder (``$RESPAI_HOME``, else ``$XDG_CONFIG_HOME/respai/keys``, else
``~/.config/respai/keys``); when there is none, a new unencrypted key is created there and
the caller says so. Outputs are written to a temporary folder and moved into place only
when everything succeeded, so a failed run leaves no partial output.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.errors import InputError
from respai.evaluate import Evaluation
from respai.record import (
    KeyMaterialError,
    default_key_dir,
    key_id,
    load_private_key,
    new_key,
    passphrase_from_env_or_prompt,
)

__all__ = [
    "Sealed",
    "SigningKey",
    "create_signing_key",
    "envelope_bytes",
    "find_signing_key",
    "seal_evaluation",
    "signing_key",
    "write_outputs",
]


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A loaded private key, its id, its file, and whether it was just created."""

    key: Ed25519PrivateKey
    key_id: str
    path: Path
    created: bool


def _load(path: Path) -> Ed25519PrivateKey:
    encrypted = b"ENCRYPTED" in path.read_bytes()[:200] if path.is_file() else False
    passphrase = passphrase_from_env_or_prompt(prompt=encrypted)
    return load_private_key(path, passphrase)


def _check_not_retired(sk: SigningKey) -> None:
    """Refuse a key that its own keys.json lists as revoked or past its validity."""
    from respai.record import KeyRing, now_utc

    listing = sk.path.parent / "keys.json"
    if not listing.is_file():
        return
    ring = KeyRing.load(listing)
    if sk.key_id not in ring:
        return
    found, reason = ring.find(sk.key_id, now_utc())
    if found is None:
        raise KeyMaterialError(
            f"the signing key {sk.path} ({sk.key_id}) cannot sign now: {reason} (per {listing}).",
            "Create a new key with: respai keys new",
        )


def find_signing_key(path: Path | None, key_dir: Path | None = None) -> SigningKey | None:
    """Load ``path``, else the newest key in the key folder; ``None`` when there is none.

    Raises
    ------
    respai.record.KeyMaterialError
        When the key cannot be loaded (readable by others, wrong passphrase, retired).
    """
    if path is not None:
        if not path.exists():
            raise InputError(
                f"the key file {path} does not exist.",
                "Create one with: respai keys new --dir DIR",
            )
        key = _load(path)
        sk = SigningKey(key, key_id(key.public_key()), path, False)
    else:
        folder = key_dir or default_key_dir()
        found = (
            sorted(folder.glob("respai-*.key"), key=lambda p: p.stat().st_mtime)
            if folder.is_dir()
            else []
        )
        if not found:
            return None
        key = _load(found[-1])
        sk = SigningKey(key, key_id(key.public_key()), found[-1], False)
    _check_not_retired(sk)
    return sk


def create_signing_key(key_dir: Path | None = None) -> SigningKey:
    """Create a new unencrypted key in the key folder (when none is configured)."""
    files = new_key(key_dir or default_key_dir(), passphrase=None)
    key = load_private_key(files.private_key, None)
    return SigningKey(key, files.key_id, files.private_key, True)


def signing_key(path: Path | None, key_dir: Path | None = None) -> SigningKey:
    """:func:`find_signing_key`, else :func:`create_signing_key`."""
    return find_signing_key(path, key_dir) or create_signing_key(key_dir)


def write_outputs(
    out: Path,
    files: Mapping[str, str | bytes],
    *,
    marker: str = "record.json",
    what: str = "respai output",
) -> list[Path]:
    """Write ``files`` (name -> content) into ``out`` all at once, or not at all.

    An existing ``out`` that holds ``marker`` (an earlier run's output) is replaced; any
    other existing path is refused, so nothing a user keeps there is ever deleted.

    Raises
    ------
    InputError
        When ``out`` exists and is not an earlier output folder, or cannot be created.
    """
    out = out.resolve()
    if out.exists() and not (out / marker).exists():
        kind = "a folder" if out.is_dir() else "a file"
        raise InputError(
            f"--out {out} is {kind} that is not an earlier {what} folder.",
            "Pass --out with a new folder name.",
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".respai-out-", dir=out.parent))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)  # mkdtemp makes it 0700; outputs are for sharing
    except OSError as exc:
        raise InputError(
            f"cannot create the output folder {out}: {exc.strerror or exc}.",
            "Pass --out with a folder you can write to.",
        ) from None
    try:
        for name, content in files.items():
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return [out / name for name in files]


def write_file(path: Path, text: str) -> None:
    """Write one text file atomically (temporary file + rename), or raise InputError."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path} is a folder; give a file name, e.g. {path / 'report.html'}.")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".respai-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        raise InputError(
            f"cannot write {path}: {exc.strerror or exc}.", "Choose a path you can write to."
        ) from None


def envelope_bytes(envelope: Mapping[str, Any]) -> bytes:
    """The envelope as it is written to ``record.json``: indented JSON, one trailing newline.

    The payload inside is the canonical (signed) bytes, base64-encoded; the envelope's own
    layout does not matter to verification.
    """
    return (json.dumps(envelope, indent=2, sort_keys=True) + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class Sealed:
    """A sealed evaluation: the envelope, where it was written, and its ledger position."""

    envelope: Mapping[str, Any]
    predicate: Mapping[str, Any]
    record_path: Path
    ledger: Path | None
    key_id: str

    def summary_json(self) -> dict[str, Any]:
        """What ``respai evaluate --json`` prints: verdict, tests, where the record is."""
        tests = [
            {
                k: r.get(k)
                for k in (
                    "test_key",
                    "test_id",
                    "value",
                    "interval",
                    "threshold",
                    "verdict",
                    "uncertain",
                    "undefined_reason",
                )
            }
            for r in self.predicate["records"]
            if r["record_type"] == "test"
        ]
        return {
            "kind": "respai.evaluate",
            "engine": f"{self.predicate['engine']['name']}/{self.predicate['engine']['version']}",
            "run_id": self.predicate["run_id"],
            "timestamp": self.predicate["timestamp"],
            "verdict": self.predicate["verdict"],
            "exit_code": self.predicate["records"][-1]["exit_code"],
            "record": str(self.record_path),
            "ledger": None if self.ledger is None else str(self.ledger),
            "key_id": self.key_id,
            "fingerprints": self.predicate["fingerprints"],
            "tests": tests,
        }


def seal_evaluation(
    e: Evaluation, sk: SigningKey, *, out: Path, summary: str, ledger: Path | None
) -> Sealed:
    """Build, sign and write the record of ``e``; chain it into ``ledger`` when given.

    The outputs folder receives ``record.json`` (the DSSE envelope), ``summary.txt`` and
    ``public_key.pem``. With a ledger, the run is appended under the ledger's lock, so two
    concurrent runs get consecutive places in the chain.
    """
    from cryptography.hazmat.primitives import serialization

    from respai.evaluate import build_predicate
    from respai.record import (
        GENESIS,
        engine_code_fingerprint,
        file_fingerprint,
        format_timestamp,
        now_utc,
        seal,
    )

    cases = e.fairness.spec.cases
    assert cases is not None
    fingerprints = {
        "dataset": dict(e.dataset_fingerprint or file_fingerprint(cases)),
        "model": None if e.model is None else e.model.get("fingerprint"),
        "engine_code": engine_code_fingerprint(),
    }
    public_pem = sk.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )

    def make(prev: str, start: int) -> tuple[dict[str, Any], dict[str, Any]]:
        predicate = build_predicate(
            e, key_id=sk.key_id, fingerprints=fingerprints, timestamp=format_timestamp(now_utc())
        )
        envelope = seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)
        return predicate, envelope

    def files(envelope: Mapping[str, Any]) -> dict[str, str | bytes]:
        from respai.record.keys import public_key_raw
        from respai.render.html import render_report

        return {
            "record.json": envelope_bytes(envelope),
            "summary.txt": summary,
            "public_key.pem": public_pem,
            "report.html": render_report(envelope, public_key_raw(sk.key.public_key())),
        }

    if ledger is None:
        predicate, envelope = make(GENESIS, 0)
        paths = write_outputs(out, files(envelope))
        return Sealed(envelope, predicate, paths[0], None, sk.key_id)
    from respai.ledger import Ledger

    book = Ledger.open(ledger)
    with book.append_lock() as head:
        predicate, envelope = make(head.last_record_id, head.next_seq)
        head.append(envelope, sk.key)
    paths = write_outputs(out, files(envelope))
    return Sealed(envelope, predicate, paths[0], ledger.resolve(), sk.key_id)
