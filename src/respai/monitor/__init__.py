"""Monitoring live outcomes over time, with anytime-valid intervals.

- :mod:`respai.monitor.sequence`: the beta-binomial mixture confidence sequence;
- :mod:`respai.monitor.change`: change detection, a CUSUM e-detector per group;
- :mod:`respai.monitor.looks`: cumulative counts and verdicts per look (pure; the verdict
  rule is :func:`respai.decision.with_change_alarm`);
- :mod:`respai.monitor.criteria`: the criteria a stream is named by;
- :mod:`respai.monitor.stream`: which stream a call continues (by its criteria), and its
  earlier looks, read from verified ledger runs;
- :mod:`respai.monitor.run`: counting new batches (:func:`~respai.monitor.run.run_monitor`);
- :mod:`respai.monitor.seal`: the signed record of one call, and its self-verifying page
  (the evidence report, :mod:`respai.render.report`, with a monitoring section);
- :mod:`respai.monitor.status`: the streams a ledger holds (``respai monitor --status``);
- :mod:`respai.monitor.kind`: how the exports show its test records (its
  :class:`~respai.blocks.RecordKind`, registered in :data:`respai.blocks.RECORD_KINDS`);
- :mod:`respai.monitor.ledger_check`: what ``respai verify --ledger`` checks of the
  streams (each batch once, one criteria per stream).
"""
