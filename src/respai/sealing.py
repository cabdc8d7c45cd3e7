"""Sign a run: find or create the key, seal the record, write the outputs, append to the ledger.

Every command that signs (``evaluate`` and :func:`respai.evaluate`, ``ll144 --out``,
``plan``, ``monitor``, ``pack``) goes through one sequence, :class:`Signing`:
:func:`begin_signing` refuses output paths that touch an input or the ledger, finds the
key and checks the output folder, all before any data is read; the command runs; then
:meth:`Signing.seal` creates the key if there was none (only now that the run
succeeded) and hands the run to :func:`seal_run`, which signs, writes and appends all or
nothing.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.errors import InputError
from respai.io import Content, Named, StagedFolder, read_regular, refuse_overlaps
from respai.record import (
    KeyMaterialError,
    default_key_dir,
    key_id,
    load_private_key,
    new_key,
    passphrase_from_env_or_prompt,
)
from respai.record.keys import key_folder_lock, newest_key_file, unlist_key

if TYPE_CHECKING:
    from respai.spec.parsed import Spec

__all__ = [
    "Companion",
    "Sealed",
    "Signing",
    "SigningKey",
    "begin_signing",
    "create_signing_key",
    "discard_created_key",
    "earlier_output",
    "envelope_bytes",
    "existing_signing_key",
    "find_signing_key",
    "key_inputs",
    "seal_run",
    "settle_created_key",
    "signing_key",
    "spec_inputs",
    "write_outputs",
]


@dataclass(frozen=True, slots=True)
class SigningKey:
    """A loaded private key, its id, its file, and whether it was just created."""

    key: Ed25519PrivateKey
    key_id: str
    path: Path
    created: bool
    #: How to take a just-created key back (see :func:`discard_created_key`).
    undo: _KeyUndo | None = None


@dataclass(frozen=True, slots=True)
class _KeyUndo:
    folder: Path
    folder_existed: bool


def _load(path: Path) -> Ed25519PrivateKey:
    try:  # the first bytes only; load_private_key reads (and refuses) the file itself
        encrypted = b"ENCRYPTED" in read_regular(path, 200)
    except OSError:
        encrypted = False
    passphrase = passphrase_from_env_or_prompt(prompt=encrypted)
    return load_private_key(path, passphrase)


def _check_not_retired(sk: SigningKey) -> None:
    """Refuse a damaged or swapped key file, or a key its keys.json retired or revoked.

    See :func:`respai.record.keys.check_key_file` for what "damaged or swapped" means.
    """
    from respai.record import now_utc
    from respai.record.keys import check_key_file

    entry = check_key_file(sk.path, sk.key)
    reason = entry.status(now_utc())
    if reason is not None:
        raise KeyMaterialError(
            f"the signing key {sk.path} ({sk.key_id}) cannot sign now: {reason} "
            f"(per {sk.path.parent / 'keys.json'}).",
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
        if newest_key_file(folder) is None:
            return None  # nothing to lock: a refused run must not create the folder
        with key_folder_lock(folder):
            newest = newest_key_file(folder)
            if newest is None:  # a failed first run took its key back meanwhile
                return None
            _adopt(newest)
        key = _load(newest)
        sk = SigningKey(key, key_id(key.public_key()), newest, False)
    _check_not_retired(sk)
    return sk


def _pending_marker(key_file: Path) -> Path:
    """The marker beside a key that a run created and has not yet used successfully."""
    return key_file.with_suffix(".pending")


def _adopt(key_file: Path) -> None:
    """Mark a just-created key as used by this run too (the caller holds the folder lock).

    The run that created the key then keeps it even when that run fails, so a record this
    run signs with it stays signed by a listed key.
    """
    marker = _pending_marker(key_file)
    if marker.exists():
        marker.write_bytes(b"adopted\n")


def create_signing_key(key_dir: Path | None = None) -> SigningKey:
    """Create a new unencrypted key in the key folder (when none is configured).

    Whether to create one is decided under the key folder's lock: when a concurrent run
    made a key since the caller looked, that key is used (and checked like any found
    key) instead, so parallel first runs share one listed key. The caller undoes a
    created key with :func:`discard_created_key` when the run that needed it fails, so a
    refused run leaves no key behind.

    Raises
    ------
    respai.record.KeyMaterialError
        When the folder cannot be written, or the key found there cannot be used.
    """
    folder = key_dir or default_key_dir()
    existed = folder.is_dir()
    with key_folder_lock(folder):
        newest = newest_key_file(folder)
        if newest is not None:
            _adopt(newest)
            key = _load(newest)
            sk = SigningKey(key, key_id(key.public_key()), newest, False)
            _check_not_retired(sk)
            return sk
        files = new_key(folder, passphrase=None)
        try:
            _pending_marker(files.private_key).write_bytes(b"")
        except BaseException:
            unlist_key(folder, files.key_id, remove_folder=not existed)
            raise
        key = load_private_key(files.private_key, None)
    return SigningKey(key, files.key_id, files.private_key, True, _KeyUndo(folder, existed))


def discard_created_key(sk: SigningKey) -> None:
    """Remove a key made by :func:`create_signing_key` for a run that then failed.

    The key files and the key's ``keys.json`` entry go (under the folder's lock, so keys
    other runs listed meanwhile stay; ``keys.json`` goes when it lists nothing else), and
    so does the key folder when this key created it and nothing else is in it. A key that
    was found rather than created is left alone, and so is a created key that a concurrent
    run has picked up meanwhile (it may already have signed a record with it).
    """
    undo = sk.undo
    if not sk.created or undo is None:
        return
    with key_folder_lock(undo.folder):
        marker = _pending_marker(sk.path)
        try:
            adopted = read_regular(marker, 64).startswith(b"adopted")
        except FileNotFoundError:
            return  # settled: its run succeeded, the key is kept
        except OSError:  # not a regular file: cannot tell, so the key stays listed
            adopted = True
        marker.unlink(missing_ok=True)
        if adopted:  # another run signed with it meanwhile: it stays listed
            return
        unlist_key(undo.folder, sk.key_id, remove_folder=not undo.folder_existed)


def settle_created_key(sk: SigningKey) -> None:
    """Keep a key made by :func:`create_signing_key` for good: its run succeeded."""
    if sk.created:
        _pending_marker(sk.path).unlink(missing_ok=True)


def existing_signing_key(path: Path | None, purpose: str) -> SigningKey:
    """:func:`find_signing_key` for a signature that is not a run's: never creates a key.

    ``respai site`` signs its manifest with the key the user already signs runs with; a
    missing key is an :class:`InputError` naming ``purpose``, not a new key.
    """
    sk = find_signing_key(path)
    if sk is None:
        raise InputError(
            f"{purpose} with your signing key, and your key folder {default_key_dir()} "
            "holds none.",
            "Pass --signing-key KEY, or create a key with: respai keys new",
        )
    return sk


def signing_key(path: Path | None, key_dir: Path | None = None) -> SigningKey:
    """:func:`find_signing_key`, else :func:`create_signing_key`."""
    return find_signing_key(path, key_dir) or create_signing_key(key_dir)


def spec_inputs(spec: Spec) -> list[Named]:
    """The files a run of ``spec`` reads: the spec itself and every data or model path in it.

    For :func:`respai.io.refuse_overlaps`: no output may be, hold or lie inside one.
    """
    found: list[Named] = [("the spec", spec.path)]
    fairness = spec.fairness_block
    if fairness is not None:
        found.append(("the spec's cases", fairness.cases))
    found += [("the spec's data.cases", spec.data.cases)]
    found += [("the spec's data.demographics", spec.data.demographics)]
    if spec.evaluation is not None:
        found.append(("the spec's model", spec.evaluation.model))
    from respai.blocks import block_named

    for name, declared in spec.blocks.items():
        found += block_named(name).inputs(declared)
    return found


def key_inputs(key: Path | None) -> list[Named]:
    """The signing key a command reads, for :func:`respai.io.refuse_overlaps`.

    ``--key`` when given, else the key folder (a run may write a new key into it).
    """
    return [("--key", key)] if key is not None else [("the key folder", default_key_dir())]


def earlier_output(marker: str) -> Callable[[Path], bool]:
    """A test that a folder is an earlier output: it holds ``marker``, or nothing at all."""

    def check(folder: Path) -> bool:
        if (folder / "ledger.json").exists():  # a ledger is never an output to replace
            return False
        return (folder / marker).is_file() or not any(folder.iterdir())

    return check


def write_outputs(
    out: Path,
    files: Mapping[str, Content],
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
    with StagedFolder(out, earlier_output(marker), what=what) as staged:
        paths = staged.write_all(files)
        staged.commit()
    return paths


def envelope_bytes(envelope: Mapping[str, Any]) -> bytes:
    """The envelope as it is written to ``record.json``: indented JSON, one trailing newline.

    The payload inside is the canonical (signed) bytes, base64-encoded; the envelope's own
    layout does not matter to verification.
    """
    return (json.dumps(envelope, indent=2, sort_keys=True) + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class Sealed:
    """A sealed evaluation: the envelope, where it was written, and its ledger position.

    :attr:`predicate` is read back from the signed payload when it is first asked for,
    and kept: what ``--json``, the JUnit export and the Python API show is what was
    signed, and a run that asks for none of them does not hold the predicate's objects
    while its report page is made (a compact record of 100,000 groups: about 100 MB).
    """

    envelope: Mapping[str, Any]
    record_path: Path
    ledger: Path | None
    key_id: str
    #: A sentence for the user when the ledger took the run short of a checkpoint.
    note: str | None = None
    #: The key file, when this run created the key it was signed with (else ``None``).
    key_created: Path | None = None
    _read: list[Mapping[str, Any]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    @property
    def predicate(self) -> Mapping[str, Any]:
        """The signed predicate, parsed from the envelope's payload (once)."""
        if not self._read:
            from respai.record.canonical import loads_strict
            from respai.record.dsse import envelope_payload

            self._read.append(loads_strict(envelope_payload(self.envelope))["predicate"])
        return self._read[0]

    def summary_json(self) -> dict[str, Any]:
        """What ``respai evaluate --json`` prints: verdict, tests, where the record is."""
        predicate = self.predicate
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
            for r in predicate["records"]
            if r["record_type"] == "test"
        ]
        return {
            "kind": "respai.evaluate",
            "engine": f"{predicate['engine']['name']}/{predicate['engine']['version']}",
            "run_id": predicate["run_id"],
            "timestamp": predicate["timestamp"],
            "verdict": predicate["verdict"],
            "exit_code": predicate["records"][-1]["exit_code"],
            "record": str(self.record_path),
            "ledger": None if self.ledger is None else str(self.ledger),
            "key_id": self.key_id,
            "fingerprints": predicate["fingerprints"],
            "plan": predicate["records"][0].get("plan"),
            "plan_check": predicate["records"][0].get("plan_check"),
            "tests": tests,
        }


def seal_run(
    build: Callable[[str, int], Mapping[str, Any]],
    files: Callable[[Mapping[str, Any]], Mapping[str, Content]],
    sk: SigningKey,
    *,
    staged: StagedFolder | None,
    ledger: Path | None,
    companion: Companion | None = None,
    timestamps: Sequence[str] = (),
) -> tuple[Mapping[str, Any], Path | None, str | None]:
    """Sign a run, write its outputs and append it to the ledger: all of it, or none.

    Parameters
    ----------
    build
        ``(prev_record_id, start_seq) -> envelope``: seals the run's records, chained to
        the ledger's head (or to the genesis id without a ledger).
    files
        ``envelope -> {name: content}``: the output folder's files.
    sk
        The signing key (a just-created one is discarded when anything fails).
    staged
        The output folder, checked before the run started; ``None`` writes none.
    ledger
        The ledger folder to append to, or ``None``.
    companion
        An output beside the folder that is put in place with it, or taken back with it
        (the evidence pack's archive): made from the staged folder once it is written.
    timestamps
        RFC 3161 authorities (``--timestamp URL``): once the run is signed, and before
        anything is written, a token over the envelope is asked from each
        (:mod:`respai.record.timestamp`); they are written beside the record as
        ``timestamps.json`` in the output folder and as ``timestamps/runs/<run file>`` in
        the ledger, and the ledger's new checkpoint is stamped too
        (:func:`respai.ledger.stamps.keep_tokens`). An authority that gives no token for
        the run fails it (exit 2): nothing is written.

    Returns
    -------
    tuple
        The envelope, the resolved ledger folder (``None`` without one), and a note for
        the user when the run was stored but its checkpoint could not be written (the
        outputs stay: the run is in the ledger).

    Notes
    -----
    The order makes a failure leave nothing behind: the outputs are staged, then (under
    the ledger's lock) put in place, then the run is appended; a failed append puts the
    earlier output folder back. A ledger folder this run created is removed again when
    the run fails, and so is a key it created.
    """
    from respai.record import GENESIS

    # what the ledger folder held before: a failure takes back all the run made in it
    held = None if ledger is None or not ledger.is_dir() else set(os.listdir(ledger))

    def stamped(envelope: Mapping[str, Any]) -> bytes | None:
        if not timestamps:
            return None
        from respai.record.timestamp import record_message, sidecar_bytes, stamp

        return sidecar_bytes(stamp(record_message(envelope), timestamps))

    def put_in_place(envelope: Mapping[str, Any], tokens: bytes | None) -> None:
        if staged is not None:
            written = dict(files(envelope))
            if tokens is not None:
                from respai.record.timestamp import SIDECAR

                written[SIDECAR] = tokens
            staged.write_all(written)
            if companion is not None:
                companion.prepare(staged)
            staged.commit()
            if companion is not None:
                companion.commit()

    def take_back() -> None:
        if companion is not None:
            companion.rollback()
        if staged is not None:
            staged.rollback()

    try:
        if staged is not None and ledger is not None:  # the CLI checked; the API too
            refuse_overlaps([("the output folder", staged.out)], ledger=("ledger", ledger))
        if ledger is None:
            envelope = build(GENESIS, 0)
            put_in_place(envelope, stamped(envelope))
            book_path, note = None, None
        else:
            from respai.ledger import Ledger

            with Ledger.open(ledger).append_lock() as head:
                envelope = build(head.last_record_id, head.next_seq)
                tokens = stamped(envelope)  # before anything is written
                put_in_place(envelope, tokens)
                appended = head.append(envelope, sk.key)  # last: a failure takes all back
                note = appended.note
                if tokens is not None:
                    from respai.ledger.stamps import keep_tokens

                    note = keep_tokens(appended, tokens, timestamps, note)
            book_path = ledger.resolve()
    except BaseException:
        take_back()
        if ledger is not None and held is None:  # the run made the folder
            shutil.rmtree(ledger, ignore_errors=True)
        elif ledger is not None and held is not None and "ledger.json" not in held:
            for name in set(os.listdir(ledger)) - held:  # a new ledger in an existing folder
                target = ledger / name
                if target.is_dir() and not target.is_symlink():
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    target.unlink(missing_ok=True)
        discard_created_key(sk)
        raise
    if staged is not None:
        staged.finish()
    if companion is not None:
        companion.finish()
    settle_created_key(sk)
    return envelope, book_path, note


class Companion(Protocol):
    """An output beside a run's folder, put in place and taken back with it.

    :func:`seal_run` calls :meth:`prepare` once the staged folder is written (to build it
    aside), :meth:`commit` right after the folder is put in place, :meth:`rollback` when
    anything fails (the folder is taken back too) and :meth:`finish` once the run is in.
    """

    def prepare(self, staged: StagedFolder) -> None:
        """Build the companion aside from the written staged folder."""

    def commit(self) -> None:
        """Put it in place (keeping any earlier one until :meth:`finish`)."""

    def rollback(self) -> None:
        """Remove it, and put an earlier one back."""

    def finish(self) -> None:
        """Drop what was kept for a rollback."""


@dataclass
class Signing:
    """The signing side of one command's run, checked before the run reads any data.

    Made by :func:`begin_signing`. The key is created, when none was found, only by
    :meth:`seal`, once the run has succeeded; :attr:`key` then says whether it was.
    """

    found: SigningKey | None
    staged: StagedFolder | None
    ledger: Path | None
    outputs: tuple[Named, ...]
    key: SigningKey | None = None
    #: RFC 3161 authorities each run is stamped by (``--timestamp``); see :func:`seal_run`.
    timestamps: tuple[str, ...] = ()

    def refuse_inputs(self, inputs: Iterable[Named]) -> None:
        """Refuse outputs that touch inputs known only once the spec is read (its data)."""
        refuse_overlaps(self.outputs, inputs)

    def signing_key(self) -> SigningKey:
        """The key the run is signed with: the one found, else one created now."""
        if self.key is None:
            self.key = self.found or create_signing_key()
        return self.key

    def seal(
        self,
        build: Callable[[SigningKey, str, int], Mapping[str, Any]],
        files: Callable[[SigningKey, Mapping[str, Any]], Mapping[str, Content]],
        companion: Companion | None = None,
    ) -> tuple[Mapping[str, Any], Path | None, str | None]:
        """Sign with :meth:`signing_key` and write and append through :func:`seal_run`.

        ``build(key, prev_record_id, start_seq)`` seals the run's records and
        ``files(key, envelope)`` gives the output folder's files.
        """
        try:
            sk = self.signing_key()
        except BaseException:
            self.abandon()
            raise
        return seal_run(  # from here on, seal_run takes everything back on a failure
            lambda prev, start: build(sk, prev, start),
            lambda envelope: files(sk, envelope),
            sk,
            staged=self.staged,
            ledger=self.ledger,
            companion=companion,
            timestamps=self.timestamps,
        )

    def abandon(self) -> None:
        """Take back what the run made before sealing: its staged folder, a key it created.

        For a failure between :meth:`signing_key` and :meth:`seal` (or in them), so a run
        that ends in an error leaves no output folder and no unlisted key.
        """
        if self.staged is not None:
            self.staged.rollback()
        if self.key is not None:
            discard_created_key(self.key)


def begin_signing(
    outputs: Iterable[Named],
    inputs: Iterable[Named],
    *,
    key: Path | None,
    ledger: Path | None,
    stage: Callable[[Path], StagedFolder] | None = None,
    out: Path | None = None,
    ledger_name: str = "--ledger",
    timestamps: Sequence[str] = (),
) -> Signing:
    """Start a signed run: every check that needs no data, in the one order every command uses.

    Refuses an output that is, holds or lies inside an input or the ledger; reports a bad
    key; checks the output folder ``out`` with ``stage`` (it may be replaced only when it
    is an earlier output of the same command). Nothing is written.

    Parameters
    ----------
    outputs, inputs
        What the command writes and what it reads, each with the option that named it.
    key
        ``--key``, or ``None`` for the key folder's newest key (created at :meth:`Signing.seal`
        when there is none).
    ledger
        The ledger folder the run is appended to, or ``None``.
    stage, out
        How the output folder is checked and staged, and the folder (``None``: none).
    ledger_name
        How the ledger was named, for the messages.
    timestamps
        The RFC 3161 authorities to stamp the run (``--timestamp``), each an http(s) URL.
    """
    urls = tuple(timestamps)
    bad = [u for u in urls if not u.startswith(("http://", "https://"))]
    if bad:
        raise InputError(
            f"--timestamp {bad[0]} is not an http:// or https:// URL of an RFC 3161 "
            "time-stamping authority.",
            "Give the authority's address, e.g. --timestamp https://freetsa.org/tsr.",
        )
    outputs = tuple(outputs)
    refuse_overlaps(
        outputs,
        [*inputs, *key_inputs(key)],
        ledger=None if ledger is None else (ledger_name, ledger),
    )
    found = find_signing_key(key)
    staged = None if out is None or stage is None else stage(out)
    return Signing(
        found, staged, None if ledger is None else Path(ledger), outputs, timestamps=urls
    )
