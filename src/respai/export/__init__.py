"""Standard exports of a verified record: CycloneDX ML-BOM, in-toto test result, JUnit.

``respai export RECORD --format FORMAT`` verifies the record first (the checks of
``respai verify``, :func:`~respai.export.record.read_verified`) and writes nothing when
any check fails. Then :func:`export_document` writes it through the one table of formats,
:data:`~respai.export.formats.FORMATS`, one module per format:

- :mod:`respai.export.cyclonedx`: ``cyclonedx``, a CycloneDX 1.6 ML-BOM (JSON);
- :mod:`respai.export.intoto`: ``in-toto-test-result``, an in-toto test-result
  Statement signed in a DSSE envelope;
- :mod:`respai.export.junit`: ``junit``, JUnit XML for CI test reporters (also written
  by ``respai evaluate --junit`` and ``respai fairness --junit``).

Every format reads the verdicts through :mod:`respai.export.outcomes`, so they agree.
Importing this package imports no format: each is imported when it writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from respai.export.formats import FORMATS

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from respai.export.record import VerifiedRecord

__all__ = ["FORMATS", "export_document"]


def export_document(
    fmt: str,
    record: VerifiedRecord,
    *,
    signing_key: tuple[Ed25519PrivateKey, str] | None = None,
    url: str | None = None,
) -> bytes:
    """The bytes of ``record`` exported as ``fmt``.

    Parameters
    ----------
    fmt
        A name in :data:`~respai.export.formats.FORMATS`.
    record
        A record that verified.
    signing_key
        ``(key, key_id)``; needed by a format that signs (``in-toto-test-result``).
    url
        ``cyclonedx``: where the record is published; ``in-toto-test-result``: where
        the run can be seen. Ignored by ``junit``.

    Returns
    -------
    bytes
        The document.

    Raises
    ------
    ValueError
        For an unknown format, or a format that signs without a key.
    """
    found = FORMATS.get(fmt)
    if found is None:
        raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return found.write(record, signing_key=signing_key, url=url)
