# ruff: noqa: E501
"""The fixed labels of the report: every text in ``<main>`` that is not from the record.

The page's script accepts a text node that is not inside a bound element (see
:mod:`respai.render.report.bind`) only if it is one of these strings or an axis tick
(:data:`respai.render.report.chart.TICK_LABELS`); any other text in ``<main>`` makes the
page read "Not verified". ``tests/render/test_report_binding.py`` renders records that
reach every branch of the renderer and fails, listing the text, when the renderer writes
loose text that is not here: a new fixed label is added here, and a new value from the
record is bound instead.
"""

from __future__ import annotations

from respai.render.report.chart import TICK_LABELS

__all__ = ["ATTRIBUTES", "LABELS", "TAGS", "TICK_LABELS"]

#: The HTML elements the renderer writes in ``<main>`` (outside the charts' SVG, which the
#: script checks mark by mark); the page's script refuses any other, so an ``<input>``
#: showing a value or an ``<iframe>`` cannot be slipped in.
TAGS = frozenset(
    {
        "a", "b", "br", "button", "code", "col", "colgroup", "dd", "details", "div", "dl",
        "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "header", "li",
        "main", "noscript", "p", "section", "span", "strong", "summary", "svg", "table",
        "tbody", "td", "th", "thead", "tr", "ul",
    }
)  # fmt: skip

#: The attributes the renderer (and the script: ``open``, ``disabled``) writes in
#: ``<main>``; any other (``hidden``, ``title``, ``style``, an event handler) is refused.
ATTRIBUTES = frozenset(
    {
        "aria-label", "aria-live", "class", "cx", "cy", "data-arg", "data-bind", "data-fmt",
        "data-limit", "data-limit-fmt", "data-of", "data-record", "data-row", "data-scale",
        "data-state", "data-tamper-target", "data-verdict-of", "data-x", "data-x1",
        "data-x2", "disabled", "height", "href", "id", "open", "r", "role", "text-anchor",
        "type", "viewbox", "width", "x", "x1", "x2", "xmlns", "y", "y1", "y2", "data-original",
    }
)  # fmt: skip

#: The renderer's own wording, exactly as each text node holds it.
LABELS = frozenset(
    (
        " The run's verdict is the worst over its ",
        " case(s) have no prediction.",
        " cases",
        " cases labelled 1 and ",
        " cases labelled 1, ",
        " cases with a prediction match the label; ",
        " cells over ",
        " clause(s): ",
        " criteria changed since",
        " columns.",
        " each)",
        " each), which the test's bounds use",
        " empty of ",
        " files",
        " labelled 0.",
        " labelled 0; ",
        " of ",
        " tests.",
        " the clauses listed with it: the clause calls for the kind of measurement the test makes. Whether an obligation is met depends on evidence beyond any one test, on context and on judgment that belongs to the organisation, its auditor or, where one is required, a notified body.",
        " without a score.",
        " · ",
        " · rate ",
        " (",
        ") · impact ratio ",
        "(",
        ")",
        ") ",
        ", ",
        ", or recompute the signature, record ids and chain as described in the record format. A printed copy is a copy: only the signed record can be verified.",
        ".",
        ". ",
        "95% Wilson interval",
        "95% interval",
        ":",
        ": ",
        "AUC of a group",
        "AUC of all cases",
        "Cases",
        "Caveats",
        "Clause",
        "Clopper-Pearson interval (",
        "Column",
        "Control mapping",
        "Criteria registered",
        "Dataset",
        "Each rate the record holds for a group, over cases with a prediction: the battery's rates with their 95% Wilson intervals, and each group rule's rate with the Clopper-Pearson interval it decides on. A rate that no test or rule measured is not in the record and is not shown.",
        "Each record's id is the SHA-256 of its canonical JSON without the id; each record holds the id of the one before it, and the run_end record lists every id of the run. Editing, dropping or reordering a record breaks the chain. The first record links to ",
        "Each test ",
        "Empty cells",
        "Engine",
        "Engine code",
        "Error budget",
        "Evaluated",
        "Favourable outcome",
        "Fingerprints and run identity",
        "First distributed",
        "Findings",
        "Framework",
        "Frameworks",
        "Group",
        "Groups",
        "Guarantee",
        "Hash chain",
        "Interval",
        "It concerns these defined measurements on this data only: not safety, fairness or compliance in general.",
        "Jurisdiction",
        "Key id",
        "Left out",
        "Mapping version",
        "Max left out",
        "Method",
        "Minimum cell",
        "Model",
        "Newest plan",
        "No category has a statistical finding.",
        "No public key was embedded, so the signature cannot be checked here.",
        "Owner",
        "Per-group rates",
        "Policy",
        "Printed copy: these checks ran in the browser when the page was printed. Paper cannot be verified; the signed record.json can.",
        "Rate",
        "Reason",
        "Relation",
        "Reset",
        "Review status",
        "Run id",
        "Run identity",
        "Score column",
        "Signed with key ",
        "Page code ",
        "The page code is the SHA-256 of this page's script, which fixes its layout and styles and makes these checks; every report written by one respai version has the same page code (respai report prints it). These checks run inside the page, which cannot vouch for itself: to check the file, run respai verify report.html with the signer's keys.json.",
        "Signing key",
        "Small cells",
        "Spec",
        "Statement subjects",
        "Supports ",
        "System",
        "Tamper with a value",
        "Test",
        "Test details and per-group charts",
        "Tests",
        "The checks run in this browser with WebCrypto; nothing is sent anywhere.",
        "The record holds SHA-256 fingerprints of what was tested, never the rows themselves.",
        "The signature is checked against the public key embedded in this page, and anyone who can edit the page can embed their own key. Compare the full key id above with the key id the key holder publishes for their public key (the key_id of their keys.json entry, or respai verify record.json --keys keys.json): only that comparison tells you who signed.",
        "This page embeds the signed record (record.json) and re-checks it in your browser. To check it independently: ",
        "This record does not state",
        "This record states",
        "The law sets no pass mark, so every category below reads MANUAL REVIEW. These are the categories whose impact ratio is under the screening line plus its margin, each with the statistical finding that an auditor judges; every other category's record is in the table.",
        "Threshold",
        "Threshold source",
        "Title and note",
        "Uncertain",
        "Undefined",
        "Unit column",
        "Use case",
        "Value",
        "Values are estimates from the evaluation data; intervals are 95% unless stated. A verdict marked uncertain is one whose interval crosses its threshold.",
        "Verdict",
        "What each check found",
        "What this record states, and what it does not",
        "What “supports” means.",
        "all cases",
        "alpha",
        "git commit ",
        "lowest and highest group",
        "none: default thresholds",
        "none: model access is not part of this evaluation",
        "rate",
        "record format ",
        "record_id",
        "respai evidence report",
        "respai verify record.json --key public_key.pem",
        "seq",
        "simultaneous interval (",
        "test",
        "the line the lowest group must reach",
        "the rule's limit for every group",
        "threshold",
        "type",
        "undefined",
        "version ",
        "—",
    )
)
