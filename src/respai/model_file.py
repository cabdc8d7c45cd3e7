"""Load the model a perturbation test re-runs: ONNX, skops, or (only when trusted) pickle.

Loading a model file must not run code the file brings with it. Two formats are safe by
construction and load by default:

* ONNX (``.onnx``), run with ONNX Runtime on the CPU: the file is a graph of standard
  operators, and no Python code is read from it;
* skops (``.skops``): before anything is loaded, :func:`skops.io.get_untrusted_types`
  lists the types the file would instantiate that skops does not trust itself, and every
  one of them must be on a trusted list (:data:`DEFAULT_TRUSTED_TYPES` plus the types the
  caller trusts: the CLI's ``--trust-type``, the API's ``trusted_types``), or the file is
  refused.

Pickle and joblib files (``.pkl``, ``.pickle``, ``.joblib``, and any file that starts
with a pickle protocol 2-5 header) can run arbitrary code while they load. They are
refused unless the caller passes ``trust_model_code=True`` (the CLI's
``--trust-model-code``), and then :attr:`LoadedModel.trusted_code` is ``True`` so the
record can say so.

Trust comes only from the caller (the person running the command), never from a spec,
policy or pack: nothing in an input file reaches these arguments.

Whatever the format, a model is used through one interface, :class:`LoadedModel`, whose
:meth:`~LoadedModel.predict` returns decisions as 0/1. Nothing here imports a dataframe
engine: the model sees numpy arrays only.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from respai.errors import Error, InputError
from respai.io import NotARegularFile, open_regular, read_regular
from respai.record.fingerprint import file_fingerprint

__all__ = [
    "DEFAULT_TRUSTED_TYPES",
    "INSTALL_HINT",
    "MODEL_KINDS",
    "PICKLE_SUFFIXES",
    "LoadedModel",
    "is_pickle_file",
    "load_model",
    "wrap_model",
]

#: The values :attr:`LoadedModel.kind` takes.
MODEL_KINDS = ("onnx", "skops", "pickle", "python")
#: File names that are refused as pickles, whatever their first bytes.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib")
#: The command that installs what ONNX and skops models need.
INSTALL_HINT = "pip install 'respai[models]'"

#: Types that ``skops.io.get_untrusted_types`` reports for standard scikit-learn
#: classifiers (trees and forests, gradient boosting, nearest neighbours, MLPs,
#: calibrated classifiers, pipelines, voting and stacking, grid search). They are
#: scikit-learn's and numpy's own classes, rebuilt from their state; none of them is a
#: general callable. The caller's ``trusted_types`` (``--trust-type``) add to this list.
DEFAULT_TRUSTED_TYPES: tuple[str, ...] = (
    "numpy.dtype",
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._SigmoidCalibration",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "sklearn.metrics._dist_metrics.ChebyshevDistance64",
    "sklearn.metrics._dist_metrics.EuclideanDistance64",
    "sklearn.metrics._dist_metrics.ManhattanDistance64",
    "sklearn.metrics._dist_metrics.MinkowskiDistance64",
    "sklearn.metrics._scorer._PassthroughScorer",
    "sklearn.model_selection._split.KFold",
    "sklearn.model_selection._split.StratifiedKFold",
    "sklearn.neighbors._ball_tree.BallTree",
    "sklearn.neighbors._kd_tree.KDTree",
    "sklearn.neural_network._stochastic_optimizers.AdamOptimizer",
    "sklearn.neural_network._stochastic_optimizers.SGDOptimizer",
    "sklearn.tree._tree.Tree",
    "sklearn.utils._bunch.Bunch",
)

Array = npt.NDArray[Any]
_LABEL_OUTPUTS = ("label", "output_label")
_TYPE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_PROBA_OUTPUTS = ("probabilities", "output_probability")
_ONNX_DTYPES: dict[str, Any] = {
    "tensor(float)": np.float32,
    "tensor(double)": np.float64,
    "tensor(float16)": np.float16,
    "tensor(int64)": np.int64,
    "tensor(int32)": np.int32,
    "tensor(bool)": np.bool_,
    "tensor(string)": np.object_,
}


class LoadedModel:
    """A model that turns a matrix of feature values into 0/1 decisions.

    Attributes
    ----------
    kind
        ``"onnx"``, ``"skops"``, ``"pickle"`` or ``"python"`` (an object passed in).
    fingerprint
        :func:`respai.record.file_fingerprint` of the file (name, media type, size,
        SHA-256), or ``None`` for an object passed in.
    trusted_code
        ``True`` when loading ran code from the file (a pickle loaded with
        ``trust_model_code=True``); the record must state it.
    trusted_types
        Every type skops reported as untrusted that was trusted to load this file (by
        the default list or the caller); empty for other kinds.
    caller_trusted_types
        Those of :attr:`trusted_types` that were trusted only because the caller named
        them (``--trust-type``); the record and its caveats state them.
    runtime
        Name and version of what runs the model (``{"onnxruntime": "1.17.0"}``).
    description
        How messages name the model: the file path, or ``"the model object"``.
    n_features
        How many feature columns the model takes, when the model says.
    feature_names
        The feature names the model was fitted with, when it says (scikit-learn's
        ``feature_names_in_``, or the input names of a multi-input ONNX graph).
    positive_label
        The model label read as decision 1, or ``None`` for labels that are already 0/1.
    """

    def __init__(
        self,
        *,
        kind: str,
        description: str,
        predict_labels: Callable[[Array], Array],
        predict_scores: Callable[[Array], Array] | None = None,
        fingerprint: Mapping[str, Any] | None = None,
        trusted_code: bool = False,
        trusted_types: Sequence[str] = (),
        caller_trusted_types: Sequence[str] = (),
        runtime: Mapping[str, str] | None = None,
        n_features: int | None = None,
        feature_names: Sequence[str] | None = None,
        positive_label: Any = None,
        input_dtypes: Mapping[str, Any] | None = None,
        by_name: bool = False,
    ) -> None:
        if kind not in MODEL_KINDS:
            raise ValueError(f"kind must be one of {MODEL_KINDS}, got {kind!r}")
        self.kind = kind
        self.description = description
        self.fingerprint = dict(fingerprint) if fingerprint is not None else None
        self.trusted_code = trusted_code
        self.trusted_types = tuple(trusted_types)
        self.caller_trusted_types = tuple(caller_trusted_types)
        self.runtime = dict(runtime or {})
        self.n_features = n_features
        self.feature_names = tuple(feature_names) if feature_names is not None else None
        self.positive_label = positive_label
        self._labels = predict_labels
        self._scores = predict_scores
        self._input_dtypes = dict(input_dtypes or {})
        self._by_name = by_name

    def __repr__(self) -> str:
        return f"LoadedModel(kind={self.kind!r}, description={self.description!r})"

    @property
    def has_proba(self) -> bool:
        """Whether :meth:`predict_proba` gives probabilities."""
        return self._scores is not None

    def predict(self, x: Array) -> npt.NDArray[np.int8]:
        """Decisions (0/1, ``int8``) for the rows of the 2-D feature matrix ``x``.

        Raises
        ------
        InputError
            When the model fails on ``x``, or returns labels that are not decisions.
        """
        matrix = np.asarray(x)
        if matrix.ndim != 2:
            raise InputError(
                f"{self.description}: the model takes a 2-D matrix of feature values, got "
                f"an array of {matrix.ndim} dimension(s)."
            )
        labels = self._call(self._labels, matrix)
        return _decisions(labels, matrix.shape[0], self.positive_label, self.description)

    def predict_proba(self, x: Array) -> npt.NDArray[np.float64] | None:
        """Probability of decision 1 per row, or ``None`` when the model gives none."""
        if self._scores is None:
            return None
        matrix = np.asarray(x)
        scores = np.asarray(self._call(self._scores, matrix), dtype=np.float64).reshape(-1)
        if scores.shape[0] != matrix.shape[0]:
            raise InputError(
                f"{self.description}: the model returned {scores.shape[0]} probabilities "
                f"for {matrix.shape[0]} cases."
            )
        return scores

    def predict_columns(
        self, columns: Mapping[str, Array], features: Sequence[str]
    ) -> npt.NDArray[np.int8]:
        """Decisions for a batch given as one array per column.

        The matrix has the ``features`` columns in that order. A multi-input ONNX graph
        gets each feature as its own input, by name.
        """
        return self.predict(feature_matrix(columns, self._order(features)))

    def check_features(self, features: Sequence[str], numeric: Sequence[str] = ()) -> None:
        """Refuse a feature list the model cannot take.

        The count must match the model's, the names must match a scikit-learn model's
        ``feature_names_in_`` (same order) or a multi-input ONNX graph's inputs, and a
        ``numeric`` (perturbed) column must not feed an integer, boolean or text input.

        Raises
        ------
        InputError
            Naming the declared and the expected features.
        """
        declared = list(features)
        if self.feature_names is not None:
            expected = list(self.feature_names)
            same = set(declared) == set(expected) if self._by_name else declared == expected
            if not same or len(declared) != len(expected):
                raise InputError(
                    f"{self.description}: the model was fitted on the features "
                    f"{_names(expected)}, but the spec declares {_names(declared)}.",
                    "List evaluation.features in the order the model was fitted with."
                    if not self._by_name
                    else "List the model's inputs in evaluation.features.",
                )
        elif self.n_features is not None and len(declared) != self.n_features:
            raise InputError(
                f"{self.description}: the model takes {self.n_features} feature column(s), "
                f"but the spec declares {len(declared)} ({_names(declared)}).",
                "List in evaluation.features exactly the columns the model takes, in order.",
            )
        for column in numeric:
            dtype = self._input_dtypes.get(column if self._by_name else "")
            if dtype is not None and np.dtype(dtype).kind not in "f":
                raise InputError(
                    f"{self.description}: the model input for '{column}' takes "
                    f"{np.dtype(dtype).name} values, so noise cannot be added to it.",
                    "Leave the column out of evaluation.numeric: it is not perturbed then.",
                )

    def to_record(self) -> dict[str, Any]:
        """JSON-ready description of the model for the evidence record."""
        return {
            "kind": self.kind,
            "fingerprint": self.fingerprint,
            "trusted_code": self.trusted_code,
            "trusted_types": list(self.trusted_types),
            "caller_trusted_types": list(self.caller_trusted_types),
            "runtime": dict(self.runtime),
            "positive_label": _plain(self.positive_label),
        }

    def _order(self, features: Sequence[str]) -> list[str]:
        if self._by_name and self.feature_names is not None:
            return list(self.feature_names)
        return list(features)

    def _call(self, fn: Callable[[Array], Any], matrix: Array) -> Any:
        try:
            out = fn(matrix)
        except Error:
            raise
        except Exception as exc:  # the model is third-party code: report, don't crash
            raise InputError(
                f"{self.description}: the model failed on a batch of {matrix.shape[0]} "
                f"case(s): {type(exc).__name__}: {_first_line(exc)}",
                "Check that evaluation.features lists the columns the model takes, in "
                "order, and that they hold the values it was trained on.",
            ) from exc
        return out


def feature_matrix(columns: Mapping[str, Array], features: Sequence[str]) -> Array:
    """The 2-D matrix of ``features`` (in order) from one array per column.

    All-number columns give a ``float64`` matrix; any text column makes it ``object``.

    Examples
    --------
    >>> feature_matrix({"a": np.array([1, 2]), "b": np.array([0.5, 1.5])}, ["b", "a"])
    array([[0.5, 1. ],
           [1.5, 2. ]])
    """
    arrays = [np.asarray(columns[f]) for f in features]
    if all(a.dtype.kind in "iufb" for a in arrays):
        return np.column_stack([a.astype(np.float64, copy=False) for a in arrays])
    return np.column_stack([a.astype(object) for a in arrays])


def is_pickle_file(path: Path) -> bool:
    """Whether ``path`` starts with a pickle protocol 2-5 header (``0x80 0x02..0x05``)."""
    try:
        head = read_regular(path, 2)  # a FIFO or a device is no pickle, and not waited on
    except OSError:
        return False
    return len(head) == 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def load_model(
    path: Path | str,
    *,
    trust_model_code: bool = False,
    trusted_types: Sequence[str] = (),
    positive_label: Any = None,
) -> LoadedModel:
    """Load a model file for the perturbation test.

    Parameters
    ----------
    path
        An ONNX (``.onnx``) or skops (``.skops``) file; a pickle or joblib file only with
        ``trust_model_code``.
    trust_model_code
        Load pickle and joblib files, which runs whatever code they name. The loaded
        model has ``trusted_code=True``, and the record states it.
    trusted_types
        Types (``module.name``) a skops file may hold beyond
        :data:`DEFAULT_TRUSTED_TYPES`, as the caller trusts them (the CLI's
        ``--trust-type``). Never take these from a spec, policy or pack: a type such as
        ``builtins.eval`` lets the file run code.
    positive_label
        The label read as decision 1 when the model's labels are not 0/1 (e.g. ``"yes"``).

    Raises
    ------
    InputError
        When the file is missing, of an unknown or refused format, holds untrusted
        types, cannot be loaded, or the package needed to load it is not installed; or
        when a trusted type is not a dotted ``module.name``.
    """
    extra = _type_names(trusted_types)
    p = Path(path)
    if not p.exists():
        raise InputError(f"the model file {p} does not exist.", "Check evaluation.model.")
    if p.is_dir():
        raise InputError(
            f"the model {p} is a directory.",
            "Point evaluation.model at one .onnx or .skops file.",
        )
    try:
        os.close(open_regular(p))
    except NotARegularFile:
        raise InputError(
            f"the model {p} is not a regular file (a pipe, a device or a socket).",
            "Point evaluation.model at one .onnx or .skops file.",
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read the model file {p}: {exc.strerror or exc}.") from None
    suffix = p.suffix.lower()
    if suffix in PICKLE_SUFFIXES or is_pickle_file(p):
        return _load_pickle(p, trust_model_code, positive_label)
    if suffix == ".onnx":
        return _load_onnx(p, positive_label)
    if suffix == ".skops":
        return _load_skops(p, extra, positive_label)
    raise InputError(
        f"cannot tell the format of the model file {p} from its name.",
        "Export the model to ONNX (.onnx) or skops (.skops).",
    )


def wrap_model(obj: Any, *, positive_label: Any = None) -> LoadedModel:
    """Use any object with a ``predict`` method (and optionally ``predict_proba``).

    ``predict`` gets a 2-D numpy matrix of the feature columns in the declared order and
    returns one label per row: 0/1 or booleans, or labels of which ``positive_label`` is
    decision 1.

    Examples
    --------
    >>> class Above:
    ...     def predict(self, x):
    ...         return (x[:, 0] > 0.5).astype(int)
    >>> m = wrap_model(Above())
    >>> m.kind, m.fingerprint, m.predict(np.array([[0.2], [0.9]])).tolist()
    ('python', None, [0, 1])
    """
    if isinstance(obj, LoadedModel):
        return obj
    return _wrap(obj, kind="python", description="the model object", positive_label=positive_label)


# --- the three file formats -------------------------------------------------------------


def _require(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise InputError(
            f"loading {what} needs the '{top}' package, which is not installed.",
            f"Install the model extras: {INSTALL_HINT}",
        ) from None


def _version(module: str) -> str:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # pragma: no cover - metadata missing in odd installs
        return "unknown"


def _load_pickle(path: Path, trust: bool, positive_label: Any) -> LoadedModel:
    if not trust:
        raise InputError(
            f"{path} is a pickle/joblib file. Loading a pickle runs whatever code the "
            "file names, with your permissions, so respai does not load one by default.",
            "Export the model to ONNX (skl2onnx) or skops instead; or, only for a file "
            "you made yourself or otherwise trust, pass --trust-model-code (the record "
            "then states that model code was trusted).",
        )
    fingerprint = file_fingerprint(path)  # the bytes that were trusted, hashed first
    runtime: dict[str, str] = {}
    try:
        # joblib reads plain pickles too, and the numpy arrays joblib.dump writes after
        # the pickle stream (often in files named .pkl), which pickle.load would miss
        if importlib.util.find_spec("joblib") is not None:
            joblib = importlib.import_module("joblib")
            obj = joblib.load(path)  # explicitly trusted by the caller
            runtime["joblib"] = _version("joblib")
        elif path.suffix.lower() == ".joblib":
            raise InputError(
                f"loading {path} needs the 'joblib' package, which is not installed.",
                "pip install joblib",
            )
        else:
            import pickle

            with path.open("rb") as fh:
                obj = pickle.load(fh)  # explicitly trusted by the caller
            runtime["python-pickle"] = "stdlib"
    except Error:
        raise
    except Exception as exc:
        raise InputError(
            f"{path}: the trusted pickle could not be loaded: {type(exc).__name__}: "
            f"{_first_line(exc)}",
            "Load it in the Python it was made with, and export it to ONNX or skops.",
        ) from exc
    return _wrap(
        obj,
        kind="pickle",
        description=str(path),
        fingerprint=fingerprint,
        trusted_code=True,
        runtime=runtime,
        positive_label=positive_label,
    )


def _type_names(names: Sequence[str]) -> tuple[str, ...]:
    """The caller's trusted types, each a dotted ``module.name``, in order, once each."""
    if isinstance(names, str):  # one name, not its characters
        names = (names,)
    out: list[str] = []
    for raw in names:
        name: Any = raw  # a Python caller may pass anything
        if not isinstance(name, str) or not _TYPE_NAME.fullmatch(name):
            raise InputError(
                f"the trusted type {name!r} is not a dotted type name.",
                "Name each type as skops reports it, module then name, e.g. "
                "--trust-type sklearn.preprocessing._function_transformer.FunctionTransformer.",
            )
        if name not in out:
            out.append(name)
    return tuple(out)


def _load_skops(path: Path, extra: Sequence[str], positive_label: Any) -> LoadedModel:
    sio = _require("skops.io", "a .skops model")
    try:
        untrusted = list(sio.get_untrusted_types(file=path))
    except Exception as exc:
        raise InputError(
            f"{path} is not a readable skops file: {type(exc).__name__}: {_first_line(exc)}",
            "Save the model with skops.io.dump.",
        ) from exc
    untrusted = [str(t) for t in untrusted]
    allowed = set(DEFAULT_TRUSTED_TYPES) | set(extra)
    refused = [t for t in untrusted if t not in allowed]
    if refused:
        listing = ", ".join(refused)
        flags = " ".join(f"--trust-type {t}" for t in refused)
        raise InputError(
            f"{path} holds type(s) that are not on the trusted list: {listing}. Loading "
            "them could run code they define.",
            f"Only if you trust them yourself, pass {flags} to respai evaluate (or "
            "trusted_types=[...] to evaluate() in Python); the record then lists them.",
        )
    from_caller = [t for t in untrusted if t not in DEFAULT_TRUSTED_TYPES]
    try:
        obj = sio.load(path, trusted=untrusted)
    except Exception as exc:
        raise InputError(
            f"{path}: skops could not load the model: {type(exc).__name__}: {_first_line(exc)}",
            "Save it again with skops.io.dump in a matching scikit-learn version.",
        ) from exc
    return _wrap(
        obj,
        kind="skops",
        description=str(path),
        fingerprint=file_fingerprint(path),
        trusted_types=untrusted,
        caller_trusted_types=from_caller,
        runtime={"skops": _version("skops"), "scikit-learn": _version("scikit-learn")},
        positive_label=positive_label,
    )


def _load_onnx(path: Path, positive_label: Any) -> LoadedModel:
    ort = _require("onnxruntime", "an .onnx model")
    options = ort.SessionOptions()
    options.log_severity_level = 3  # errors only: warnings would go to the terminal
    try:
        session = ort.InferenceSession(
            str(path), sess_options=options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:
        raise InputError(
            f"{path}: ONNX Runtime cannot load the model: {_first_line(exc)}",
            "Check that the file is an ONNX model (e.g. exported with skl2onnx).",
        ) from exc
    inputs = session.get_inputs()
    outputs = session.get_outputs()
    label = _pick_output(outputs, _LABEL_OUTPUTS, _is_label_output)
    if label is None:
        raise InputError(
            f"{path}: the ONNX model has no output of decisions (an integer, boolean or "
            f"text output, e.g. 'label'); its outputs are "
            f"{_names([o.name for o in outputs])}.",
            "Export the classifier with its label output (skl2onnx does by default).",
        )
    proba = _pick_output(outputs, _PROBA_OUTPUTS, _is_proba_output)
    dtypes: dict[str, Any] = {}
    for i in inputs:
        if i.type not in _ONNX_DTYPES:
            raise InputError(
                f"{path}: the ONNX input '{i.name}' has type {i.type}, which respai cannot "
                "feed from table columns.",
                "Export the model with tensor inputs of numbers or text.",
            )
        dtypes[i.name] = _ONNX_DTYPES[i.type]
    by_name = len(inputs) > 1
    n_features: int | None = None
    if not by_name:
        shape = inputs[0].shape
        if len(shape) == 2 and isinstance(shape[1], int):
            n_features = shape[1]
        dtypes = {"": dtypes[inputs[0].name]}
    names = [i.name for i in inputs]

    def feed(x: Array) -> dict[str, Array]:
        if not by_name:
            return {names[0]: _cast(x, dtypes[""], names[0], path)}
        if x.shape[1] != len(names):
            raise InputError(
                f"{path}: the ONNX model takes {len(names)} inputs, got {x.shape[1]} columns."
            )
        return {n: _cast(x[:, j : j + 1], dtypes[n], n, path) for j, n in enumerate(names)}

    def labels(x: Array) -> Array:
        return np.asarray(session.run([label.name], feed(x))[0]).reshape(-1)

    def scores(x: Array) -> Array:
        assert proba is not None
        out = session.run([proba.name], feed(x))[0]
        return _positive_column(out, positive_label)

    return LoadedModel(
        kind="onnx",
        description=str(path),
        predict_labels=labels,
        predict_scores=scores if proba is not None else None,
        fingerprint=file_fingerprint(path),
        runtime={"onnxruntime": str(ort.__version__), "provider": "CPUExecutionProvider"},
        n_features=n_features,
        feature_names=names if by_name else None,
        positive_label=positive_label,
        input_dtypes={"": dtypes[""]} if not by_name else dtypes,
        by_name=by_name,
    )


def _pick_output(outputs: Sequence[Any], names: Sequence[str], test: Callable[[Any], bool]) -> Any:
    for wanted in names:
        for o in outputs:
            if o.name == wanted:
                return o
    return next((o for o in outputs if test(o)), None)


def _is_label_output(o: Any) -> bool:
    return str(o.type) in {
        "tensor(int64)",
        "tensor(int32)",
        "tensor(bool)",
        "tensor(string)",
    }


def _is_proba_output(o: Any) -> bool:
    return str(o.type).startswith("seq(map(") or (
        str(o.type) in {"tensor(float)", "tensor(double)"} and len(o.shape or ()) == 2
    )


def _cast(x: Array, dtype: Any, name: str, path: Path) -> Array:
    if dtype is np.object_:
        return np.asarray(x, dtype=object).astype(str).astype(object)
    try:
        return np.asarray(x).astype(dtype)
    except (TypeError, ValueError):
        raise InputError(
            f"{path}: the ONNX input '{name}' takes {np.dtype(dtype).name} values, but a "
            "feature column holds text.",
            "Encode the column as numbers before export, or export a graph with a text input.",
        ) from None


def _positive_column(out: Any, positive_label: Any) -> Array:
    """The probability of the positive class from an ONNX probabilities output."""
    positive = 1 if positive_label is None else positive_label
    if isinstance(out, list):  # skl2onnx's ZipMap: one {class: probability} per row
        return np.array([float(row[positive]) for row in out], dtype=np.float64)
    arr = np.asarray(out, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 2:
        return arr[:, 1]
    return arr.reshape(-1)


# --- objects with predict ---------------------------------------------------------------


def _wrap(
    obj: Any,
    *,
    kind: str,
    description: str,
    positive_label: Any,
    fingerprint: Mapping[str, Any] | None = None,
    trusted_code: bool = False,
    trusted_types: Sequence[str] = (),
    caller_trusted_types: Sequence[str] = (),
    runtime: Mapping[str, str] | None = None,
) -> LoadedModel:
    predict = getattr(obj, "predict", None)
    if not callable(predict):
        raise InputError(
            f"{description}: a {type(obj).__name__} has no predict method, so it cannot be "
            "re-run on noisy inputs.",
            "Pass a classifier with predict(X) -> labels (scikit-learn style).",
        )
    proba = getattr(obj, "predict_proba", None)
    names = getattr(obj, "feature_names_in_", None)
    n_in = getattr(obj, "n_features_in_", None)
    classes = getattr(obj, "classes_", None)
    fitted_names = [str(n) for n in names] if names is not None else None

    def labels(x: Array) -> Array:
        with warnings.catch_warnings():
            # the names were checked against evaluation.features; numpy has none to give
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            return np.asarray(predict(x))

    scores: Callable[[Array], Array] | None = None
    if callable(proba):
        index = _class_index(classes, positive_label)

        def scores(x: Array) -> Array:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="X does not have valid feature names")
                out = np.asarray(proba(x), dtype=np.float64)
            return out[:, index] if out.ndim == 2 else out

    return LoadedModel(
        kind=kind,
        description=description,
        predict_labels=labels,
        predict_scores=scores,
        fingerprint=fingerprint,
        trusted_code=trusted_code,
        trusted_types=trusted_types,
        caller_trusted_types=caller_trusted_types,
        runtime=runtime,
        n_features=int(n_in) if isinstance(n_in, int | np.integer) else None,
        feature_names=fitted_names,
        positive_label=positive_label,
    )


def _class_index(classes: Any, positive_label: Any) -> int:
    if classes is None:
        return 1
    listed = [_plain(c) for c in np.asarray(classes).tolist()]
    wanted = 1 if positive_label is None else _plain(positive_label)
    for i, c in enumerate(listed):
        if c == wanted or str(c) == str(wanted):
            return i
    return len(listed) - 1


def _decisions(labels: Any, n: int, positive_label: Any, description: str) -> npt.NDArray[np.int8]:
    arr = np.asarray(labels).reshape(-1)
    if arr.shape[0] != n:
        raise InputError(f"{description}: the model returned {arr.shape[0]} labels for {n} cases.")
    if positive_label is not None:
        if arr.dtype.kind in "OUS":
            hits: npt.NDArray[np.bool_] = arr.astype(str) == str(positive_label)
        else:
            hits = np.asarray(arr == positive_label, dtype=np.bool_)
        return hits.astype(np.int8)
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind in "iuf":
        bad = ~np.isin(arr, (0, 1))
        if not bad.any():
            return arr.astype(np.int8)
        example = arr[bad][0]
    else:
        text = arr.astype(str)
        ones = np.isin(text, ("1", "1.0", "True", "true"))
        zeros = np.isin(text, ("0", "0.0", "False", "false"))
        if (ones | zeros).all():
            return ones.astype(np.int8)
        example = arr[~(ones | zeros)][0]
    raise InputError(
        f"{description}: the model returned the label {_plain(example)!r}; decisions are "
        "read as 0/1.",
        "Name the label that means decision 1 (evaluation.positive_label).",
    )


def _plain(value: Any) -> Any:
    item = getattr(value, "item", None)
    return item() if callable(item) and not isinstance(value, str | bytes) else value


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(f"'{n}'" for n in list(names)[:12])
    return f"[{shown}{', …' if len(names) > 12 else ''}]"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__
