"""Monitoring live outcomes over time, with anytime-valid intervals.

- :mod:`respai.monitor.sequence`: the beta-binomial mixture confidence sequence;
- :mod:`respai.monitor.looks`: cumulative counts and verdicts per look (pure);
- :mod:`respai.monitor.stream`: which stream a call continues (by its criteria), and its
  earlier looks, read from verified ledger runs;
- :mod:`respai.monitor.run`: counting new batches (:func:`~respai.monitor.run.run_monitor`);
- :mod:`respai.monitor.seal`: the signed record of one call, and its self-verifying page
  (the evidence report, :mod:`respai.render.report`, with a monitoring section);
- :mod:`respai.monitor.ledger_check`: what ``respai verify --ledger`` checks of the
  streams (each batch once, one criteria per stream).
"""
