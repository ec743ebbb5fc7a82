"""Cross-validated CCM/ECCM: counterfactuals of each test fold, counts pooled over folds."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from recoursesim._validate import check_float, check_int
from recoursesim.auditors.ccm.generate import generate_counterfactuals
from recoursesim.auditors.ccm.report import ccm_report
from recoursesim.auditors.ccm.tabular import EncodedTable, logistic_model
from recoursesim.errors import ConfigError, DataError


def scored_counterfactuals(
    model: Any, table: EncodedTable, train_index: np.ndarray, test_index: np.ndarray, **generator: Any
) -> pd.DataFrame:
    """Fit ``model`` on the train rows, counterfactualise the test rows, score both.

    Args:
        model: An unfitted classifier with ``predict_proba`` reading ``table.frame`` columns.
        table: The encoded table.
        train_index: Row positions of the reference/training rows.
        test_index: Row positions of the samples.
        **generator: Options of :func:`generate_counterfactuals` (``tau``, ``max_depth``, ...).

    Returns:
        The generator's rows with ``score``, ``score_cf`` and ``y_true`` added.
    """
    columns = [table.sensitive, *table.features]
    train = table.frame.iloc[train_index]
    test = table.frame.iloc[test_index]
    fitted = clone(model).fit(train[columns], train[table.label])
    cf = generate_counterfactuals(train, test, table.sensitive, table.label, **table.generator_kwargs(), **generator)
    positions = test.index.get_indexer(cf["sample_id"])
    cf["score"] = fitted.predict_proba(test[columns])[:, 1][positions]
    cf["score_cf"] = fitted.predict_proba(cf[columns])[:, 1]
    cf["y_true"] = test[table.label].to_numpy()[positions]
    return cf


def cross_validated_ccm(
    table: EncodedTable,
    model_factory: Callable[[EncodedTable], Any] = logistic_model,
    *,
    n_splits: int = 5,
    seed: int = 0,
    threshold: float = 0.5,
    zero_division: float = math.nan,
    **generator: Any,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pinto et al.'s protocol: k stratified folds, each test fold counterfactualised once.

    The ECCM counts are summed over folds (equivalently, computed on the pooled rows) before the
    metrics are derived (paper §2.5).

    Args:
        table: The encoded table.
        model_factory: Builds an unfitted model for the table (default logistic regression).
        n_splits: Number of folds.
        seed: Seed of the fold shuffle.
        threshold: Decision threshold.
        zero_division: Value of undefined rates.
        **generator: Options of :func:`generate_counterfactuals`.

    Returns:
        ``(report, rows)``: the pooled :func:`ccm_report` and the scored counterfactual rows
        (with a ``fold`` column).
    """
    n_splits = check_int("n_splits", n_splits, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    if not 0 < check_float("threshold", threshold) < 1:
        raise ConfigError("threshold", f"must lie strictly between 0 and 1, got {threshold}", "use e.g. 0.5")
    labels = table.frame[table.label].to_numpy()
    groups = table.frame[table.sensitive]
    if groups.nunique() < 2:
        raise DataError(table.sensitive, "has a single value", "audit an attribute with two or more groups")
    smallest = int(np.bincount(labels.astype(np.int64), minlength=2).min())
    if smallest < n_splits:
        raise DataError(
            "n_splits",
            f"{n_splits} folds, but the rarer class of {table.label} has {smallest} rows",
            f"use at most {smallest} folds",
        )
    model = model_factory(table)
    folds = StratifiedKFold(n_splits=int(n_splits), shuffle=True, random_state=int(seed))
    pieces = []
    for k, (train_index, test_index) in enumerate(folds.split(np.zeros(len(labels)), labels)):
        rows = scored_counterfactuals(model, table, train_index, test_index, **generator)
        rows["fold"] = k
        pieces.append(rows)
    rows = pd.concat(pieces, ignore_index=True)
    report = ccm_report(
        rows["score"],
        rows["score_cf"],
        rows["orig_group"],
        rows["target_group"],
        rows["y_true"],
        threshold=threshold,
        valid=rows["valid"],
        zero_division=zero_division,
    )
    return report, rows
