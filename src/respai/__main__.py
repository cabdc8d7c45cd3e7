"""``python -m respai``: the same as the ``respai`` command."""

from respai.cli import main

raise SystemExit(main())
