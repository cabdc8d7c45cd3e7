"""``respai evaluate`` with model access: perturbation stability in the signed record."""

from __future__ import annotations

import base64
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from respai.cli import main


def _write_case(tmp_path: Path, fragile: bool) -> Path:
    from skl2onnx import to_onnx
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    n = 400
    x1 = rng.normal(0, 1, n)
    x2 = rng.normal(0, 1, n)
    if fragile:
        # most cases sit a hair from the split, a few far away make the sd large
        x1 = np.where(rng.random(n) < 0.5, 1e-3, -1e-3)
        x1[:20] = np.where(np.arange(20) % 2 == 0, 10.0, -10.0)
        y = (x1 > 0).astype(int)
    else:
        y = (x1 + 0.5 * x2 > 0).astype(int)
    sex = rng.choice(["female", "male"], n)
    X = np.column_stack([x1, x2]).astype(np.float32)
    if fragile:
        from sklearn.tree import DecisionTreeClassifier

        model: Any = DecisionTreeClassifier(max_depth=1).fit(X, y)
    else:
        model = LogisticRegression().fit(X, y)
    pred = model.predict(X)
    (tmp_path / "model.onnx").write_bytes(to_onnx(model, X[:1]).SerializeToString())
    lines = ["label,prediction,x1,x2,sex"]
    lines += [f"{y[i]},{pred[i]},{float(x1[i])!r},{float(x2[i])!r},{sex[i]}" for i in range(n)]
    (tmp_path / "cases.csv").write_text("\n".join(lines) + "\n")
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes:\n    sex: [female, male]\n"
        "evaluation:\n  model: model.onnx\n  features: [x1, x2]\n  seed: 7\n"
    )
    return spec


def _record(out: Path) -> dict[str, Any]:
    env = json.loads((out / "record.json").read_text())
    return json.loads(base64.b64decode(env["payload"]))["predicate"]  # type: ignore[no-any-return]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _stability(pred: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in pred["records"] if r.get("test_id") == "perturbation_stability")


def test_stable_model_is_measured_and_fingerprinted(home: Path) -> None:
    spec = _write_case(home, fragile=False)
    main(["evaluate", str(spec), "--out", "o", "--no-ledger", "--quiet"])
    pred = _record(home / "o")
    rec = _stability(pred)
    assert rec["verdict"] in ("PASS", "FAIL") and rec["value"] is not None
    assert rec["value"] > 0.9
    assert pred["fingerprints"]["model"]["name"] == "model.onnx"
    import hashlib

    assert (
        pred["fingerprints"]["model"]["sha256"]
        == hashlib.sha256((home / "model.onnx").read_bytes()).hexdigest()
    )
    # same inputs and seed: the identical value
    main(["evaluate", str(spec), "--out", "o2", "--no-ledger", "--quiet"])
    assert _stability(_record(home / "o2"))["value"] == rec["value"]


def test_fragile_model_scores_low(home: Path) -> None:
    spec = _write_case(home, fragile=True)
    main(["evaluate", str(spec), "--out", "o", "--no-ledger", "--quiet"])
    rec = _stability(_record(home / "o"))
    assert rec["value"] < 0.6 and rec["verdict"] == "FAIL"


class _Boom:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.marker, "w"))


def test_pickle_model_is_refused_and_never_runs(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write_case(home, fragile=False)
    marker = home / "pwned.txt"
    (home / "model.pkl").write_bytes(pickle.dumps(_Boom(str(marker))))
    spec.write_text(spec.read_text().replace("model.onnx", "model.pkl"))
    code = main(["evaluate", str(spec), "--out", "o", "--no-ledger"])
    err = capsys.readouterr().err
    assert code == 2 and "pickle" in err.lower()
    assert not marker.exists()
    assert not (home / "o").exists()


def _skops_pipeline(home: Path, spec: Path) -> Path:
    """A skops pipeline holding ``FunctionTransformer(operator.neg)``: one extra type."""
    import operator

    import skops.io as sio
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    rng = np.random.default_rng(5)
    x = rng.normal(size=(200, 2))
    y = (x[:, 0] > 0).astype(int)
    pipe = make_pipeline(FunctionTransformer(operator.neg), LogisticRegression()).fit(x, y)
    sio.dump(pipe, home / "pipe.skops")
    spec.write_text(spec.read_text().replace("model.onnx", "pipe.skops"))
    return spec


def test_a_spec_cannot_widen_model_trust(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _skops_pipeline(home, _write_case(home, fragile=False))
    spec.write_text(
        spec.read_text().replace(
            "  seed: 7\n",
            "  seed: 7\n  trusted_types: [builtins.eval, numpy.vectorize, _operator.neg]\n",
        )
    )
    code = main(["evaluate", str(spec), "--out", "o"])
    err = capsys.readouterr().err
    assert code == 2
    assert "evaluation.trusted_types" in err and "--trust-type" in err
    assert "command line" in err
    assert not (home / "o").exists()
    assert not (home / ".respai").exists()  # no ledger
    assert not (home / "keys").exists()  # no key made


def test_a_skops_type_is_trusted_only_from_the_command_line(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _skops_pipeline(home, _write_case(home, fragile=False))
    code = main(["evaluate", str(spec), "--out", "o", "--no-ledger"])
    err = capsys.readouterr().err
    assert code == 2 and "--trust-type _operator.neg" in err
    assert not (home / "o").exists()

    argv = ["evaluate", str(spec), "--out", "o", "--no-ledger", "--quiet"]
    code = main([*argv, "--trust-type", "_operator.neg", "--trust-type", "numpy.dtype"])
    assert code in (0, 1, 3)
    pred = _record(home / "o")
    start = next(r for r in pred["records"] if r["record_type"] == "run_start")
    model = start["settings"]["model"]
    assert model["trusted_types"] == ["_operator.neg"]
    assert model["caller_trusted_types"] == ["_operator.neg"]
    assert model["trusted_code"] is False
    assert any("--trust-type" in c and "_operator.neg" in c for c in pred["caveats"])
