"""CCM/ECCM audit tables: the Total and every direction A→B, with score metrics and parities."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from recoursesim.auditors.ccm.divergence import jscd, klcd, rmscd
from recoursesim.auditors.ccm.generate import ordered
from recoursesim.auditors.ccm.matrix import ccm, eccm
from recoursesim.auditors.ccm.metrics import CCM_METRICS, ECCM_METRICS, ccm_metrics, eccm_metrics, performance_metrics
from recoursesim.errors import ConfigError, DataError

#: Metrics compared by :func:`ccm_parity`.
PARITY_METRICS = (*CCM_METRICS, *ECCM_METRICS, "RMSCD")


def ccm_report(
    score: object,
    score_cf: object,
    orig_group: object,
    target_group: object,
    y_true: object | None = None,
    *,
    threshold: float = 0.5,
    valid: object | None = None,
    zero_division: float = math.nan,
    bins: int = 10,
) -> pd.DataFrame:
    """Tabulate CCM (and, with labels, ECCM) counts and metrics for the Total and each direction.

    Predictions are ``score >= threshold``. A row ``"A→B"`` covers the samples of group A turned
    into group B; with more than two groups, ``"A→rest"`` pools every counterfactual of group A
    (one-vs-rest). Invalid counterfactuals (``valid`` False) are left out.

    Args:
        score: Model scores of the original samples, one per counterfactual row.
        score_cf: Model scores of the counterfactuals.
        orig_group: Each row's original group.
        target_group: Each row's counterfactual group.
        y_true: Ground-truth labels (0/1); without them only the CCM part is computed.
        threshold: Decision threshold on the score.
        valid: Booleans marking usable counterfactuals (default all).
        zero_division: Value of undefined rates (NaN by default).
        bins: Bins for the KL and JS divergences.

    Returns:
        One row per scope with columns ``scope, n``, the cells, the metrics, ``RMSCD, KLCD, JSCD``.
    """
    s = np.asarray(score, dtype=float).ravel()
    s_cf = np.asarray(score_cf, dtype=float).ravel()
    orig = np.asarray(orig_group, dtype=object).ravel()
    target = np.asarray(target_group, dtype=object).ravel()
    keep = np.ones(s.size, dtype=bool) if valid is None else np.asarray(valid, dtype=bool).ravel()
    arrays = [s_cf, orig, target, keep] + ([] if y_true is None else [np.asarray(y_true).ravel()])
    if any(a.shape != s.shape for a in arrays):
        raise DataError("score_cf", "scores, groups, labels and valid flags must align", "pass one per row")
    if not math.isfinite(float(threshold)):
        raise ConfigError("threshold", f"must be finite, got {threshold}", "use e.g. 0.5")
    truth = None if y_true is None else np.asarray(y_true).ravel()
    if not keep.any():
        raise DataError("valid", "no counterfactual is valid", "relax the PCA validation or check empty cells")
    pred = (s >= threshold).astype(np.int64)
    pred_cf = (s_cf >= threshold).astype(np.int64)
    groups = ordered(orig[keep])
    scopes: list[tuple[str, np.ndarray]] = [("Total", keep)]
    many_groups = len(ordered(np.concatenate([orig, target]))) > 2
    for a in groups:
        for b in ordered(target[keep & (orig == a)]):
            scopes.append((f"{a}→{b}", keep & (orig == a) & (target == b)))
        if many_groups:
            scopes.append((f"{a}→rest", keep & (orig == a)))
    rows = [_scope_row(name, mask, s, s_cf, pred, pred_cf, truth, zero_division, bins) for name, mask in scopes]
    return pd.DataFrame(rows)


def _scope_row(
    name: str,
    mask: np.ndarray,
    s: np.ndarray,
    s_cf: np.ndarray,
    pred: np.ndarray,
    pred_cf: np.ndarray,
    truth: np.ndarray | None,
    zero_division: float,
    bins: int,
) -> dict[str, Any]:
    row: dict[str, Any] = {"scope": name, "n": int(mask.sum())}
    counts = ccm(pred[mask], pred_cf[mask])
    row.update(counts)
    row.update(ccm_metrics(counts, zero_division))
    if truth is not None:
        extended = eccm(truth[mask], pred[mask], pred_cf[mask])
        row.update(extended)
        row.update(eccm_metrics(extended, zero_division))
        row.update(performance_metrics(extended, zero_division))
    row["RMSCD"] = rmscd(s[mask], s_cf[mask])
    row["KLCD"] = klcd(s[mask], s_cf[mask], bins=bins)
    row["JSCD"] = jscd(s[mask], s_cf[mask], bins=bins)
    return row


def ccm_parity(report: pd.DataFrame, metrics: Sequence[str] = PARITY_METRICS, ratio: bool = False) -> pd.DataFrame:
    """Compare each pair of directions: ``metric(A→B) - metric(B→A)`` (or the ratio).

    Args:
        report: The output of :func:`ccm_report`.
        metrics: Metrics to compare (those present in ``report``).
        ratio: Report ``metric(A→B) / metric(B→A)`` instead of the difference.

    Returns:
        One row per unordered pair of directions: ``scope_a, scope_b`` and one column per metric.
    """
    directions = report[report["scope"].str.contains("→") & ~report["scope"].str.endswith("→rest")]
    by_scope = directions.set_index("scope")
    present = [m for m in metrics if m in by_scope.columns]
    rows = []
    for scope in by_scope.index:
        a, b = scope.split("→", 1)
        mirror = f"{b}→{a}"
        if mirror in by_scope.index and scope < mirror:
            first, second = by_scope.loc[scope, present].astype(float), by_scope.loc[mirror, present].astype(float)
            with np.errstate(divide="ignore", invalid="ignore"):
                values = first / second if ratio else first - second
            rows.append({"scope_a": scope, "scope_b": mirror, **values.to_dict()})
    return pd.DataFrame(rows, columns=["scope_a", "scope_b", *present])


def audit(
    model: Any,
    samples_df: pd.DataFrame,
    cf_df: pd.DataFrame,
    features: Sequence[str],
    label: str | None = None,
    *,
    threshold: float = 0.5,
    zero_division: float = math.nan,
    bins: int = 10,
) -> pd.DataFrame:
    """Score samples and their counterfactuals with a classifier and tabulate the CCM/ECCM.

    Args:
        model: A fitted classifier with ``predict_proba`` that accepts a DataFrame of ``features``.
        samples_df: The original samples (the ``samples_df`` given to the generator).
        cf_df: The generator's output.
        features: Columns the model reads (the sensitive attribute may be among them).
        label: Label column of ``samples_df`` for the ECCM (``None``: CCM only).
        threshold: Decision threshold on the positive-class probability.
        zero_division: Value of undefined rates.
        bins: Bins for the KL and JS divergences.

    Returns:
        The :func:`ccm_report` table.
    """
    if not hasattr(model, "predict_proba"):
        raise ConfigError("model", f"{type(model).__name__} has no predict_proba", "pass a probabilistic classifier")
    features = list(features)
    positions = samples_df.index.get_indexer(cf_df["sample_id"])
    if (positions < 0).any():
        raise DataError("cf_df", "has sample ids missing from samples_df", "pass the generator's own samples")
    score = model.predict_proba(samples_df[features])[:, 1][positions]
    score_cf = model.predict_proba(cf_df[features])[:, 1]
    y_true = None if label is None else samples_df[label].to_numpy()[positions]
    return ccm_report(
        score,
        score_cf,
        cf_df["orig_group"],
        cf_df["target_group"],
        y_true,
        threshold=threshold,
        valid=cf_df["valid"],
        zero_division=zero_division,
        bins=bins,
    )
