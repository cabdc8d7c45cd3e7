"""The ``regression:`` block: a numeric target and prediction, compared across groups.

- :mod:`respai.regression.spec`: the block's keys and rules;
- :mod:`respai.regression.stats`: means and their intervals (Student's t, the
  empirical-Bernstein bound within declared bounds, the weighted t by linearization) as
  pure functions of exact integer sums;
- :mod:`respai.regression.audit`: the sums counted once
  (:mod:`respai.engine.regression_sums`), every number and verdict from them;
- :mod:`respai.regression.seal`, :mod:`respai.regression.terminal`,
  :mod:`respai.regression.block`: the record, the terminal lines, the registered block.
"""
