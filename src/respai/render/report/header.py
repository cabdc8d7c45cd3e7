"""The top of the report: the system, the verdict banner with its counts, the key facts."""

from __future__ import annotations

from respai.render.report.bind import At
from respai.render.report.markup import facts_grid
from respai.render.report.verdict_words import VERDICTS, verdict_class

__all__ = ["page_header"]


def page_header(predicate: At) -> str:
    """The system's name, the verdict banner with the count of each verdict, the facts.

    Parameters
    ----------
    predicate
        The record's predicate; every text taken from it is bound to its path.
    """
    system = predicate["system"]
    name, version = system["name"], system["version"]
    dataset = predicate["fingerprints"]["dataset"]
    records = predicate["records"]
    verdict = predicate["verdict"]
    dataset_html = dataset["name"].show()
    if isinstance(dataset.get("sha256"), str):
        dataset_html += " " + dataset["sha256"].show("short_hash", cls="mono muted")
    extra = [
        (label, system[key].show())
        for key, label in (
            ("owner", "Owner"),
            ("jurisdiction", "Jurisdiction"),
            ("first_distributed", "First distributed"),
        )
        if isinstance(system.get(key), str)
    ]
    versioned = name.show("name") + (" " + version.show("text0") if version.text("text0") else "")
    facts = [
        ("System", versioned),
        ("Use case", system["use_case"].show()),
        *extra,
        ("Dataset", dataset_html),
        ("Cases", predicate.show("cases")),
        ("Evaluated", predicate["timestamp"].show("when")),
        ("Run id", predicate["run_id"].show(cls="mono")),
        ("Engine", predicate["engine"].show("engine")),
        ("Signing key", predicate["key_id"].show(cls="mono hash")),
        *_plan_facts(records[0]),
    ]
    count_html = "".join(
        records.show("verdict_count", v, cls=f"count {verdict_class(v)}", bold_first_word=True)
        for v in VERDICTS
    )
    return (
        '<header class="doc-head"><div>'
        '<div class="eyebrow">respai evidence report</div>'
        f"<h1>{versioned}</h1>"
        f"{system['use_case'].show('text0', tag='div', cls='muted')}</div>"
        f'<div class="when">{predicate["timestamp"].show("when")}<br>'
        f"record format {predicate['schema_version'].show('textq')}</div>"
        "</header>"
        f'<section class="banner {verdict_class(verdict.value)}" id="verdict" '
        f'aria-label="verdict" data-verdict-of="/predicate/verdict">'
        f'<div class="label">Verdict</div>{verdict.show("verdict", tag="div", cls="word")}'
        f'<div class="why"><p>{verdict.show("verdict_sentence")}{_scope(predicate)}</p>'
        f'<div class="counts">{count_html}</div>'
        '<p class="scope">It concerns these defined measurements on this data only: not '
        "safety, fairness or compliance in general.</p></div>"
        "</section>" + facts_grid(facts)
    )


def _scope(predicate: At) -> str:
    """What the run's verdict is over: its tests, or a monitoring stream's latest look.

    A monitoring run's banner also states the rule's guarantees (the confidence
    sequences' level and the change detector's false-alarm bound), bound to its
    ``run_start.monitor``.
    """
    if predicate.get("kind") == "respai.monitor":
        monitor = predicate["records"][0]["monitor"]
        return (
            f' {monitor.show("mon_scope")}</p><p class="guarantee">{monitor.show("mon_guarantee")}'
        )
    count = predicate["records"].show("test_count")
    return f" The run's verdict is the worst over its {count} tests."


def _plan_facts(start: At) -> list[tuple[str, str]]:
    """The plan facts: when the criteria were registered, or the newest plan's comparison.

    ``run_start.plan`` (a run held to a plan) and ``run_start.plan_check`` (a run without
    ``--plan`` whose system has one), each text bound to the record.
    """
    out = []
    plan, check = start["plan"], start["plan_check"]
    if plan.has("plan_id"):
        out.append(
            (
                "Criteria registered",
                plan["timestamp"].show("when")
                + " · "
                + plan["plan_id"].show("short_hash", cls="mono muted"),
            )
        )
    if check.has("plan_id"):
        out.append(
            (
                "Newest plan",
                check["plan_id"].show("short_hash", cls="mono muted")
                + " · "
                + check["timestamp"].show("when")
                + ": "
                + check["changed"].show("length")
                + " criteria changed since",
            )
        )
    return out
