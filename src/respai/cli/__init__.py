"""The ``respai`` command line: parse, call the library, render, exit.

This is the only package that prints or exits. People-facing text goes to standard
error, machine output (``--json``) to standard output through the one emitter
:func:`respai.cli.output.emit_json`. Every :class:`respai.errors.Error` is caught once,
in :func:`respai.cli.app.main`, and becomes one paragraph on standard error and exit
code 2. Heavy modules are imported inside the commands so ``respai --help`` starts fast.

One module per command (or small family of commands), each adding its command to the
group :data:`respai.cli.app.cli` when it is imported, which happens when the command is
named (:data:`respai.cli.app.COMMANDS`):

- :mod:`respai.cli.fairness`: ``respai fairness``
- :mod:`respai.cli.evaluate`: ``respai evaluate``
- :mod:`respai.cli.verify`: ``respai verify``
- :mod:`respai.cli.ledger`: ``respai log``, ``respai compare``
- :mod:`respai.cli.keys`: ``respai keys new``
- :mod:`respai.cli.report`: ``respai report``, ``respai sample-page``
- :mod:`respai.cli.demo`: ``respai demo``
- :mod:`respai.cli.ll144`: ``respai ll144``
- :mod:`respai.cli.pack`: ``respai pack``, ``respai reproduce``
- :mod:`respai.cli.export`: ``respai export``
- :mod:`respai.cli.paired`: ``respai paired``
- :mod:`respai.cli.plan`: ``respai plan``
- :mod:`respai.cli.monitor`: ``respai monitor``
- :mod:`respai.cli.init`: ``respai init``
- :mod:`respai.cli.site`: ``respai site``
- :mod:`respai.cli.witness`: ``respai witness init``, ``respai witness cosign``
"""

from __future__ import annotations

from respai.cli.app import COMMANDS, all_commands, cli, entry, main

__all__ = ["COMMANDS", "all_commands", "cli", "entry", "main"]
