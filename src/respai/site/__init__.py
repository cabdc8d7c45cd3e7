"""``respai site``: a static, self-verifying site of a ledger's signed runs.

:func:`~respai.site.assemble.build_site` verifies a whole ledger, then writes a folder that
works from ``file://`` and any static host: ``index.html`` (every run), ``runs/<run
id>.html`` (each run's own evidence report, which checks the run's signed record in the
browser), ``ll144-<run id>.html`` (per LL144 audit, the dates its published summary must
show and the publication period), ``streams.html`` (the monitoring streams),
``compare.html`` (consecutive runs of one system side by side) and ``site.json`` (the
signed site manifest, :mod:`~respai.site.manifest`), with ``public_key.pem``.

The modules: :mod:`~respai.site.dates` (the LL144 dates and rules),
:mod:`~respai.site.manifest` (the manifest and its signature), :mod:`~respai.site.page`
(the self-checking page: shell, formats, labels), :mod:`~respai.site.views` (each page's
content) and :mod:`~respai.site.assemble` (the whole build, written in one rename).
"""

from __future__ import annotations

from respai.site.assemble import MARKER, SiteDates, SiteRefused, SiteResult, build_site

__all__ = ["MARKER", "SiteDates", "SiteRefused", "SiteResult", "build_site"]
