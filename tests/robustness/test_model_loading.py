"""Model loading: ONNX and skops load safely, pickles are refused unless trusted."""

from __future__ import annotations

import hashlib
import operator
import pickle
import sys
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pytest
import skops.io as sio
from skl2onnx import to_onnx
from skl2onnx.common.data_types import FloatTensorType, Int64TensorType
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler
from sklearn.tree import DecisionTreeClassifier

from respai.errors import Error, InputError
from respai.model_file import (
    DEFAULT_TRUSTED_TYPES,
    INSTALL_HINT,
    LoadedModel,
    is_pickle_file,
    load_model,
    wrap_model,
)


def _data(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = (x[:, 0] + 0.5 * x[:, 1] + rng.normal(scale=0.5, size=n) > 0).astype(int)
    return x, y


def _onnx_file(model: Any, x: np.ndarray, path: Path, **options: Any) -> Path:
    onx = to_onnx(model, x[:1].astype(np.float32), options=options or None)
    path.write_bytes(onx.SerializeToString())
    return path


class _MakesAFile:
    """Unpickling this runs ``open(marker, "w")``: it creates a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


# --- ONNX --------------------------------------------------------------------------------


def test_onnx_loads_and_predicts_like_sklearn(tmp_path: Path) -> None:
    x, y = _data()
    clf = LogisticRegression().fit(x.astype(np.float32), y)
    path = _onnx_file(clf, x, tmp_path / "model.onnx")
    m = load_model(path)
    assert m.kind == "onnx" and m.trusted_code is False
    assert m.fingerprint is not None
    assert m.fingerprint["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert m.fingerprint["media_type"] == "application/onnx"
    assert m.fingerprint["size_bytes"] == path.stat().st_size
    assert m.n_features == 3
    x32 = x.astype(np.float32)
    got = m.predict(x)
    assert got.dtype == np.int8
    assert got.tolist() == clf.predict(x32).tolist()
    proba = m.predict_proba(x)
    assert proba is not None
    np.testing.assert_allclose(proba, clf.predict_proba(x32)[:, 1], atol=1e-5)
    assert m.to_record()["runtime"]["provider"] == "CPUExecutionProvider"


def test_onnx_without_zipmap_reads_label_and_probabilities(tmp_path: Path) -> None:
    x, y = _data()
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(x, y)
    path = _onnx_file(clf, x, tmp_path / "tree.onnx", zipmap=False)
    m = load_model(path)
    assert m.predict(x).tolist() == clf.predict(x.astype(np.float32)).tolist()
    proba = m.predict_proba(x)
    assert proba is not None
    np.testing.assert_allclose(proba, clf.predict_proba(x.astype(np.float32))[:, 1], atol=1e-6)


def test_onnx_with_text_labels_needs_the_positive_label(tmp_path: Path) -> None:
    x, y = _data()
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(x, np.where(y, "hire", "no"))
    path = _onnx_file(clf, x, tmp_path / "text.onnx")
    with pytest.raises(InputError, match="the label 'hire'") as info:
        load_model(path).predict(x)
    assert "evaluation.positive_label" in info.value.diagnostics()
    m = load_model(path, positive_label="hire")
    assert m.predict(x).tolist() == (clf.predict(x.astype(np.float32)) == "hire").tolist()


def test_onnx_feature_count_is_checked(tmp_path: Path) -> None:
    x, y = _data()
    path = _onnx_file(LogisticRegression().fit(x, y), x, tmp_path / "m.onnx")
    m = load_model(path)
    m.check_features(["a", "b", "c"])
    with pytest.raises(InputError, match="takes 3 feature column"):
        m.check_features(["a", "b"])


def test_multi_input_onnx_is_fed_by_name(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    x, y = _data()
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": np.where(x[:, 2] > 0, 1, 2)})
    pipe = make_pipeline(
        ColumnTransformer([("n", StandardScaler(), ["a", "b"]), ("c", OneHotEncoder(), ["c"])]),
        LogisticRegression(),
    ).fit(frame, y)
    onx = to_onnx(
        pipe,
        initial_types=[
            ("a", FloatTensorType([None, 1])),
            ("b", FloatTensorType([None, 1])),
            ("c", Int64TensorType([None, 1])),
        ],
    )
    path = tmp_path / "multi.onnx"
    path.write_bytes(onx.SerializeToString())
    m = load_model(path)
    assert m.feature_names == ("a", "b", "c")
    m.check_features(["c", "b", "a"], numeric=["a", "b"])  # by name: any order
    cols = {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy(), "c": frame["c"].to_numpy()}
    expected = pipe.predict(frame.astype({"a": np.float32, "b": np.float32}))
    assert m.predict_columns(cols, ["c", "b", "a"]).tolist() == expected.tolist()
    with pytest.raises(InputError, match="noise cannot be added"):
        m.check_features(["a", "b", "c"], numeric=["a", "c"])
    with pytest.raises(InputError, match="fitted on the features"):
        m.check_features(["a", "b", "d"])


def test_a_broken_onnx_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"this is not a protobuf")
    with pytest.raises(InputError, match="ONNX Runtime cannot load") as info:
        load_model(path)
    assert info.value.exit_code == 2


# --- skops -------------------------------------------------------------------------------


def test_skops_standard_estimator_loads_with_the_default_list(tmp_path: Path) -> None:
    x, y = _data()
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(x, y)
    path = tmp_path / "tree.skops"
    sio.dump(clf, path)
    m = load_model(path)
    assert m.kind == "skops" and m.trusted_code is False
    assert m.trusted_types == ("sklearn.tree._tree.Tree",)
    assert set(m.trusted_types) <= set(DEFAULT_TRUSTED_TYPES)
    assert m.fingerprint is not None
    assert m.fingerprint["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert m.predict(x).tolist() == clf.predict(x).tolist()
    assert m.to_record()["trusted_types"] == ["sklearn.tree._tree.Tree"]


def test_skops_with_an_untrusted_type_is_refused_listing_it(tmp_path: Path) -> None:
    x, y = _data()
    pipe = make_pipeline(FunctionTransformer(operator.neg), LogisticRegression()).fit(x, y)
    path = tmp_path / "pipe.skops"
    sio.dump(pipe, path)
    with pytest.raises(InputError) as info:
        load_model(path)
    text = info.value.diagnostics()
    assert "_operator.neg" in text
    assert "--trust-type _operator.neg" in text  # trust comes from the command line
    assert "evaluation.trusted_types" not in text  # not from the spec
    assert info.value.exit_code == 2
    m = load_model(path, trusted_types=["_operator.neg"])
    assert m.trusted_types == ("_operator.neg",)
    assert m.caller_trusted_types == ("_operator.neg",)
    assert m.to_record()["caller_trusted_types"] == ["_operator.neg"]
    assert m.predict(x).tolist() == pipe.predict(x).tolist()


def test_skops_default_types_are_not_called_caller_trusted(tmp_path: Path) -> None:
    x, y = _data()
    path = tmp_path / "tree.skops"
    sio.dump(DecisionTreeClassifier(max_depth=2, random_state=0).fit(x, y), path)
    m = load_model(path, trusted_types=["_operator.neg"])  # named, but not in the file
    assert m.trusted_types == ("sklearn.tree._tree.Tree",)
    assert m.caller_trusted_types == ()
    assert m.to_record()["caller_trusted_types"] == []


@pytest.mark.parametrize("bad", ["", "eval", "builtins.", "builtins eval", ".eval", 3])
def test_a_trusted_type_that_is_not_a_dotted_name_is_refused(tmp_path: Path, bad: Any) -> None:
    x, y = _data()
    path = tmp_path / "tree.skops"
    sio.dump(DecisionTreeClassifier(max_depth=2, random_state=0).fit(x, y), path)
    with pytest.raises(InputError, match="is not a dotted type name") as info:
        load_model(path, trusted_types=[bad])
    assert info.value.exit_code == 2


def test_skops_model_fitted_with_names_checks_the_order(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    x, y = _data()
    frame = pd.DataFrame(x, columns=["income", "tenure", "age"])
    path = tmp_path / "named.skops"
    sio.dump(LogisticRegression().fit(frame, y), path)
    m = load_model(path)
    with pytest.raises(InputError, match="fitted on the features"):
        m.check_features(["tenure", "income", "age"])
    m.check_features(["income", "tenure", "age"])
    # numpy input to a model fitted with names warns in scikit-learn; not here
    assert m.predict(x).shape == (len(x),)


def test_a_non_skops_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.skops"
    path.write_bytes(b"not a zip file")
    with pytest.raises(InputError, match="not a readable skops file"):
        load_model(path)


# --- pickle ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["evil.pkl", "evil.pickle", "evil.joblib", "evil.bin", "x.onnx"])
def test_a_pickle_that_would_create_a_file_is_refused(tmp_path: Path, name: str) -> None:
    marker = tmp_path / "pwned.txt"
    path = tmp_path / name
    path.write_bytes(pickle.dumps(_MakesAFile(marker), protocol=4))
    assert is_pickle_file(path)
    with pytest.raises(InputError) as info:
        load_model(path)
    assert isinstance(info.value, Error) and info.value.exit_code == 2
    text = info.value.diagnostics()
    assert "runs whatever code" in text and "--trust-model-code" in text
    assert not marker.exists()


def test_protocol_0_pickle_is_refused_by_its_name(tmp_path: Path) -> None:
    marker = tmp_path / "pwned.txt"
    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps(_MakesAFile(marker), protocol=0))
    assert not is_pickle_file(path)  # no header: the name decides
    with pytest.raises(InputError, match="pickle"):
        load_model(path)
    assert not marker.exists()


def test_trusted_pickle_and_joblib_load_and_say_so(tmp_path: Path) -> None:
    x, y = _data()
    clf = LogisticRegression().fit(x, y)
    pkl = tmp_path / "model.pkl"
    pkl.write_bytes(pickle.dumps(clf))
    m = load_model(pkl, trust_model_code=True)
    assert m.kind == "pickle" and m.trusted_code is True
    assert m.to_record()["trusted_code"] is True
    assert m.fingerprint is not None
    assert m.fingerprint["sha256"] == hashlib.sha256(pkl.read_bytes()).hexdigest()
    assert m.predict(x).tolist() == clf.predict(x).tolist()
    jl = tmp_path / "model.joblib"
    joblib.dump(clf, jl, compress=3)
    with pytest.raises(InputError, match="pickle"):
        load_model(jl)
    j = load_model(jl, trust_model_code=True)
    assert j.trusted_code is True and j.predict(x).tolist() == clf.predict(x).tolist()
    tree = DecisionTreeClassifier(random_state=0).fit(x, y)  # arrays joblib writes apart
    jp = tmp_path / "tree.pkl"
    joblib.dump(tree, jp)
    assert load_model(jp, trust_model_code=True).predict(x).tolist() == tree.predict(x).tolist()


# --- other files, objects, missing extras -------------------------------------------------


def test_missing_and_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_model(tmp_path / "nope.onnx")
    with pytest.raises(InputError, match="is a directory"):
        load_model(tmp_path)
    other = tmp_path / "model.h5"
    other.write_bytes(b"\x89HDF\r\n")
    with pytest.raises(InputError, match="cannot tell the format"):
        load_model(other)


@pytest.mark.parametrize(("module", "suffix"), [("onnxruntime", ".onnx"), ("skops.io", ".skops")])
def test_missing_extra_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, suffix: str
) -> None:
    path = tmp_path / f"model{suffix}"
    path.write_bytes(b"whatever")
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    with pytest.raises(InputError) as info:
        load_model(path)
    assert INSTALL_HINT in info.value.diagnostics()
    assert "pip install 'respai[models]'" in info.value.diagnostics()
    assert info.value.exit_code == 2


def test_wrap_model_accepts_objects_with_predict() -> None:
    class Above:
        def predict(self, x: np.ndarray) -> np.ndarray:
            return x[:, 0] > 0.5

    m = wrap_model(Above())
    assert isinstance(m, LoadedModel)
    assert m.kind == "python" and m.fingerprint is None and m.trusted_code is False
    assert m.predict(np.array([[0.1], [0.9]])).tolist() == [0, 1]
    assert m.predict_proba(np.array([[0.1]])) is None
    assert wrap_model(m) is m
    with pytest.raises(InputError, match="no predict method"):
        wrap_model(object())


def test_model_failures_and_bad_labels_are_input_errors() -> None:
    class Broken:
        def predict(self, x: np.ndarray) -> np.ndarray:
            raise ValueError("boom")

    class Many:
        def predict(self, x: np.ndarray) -> np.ndarray:
            return np.array([0, 1, 2])[: len(x)]

    class Short:
        def predict(self, x: np.ndarray) -> np.ndarray:
            return np.zeros(1)

    x = np.zeros((3, 1))
    with pytest.raises(InputError, match="ValueError: boom"):
        wrap_model(Broken()).predict(x)
    with pytest.raises(InputError, match="label 2"):
        wrap_model(Many()).predict(x)
    assert wrap_model(Many(), positive_label=2).predict(x).tolist() == [0, 0, 1]
    with pytest.raises(InputError, match="1 labels for 3 cases"):
        wrap_model(Short()).predict(x)
