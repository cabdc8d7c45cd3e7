"""Where the record came from: the fingerprints and run identity, and the hash chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from respai.render.escape import html_text
from respai.render.report.fields import as_dict, as_list, as_str
from respai.render.report.markup import definition_list
from respai.render.report.values import count_text, plain, size_text

__all__ = ["chain_section", "fingerprints_section"]


def _hash_line(digest: object, missing: str = "—") -> str:
    """A SHA-256 on its own line under what it fingerprints (``missing`` if absent)."""
    return f'<br><span class="mono hash">sha256:{html_text(as_str(digest, missing))}</span>'


def fingerprints_section(predicate: Mapping[str, Any], statement: Mapping[str, Any]) -> str:
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
    fps = as_dict(predicate.get("fingerprints"))
    records = [as_dict(r) for r in as_list(predicate.get("records"))]
    start = records[0] if records else {}
    rows: list[tuple[str, str]] = []
    dataset = as_dict(fps.get("dataset"))
    if dataset:
        rows.append(
            (
                "Dataset",
                html_text(
                    f"{as_str(dataset.get('name'), '—')} · {as_str(dataset.get('media_type'))} · "
                    f"{size_text(dataset.get('size_bytes'))}"
                )
                + _hash_line(dataset.get("sha256"), ""),
            )
        )
    model = fps.get("model")
    if model is None:
        rows.append(("Model", "none: model access is not part of this evaluation"))
    else:
        m = as_dict(model)
        rows.append(
            (
                "Model",
                html_text(as_str(m.get("name"), "model")) + _hash_line(m.get("sha256"), ""),
            )
        )
    code = as_dict(fps.get("engine_code"))
    if code:
        git = ""
        if isinstance(code.get("git_commit"), str):
            dirty = " (uncommitted changes)" if code.get("git_dirty") is True else ""
            commit = html_text(code["git_commit"])
            git = f'<br>git commit <span class="mono">{commit}</span>{html_text(dirty)}'
        rows.append(
            (
                "Engine code",
                html_text(f"version {as_str(code.get('version'), '?')}")
                + f" · {count_text(code.get('files'))} files"
                + _hash_line(code.get("sha256"), "")
                + git,
            )
        )
    spec = as_dict(start.get("spec"))
    if spec:
        rows.append(
            (
                "Spec",
                html_text(as_str(spec.get("name"), "—")) + _hash_line(spec.get("sha256")),
            )
        )
    policy = start.get("policy")
    policy_d = as_dict(policy)
    rows.append(
        (
            "Policy",
            "none: default thresholds"
            if policy is None
            else html_text(as_str(policy_d.get("name"), "—")) + _hash_line(policy_d.get("sha256")),
        )
    )
    settings = as_dict(start.get("settings"))
    if settings:
        sources = as_dict(settings.get("sources"))

        def with_source(key: str) -> str:
            src = sources.get(key)
            return html_text(plain(settings.get(key))) + (
                f' <span class="muted small">({html_text(src)})</span>'
                if isinstance(src, str)
                else ""
            )

        rows.extend(
            [
                ("alpha", with_source("alpha")),
                ("Minimum cell", with_source("min_cell")),
                ("Max left out", with_source("max_left_out")),
                ("Score column", html_text(plain(settings.get("score")))),
                ("Unit column", html_text(plain(settings.get("unit")))),
            ]
        )
    subjects = ", ".join(
        html_text(as_str(as_dict(s).get("name"))) for s in as_list(statement.get("subject"))
    )
    rows.append(("Statement subjects", subjects or "—"))
    rows.append(
        (
            "Run identity",
            html_text(
                f"run {as_str(predicate.get('run_id'), '—')} at "
                f"{as_str(predicate.get('timestamp'), '—')}, schema_version "
                f"{as_str(predicate.get('schema_version'), '?')}"
            ),
        )
    )
    rows.append(
        (
            "Key id",
            f'<span class="mono hash">{html_text(as_str(predicate.get("key_id"), "—"))}</span>',
        )
    )
    return definition_list(rows)


def chain_section(predicate: Mapping[str, Any]) -> str:
    """Every record of the chain with its seq, type, test and id, and what links them."""
    records = [as_dict(x) for x in as_list(predicate.get("records"))]
    rows = [
        f'<tr><td class="num">{html_text(plain(r.get("seq")))}</td>'
        f"<td>{html_text(as_str(r.get('record_type'), '—'))}</td>"
        f'<td class="mono">{html_text(as_str(r.get("test_key")))}</td>'
        f'<td class="mono hash small">{html_text(as_str(r.get("record_id"), "—"))}</td></tr>'
        for r in records
    ]
    genesis = as_str(records[0].get("prev_record_id"), "—") if records else "—"
    return (
        '<p class="small">Each record\'s id is the SHA-256 of its canonical JSON without the '
        "id; each record holds the id of the one before it, and the run_end record lists "
        "every id of the run. Editing, dropping or reordering a record breaks the chain. "
        f'The first record links to <span class="mono hash">{html_text(genesis)}</span>.</p>'
        '<table class="small"><thead><tr><th class="num">seq</th><th>type</th><th>test</th>'
        f"<th>record_id</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
