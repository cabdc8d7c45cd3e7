"""The formats ``respai export`` writes: one table, read by the export, the CLI and the docs.

:data:`FORMATS` maps each name ``--format`` accepts to an :class:`ExportFormat`: the
function that writes it (by dotted name, imported only when a document is written), the
suffix of the file it makes, the words ``--help`` shows for it, and whether it is
signed. :func:`respai.export.export_document` writes through the table, ``--format``
offers its names (and signs only for a format that is signed), and
``docs/commands/export.md`` names exactly its entries (a test holds them together).

The table is plain data, so the command line can read it without importing the
formats' dependencies (``respai --help`` stays fast). To add a format, write its module
beside the others with a :class:`Writer` and add its entry here.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from respai.export.record import VerifiedRecord

__all__ = ["FORMATS", "ExportFormat", "Writer", "json_document"]


class Writer(Protocol):
    """What writes a verified record as one format's document."""

    def __call__(
        self,
        record: VerifiedRecord,
        *,
        signing_key: tuple[Ed25519PrivateKey, str] | None,
        url: str | None,
    ) -> bytes:
        """The document's bytes; ``url`` and ``signing_key`` as the format uses them."""
        ...


@dataclass(frozen=True, slots=True)
class ExportFormat:
    """One format ``respai export`` writes.

    Attributes
    ----------
    name
        What ``--format`` calls it.
    writer
        ``"module:function"`` of its :class:`Writer`, imported when a document is written.
    suffix
        The suffix of a file of this format (``.json``, ``.xml``).
    description
        What the document is, as ``--format``'s help says it.
    signs
        Whether the document is signed (``respai export`` then finds the user's key).
    """

    name: str
    writer: str
    suffix: str
    description: str
    signs: bool

    def write(
        self,
        record: VerifiedRecord,
        *,
        signing_key: tuple[Ed25519PrivateKey, str] | None = None,
        url: str | None = None,
    ) -> bytes:
        """The bytes of ``record`` in this format (see :class:`Writer`).

        Parameters
        ----------
        record
            A record that verified.
        signing_key
            ``(key, key_id)``; needed by a format that :attr:`signs`.
        url
            Where the record is published, or where its run can be seen (each format's
            writer says which); ignored by a format without such a field.

        Returns
        -------
        bytes
            The document.
        """
        module, _, function = self.writer.partition(":")
        writer: Writer = getattr(importlib.import_module(module), function)
        return writer(record, signing_key=signing_key, url=url)


FORMATS: Mapping[str, ExportFormat] = {
    f.name: f
    for f in (
        ExportFormat(
            name="cyclonedx",
            writer="respai.export.cyclonedx:write_bom",
            suffix=".json",
            description="CycloneDX 1.6 ML-BOM (JSON)",
            signs=False,
        ),
        ExportFormat(
            name="in-toto-test-result",
            writer="respai.export.intoto:write_test_result",
            suffix=".json",
            description="a signed in-toto test-result attestation (DSSE)",
            signs=True,
        ),
        ExportFormat(
            name="junit",
            writer="respai.export.junit:write_junit",
            suffix=".xml",
            description="JUnit XML for CI test reporters",
            signs=False,
        ),
    )
}
"""Every format, by name, in the order ``--format`` lists them."""


def json_document(doc: Mapping[str, Any]) -> bytes:
    """A JSON document's bytes as every JSON export writes them (indented, UTF-8, newline).

    Parameters
    ----------
    doc
        The document, JSON-ready (no NaN).

    Returns
    -------
    bytes
        The file's bytes.
    """
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
