"""Signed, tamper-evident evidence records.

A record is an in-toto Statement v1 whose predicate holds the run: fingerprints of the
dataset, model and engine code, and a hash-chained list of records (a ``run_start``, one
``test`` record per test, a ``run_end`` listing the ids before it). The Statement's RFC
8785 canonical bytes are signed with Ed25519 in a DSSE envelope, so existing DSSE tools
can check it too. :func:`seal` builds and signs one; :func:`verify_envelope` checks one
from the envelope and public keys alone, naming every failed check.

This package imports no statistics, rules or dataframe code: verification needs only the
record.

Each name below is imported from its module on first use, so a command that only needs
canonical JSON (``respai fairness``) does not import the signing library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from respai.lazy import lazy_names

if TYPE_CHECKING:
    from respai.record.canonical import MAX_SAFE_INTEGER, canonical_bytes, jsonable, loads_strict
    from respai.record.chain import GENESIS, RECORD_TYPES, link_records, record_id
    from respai.record.dsse import (
        PAYLOAD_TYPE,
        envelope_payload,
        pae,
        sign_envelope,
        signature_valid,
    )
    from respai.record.errors import KeyMaterialError, RecordError, VerificationError
    from respai.record.fingerprint import engine_code_fingerprint, file_fingerprint
    from respai.record.keys import (
        PASSPHRASE_ENV,
        KeyEntry,
        KeyFiles,
        KeyRing,
        default_key_dir,
        key_id,
        load_private_key,
        load_public_key,
        new_key,
        passphrase_from_env_or_prompt,
        retire_key,
        revoke_key,
    )
    from respai.record.schema import SCHEMA_VERSION, record_schema, validate_predicate
    from respai.record.statement import (
        PREDICATE_TYPE,
        STATEMENT_TYPE,
        build_statement,
        seal,
        subjects_from_fingerprints,
    )
    from respai.record.times import format_timestamp, now_utc, parse_timestamp
    from respai.record.verify import (
        CHECK_NAMES,
        Check,
        VerificationReport,
        verify_envelope,
        verify_or_raise,
    )

_HOMES: dict[str, str] = {
    "CHECK_NAMES": "respai.record.verify",
    "Check": "respai.record.verify",
    "GENESIS": "respai.record.chain",
    "KeyEntry": "respai.record.keys",
    "KeyFiles": "respai.record.keys",
    "KeyMaterialError": "respai.record.errors",
    "KeyRing": "respai.record.keys",
    "MAX_SAFE_INTEGER": "respai.record.canonical",
    "PASSPHRASE_ENV": "respai.record.keys",
    "PAYLOAD_TYPE": "respai.record.dsse",
    "PREDICATE_TYPE": "respai.record.statement",
    "RECORD_TYPES": "respai.record.chain",
    "RecordError": "respai.record.errors",
    "SCHEMA_VERSION": "respai.record.schema",
    "STATEMENT_TYPE": "respai.record.statement",
    "VerificationError": "respai.record.errors",
    "VerificationReport": "respai.record.verify",
    "build_statement": "respai.record.statement",
    "canonical_bytes": "respai.record.canonical",
    "default_key_dir": "respai.record.keys",
    "engine_code_fingerprint": "respai.record.fingerprint",
    "envelope_payload": "respai.record.dsse",
    "file_fingerprint": "respai.record.fingerprint",
    "format_timestamp": "respai.record.times",
    "jsonable": "respai.record.canonical",
    "key_id": "respai.record.keys",
    "link_records": "respai.record.chain",
    "load_private_key": "respai.record.keys",
    "load_public_key": "respai.record.keys",
    "loads_strict": "respai.record.canonical",
    "new_key": "respai.record.keys",
    "now_utc": "respai.record.times",
    "pae": "respai.record.dsse",
    "parse_timestamp": "respai.record.times",
    "passphrase_from_env_or_prompt": "respai.record.keys",
    "record_id": "respai.record.chain",
    "record_schema": "respai.record.schema",
    "retire_key": "respai.record.keys",
    "revoke_key": "respai.record.keys",
    "seal": "respai.record.statement",
    "sign_envelope": "respai.record.dsse",
    "signature_valid": "respai.record.dsse",
    "subjects_from_fingerprints": "respai.record.statement",
    "validate_predicate": "respai.record.schema",
    "verify_envelope": "respai.record.verify",
    "verify_or_raise": "respai.record.verify",
}

__all__ = [
    "CHECK_NAMES",
    "GENESIS",
    "MAX_SAFE_INTEGER",
    "PASSPHRASE_ENV",
    "PAYLOAD_TYPE",
    "PREDICATE_TYPE",
    "RECORD_TYPES",
    "SCHEMA_VERSION",
    "STATEMENT_TYPE",
    "Check",
    "KeyEntry",
    "KeyFiles",
    "KeyMaterialError",
    "KeyRing",
    "RecordError",
    "VerificationError",
    "VerificationReport",
    "build_statement",
    "canonical_bytes",
    "default_key_dir",
    "engine_code_fingerprint",
    "envelope_payload",
    "file_fingerprint",
    "format_timestamp",
    "jsonable",
    "key_id",
    "link_records",
    "load_private_key",
    "load_public_key",
    "loads_strict",
    "new_key",
    "now_utc",
    "pae",
    "parse_timestamp",
    "passphrase_from_env_or_prompt",
    "record_id",
    "record_schema",
    "retire_key",
    "revoke_key",
    "seal",
    "sign_envelope",
    "signature_valid",
    "subjects_from_fingerprints",
    "validate_predicate",
    "verify_envelope",
    "verify_or_raise",
]

__getattr__ = lazy_names(__name__, _HOMES)
