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
