"""The limits on what respai reads: one set, for every file it reads whole, and packs.

Every file respai reads whole (a record, a ledger's files, a pack's files, a key,
``keys.json``, a spec) must be a regular file: a FIFO, a device or a socket, or a link to
one, is refused before any byte is read, and no file is read past its limit
(:func:`respai.io.read_bounded`).

Input that passes a limit is refused with an error naming the limit and the file (exit 2,
or exit 1 from ``respai verify`` for a record or ledger that does not verify), never a
crash. The JSON limits are defined in :mod:`respai.record.canonical`, because verifying
a record needs nothing outside :mod:`respai.record`, and are repeated here so the whole
set has one place; :func:`respai.record.loads_strict` applies them.

============================  ===============  ======================================
limit                         value            applies to
============================  ===============  ======================================
``MAX_JSON_DEPTH``            64 levels        every JSON file
``MAX_JSON_INTEGER_DIGITS``   21 digits        every JSON file (records hold integers
                                               within +-(2^53-1))
``MAX_JSON_STRING_CHARS``     32 Mi chars      every JSON file
``MAX_JSON_BYTES``            64 MiB           every JSON file
``MAX_YAML_DEPTH``            64 levels        spec and policy files
``MAX_YAML_INTEGER_DIGITS``   20 digits        spec and policy files
``MAX_YAML_BYTES``            4 MiB            spec and policy files
``MAX_YAML_NODES``            1,000,000 nodes  spec and policy files, aliases expanded
``MAX_CSV_COLUMNS``           4,096 columns    a CSV cases or self-identification file
``MAX_CSV_NAME_CHARS``        131,072 chars    one column name of a CSV header
``MAX_CHECKPOINT_BYTES``      1 MiB            a ledger checkpoint
``MAX_KEY_FILE_BYTES``        16 MiB           a key file, ``keys.json``
``MAX_PACK_TEXT_BYTES``       64 MiB           a pack's ``SHA256SUMS``,
                                               ``environment.lock`` and CSV tables
``MAX_PACK_MEMBERS``          10,000 members   a pack's zip archive
``MAX_PACK_UNPACKED_BYTES``   16 GiB           a pack's zip archive, all members
``MAX_PACK_RATIO``            200 times        a pack's zip archive: unpacked size
                                               over the archive's size
============================  ===============  ======================================
"""

from __future__ import annotations

from respai.record.canonical import (
    MAX_JSON_BYTES,
    MAX_JSON_DEPTH,
    MAX_JSON_INTEGER_DIGITS,
    MAX_JSON_STRING_CHARS,
    MAX_KEY_FILE_BYTES,
)

__all__ = [
    "MAX_CHECKPOINT_BYTES",
    "MAX_CSV_COLUMNS",
    "MAX_CSV_NAME_CHARS",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_JSON_INTEGER_DIGITS",
    "MAX_JSON_STRING_CHARS",
    "MAX_KEY_FILE_BYTES",
    "MAX_PACK_MEMBERS",
    "MAX_PACK_RATIO",
    "MAX_PACK_TEXT_BYTES",
    "MAX_PACK_UNPACKED_BYTES",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_INTEGER_DIGITS",
    "MAX_YAML_NODES",
]

MAX_YAML_DEPTH = 64
"""The deepest nesting of mappings and sequences in a spec or policy file."""

MAX_YAML_INTEGER_DIGITS = 20
"""The most digits of an integer in a spec or policy file."""

MAX_YAML_BYTES = 4 * 1024 * 1024
"""The largest spec or policy file, in bytes."""

MAX_YAML_NODES = 1_000_000
"""The most values (scalars, mappings, sequences) a spec or policy file may hold, with
every alias counted as a full copy of what it names (so a "billion laughs" file stops).
A file within MAX_YAML_BYTES holds at most about two million plain values; a million
lets an attribute declare 100,000 values and still stops an alias bomb in well under a
second."""

MAX_CSV_COLUMNS = 4096
"""The most columns a CSV file of cases may have. DuckDB's reader holds a buffer per
column, so a file ten times wider fails inside the engine for lack of memory, and one
of this width already takes seconds per scan; an evaluation reads a few columns."""

MAX_CSV_NAME_CHARS = 131_072
"""The longest column name of a CSV header, in characters (Python's ``csv`` module
reads no longer field by default); a header field this long is no column name."""

MAX_CHECKPOINT_BYTES = 1024 * 1024
"""The largest ledger checkpoint file (a few lines and signatures, under a kilobyte)."""

MAX_PACK_TEXT_BYTES = 64 * 1024 * 1024
"""The largest ``SHA256SUMS``, ``environment.lock`` or CSV table read from a pack."""

MAX_PACK_MEMBERS = 10_000
"""The most members a pack's zip archive may hold (a pack has about twenty)."""

MAX_PACK_UNPACKED_BYTES = 16 * 1024**3
"""The most bytes a pack's zip archive may unpack to, all members together."""

MAX_PACK_RATIO = 200
"""The most a pack's zip archive may grow when unpacked, as a multiple of its own size.
Decisions and tables compress about tenfold; a zip bomb a thousandfold."""

#: DuckDB's memory cap for one run (``RESPAI_MEMORY_LIMIT``, any DuckDB size such as
#: ``2GB``); past it, sorts and large groupings spill to a private temporary folder.
MEMORY_LIMIT = "512MB"
MEMORY_ENV = "RESPAI_MEMORY_LIMIT"
