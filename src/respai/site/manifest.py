"""The site manifest: what ``respai site`` states about a verified ledger, signed.

The manifest is an in-toto Statement (``predicateType`` :data:`PREDICATE_TYPE`) whose
subjects are the ledger's run files by SHA-256 and whose predicate lists, for the pages of
the site:

- ``runs``: every run (seq range, time, kind, system, dataset, verdict, key id, the run
  file and its SHA-256, the run's page and that page's SHA-256);
- ``ll144``: per LL144 audit, its dates with where each came from, the publication period
  and the findings (:func:`respai.site.dates.ll144_dates`);
- ``streams``: the monitoring streams, their runs and the run whose page draws the whole
  stream (``chart``, the latest);
- ``comparisons``: what :func:`respai.compare.compare_records` says about each two
  consecutive runs of the same system and kind;
- ``ledger``: its origin and size, ``built`` (when the site was built) and ``key_id``.

It is signed like a record (a DSSE envelope, Ed25519 over the PAE of the canonical
payload) with the key of the person who builds the site, and each index, LL144, streams
and compare page embeds it and checks itself against it (:mod:`respai.site.page`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record import canonical_bytes
from respai.record.dsse import sign_envelope

__all__ = ["PREDICATE_TYPE", "STATEMENT_TYPE", "SiteRun", "sign_manifest", "site_statement"]

#: The in-toto Statement type of the manifest (the same as a record's).
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
#: The predicate type of a site manifest (a record's is ``evidence-record/v1``).
PREDICATE_TYPE = "https://respai.org/site-manifest/v1"


@dataclass(frozen=True)
class SiteRun:
    """One verified run of the ledger, as the site shows it.

    Attributes
    ----------
    file
        The run file's name inside ``runs/``.
    file_sha256
        Hex SHA-256 of the run file's bytes.
    envelope, predicate
        The run's DSSE envelope and its verified predicate.
    kind
        The run's kind, as ``respai log`` names it.
    seq
        ``first..last`` of its records.
    """

    file: str
    file_sha256: str
    envelope: Mapping[str, Any]
    predicate: Mapping[str, Any]
    kind: str
    seq: str

    @property
    def run_id(self) -> str:
        """The run's id (its page is ``runs/<run id>.html``)."""
        return str(self.predicate.get("run_id"))

    @property
    def run_start(self) -> Mapping[str, Any]:
        """The run's ``run_start`` record (empty when it has none)."""
        records = self.predicate.get("records")
        first = records[0] if isinstance(records, list) and records else None
        ok = isinstance(first, Mapping) and first.get("record_type") == "run_start"
        return first if ok and isinstance(first, Mapping) else {}

    @property
    def system(self) -> str:
        """``name version`` of the evaluated system."""
        system = self.predicate.get("system")
        system = system if isinstance(system, Mapping) else {}
        parts = [system.get("name"), system.get("version")]
        return " ".join(p for p in parts if isinstance(p, str) and p)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def run_entry(run: SiteRun, page: str, page_sha256: str) -> dict[str, Any]:
    """The manifest's line for one run."""
    fingerprints = run.predicate.get("fingerprints")
    dataset = fingerprints.get("dataset") if isinstance(fingerprints, Mapping) else None
    dataset = dataset if isinstance(dataset, Mapping) else {}
    return {
        "run_id": run.run_id,
        "seq": run.seq,
        "timestamp": _str(run.predicate.get("timestamp")),
        "kind": run.kind,
        "system": run.system,
        "dataset": _str(dataset.get("name")),
        "dataset_sha256": _str(dataset.get("sha256")),
        "verdict": _str(run.predicate.get("verdict")),
        "key_id": _str(run.predicate.get("key_id")),
        "file": f"runs/{run.file}",
        "file_sha256": run.file_sha256,
        "page": page,
        "page_sha256": page_sha256,
    }


def site_statement(runs: Sequence[SiteRun], predicate: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest Statement: the run files as subjects, then ``predicate``."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": f"runs/{r.file}", "digest": {"sha256": r.file_sha256}} for r in runs],
        "predicateType": PREDICATE_TYPE,
        "predicate": dict(predicate),
    }


def sign_manifest(
    statement: Mapping[str, Any], key: Ed25519PrivateKey, key_id: str
) -> dict[str, Any]:
    """The DSSE envelope of the manifest, signed over its canonical (RFC 8785) bytes."""
    return sign_envelope(canonical_bytes(statement), key, key_id)


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()
