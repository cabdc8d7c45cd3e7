"""``python -m respai``: the same as the ``respai`` command."""

from respai.cli import entry

entry()
