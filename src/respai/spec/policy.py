"""Policy files: thresholds and overrides for one use of a spec, and applying them.

A policy may set ``alpha``, ``max_left_out``, ``max_missing`` and ``min_cell`` for the whole
file, ask for run-level family-wise control over every verdict-deciding test of a run
(``familywise: bonferroni``, :mod:`respai.run.family`), override a rule's threshold or
its ``method`` by rule id (not its kind or side), and set a battery test's threshold or
decision rule. :func:`apply_policy` returns the spec with the overrides applied and each
threshold's source noted (``spec``, ``default`` or ``policy <file> sha256:<hex>``), so
the record says where every number came from.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from respai.errors import SpecError, did_you_mean
from respai.retention import PRESETS, RetentionRule, parse_period
from respai.spec.checks import (
    _alpha,
    _check_keys,
    _count,
    _Ctx,
    _date,
    _fraction,
    _mapping,
    _text,
    _worst_group,
)
from respai.spec.parsed import FairnessSpec, Policy
from respai.spec.yaml_io import _read_yaml

__all__ = ["apply_policy", "load_policy", "parse_policy"]

_POLICY_KEYS = (
    "name",
    "description",
    "alpha",
    "max_left_out",
    "max_missing",
    "min_cell",
    "familywise",
    "rules",
    "tests",
    "retention",
)
#: Run-level family-wise control over the run's verdict-deciding tests (``familywise:``).
FAMILYWISE = ("none", "bonferroni")
_RULE_OVERRIDES = (
    "max_group_gap",
    "min_group_ratio",
    "worst_group",
    "max_left_out",
    "max_missing",
    "method",
)
_POLICY_TEST_KEYS = ("threshold", "decision")


def load_policy(path: str | Path) -> Policy:
    """Read and validate a policy file (thresholds and overrides for one use)."""
    p = Path(path)
    doc, digest = _read_yaml(p, "policy")
    return parse_policy(doc, origin=str(p), path=p, sha256=digest)


def parse_policy(
    doc: Any, *, origin: str = "policy", path: Path | None = None, sha256: str | None = None
) -> Policy:
    """Validate a policy mapping.

    A policy may set ``alpha``, ``max_left_out``, ``max_missing``, ``min_cell`` and, per
    rule id under ``rules:``, ``max_group_gap``, ``min_group_ratio``, ``worst_group``,
    ``max_left_out`` or ``max_missing``.
    """
    ctx = _Ctx(origin)
    block = _mapping(ctx, "(top level)", doc if doc is not None else {})
    _check_keys(ctx, "", block, _POLICY_KEYS, ())
    rules_block = _mapping(ctx, "rules", block.get("rules") or {})
    rules: dict[str, dict[str, Any]] = {}
    for rule_id, override in rules_block.items():
        where = f"rules.{rule_id}"
        ob = _mapping(ctx, where, override)
        _check_keys(ctx, where, ob, _RULE_OVERRIDES, ())
        clean: dict[str, Any] = {}
        if "max_group_gap" in ob:
            clean["max_group_gap"] = _fraction(ctx, f"{where}.max_group_gap", ob["max_group_gap"])
        if "min_group_ratio" in ob:
            clean["min_group_ratio"] = _fraction(
                ctx, f"{where}.min_group_ratio", ob["min_group_ratio"], open_low=True
            )
        if "worst_group" in ob:
            clean["worst_group"] = _worst_group(ctx, f"{where}.worst_group", ob["worst_group"])
        if "max_left_out" in ob:
            clean["max_left_out"] = _fraction(ctx, f"{where}.max_left_out", ob["max_left_out"])
        if "max_missing" in ob:
            clean["max_missing"] = _fraction(ctx, f"{where}.max_missing", ob["max_missing"])
        if "method" in ob:
            from respai.spec.fairness import RULE_METHODS

            method = _text(ctx, f"{where}.method", ob["method"])
            if method not in RULE_METHODS:
                raise ctx.fail(
                    f"{where}.method",
                    f"'{method}' is not a method." + did_you_mean(method, RULE_METHODS),
                    "Use simultaneous or pairwise.",
                )
            clean["method"] = method
        rules[str(rule_id)] = clean
    tests_block = _mapping(ctx, "tests", block.get("tests") or {})
    tests: dict[str, dict[str, Any]] = {}
    if tests_block:
        from respai.battery import BATTERY

        for test_id, override in tests_block.items():
            where = f"tests.{test_id}"
            if test_id not in BATTERY:
                raise ctx.fail(
                    where,
                    "is not a battery test." + did_you_mean(str(test_id), BATTERY),
                    f"Test ids: {', '.join(BATTERY)}.",
                )
            ob = _mapping(ctx, where, override)
            _check_keys(ctx, where, ob, _POLICY_TEST_KEYS, ())
            clean_test: dict[str, Any] = {}
            if "threshold" in ob:
                clean_test["threshold"] = _fraction(ctx, f"{where}.threshold", ob["threshold"])
            if "decision" in ob:
                decision = _text(ctx, f"{where}.decision", ob["decision"])
                if decision not in ("estimate", "interval"):
                    raise ctx.fail(
                        f"{where}.decision",
                        f"'{decision}' is not a decision rule."
                        + did_you_mean(decision, ("estimate", "interval")),
                        "Use estimate or interval.",
                    )
                clean_test["decision"] = decision
            tests[str(test_id)] = clean_test
    return Policy(
        path=path,
        sha256=sha256,
        tests=tests,
        alpha=None if "alpha" not in block else _alpha(ctx, "alpha", block["alpha"]),
        max_left_out=None
        if "max_left_out" not in block
        else _fraction(ctx, "max_left_out", block["max_left_out"]),
        max_missing=None
        if "max_missing" not in block
        else _fraction(ctx, "max_missing", block["max_missing"]),
        min_cell=None
        if "min_cell" not in block
        else _count(ctx, "min_cell", block["min_cell"], low=0, high=10**9),
        rules=rules,
        familywise=_familywise(ctx, block.get("familywise")),
        retention=_retention(ctx, block.get("retention")),
    )


_RETENTION_KEYS = ("preset", "name", "keep_for", "start", "last_use")


def _retention(ctx: _Ctx, value: Any) -> tuple[RetentionRule, ...]:
    """``retention:``: a list of presets or ``{preset|name, keep_for, start, last_use}``."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise ctx.fail(
            "retention",
            "must be a non-empty list of retention clocks.",
            f"List presets ({', '.join(PRESETS)}) or entries such as "
            "{name: internal, keep_for: P4Y}.",
        )
    rules: list[RetentionRule] = []
    for index, item in enumerate(value):
        where = f"retention[{index}]"
        entry = {"preset": item} if isinstance(item, str) else _mapping(ctx, where, item)
        _check_keys(ctx, where, entry, _RETENTION_KEYS, ())
        start = None if "start" not in entry else _date(ctx, f"{where}.start", entry["start"])
        if "preset" in entry:
            preset = _text(ctx, f"{where}.preset", entry["preset"])
            if preset not in PRESETS:
                raise ctx.fail(
                    where,
                    f"'{preset}' is not a retention preset." + did_you_mean(preset, PRESETS),
                    f"Presets: {', '.join(PRESETS)}; or give {{name: ..., keep_for: P4Y}}.",
                )
            if "keep_for" in entry:
                raise ctx.fail(
                    f"{where}.keep_for",
                    f"the preset {preset} sets its own period.",
                    "Drop keep_for, or give your own clock as {name: ..., keep_for: ...}.",
                )
            source, years, months, basis = PRESETS[preset]
            if preset == "ll144-publication":
                if "last_use" not in entry:
                    raise ctx.fail(
                        where,
                        "ll144-publication counts 6 months from the tool's last use, "
                        "which is not given.",
                        "Write {preset: ll144-publication, last_use: YYYY-MM-DD}.",
                    )
                start = _date(ctx, f"{where}.last_use", entry["last_use"])
            elif "last_use" in entry:
                raise ctx.fail(
                    f"{where}.last_use",
                    "only ll144-publication counts from the last use.",
                    "Use start: YYYY-MM-DD to count another clock from a given day.",
                )
            elif start is not None:
                basis = basis.split(" from ")[0] + f" from {start} (start)"
            name = _text(ctx, f"{where}.name", entry["name"]) if "name" in entry else preset
            rules.append(RetentionRule(name, source, years, months, 0, start, basis))
            continue
        if "name" not in entry or "keep_for" not in entry:
            raise ctx.fail(
                where,
                "an entry that is not a preset needs both name and keep_for.",
                "Write {name: internal, keep_for: P4Y} (an ISO 8601 period of years, "
                "months and days).",
            )
        if "last_use" in entry:
            raise ctx.fail(
                f"{where}.last_use",
                "only ll144-publication counts from the last use.",
                "Use start: YYYY-MM-DD to count from a given day.",
            )
        keep_for = _text(ctx, f"{where}.keep_for", entry["keep_for"])
        period = parse_period(keep_for)
        if period is None:
            raise ctx.fail(
                f"{where}.keep_for",
                f"'{keep_for}' is not a period of years, months and days.",
                "Write it as an ISO 8601 duration such as P4Y, P6M or P1Y6M.",
            )
        name = _text(ctx, f"{where}.name", entry["name"])
        basis = f"{keep_for} from " + (f"{start} (start)" if start else "the run's day (UTC)")
        rules.append(RetentionRule(name, None, *period, start, basis))
    names = [r.name for r in rules]
    for name in names:
        if names.count(name) > 1:
            raise ctx.fail("retention", f"the clock {name!r} is listed twice.")
    return tuple(rules)


def _familywise(ctx: _Ctx, value: Any) -> str | None:
    """``familywise:``: ``bonferroni`` (the run's tests share alpha), ``none`` or absent."""
    if value is None or value == "none":
        return None
    if value not in FAMILYWISE:
        raise ctx.fail(
            "familywise",
            f"'{value}' is not a family-wise control." + did_you_mean(str(value), FAMILYWISE),
            "Use bonferroni (each of the run's m verdict-deciding tests decided at alpha / m, "
            "so any wrong verdict among them has probability at most alpha) or none.",
        )
    return str(value)


def apply_policy(spec: FairnessSpec, policy: Policy | None) -> FairnessSpec:
    """Return ``spec`` with the policy's overrides applied and their sources noted.

    Raises
    ------
    SpecError
        When the policy names a rule the spec does not declare, or changes a rule's kind.
    """
    from respai.decision import alpha_in_force

    keys = ("alpha", "max_left_out", "min_cell", "max_missing")
    sources = {k: spec.sources.get(k, "spec") for k in keys}
    if policy is None:
        return replace(spec, sources=sources)
    changes: dict[str, Any] = {}
    alpha, sources["alpha"] = alpha_in_force(spec.alpha, sources["alpha"], policy)
    if policy.alpha is not None:
        changes["alpha"] = alpha
    for key in keys[1:]:
        value = getattr(policy, key)
        if value is not None:
            changes[key] = value
            sources[key] = policy.source
    if policy.familywise is not None:
        changes["familywise"] = policy.familywise
        sources["familywise"] = policy.source
    by_id = {r.id: r for r in spec.rules}
    for rule_id in policy.rules:
        if rule_id not in by_id:
            origin = str(policy.path) if policy.path else "policy"
            raise SpecError(
                f"{origin}: rules.{rule_id}: no rule with this id in the spec."
                + did_you_mean(rule_id, by_id),
                f"Rules in the spec: {', '.join(by_id) or 'none'}.",
            )
    origin = str(policy.path) if policy.path else "policy"
    new_rules = []
    for rule in spec.rules:
        override = policy.rules.get(rule.id, {})
        updates: dict[str, Any] = {}
        if policy.max_left_out is not None and "max_left_out" not in override:
            # the policy's file-wide limit outranks the spec, the rule's own setting too
            updates["max_left_out"] = policy.max_left_out
            updates["max_left_out_source"] = policy.source
        if policy.max_missing is not None and "max_missing" not in override:
            updates["max_missing"] = policy.max_missing
            updates["max_missing_source"] = policy.source
        if not override:
            new_rules.append(replace(rule, **updates) if updates else rule)
            continue
        if "method" in override:
            if rule.kind == "worst_group" and override["method"] == "pairwise":
                raise SpecError(
                    f"{origin}: rules.{rule.id}: a worst_group rule has no pairs to test, so "
                    "its method cannot be pairwise."
                )
            updates["method"] = override["method"]
        if {"max_group_gap", "min_group_ratio", "worst_group"} & set(override):
            updates["threshold_source"] = policy.source
        for kind in ("max_group_gap", "min_group_ratio"):
            if kind in override:
                if rule.kind != kind:
                    raise SpecError(
                        f"{origin}: rules.{rule.id}: the spec declares a {rule.kind} "
                        f"rule; a policy cannot turn it into a {kind} rule."
                    )
                updates[kind] = override[kind]
        if "worst_group" in override:
            if rule.kind != "worst_group":
                raise SpecError(
                    f"{origin}: rules.{rule.id}: the spec declares a {rule.kind} "
                    "rule; a policy cannot turn it into a worst_group rule."
                )
            wmin, wmax = override["worst_group"]
            if (wmin is None) != (rule.worst_min is None):
                side = "min" if rule.worst_min is not None else "max"
                raise SpecError(
                    f"{origin}: rules.{rule.id}: the spec declares worst_group "
                    f"{{{side}: ...}}; a policy can change the bound, not its "
                    "side.",
                    f"Write worst_group: {{{side}: <value>}}.",
                )
            updates["worst_min"], updates["worst_max"] = wmin, wmax
        if "max_left_out" in override:
            updates["max_left_out"] = override["max_left_out"]
            updates["max_left_out_source"] = policy.source
        if "max_missing" in override:
            updates["max_missing"] = override["max_missing"]
            updates["max_missing_source"] = policy.source
        new_rules.append(replace(rule, **updates))
    return replace(spec, rules=tuple(new_rules), sources=sources, **changes)
