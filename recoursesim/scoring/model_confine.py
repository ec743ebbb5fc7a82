"""What a loaded model may do when it runs: no cache folder, no worker processes, no malformed compiled state.

The allow-list (:mod:`recoursesim.scoring.model_trust`) decides which classes a model file may
build; this module checks what those classes were built *with*, after loading and before
anything uses them, because allowed classes read some of their settings and state as
instructions:

- ``memory`` (``Pipeline``, ``FeatureAgglomeration``, ...) names a folder where joblib writes a
  cache on every fit, and unpickles what it finds there on the next: a model file, or a refit
  copy of it, with ``memory`` set is refused.
- ``n_jobs`` starts worker processes; a loaded model and every refit copy of it run
  single-process (``n_jobs`` is set to ``None``): recoursesim's parallelism comes from sweeps.
- SciPy sparse matrices and scikit-learn's tree structures are read by compiled code that trusts
  their indices; an index out of range reads or writes outside the arrays. Every sparse matrix
  gets SciPy's full format check and every tree its bounds check.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from recoursesim.errors import ConfigError, first_line

#: Parameters naming a folder where joblib caches fitted steps (and unpickles what it finds).
CACHE_PARAMS = frozenset({"memory"})

#: Parameters of allowed classes that hold a callable the estimator calls.
CALLABLE_PARAMS = frozenset({"func", "inverse_func", "callback", "score_func", "pooling_func"})

#: Parameters that start worker processes or threads; set to ``None`` on every loaded model.
PROCESS_PARAMS = frozenset({"n_jobs"})


def refuse_unsafe_params(params: Mapping[str, Any] | None, field: str = "estimator_params") -> None:
    """Refuse scenario parameters naming a cache folder or a callable (``memory``, ``func``, ...).

    A key may address a nested estimator (``model__memory``); its last part is what is checked.

    Raises:
        ConfigError: one line naming the key.
    """
    for key in params or {}:
        leaf = str(key).rpartition("__")[2]
        if leaf in CACHE_PARAMS:
            raise ConfigError(
                f"{field}.{key}",
                "names a cache folder, where scikit-learn writes outside --out and unpickles what it finds",
                f"remove {key} (recoursesim runs models without a cache)",
            )
        if leaf in CALLABLE_PARAMS:
            raise ConfigError(f"{field}.{key}", "names a callable, which a scenario cannot give", f"remove {key}")


def confine_model(model: Any, source: str, field: str) -> Any:
    """Check a loaded model (or a refit copy) and make it run single-process; return it.

    Walks every estimator the model holds, in its parameters and its fitted state: refuses one
    whose ``memory`` is set, sets every ``n_jobs`` to ``None``, and checks every sparse matrix
    and tree structure it finds.

    Args:
        model: The estimator.
        source: What the model is, for messages (the file's name, "the refit model").
        field: The scenario field to name in a refusal.

    Raises:
        ConfigError: one line naming the estimator or structure and the fix.
    """
    for owner, value in reachable(model):
        if hasattr(value, "get_params") and hasattr(value, "fit"):
            _confine_estimator(value, source, field)
            _check_feature_bounds(value, owner, source, field)
            if hasattr(value, "_n_support"):
                _check_libsvm(value, owner, source, field)
        elif _is_sparse(value):
            _check_sparse(value, owner, source, field)
        elif _is_tree(value):
            _check_tree(value, owner, source, field)
        elif type(value).__name__ == "TreePredictor":
            _check_predictor(value, owner, source, field)
    return model


def _confine_estimator(estimator: Any, source: str, field: str) -> None:
    name = type(estimator).__name__
    try:
        params = estimator.get_params(deep=False)
    except Exception:
        params = {}
    for key in CACHE_PARAMS & set(params):
        if params[key] is not None:
            raise ConfigError(
                field,
                f"{source}: {name} sets {key}={params[key]!r}, a cache folder that joblib writes to and unpickles from",
                f"save the model with {key}=None (model.set_params({key}=None), then skops.io.dump)",
            )
    for key in PROCESS_PARAMS & set(params):
        if params[key] is not None:
            setattr(estimator, key, None)


def reachable(root: Any) -> Iterator[tuple[str, Any]]:
    """Every object reachable from ``root`` (attributes, containers, parameters), once each, with its owner.

    Walks every container a skops file can build: mappings (keys and values), lists, tuples,
    sets, slices and NumPy arrays of dtype object (element by element; an array itself is not
    yielded). Structured arrays holding objects are walked too.
    """
    seen: dict[int, Any] = {}  # holds what it has seen, so no id is reused by a new object (a field's view)
    stack: list[tuple[str, Any]] = [(type(root).__name__, root)]
    while stack:
        owner, item = stack.pop()
        if id(item) in seen or isinstance(item, str | bytes | bytearray | int | float | complex | np.generic | type):
            continue
        seen[id(item)] = item
        if not isinstance(item, np.ndarray):  # an array is walked, not yielded
            yield owner, item
        stack.extend(_contents(owner, item))


def _contents(owner: str, item: Any) -> list[tuple[str, Any]]:
    """What one object holds, each with its owner's name (see :func:`reachable`)."""
    if isinstance(item, np.ndarray):  # an object array holds Python objects (estimators, too)
        data = np.ma.getdata(item)
        if data.dtype.names:
            return [(owner, data[name]) for name in data.dtype.names]
        return [(owner, v) for v in np.ravel(data)] if data.dtype.hasobject else []
    if isinstance(item, Mapping):
        return [(owner, v) for v in (*item.keys(), *item.values())]
    if isinstance(item, list | tuple | set | frozenset):
        return [(owner, v) for v in item]
    if isinstance(item, slice):
        return [(owner, v) for v in (item.start, item.stop, item.step)]
    if _is_sparse(item) or not hasattr(item, "__dict__"):
        return []
    name = type(item).__name__
    found = [(name, v) for v in vars(item).values()]
    if hasattr(item, "get_params"):
        with contextlib.suppress(Exception):
            found += [(name, v) for v in item.get_params(deep=False).values()]
    return found


def unknown_category(model: Any, frame: Any) -> tuple[str, list[Any]] | None:
    """The first column of ``frame`` holding a value that an encoder of ``model`` refuses as unknown.

    Encoders with ``handle_unknown = "error"`` (``OneHotEncoder``, ``OrdinalEncoder``) fitted on
    named columns raise on a value they did not see in fitting; this names the column and the values.
    """
    for _, value in reachable(model):
        names = getattr(value, "feature_names_in_", None)
        categories = getattr(value, "categories_", None)
        if getattr(value, "handle_unknown", None) != "error" or names is None or categories is None:
            continue
        for name, known in zip(names, categories, strict=False):
            if name in getattr(frame, "columns", ()):
                column = frame[name].astype(object)
                unseen = sorted({str(v) for v in column[~column.isin(list(known)) & column.notna()]})
                if unseen:
                    return str(name), unseen
    return None


def _is_sparse(value: Any) -> bool:
    import scipy.sparse

    return bool(scipy.sparse.issparse(value))


def _refuse(source: str, owner: str, what: str, field: str) -> ConfigError:
    fix = "save the model again with skops.io.dump from a fitted model"
    return ConfigError(field, f"{source}: {what} in {owner} is malformed", fix)


def _check_sparse(matrix: Any, owner: str, source: str, field: str) -> None:
    """SciPy's full check: index arrays in range and ordered as the format requires."""
    check = getattr(matrix, "check_format", None)
    try:
        if check is not None:
            check(full_check=True)
        elif hasattr(matrix, "_check"):
            matrix._check()
    except (ValueError, TypeError, IndexError, OverflowError, AttributeError) as error:
        raise _refuse(source, owner, f"a sparse {type(matrix).__name__} ({first_line(error)})", field) from None


def _check_links(left: np.ndarray, right: np.ndarray, leaf: np.ndarray, count: int) -> bool:
    """Children of inner nodes point forward and inside the tree (so prediction ends and stays in bounds)."""
    index = np.arange(count)
    inner = ~leaf
    forward = (left[inner] > index[inner]) & (right[inner] > index[inner])
    return bool(np.all(forward & (left[inner] < count) & (right[inner] < count)))


def _check_tree(tree: Any, owner: str, source: str, field: str) -> None:
    count = int(tree.node_count)
    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    feature = np.asarray(tree.feature)
    leaf = left == -1
    ok = count >= 1 and len(left) == len(right) == len(feature) == count and bool(np.all((right == -1) == leaf))
    ok = ok and _check_links(left, right, leaf, count)
    ok = ok and bool(np.all((feature[~leaf] >= 0) & (feature[~leaf] < int(tree.n_features))))
    ok = ok and np.asarray(tree.value).shape[0] == count
    if not ok:
        raise _refuse(source, owner, "a tree structure (child or feature index out of range)", field)


def _predictor_nodes(predictor: Any, owner: str, source: str, field: str) -> np.ndarray:
    """A gradient-boosting tree's node records, refused unless they have scikit-learn's record layout."""
    from sklearn.ensemble._hist_gradient_boosting.common import PREDICTOR_RECORD_DTYPE

    nodes = getattr(predictor, "nodes", None)
    if not isinstance(nodes, np.ndarray) or nodes.ndim != 1 or nodes.dtype != PREDICTOR_RECORD_DTYPE:
        raise _refuse(source, owner, "a gradient-boosting tree (its nodes are not scikit-learn's node records)", field)
    return nodes


def _check_predictor(predictor: Any, owner: str, source: str, field: str) -> None:
    nodes = _predictor_nodes(predictor, owner, source, field)
    count = len(nodes)
    leaf = nodes["is_leaf"].astype(bool)
    ok = count >= 1 and _check_links(nodes["left"].astype(np.int64), nodes["right"].astype(np.int64), leaf, count)
    bitsets = np.asarray(getattr(predictor, "raw_left_cat_bitsets", None))
    ok = ok and bitsets.ndim == 2 and bitsets.shape[1] == 8
    categorical = ~leaf & nodes["is_categorical"].astype(bool)
    ok = ok and bool(np.all(nodes["bitset_idx"][categorical] < len(bitsets)))
    ok = ok and bool(np.all(nodes["feature_idx"][~leaf] >= 0))
    if not ok:
        raise _refuse(source, owner, "a gradient-boosting tree (child or bitset index out of range)", field)


def _check_feature_bounds(estimator: Any, owner: str, source: str, field: str) -> None:
    """Trees read the feature their node names: it must be a column the estimator takes."""
    n = getattr(estimator, "n_features_in_", None)
    if not isinstance(n, int | np.integer):
        return
    tree = getattr(estimator, "tree_", None)
    if tree is not None and _is_tree(tree) and int(tree.n_features) > int(n):
        raise _refuse(source, owner, "a tree structure (more features than the estimator takes)", field)
    predictors = [
        p
        for p in np.ravel(np.asarray(getattr(estimator, "_predictors", []), dtype=object))
        if type(p).__name__ == "TreePredictor"
    ]
    if predictors:
        _check_bin_mapper(estimator, predictors, int(n), owner, source, field)


def _check_bin_mapper(estimator: Any, predictors: list[Any], n: int, owner: str, source: str, field: str) -> None:
    """Gradient-boosting trees agree with the estimator's binning: feature indices and categorical flags.

    Prediction maps a categorical node's feature through ``_bin_mapper.is_categorical_`` to a row
    of the known-category bitsets built from ``bin_thresholds_``; a node flagged categorical on a
    feature the mapper calls numerical (or a category code outside 0-255) reads outside them.
    """
    mapper = getattr(estimator, "_bin_mapper", None)
    flags = np.asarray(getattr(mapper, "is_categorical_", None))
    found = getattr(mapper, "bin_thresholds_", None)
    thresholds: list[Any] = list(found) if isinstance(found, list | tuple) else []
    ok = flags.shape == (n,) and flags.dtype.kind in "biu" and len(thresholds) == n
    try:
        for f in np.flatnonzero(flags) if ok else ():
            codes = np.asarray(thresholds[f], dtype=np.float64)
            ok = ok and codes.ndim == 1 and bool(np.all((codes >= 0) & (codes <= 255) & (codes == np.floor(codes))))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise _refuse(source, owner, "the binning of a gradient-boosting model (_bin_mapper)", field)
    for predictor in predictors:
        nodes = _predictor_nodes(predictor, owner, source, field)
        inner = nodes[~nodes["is_leaf"].astype(bool)]
        if np.any(inner["feature_idx"] >= n) or np.any(inner["feature_idx"] < 0):
            raise _refuse(source, owner, "a gradient-boosting tree (feature index out of range)", field)
        if np.any(inner["is_categorical"].astype(bool) != flags[inner["feature_idx"]].astype(bool)):
            raise _refuse(
                source, owner, "a gradient-boosting tree (categorical flags disagree with _bin_mapper)", field
            )


def _is_tree(value: Any) -> bool:
    return type(value).__name__ == "Tree" and type(value).__module__ == "sklearn.tree._tree"


def _check_libsvm(model: Any, owner: str, source: str, field: str) -> None:
    """The fitted state of libsvm (``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``, ``OneClassSVM``) is consistent.

    libsvm reads the support vectors and their coefficients through counts it is given
    (``_n_support``) and trusts them: each count is checked against the arrays it addresses.
    """
    try:
        ok = _libsvm_consistent(model)
    except (AttributeError, TypeError, ValueError, IndexError):
        ok = False
    if not ok:
        raise _refuse(source, owner, "libsvm's state (support vectors, _n_support, _dual_coef_, _intercept_)", field)


def _libsvm_consistent(model: Any) -> bool:
    vectors, sparse = model.support_vectors_, bool(model._sparse)
    support, counts = np.asarray(model.support_), np.asarray(model._n_support)
    coef, intercept = model._dual_coef_, np.asarray(model._intercept_)
    fitted_rows, fitted_columns = (int(v) for v in model.shape_fit_)
    n_sv = len(support)
    ok = sparse == _is_sparse(vectors) == _is_sparse(coef) and vectors.ndim == coef.ndim == 2
    ok = ok and support.ndim == 1 and counts.ndim == 1 and intercept.ndim == 1 and len(counts) >= 2
    ok = ok and counts.dtype.kind in "iu" and support.dtype.kind in "iu" and bool(np.all(counts >= 0))
    ok = ok and bool(np.all((support >= 0) & (support < fitted_rows)))
    if model.kernel != "precomputed":
        ok = ok and vectors.shape == (n_sv, fitted_columns)
    if model._impl in ("c_svc", "nu_svc"):  # one count per class, one intercept per pair of classes
        classes = len(counts)
        ok = ok and int(counts.sum()) == n_sv and coef.shape == (classes - 1, n_sv)
        ok = ok and len(intercept) == classes * (classes - 1) // 2
    else:
        ok = ok and coef.shape == (1, n_sv) and len(intercept) == 1 and bool(np.all(counts <= n_sv))
    for name in ("_probA", "_probB"):
        ok = ok and np.asarray(getattr(model, name)).shape in ((0,), intercept.shape)
    return bool(ok)
