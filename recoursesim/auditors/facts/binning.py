"""Discretise continuous columns so frequent-itemset mining can use them."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd


def quantile_bins(values: pd.Series | np.ndarray, n_bins: int = 5) -> tuple[pd.Series, list[str]]:
    """Cut numeric values into (at most) ``n_bins`` quantile bins labelled by their intervals.

    Duplicate edges (heavily tied data) are merged, so fewer bins may result.

    Args:
        values: Numeric values (NaN stays NaN).
        n_bins: Number of quantile bins.

    Returns:
        The binned values as strings such as ``"(34, 41]"`` (the first bin is closed, ``"[17, 28]"``;
        values outside the observed range fall in the first or last bin) and the labels in
        increasing order.
    """
    series = pd.Series(np.asarray(values, dtype=float))
    finite = series.dropna()
    if finite.nunique() <= 1:
        label = f"{finite.iloc[0]:g}" if len(finite) else "nan"
        return series.map(lambda v: label if pd.notna(v) else np.nan).astype(object), [label]
    edges = np.unique(np.quantile(finite, np.linspace(0.0, 1.0, n_bins + 1)))
    labels = [f"{'[' if i == 0 else '('}{lo:g}, {hi:g}]" for i, (lo, hi) in enumerate(itertools.pairwise(edges))]
    edges[0] = -np.inf
    edges[-1] = np.inf
    codes = pd.cut(series, bins=edges, labels=False, right=True)
    out = pd.Series(np.asarray(labels, dtype=object)[codes.fillna(0).astype(int)], dtype=object)
    out[codes.isna()] = np.nan
    return out, labels


def discretise(frame: pd.DataFrame, columns: list[str], n_bins: int = 5) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Return a copy of ``frame`` with ``columns`` replaced by quantile-bin labels.

    Args:
        frame: The data.
        columns: Numeric columns to bin.
        n_bins: Bins per column.

    Returns:
        The new frame and each binned column's labels in increasing order.
    """
    out = frame.copy()
    orders: dict[str, list[str]] = {}
    for column in columns:
        binned, orders[column] = quantile_bins(frame[column].to_numpy(dtype=float), n_bins)
        out[column] = binned.to_numpy()
    return out, orders
