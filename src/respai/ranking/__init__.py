"""Ranked or scored lists: top-k selection rates and exposure by group, the list as the unit.

- :mod:`respai.ranking.spec`: the ``ranking:`` block;
- :mod:`respai.ranking.stats`: the cluster-robust estimates and intervals, pure functions
  of the exact sums of :mod:`respai.engine.ranking_sums`;
- :mod:`respai.ranking.audit`: the block run and decided;
- :mod:`respai.ranking.seal`: its part of a signed record;
- :mod:`respai.ranking.block`: the registered block.
"""
