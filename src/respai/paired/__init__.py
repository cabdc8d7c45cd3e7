"""Paired (counterfactual) testing: matched cases that differ only in a group-linked detail.

- :mod:`respai.paired.stats`: the exact McNemar test, Holm's adjustment and the
  widened adjusted Wald interval (exact coverage at least its level), as pure functions
  of counts;
- :mod:`respai.paired.audit`: a spec's ``paired:`` block run end to end
  (:func:`~respai.paired.audit.run_paired`);
- :mod:`respai.paired.terminal`: the focused view of ``respai paired``.

The counts come from :mod:`respai.engine.pairs`.
"""
