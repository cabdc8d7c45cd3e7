"""Ed25519 signing keys: files, passphrases, ``keys.json`` and validity windows.

A key pair lives in one directory as ``respai-<12 hex>.key`` (PKCS#8 PEM, optionally
passphrase-encrypted, mode 0600) and ``respai-<12 hex>.pub`` (SPKI PEM). The directory's
``keys.json`` lists the published public keys with their validity windows, so a record
signed before a rotation still verifies with the old key, which is kept forever. A key's
id is ``"sha256:" + hex(SHA-256(raw 32-byte public key))``.

Passphrases come from the ``RESPAI_KEY_PASSPHRASE`` environment variable or a prompt,
never from the command line.

Every change to a key folder (a new key, a line of ``keys.json``) is made under an
exclusive lock on the folder's ``.keys.lock`` (:func:`key_folder_lock`), and ``keys.json``
is replaced atomically, so concurrent runs never lose a listed key. A ``keys.json`` that
repeats a key id, or a field inside one object, is refused rather than read one way.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import fcntl
import getpass
import json
import os
import re
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from respai.io import FileTooLarge, NotARegularFile, atomic_write, read_bounded
from respai.record.canonical import MAX_KEY_FILE_BYTES, loads_strict
from respai.record.chain import digest_id, is_digest_id
from respai.record.errors import KeyMaterialError, RecordError
from respai.record.times import format_timestamp, now_utc, parse_timestamp

__all__ = [
    "KEYS_JSON",
    "KEYS_LOCK",
    "PASSPHRASE_ENV",
    "KeyEntry",
    "KeyFiles",
    "KeyRing",
    "check_key_file",
    "default_key_dir",
    "key_folder_lock",
    "key_id",
    "load_private_key",
    "load_public_key",
    "new_key",
    "newest_key_file",
    "passphrase_from_env_or_prompt",
    "public_key_raw",
    "retire_key",
    "revoke_key",
    "unlist_key",
]

KEYS_JSON = "keys.json"
"""The file name of the published key list in a key directory."""

KEYS_LOCK = ".keys.lock"
"""The file in a key directory that :func:`key_folder_lock` locks."""

_KEY_NAME = re.compile(r"respai-([0-9a-f]{12})\.key")

PASSPHRASE_ENV = "RESPAI_KEY_PASSPHRASE"
"""The environment variable a private key's passphrase is read from."""


def public_key_raw(public_key: Ed25519PublicKey) -> bytes:
    """Return the raw 32 bytes of an Ed25519 public key."""
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Ed25519PublicKey) -> str:
    """Return ``"sha256:" + hex(SHA-256(raw 32-byte public key))``.

    Examples
    --------
    >>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    >>> key_id(Ed25519PublicKey.from_public_bytes(bytes(32)))[:23]
    'sha256:66687aadf862bd77'
    """
    return digest_id(public_key_raw(public_key))


def _public_pem(public_key: Ed25519PublicKey) -> str:
    return public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def default_key_dir() -> Path:
    """Return where keys live by default.

    ``$RESPAI_HOME`` when set, else ``$XDG_CONFIG_HOME/respai/keys``, else
    ``~/.config/respai/keys``.
    """
    home = os.environ.get("RESPAI_HOME")
    if home:
        return Path(home)
    config = os.environ.get("XDG_CONFIG_HOME")
    if config:
        return Path(config) / "respai" / "keys"
    return Path.home() / ".config" / "respai" / "keys"


@dataclass(frozen=True, slots=True)
class KeyFiles:
    """The files :func:`new_key` wrote.

    Attributes
    ----------
    key_id
        The new key's id.
    private_key
        The PKCS#8 PEM private key, mode 0600.
    public_key
        The SPKI PEM public key.
    keys_json
        The directory's ``keys.json``, which now lists the key.
    encrypted
        Whether the private key is passphrase-encrypted.
    """

    key_id: str
    private_key: Path
    public_key: Path
    keys_json: Path
    encrypted: bool


def _write_exclusive(path: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        raise KeyMaterialError(
            f"{path} already exists; respai never overwrites a key file.",
            "Move the old file away or choose another --dir.",
        ) from None
    except OSError as exc:
        raise KeyMaterialError(f"Cannot create {path}: {exc.strerror}.") from None
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)  # the umask may have narrowed it; make it exact
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _entry_json(public_key: Ed25519PublicKey, not_before: dt.datetime) -> dict[str, Any]:
    return {
        "key_id": key_id(public_key),
        "algorithm": "ed25519",
        "public_key_raw_b64": base64.b64encode(public_key_raw(public_key)).decode("ascii"),
        "public_key_pem": _public_pem(public_key),
        "not_before": format_timestamp(not_before),
        "not_after": None,
        "revoked_at": None,
    }


def _read_keys_json(path: Path) -> dict[str, Any]:
    try:
        text = read_bounded(path, MAX_KEY_FILE_BYTES, "MAX_KEY_FILE_BYTES")
    except FileNotFoundError:
        raise KeyMaterialError(
            f"{path} does not exist.", "Create a key with 'respai keys new'."
        ) from None
    except (NotARegularFile, FileTooLarge) as exc:
        raise KeyMaterialError(
            f"{path} is {exc.strerror}; it is not a keys.json.",
            "Restore keys.json from its published copy (a small JSON file).",
        ) from None
    except OSError as exc:
        raise KeyMaterialError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    try:
        # Refuses a repeated field in any object: readers disagree on which copy wins, so
        # ``"revoked_at": "...", "revoked_at": null`` could hide a revocation.
        data = loads_strict(text)
    except RecordError as exc:
        raise KeyMaterialError(
            f"{path} cannot be read as keys.json: {exc.message}",
            "Fix the file by hand (each field once per key, each key once), or restore "
            "the published copy.",
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise KeyMaterialError(f'{path} must be an object {{"keys": [...]}}.')
    seen: dict[object, int] = {}
    for i, entry in enumerate(data["keys"]):
        kid = entry.get("key_id") if isinstance(entry, dict) else None
        if kid is None or isinstance(kid, dict | list):
            continue
        if kid in seen:
            raise KeyMaterialError(
                f"{path} lists the key {kid} twice (keys[{seen[kid]}] and keys[{i}]); "
                "respai refuses to choose one, since one entry could hide the other's "
                "revocation or retirement.",
                "Merge the two entries into one by hand (keep the earliest revoked_at and "
                "not_after), or restore the published copy.",
            )
        seen[kid] = i
    return data


def _write_keys_json(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    try:
        atomic_write(path, text.encode("utf-8"))
    except OSError as exc:
        raise KeyMaterialError(f"Cannot write {path}: {exc.strerror}.") from None


def _make_folder(directory: Path) -> Path:
    try:
        if not directory.exists():
            directory.mkdir(mode=0o700, parents=True)
            os.chmod(directory, 0o700)
    except FileExistsError:
        pass  # another run made it meanwhile
    except OSError as exc:
        raise KeyMaterialError(f"Cannot create {directory}: {exc.strerror}.") from None
    if not directory.is_dir():
        raise KeyMaterialError(f"{directory} is not a directory.")
    return directory


_GUARD = threading.Lock()
_THREAD_LOCKS: dict[tuple[int, int], threading.RLock] = {}
_DEPTH: dict[tuple[int, int], int] = {}


def _lock_fd(path: Path) -> int | None:
    """Open ``path`` and hold an exclusive flock on it; ``None`` if it went meanwhile."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except FileNotFoundError:
        return None  # the folder went (a discarded first key): make it anew
    except OSError as exc:
        raise KeyMaterialError(
            f"Cannot open the key folder's lock {path}: {exc.strerror}."
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        held = os.fstat(fd)
        now = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        os.close(fd)
        return None  # removed while we waited: lock the new one
    except OSError as exc:
        os.close(fd)
        raise KeyMaterialError(
            f"Cannot lock {path}: {exc.strerror} (the file system may not support flock)."
        ) from None
    if (held.st_dev, held.st_ino) != (now.st_dev, now.st_ino):
        os.close(fd)
        return None
    return fd


def _thread_lock(directory: Path) -> tuple[tuple[int, int], threading.RLock]:
    st = _make_folder(directory).stat()
    ident = (st.st_dev, st.st_ino)
    with _GUARD:
        return ident, _THREAD_LOCKS.setdefault(ident, threading.RLock())


@contextlib.contextmanager
def key_folder_lock(directory: Path) -> Iterator[Path]:
    """Hold the key folder's exclusive lock: one writer of keys and ``keys.json`` at a time.

    The folder is created (mode 0700) when missing. The lock is an ``fcntl.flock`` on
    :data:`KEYS_LOCK` in the folder, so it holds between processes, and it is re-entrant
    within one thread, so a caller holding it can call :func:`new_key`.

    Parameters
    ----------
    directory
        The key folder.

    Yields
    ------
    Path
        The folder.

    Raises
    ------
    KeyMaterialError
        If the folder or its lock file cannot be created or locked.
    """
    directory = Path(directory)
    while True:
        ident, rlock = _thread_lock(directory)
        with rlock:
            if _DEPTH.get(ident, 0):
                _DEPTH[ident] += 1
                try:
                    yield directory
                finally:
                    _DEPTH[ident] -= 1
                return
            fd = _lock_fd(directory / KEYS_LOCK)
            if fd is None:
                continue
            _DEPTH[ident] = 1
            try:
                yield directory
            finally:
                _DEPTH.pop(ident, None)
                os.close(fd)
            return


def newest_key_file(directory: Path) -> Path | None:
    """Return the newest ``respai-*.key`` in ``directory`` (by modification time), or ``None``.

    Parameters
    ----------
    directory
        The key folder; a missing folder holds no key.

    Returns
    -------
    Path or None
        The private key file that signs by default.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return None
    found = sorted(directory.glob("respai-*.key"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def new_key(directory: Path, *, passphrase: bytes | None) -> KeyFiles:
    """Generate an Ed25519 key pair in ``directory`` and list it in its ``keys.json``.

    The files are written and ``keys.json`` is replaced atomically under the folder's
    lock (:func:`key_folder_lock`), so concurrent calls each list their key.

    Parameters
    ----------
    directory
        Where to write; created with mode 0700 when missing (an existing directory's
        mode is left alone).
    passphrase
        Encrypt the private key with this passphrase (PKCS#8, best available
        encryption), or ``None`` to write it unencrypted.

    Returns
    -------
    KeyFiles
        The key id and the paths written.

    Raises
    ------
    KeyMaterialError
        If the directory or a file cannot be created, a key file already exists, or the
        folder's ``keys.json`` is malformed (a repeated key id or field included).
    """
    directory = Path(directory)
    private = Ed25519PrivateKey.generate()
    public = private.public_key()
    kid = key_id(public)
    stem = "respai-" + kid.removeprefix("sha256:")[:12]
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase)
        if passphrase
        else serialization.NoEncryption()
    )
    private_pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    with key_folder_lock(directory):
        keys_json = directory / KEYS_JSON
        data = _read_keys_json(keys_json) if keys_json.exists() else {"keys": []}
        private_path = directory / f"{stem}.key"
        public_path = directory / f"{stem}.pub"
        _write_exclusive(private_path, private_pem, 0o600)
        try:
            _write_exclusive(public_path, _public_pem(public).encode("ascii"), 0o644)
            data["keys"] = [e for e in data["keys"] if not _entry_has_id(e, kid)]
            data["keys"].append(_entry_json(public, now_utc().replace(microsecond=0)))
            _write_keys_json(keys_json, data)
        except BaseException:
            private_path.unlink(missing_ok=True)
            public_path.unlink(missing_ok=True)
            raise
    return KeyFiles(kid, private_path, public_path, keys_json, bool(passphrase))


def unlist_key(directory: Path, kid: str, *, remove_folder: bool = False) -> None:
    """Take a key back out of ``directory``: its files and its ``keys.json`` entry.

    Used to undo a key made for a run that then failed. Only this key's entry goes;
    keys other runs listed meanwhile stay. ``keys.json`` is removed when it lists no key.

    Parameters
    ----------
    directory
        The key folder.
    kid
        The key's id.
    remove_folder
        Also remove the folder (and its lock file) when nothing else is left in it.

    Raises
    ------
    KeyMaterialError
        If ``keys.json`` cannot be read or written.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return
    stem = "respai-" + kid.removeprefix("sha256:")[:12]
    with key_folder_lock(directory):
        (directory / f"{stem}.key").unlink(missing_ok=True)
        (directory / f"{stem}.pub").unlink(missing_ok=True)
        keys_json = directory / KEYS_JSON
        if keys_json.exists():
            data = _read_keys_json(keys_json)
            data["keys"] = [e for e in data["keys"] if not _entry_has_id(e, kid)]
            if data["keys"] or set(data) != {"keys"}:
                _write_keys_json(keys_json, data)
            else:
                keys_json.unlink()
        if remove_folder and {p.name for p in directory.iterdir()} <= {KEYS_LOCK}:
            # Waiters on the lock see it gone and make the folder anew (_lock_fd).
            (directory / KEYS_LOCK).unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                directory.rmdir()


def _entry_has_id(entry: object, kid: str) -> bool:
    return isinstance(entry, dict) and entry.get("key_id") == kid


def passphrase_from_env_or_prompt(
    env: str = PASSPHRASE_ENV, *, prompt: bool, confirm: bool = False
) -> bytes | None:
    """Return a key passphrase from the environment, else from a prompt, else ``None``.

    Parameters
    ----------
    env
        The environment variable to read; an empty value counts as unset.
    prompt
        Ask on the terminal when the variable is unset. No prompt is shown when standard
        input is not a terminal (CI), and ``None`` is returned.
    confirm
        Ask twice and insist that both answers match (for a new key).

    Returns
    -------
    bytes or None
        The UTF-8 passphrase, or ``None`` for no passphrase.

    Raises
    ------
    KeyMaterialError
        If the two answers of a confirmed prompt differ.
    """
    value = os.environ.get(env)
    if value:
        return value.encode("utf-8")
    if not prompt or not sys.stdin.isatty():
        return None
    first = getpass.getpass("Key passphrase (empty for none): ")
    if confirm and first and getpass.getpass("Repeat the passphrase: ") != first:
        raise KeyMaterialError("The two passphrases differ; nothing was written.")
    return first.encode("utf-8") if first else None


def _refuse_loose_mode(path: Path) -> None:
    if os.name == "nt":  # pragma: no cover - POSIX modes only
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise KeyMaterialError(
            f"The private key {path} has mode {mode:04o}, so other users can read or "
            "change it; respai refuses to sign with it.",
            f"Run: chmod 600 {path}",
        )


def load_private_key(path: Path, passphrase: bytes | None) -> Ed25519PrivateKey:
    """Load an Ed25519 private key from a PKCS#8 PEM file.

    Parameters
    ----------
    path
        The ``.key`` file. It must not be readable (or writable) by group or others.
    passphrase
        The passphrase of an encrypted key, or ``None``. A passphrase given for an
        unencrypted key is ignored.

    Returns
    -------
    Ed25519PrivateKey
        The key.

    Raises
    ------
    KeyMaterialError
        If the file is missing, readable by others, encrypted and no or the wrong
        passphrase was given, holds no private key, or holds a key that is not Ed25519.
    """
    path = Path(path)
    if not path.is_file():
        raise KeyMaterialError(
            f"The private key {path} does not exist or is not a file.",
            "Create one with 'respai keys new', or pass the path of a .key file.",
        )
    _refuse_loose_mode(path)
    try:
        data = read_bounded(path, MAX_KEY_FILE_BYTES, "MAX_KEY_FILE_BYTES")
    except OSError as exc:
        raise KeyMaterialError(f"Cannot read the private key {path}: {exc.strerror}.") from None
    encrypted = b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in data
    if encrypted and not passphrase:
        raise KeyMaterialError(
            f"The private key {path} is encrypted and no passphrase was given.",
            f"Set {PASSPHRASE_ENV} or run in a terminal to be asked for it.",
        )
    try:
        key = serialization.load_pem_private_key(data, password=passphrase if encrypted else None)
    except ValueError:
        if encrypted:
            raise KeyMaterialError(
                f"The passphrase for the private key {path} is wrong (or the file is damaged).",
                f"Check {PASSPHRASE_ENV} or the passphrase you typed.",
            ) from None
        raise KeyMaterialError(
            f"{path} does not hold a PEM private key.",
            "Pass the .key file written by 'respai keys new', not the .pub file.",
        ) from None
    except (TypeError, UnsupportedAlgorithm) as exc:
        raise KeyMaterialError(f"{path} cannot be loaded as a private key: {exc}.") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyMaterialError(
            f"{path} holds a {type(key).__name__.removesuffix('PrivateKey') or 'non-Ed25519'}"
            " key; respai signs with Ed25519 keys only.",
            "Create one with 'respai keys new'.",
        )
    return key


def load_public_key(path: Path) -> Ed25519PublicKey:
    """Load an Ed25519 public key from an SPKI PEM (``.pub``) file.

    Raises
    ------
    KeyMaterialError
        If the file is missing, holds no PEM public key, or a key that is not Ed25519.
    """
    path = Path(path)
    try:
        data = read_bounded(path, MAX_KEY_FILE_BYTES, "MAX_KEY_FILE_BYTES")
    except (NotARegularFile, FileTooLarge) as exc:
        raise KeyMaterialError(f"The public key {path} is {exc.strerror}.") from None
    except OSError as exc:
        raise KeyMaterialError(f"Cannot read the public key {path}: {exc.strerror}.") from None
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise KeyMaterialError(
            f"{path} does not hold a PEM public key.",
            "Pass a .pub file written by 'respai keys new', or use --keys keys.json.",
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyMaterialError(f"{path} holds a key that is not Ed25519.")
    return key


@dataclass(frozen=True, slots=True)
class KeyEntry:
    """One published public key and the window in which its signatures count.

    Attributes
    ----------
    key_id
        ``"sha256:" + hex(SHA-256(raw public key))``.
    public_key
        The key.
    not_before, not_after
        The validity window (inclusive), or ``None`` for open-ended.
    revoked_at
        When the key was revoked (compromised), or ``None``. A revoked key verifies
        nothing, whatever a record's timestamp says, because the timestamp is written by
        whoever holds the key.
    """

    key_id: str
    public_key: Ed25519PublicKey
    not_before: dt.datetime | None = None
    not_after: dt.datetime | None = None
    revoked_at: dt.datetime | None = None

    def status(self, at: dt.datetime) -> str | None:
        """Return why this key cannot vouch for a record made at ``at``, or ``None``."""
        if self.revoked_at is not None:
            return f"revoked at {format_timestamp(self.revoked_at)}"
        if self.not_before is not None and at < self.not_before:
            return (
                f"not yet valid at {format_timestamp(at)} "
                f"(not_before {format_timestamp(self.not_before)})"
            )
        if self.not_after is not None and at > self.not_after:
            return (
                f"expired at {format_timestamp(at)} (not_after {format_timestamp(self.not_after)})"
            )
        return None


def _optional_time(entry: dict[str, Any], field: str, where: str) -> dt.datetime | None:
    value = entry.get(field)
    if value is None:
        return None
    try:
        return parse_timestamp(value)
    except RecordError:
        raise KeyMaterialError(
            f"{where}.{field} is {value!r}, not an RFC 3339 UTC timestamp such as "
            "'2026-01-15T10:20:30Z'."
        ) from None


def _parse_entry(entry: object, where: str) -> KeyEntry:
    if not isinstance(entry, dict):
        raise KeyMaterialError(f"{where} is not an object.")
    if entry.get("algorithm", "ed25519") != "ed25519":
        raise KeyMaterialError(
            f"{where}.algorithm is {entry.get('algorithm')!r}; only 'ed25519' is supported."
        )
    public: Ed25519PublicKey | None = None
    raw_b64 = entry.get("public_key_raw_b64")
    if isinstance(raw_b64, str):
        try:
            public = Ed25519PublicKey.from_public_bytes(base64.b64decode(raw_b64, validate=True))
        except ValueError:
            raise KeyMaterialError(
                f"{where}.public_key_raw_b64 is not the base64 of 32 bytes."
            ) from None
    pem = entry.get("public_key_pem")
    if isinstance(pem, str):
        try:
            from_pem = serialization.load_pem_public_key(pem.encode("ascii"))
        except (ValueError, UnicodeEncodeError, UnsupportedAlgorithm):
            raise KeyMaterialError(f"{where}.public_key_pem is not a PEM public key.") from None
        if not isinstance(from_pem, Ed25519PublicKey):
            raise KeyMaterialError(f"{where}.public_key_pem is not an Ed25519 key.")
        if public is not None and public_key_raw(public) != public_key_raw(from_pem):
            raise KeyMaterialError(
                f"{where}: public_key_pem and public_key_raw_b64 are different keys."
            )
        public = from_pem
    if public is None:
        raise KeyMaterialError(f"{where} has neither public_key_raw_b64 nor public_key_pem.")
    kid = key_id(public)
    if entry.get("key_id") != kid:
        raise KeyMaterialError(
            f"{where}.key_id is {entry.get('key_id')!r} but the key's id is {kid}."
        )
    return KeyEntry(
        kid,
        public,
        _optional_time(entry, "not_before", where),
        _optional_time(entry, "not_after", where),
        _optional_time(entry, "revoked_at", where),
    )


def _bound(
    pick: Callable[[dt.datetime, dt.datetime], dt.datetime],
    a: dt.datetime | None,
    b: dt.datetime | None,
) -> dt.datetime | None:
    # ``None`` is no bound: the other one, when there is one, is the stricter.
    if a is None or b is None:
        return b if a is None else a
    return pick(a, b)


@dataclass(frozen=True, slots=True)
class KeyRing:
    """The public keys a verifier trusts, each with its validity window.

    Attributes
    ----------
    entries
        The keys, in the order they were listed.
    """

    entries: tuple[KeyEntry, ...]

    @classmethod
    def load(cls, path: Path) -> KeyRing:
        """Read a ``keys.json`` file.

        Raises
        ------
        KeyMaterialError
            If the file is missing or malformed, or a listed key id does not match its
            key.
        """
        path = Path(path)
        data = _read_keys_json(path)
        entries = tuple(_parse_entry(e, f"{path}: keys[{i}]") for i, e in enumerate(data["keys"]))
        return cls(entries)

    @classmethod
    def from_public_key(cls, public_key: Ed25519PublicKey) -> KeyRing:
        """Return a ring holding one key with no validity window."""
        return cls((KeyEntry(key_id(public_key), public_key),))

    def union(self, *others: KeyRing) -> KeyRing:
        """Return a ring trusting every key of this ring and of ``others``.

        Keys keep their first-listed order. A key listed in more than one ring counts
        only where every ring that lists it lets it count: the latest ``not_before``,
        the earliest ``not_after`` and the earliest ``revoked_at``, so joining a ring
        never widens a window another ring narrowed or undoes a revocation.

        Parameters
        ----------
        others
            The rings to join with this one.

        Returns
        -------
        KeyRing
            The joined ring.
        """
        merged: dict[str, KeyEntry] = {}
        for entry in (e for ring in (self, *others) for e in ring.entries):
            seen = merged.get(entry.key_id)
            if seen is None:
                merged[entry.key_id] = entry
                continue
            merged[entry.key_id] = KeyEntry(
                entry.key_id,
                seen.public_key,
                _bound(max, seen.not_before, entry.not_before),
                _bound(min, seen.not_after, entry.not_after),
                _bound(min, seen.revoked_at, entry.revoked_at),
            )
        return KeyRing(tuple(merged.values()))

    def __iter__(self) -> Iterator[KeyEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, kid: object) -> bool:
        return any(e.key_id == kid for e in self.entries)

    def find(self, key_id: str, at: dt.datetime) -> tuple[Ed25519PublicKey | None, str]:
        """Return the key with ``key_id`` if it may vouch for a record made at ``at``.

        Parameters
        ----------
        key_id
            The key id to look up.
        at
            The record's time (aware).

        Returns
        -------
        tuple
            ``(public_key, "valid")``, or ``(None, reason)`` where the reason says
            ``unknown key``, ``revoked at ...``, ``not yet valid ...`` or
            ``expired ...``.
        """
        if at.tzinfo is None:
            raise RecordError("KeyRing.find needs an aware datetime.")
        for entry in self.entries:
            if entry.key_id == key_id:
                reason = entry.status(at)
                if reason is None:
                    return entry.public_key, "valid"
                return None, reason
        return None, "unknown key"


def check_key_file(path: Path, private_key: Ed25519PrivateKey) -> KeyEntry:
    """Refuse a private key that is not the key its file name and ``keys.json`` say it is.

    A damaged or swapped key file (one flipped bit in the seed is another valid key)
    would otherwise sign records that no published key verifies. The checks: a file
    named ``respai-<12 hex>.key`` must hold the key whose id starts with those 12 hex
    digits, and the ``keys.json`` beside the file must list the key. That ``keys.json``
    is where the key's status (retired, revoked) is read, so a missing one, or one that
    is not a readable regular file (a FIFO, a device, a link to one), is refused too:
    a revoked key must not sign again because its ``keys.json`` was moved away. A key
    folder that :func:`new_key` creates always has one (a first run's key included).

    Parameters
    ----------
    path
        The private key file.
    private_key
        The key loaded from it.

    Returns
    -------
    KeyEntry
        The key's entry in the ``keys.json`` beside it.

    Raises
    ------
    KeyMaterialError
        If the key does not match its file name or its ``keys.json`` entry, is not
        listed in that ``keys.json``, or the ``keys.json`` is missing, not a regular
        file, unreadable or malformed.
    """
    path = Path(path)
    kid = key_id(private_key.public_key())
    short = kid.removeprefix("sha256:")[:12]
    named = _KEY_NAME.fullmatch(path.name)
    if named and named.group(1) != short:
        raise KeyMaterialError(
            f"The private key {path} holds the key {kid}, whose file would be "
            f"respai-{short}.key: the file was damaged or replaced, so respai refuses to "
            "sign with it (its records would match no published key).",
            "Restore the key file from a backup, or create a new key with 'respai keys new'.",
        )
    listing = path.parent / KEYS_JSON
    if not listing.exists() and not listing.is_symlink():
        raise KeyMaterialError(
            f"The private key {path} has no {KEYS_JSON} beside it, so whether the key was "
            "retired or revoked cannot be read; respai refuses to sign with a key whose "
            "status it cannot read.",
            f"Put the key folder's {KEYS_JSON} (the one you publish, listing this key) back "
            f"at {listing}, or sign with a key made by 'respai keys new', which writes "
            f"its {KEYS_JSON}.",
        )
    try:
        ring = KeyRing.load(listing)
    except KeyMaterialError as exc:
        raise KeyMaterialError(
            f"The status of the private key {path} (retired, revoked) cannot be read: "
            f"{exc.message} respai refuses to sign with it.",
            f"Replace {listing} with a regular file, the key folder's published "
            f"{KEYS_JSON}, that lists this key.",
        ) from None
    for entry in ring:
        if entry.key_id == kid:
            return entry
    raise KeyMaterialError(
        f"The private key {path} holds the key {kid}, but {listing} beside it does not "
        "list it: respai refuses to sign with a key its own keys.json does not publish "
        "(its records would not verify).",
        "Restore the key file from a backup, sign with a listed key, or create a new key "
        "with 'respai keys new'.",
    )


def _set_time(
    keys_json: Path, kid: str, field: str, at: dt.datetime, extra: dict[str, str] | None = None
) -> None:
    if not is_digest_id(kid):
        raise KeyMaterialError(f"{kid!r} is not a key id ('sha256:' and 64 hex digits).")
    path = Path(keys_json)
    if not path.parent.is_dir():
        _read_keys_json(path)  # says the file does not exist
    with key_folder_lock(path.parent):
        _set_time_locked(path, kid, field, at, extra or {})


def _set_time_locked(
    path: Path, kid: str, field: str, at: dt.datetime, extra: dict[str, str]
) -> None:
    data = _read_keys_json(path)
    for i, entry in enumerate(data["keys"]):
        if _entry_has_id(entry, kid):
            _parse_entry(entry, f"{path}: keys[{i}]")
            if entry.get(field) is not None:
                raise KeyMaterialError(
                    f"The key {kid} already has {field} {entry[field]} in {path}; respai "
                    "does not move it.",
                    "Edit keys.json by hand if this is really intended.",
                )
            entry[field] = format_timestamp(at)
            entry.update(extra)
            _write_keys_json(path, data)
            return
    raise KeyMaterialError(f"The key {kid} is not listed in {path}.")


def retire_key(keys_json: Path, key_id: str, at: dt.datetime) -> None:
    """Set a key's ``not_after`` to ``at``: it signs nothing later, but stays listed.

    Rotation is a new key (:func:`new_key`) and retiring the old one; records signed
    while the old key was valid still verify, because old public keys are kept.

    Raises
    ------
    KeyMaterialError
        If the key is not listed or already retired.
    """
    _set_time(keys_json, key_id, "not_after", at)


def revoke_key(
    keys_json: Path, key_id: str, at: dt.datetime, *, reason: str | None = None
) -> None:
    """Set a key's ``revoked_at`` to ``at``: after a compromise, it verifies nothing.

    ``reason``, when given, is kept beside it as ``revocation_reason`` (for people; a
    verifier reads only ``revoked_at``).

    Raises
    ------
    KeyMaterialError
        If the key is not listed or already revoked.
    """
    extra = None if reason is None else {"revocation_reason": reason}
    _set_time(keys_json, key_id, "revoked_at", at, extra)
