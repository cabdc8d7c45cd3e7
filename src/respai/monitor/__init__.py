"""Monitoring live outcomes over time, with anytime-valid intervals.

- :mod:`respai.monitor.sequence`: the beta-binomial mixture confidence sequence;
- :mod:`respai.monitor.looks`: cumulative counts and verdicts per look (pure);
- :mod:`respai.monitor.stream`: a stream's earlier looks, read from verified ledger runs;
- :mod:`respai.monitor.run`: counting new batches (:func:`~respai.monitor.run.run_monitor`);
- :mod:`respai.monitor.seal`: the signed record of one call;
- :mod:`respai.monitor.report`: the stream's HTML page.
"""
