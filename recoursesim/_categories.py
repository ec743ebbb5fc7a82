"""Categorical dtypes for label columns, built once per set of labels (pandas validates every new one)."""

from __future__ import annotations

import functools
from collections.abc import Iterable

import pandas as pd


def category_dtype(labels: Iterable[object]) -> pd.CategoricalDtype:
    """The unordered categorical dtype with ``labels`` as its categories, in that order.

    Equal to ``pd.CategoricalDtype(categories=list(labels))``; the same object is returned for
    the same labels, so columns built with it skip pandas' validation of the categories.
    """
    return _dtype(tuple(labels))


@functools.lru_cache(maxsize=128)
def _dtype(labels: tuple[object, ...]) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(categories=list(labels), ordered=False)
