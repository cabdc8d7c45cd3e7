"""The top of the report: the system, the verdict banner with its counts, the key facts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from respai.render.escape import html_text
from respai.render.report.fields import as_dict, as_str, tests_of
from respai.render.report.markup import facts_grid
from respai.render.report.values import count_text, short_hash, size_text, when
from respai.render.report.verdicts import (
    VERDICT_SENTENCES,
    VERDICT_WORDS,
    VERDICTS,
    verdict_class,
    verdict_counts,
)

__all__ = ["page_header"]


def page_header(predicate: Mapping[str, Any]) -> str:
    """The system's name, the verdict banner with the count of each verdict, the facts."""
    system = as_dict(predicate.get("system"))
    name = as_str(system.get("name"), "unnamed system")
    version = as_str(system.get("version"))
    tests = tests_of(predicate)
    verdict = predicate.get("verdict")
    counts = verdict_counts(tests)
    dataset = as_dict(as_dict(predicate.get("fingerprints")).get("dataset"))
    engine = as_dict(predicate.get("engine"))
    cases = as_dict(predicate.get("counts")).get("cases")
    sha = as_str(dataset.get("sha256"))
    dataset_html = html_text(as_str(dataset.get("name"), "—"))
    if sha:
        dataset_html += f' <span class="mono muted">{html_text(short_hash(sha))}</span>'
    extra = [
        (label, html_text(system[key]))
        for key, label in (
            ("owner", "Owner"),
            ("jurisdiction", "Jurisdiction"),
            ("first_distributed", "First distributed"),
        )
        if isinstance(system.get(key), str)
    ]
    python = engine.get("python")
    key_id = as_str(predicate.get("key_id"), "—")
    facts = [
        ("System", html_text(f"{name} {version}".strip())),
        ("Use case", html_text(as_str(system.get("use_case"), "—"))),
        *extra,
        ("Dataset", dataset_html),
        (
            "Cases",
            html_text(
                " · ".join(
                    b
                    for b in (
                        count_text(cases) if isinstance(cases, int) else "",
                        size_text(dataset.get("size_bytes")),
                    )
                    if b
                )
                or "—"
            ),
        ),
        ("Evaluated", html_text(when(predicate.get("timestamp")))),
        ("Run id", f'<span class="mono">{html_text(as_str(predicate.get("run_id"), "—"))}</span>'),
        (
            "Engine",
            html_text(
                f"{as_str(engine.get('name'), '?')} {as_str(engine.get('version'))}"
                + (f", Python {python}" if isinstance(python, str) else "")
            ),
        ),
        (
            "Signing key",
            f'<span class="mono">{html_text(short_hash(key_id))}</span>',
        ),
    ]
    count_html = "".join(
        f'<span class="count {verdict_class(v)}"><b>{counts[v]}</b> {html_text(VERDICT_WORDS[v])}'
        "</span>"
        for v in VERDICTS
    )
    sentence = VERDICT_SENTENCES.get(str(verdict), "The record's verdict is not one of the four.")
    word = VERDICT_WORDS.get(str(verdict), str(verdict))
    return (
        '<header class="doc-head"><div>'
        '<div class="eyebrow">respai evidence report</div>'
        f"<h1>{html_text(name)}{(' ' + html_text(version)) if version else ''}</h1>"
        f'<div class="muted">{html_text(as_str(system.get("use_case")))}</div></div>'
        f'<div class="when">{html_text(when(predicate.get("timestamp")))}<br>'
        f"record format {html_text(as_str(predicate.get('schema_version'), '?'))}</div>"
        "</header>"
        f'<section class="banner {verdict_class(verdict)}" id="verdict" aria-label="verdict">'
        f'<div class="label">Verdict</div><div class="word">{html_text(word)}</div>'
        f'<div class="why"><p>{html_text(sentence)} The run\'s verdict is the worst over its '
        f"{len(tests)} tests.</p>"
        f'<div class="counts">{count_html}</div>'
        '<p class="scope">It concerns these defined measurements on this data only: not '
        "safety, fairness or compliance in general.</p></div>"
        "</section>" + facts_grid(facts)
    )
