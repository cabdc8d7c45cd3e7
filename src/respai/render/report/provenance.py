"""Where the record came from: the fingerprints and run identity, and the hash chain."""

from __future__ import annotations

from respai.render.report.bind import At
from respai.render.report.markup import definition_list

__all__ = ["chain_section", "fingerprints_section"]


def _hash_line(digest: At) -> str:
    """A SHA-256 on its own line under what it fingerprints."""
    return "<br>" + digest.show("hash", cls="mono hash")


def fingerprints_section(predicate: At, statement: At) -> str:
    """The fingerprints of what was tested, the settings, and the run's identity.

    Parameters
    ----------
    predicate
        The record's predicate (fingerprints, run id, timestamp, key id); its first record
        (run start) gives the spec, policy and settings.
    statement
        The in-toto statement, for its subjects.

    Returns
    -------
    str
        A key-value list (HTML).
    """
    fps = predicate["fingerprints"]
    start = predicate["records"][0]
    rows: list[tuple[str, str]] = []
    dataset = fps["dataset"]
    if dataset.mapping():
        rows.append(("Dataset", dataset.show("dataset_line") + _hash_line(dataset["sha256"])))
    model = fps["model"]
    if model.value is None:
        rows.append(("Model", "none: model access is not part of this evaluation"))
    else:
        rows.append(("Model", model["name"].show() + _hash_line(model["sha256"])))
    code = fps["engine_code"]
    if code.mapping():
        git = ""
        if isinstance(code.get("git_commit"), str):
            git = f"<br>git commit {code['git_commit'].show(cls='mono')}{code.show('dirty')}"
        rows.append(
            (
                "Engine code",
                f"version {code['version'].show('textq')} · {code['files'].show('count')} files"
                + _hash_line(code["sha256"])
                + git,
            )
        )
    spec = start["spec"]
    if spec.mapping():
        rows.append(("Spec", spec["name"].show() + _hash_line(spec["sha256"])))
    policy = start["policy"]
    rows.append(
        (
            "Policy",
            "none: default thresholds"
            if policy.value is None
            else policy["name"].show() + _hash_line(policy["sha256"]),
        )
    )
    settings = start["settings"]
    if settings.mapping():
        sources = settings["sources"]

        def with_source(key: str) -> str:
            src = sources[key]
            return settings[key].show("plain") + (
                f' <span class="muted small">({src.show()})</span>'
                if isinstance(src.value, str)
                else ""
            )

        rows.extend(
            [
                ("alpha", with_source("alpha")),
                ("Minimum cell", with_source("min_cell")),
                ("Max left out", with_source("max_left_out")),
                ("Score column", settings["score"].show("plain")),
                ("Unit column", settings["unit"].show("plain")),
            ]
        )
        if settings.has("orientation"):  # records before engine 0.4 do not state it
            rows.append(("Favourable outcome", settings["orientation"].show("text")))
        familywise = settings["familywise"]
        if familywise.has("guarantee"):
            # engine 0.4.0: the run's family (every verdict-deciding test) at alpha / m
            rows.append(("Family-wise control", familywise["guarantee"].show("text")))
    subjects = ", ".join(s["name"].show("text0") for s in statement["subject"].elements())
    rows.append(("Statement subjects", subjects or "—"))
    rows.append(("Run identity", predicate.show("run_identity")))
    rows.append(("Key id", predicate["key_id"].show(cls="mono hash")))
    return definition_list(rows)


def chain_section(predicate: At) -> str:
    """Every record of the chain with its seq, type, test and id, and what links them."""
    records = predicate["records"].elements()
    rows = [
        f"<tr>{r['seq'].show('plain', tag='td', cls='num')}"
        f"{r['record_type'].show(tag='td')}"
        f"{r['test_key'].show('text0', tag='td', cls='mono')}"
        f"{r['record_id'].show(tag='td', cls='mono hash small')}</tr>"
        for r in records
    ]
    genesis = predicate["records"][0]["prev_record_id"].show(cls="mono hash")
    return (
        '<p class="small">Each record\'s id is the SHA-256 of its canonical JSON without the '
        "id; each record holds the id of the one before it, and the run_end record lists "
        "every id of the run. Editing, dropping or reordering a record breaks the chain. "
        f"The first record links to {genesis}.</p>"
        '<table class="small"><thead><tr><th class="num">seq</th><th>type</th><th>test</th>'
        f"<th>record_id</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
