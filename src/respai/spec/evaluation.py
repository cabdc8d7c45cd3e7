"""The ``evaluation:`` block: which battery tests run, the score column, the model access.

Test ids are checked against :data:`respai.battery.BATTERY`; without ``tests:`` the whole
battery runs. A model file (for perturbation stability) needs its feature columns in the
order the model expects; relative paths are resolved against the spec's folder.

A spec never widens what a model file may load: ``evaluation.trusted_types`` is refused,
because trust comes from the person running the command (``respai evaluate --trust-type``
and ``--trust-model-code``, or the caller of
:func:`respai.run.evaluation.run_evaluation`), never from an input file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from respai.errors import did_you_mean
from respai.spec.checks import _check_keys, _count, _Ctx, _fraction, _kind, _mapping, _name, _text
from respai.spec.parsed import EvaluationSpec

__all__ = ["parse_evaluation"]

_EVALUATION_KEYS = (
    "tests",
    "score",
    "seed",
    "model",
    "features",
    "numeric",
    "noise",
    "trials",
    "positive_label",
)

#: The key a spec once used to widen skops trust; refused with a message of its own.
_REFUSED_TRUST_KEY = "trusted_types"


def _names(ctx: _Ctx, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(key, f"must be a list of column names, got {_kind(value)}.")
    names = tuple(_name(ctx, f"{key}[{i}]", v) for i, v in enumerate(value))
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ctx.fail(key, f"names the column '{dupes[0]}' twice.")
    return names


def parse_evaluation(
    block: Any, *, origin: str = "spec", base_dir: Path | None = None
) -> EvaluationSpec:
    """Validate the ``evaluation:`` block (battery tests, score, model access, seed)."""
    from respai.battery import BATTERY

    ctx = _Ctx(origin)
    eb = _mapping(ctx, "evaluation", block if block is not None else {})
    if _REFUSED_TRUST_KEY in eb:
        raise ctx.fail(
            f"evaluation.{_REFUSED_TRUST_KEY}",
            "a spec cannot widen what a model file may load: trust comes only from the "
            "command line, so that no input file can make respai run code.",
            "Remove evaluation.trusted_types from the spec, and pass each type you trust "
            "yourself with respai evaluate --trust-type MODULE.NAME (repeatable), or "
            "evaluate(..., trusted_types=[...]) in Python.",
        )
    _check_keys(ctx, "evaluation", eb, _EVALUATION_KEYS, ())
    model: Path | None = None
    features: tuple[str, ...] = ()
    if "model" in eb:
        raw_model = Path(_text(ctx, "evaluation.model", eb["model"])).expanduser()
        model = raw_model if raw_model.is_absolute() or base_dir is None else base_dir / raw_model
        if "features" not in eb:
            raise ctx.fail(
                "evaluation.features",
                "is required with evaluation.model.",
                "List the model's input columns in the order it expects.",
            )
        features = _names(ctx, "evaluation.features", eb["features"])
    elif "features" in eb:
        raise ctx.fail(
            "evaluation.features",
            "is set but evaluation.model is not.",
            "Name the model file, or remove features.",
        )
    numeric = _names(ctx, "evaluation.numeric", eb["numeric"]) if "numeric" in eb else None
    if numeric is not None:
        stray = [c for c in numeric if c not in features]
        if stray:
            raise ctx.fail(
                "evaluation.numeric",
                f"'{stray[0]}' is not one of the features." + did_you_mean(stray[0], features),
            )
    noise = (
        _fraction(ctx, "evaluation.noise", eb["noise"], open_low=True) if "noise" in eb else 0.05
    )
    trials = (
        _count(ctx, "evaluation.trials", eb["trials"], low=1, high=1000) if "trials" in eb else 5
    )
    positive = (
        None
        if eb.get("positive_label") is None
        else _text(ctx, "evaluation.positive_label", eb["positive_label"])
    )
    tests: tuple[str, ...] = BATTERY
    if "tests" in eb:
        raw = eb["tests"]
        if not isinstance(raw, list) or not raw:
            raise ctx.fail(
                "evaluation.tests",
                f"must be a list of test ids, got {_kind(raw)}.",
                f"Test ids: {', '.join(BATTERY)}.",
            )
        chosen = []
        for i, item in enumerate(raw):
            name = _text(ctx, f"evaluation.tests[{i}]", item)
            if name not in BATTERY:
                raise ctx.fail(
                    f"evaluation.tests[{i}]",
                    f"'{name}' is not a battery test." + did_you_mean(name, BATTERY),
                    f"Test ids: {', '.join(BATTERY)}.",
                )
            if name in chosen:
                raise ctx.fail(f"evaluation.tests[{i}]", f"'{name}' is listed twice.")
            chosen.append(name)
        tests = tuple(chosen)
    score = None if eb.get("score") is None else _name(ctx, "evaluation.score", eb["score"])
    seed = (
        None
        if "seed" not in eb
        else _count(ctx, "evaluation.seed", eb["seed"], low=0, high=2**32 - 1)
    )
    return EvaluationSpec(
        tests=tests,
        explicit_tests="tests" in eb,
        score=score,
        seed=seed,
        model=model,
        features=features,
        numeric=numeric,
        noise=noise,
        trials=trials,
        positive_label=positive,
    )
