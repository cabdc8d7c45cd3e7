"""Signed, tamper-evident evidence records.

A record is an in-toto Statement v1 whose predicate holds the run: fingerprints of the
dataset, model and engine code, and a hash-chained list of records (a ``run_start``, one
``test`` record per test, a ``run_end`` listing the ids before it). The Statement's RFC
8785 canonical bytes are signed with Ed25519 in a DSSE envelope, so existing DSSE tools
can check it too. :func:`seal` builds and signs one; :func:`verify_envelope` checks one
from the envelope and public keys alone, naming every failed check.

This package imports no statistics, rules or dataframe code: verification needs only the
record.
"""

from __future__ import annotations

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
