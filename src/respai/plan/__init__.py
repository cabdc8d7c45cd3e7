"""Criteria fixed before the numbers: ``respai plan`` and the plan a run is held to.

- :mod:`respai.plan.criteria`: the criteria of a spec and policy as plain JSON, their id
  (the SHA-256 of their canonical JSON) and what changed between two of them (pure);
- :mod:`respai.plan.seal`: the plan record, sealing it into the ledger, and reading a
  plan back only once it verifies.
"""
