"""One run of a command: spec -> inputs -> declared blocks -> result -> sealed record.

:mod:`~respai.run.evaluation` runs every block a spec declares into an
:class:`~respai.results.Evaluation`; :mod:`~respai.run.group_rules` runs the group rules
alone (``respai fairness``); :mod:`~respai.run.evidence` turns an evaluation into its
record; :mod:`~respai.run.seal` signs and writes it. Nothing under ``render/``,
``export/`` or ``record/`` imports this package (a test holds it).
"""
