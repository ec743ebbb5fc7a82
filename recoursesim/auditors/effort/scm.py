"""Linear additive structural causal model fitted per child by least squares (Raimondi et al., §4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from graphlib import CycleError, TopologicalSorter

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import shortest_path
from sklearn.linear_model import LinearRegression

from recoursesim.datasets.user import first_bad_cell
from recoursesim.errors import ConfigError, DataError


class LinearAdditiveSCM:
    """Linear additive SCM ``X_k = sum_j A[k, j] X_j + c_k + U_k`` over named variables.

    Args:
        variables: Variable names, fixing the order of every array.
        coefficients: ``(d, d)`` matrix ``A``; ``A[k, j]`` is the coefficient of ``X_j`` in
            ``X_k``'s equation. It must describe a DAG.
        intercepts: ``(d,)`` constants ``c_k`` (default zeros).

    Attributes:
        variables: The variable names.
        coefficients: ``A``.
        intercepts: ``c``.
        total_effects_: ``B = (I - A)^-1``; ``B[:, j]`` is the change of every variable per unit
            change of ``X_j``.
    """

    def __init__(self, variables: Sequence[str], coefficients: object, intercepts: object | None = None) -> None:
        self.variables = tuple(variables)
        d = len(self.variables)
        if d == 0 or len(set(self.variables)) != d:
            raise ConfigError("variables", "must be distinct names, at least one", "name each variable once")
        self.coefficients = np.asarray(coefficients, dtype=float)
        if self.coefficients.shape != (d, d) or not np.isfinite(self.coefficients).all():
            raise ConfigError("coefficients", f"must be a finite {d}x{d} matrix", "pass A[child, parent]")
        self.intercepts = np.zeros(d) if intercepts is None else np.asarray(intercepts, dtype=float)
        if self.intercepts.shape != (d,):
            raise ConfigError("intercepts", f"must have {d} entries", "pass one constant per variable")
        parents = {
            v: [self.variables[j] for j in np.flatnonzero(self.coefficients[k])] for k, v in enumerate(self.variables)
        }
        _topological_order(parents)
        self.total_effects_ = np.linalg.inv(np.eye(d) - self.coefficients)

    @classmethod
    def fit(
        cls, frame: pd.DataFrame, dag: Mapping[str, Sequence[str]], variables: Sequence[str] | None = None
    ) -> LinearAdditiveSCM:
        """Fit every child's equation by ordinary least squares on its parents.

        Args:
            frame: Observed data with a numeric column per variable.
            dag: ``{child: [parents]}``; variables absent from it are roots.
            variables: Variable order (default: the DAG's variables in order of appearance).

        Returns:
            The fitted SCM.

        Raises:
            ConfigError: The graph has a cycle, or names a variable outside ``variables``.
            DataError: A column is missing, non-numeric or has NaN.
        """
        order = (v for child, parents in dag.items() for v in (*parents, child))
        names = list(variables) if variables is not None else list(dict.fromkeys(order))
        index = {v: k for k, v in enumerate(names)}
        unknown = sorted({v for child, ps in dag.items() for v in (child, *ps)} - set(index))
        if unknown:
            raise ConfigError("dag", f"names variables not in the model: {unknown}", "list them in variables")
        _topological_order({c: list(ps) for c, ps in dag.items()})
        missing = [v for v in names if v not in frame.columns]
        if missing:
            raise DataError(
                "variables", f"names {missing[0]!r}, not a column of the data", f"use some of {list(frame.columns)}"
            )
        try:
            data = frame[names].to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise DataError(
                "variables",
                "must all be numeric columns",
                "encode them as numbers, or leave text columns out of variables",
            ) from None
        if not np.isfinite(data).all():
            column, what, _, row = first_bad_cell(frame, names) or (names[0], "NaN or infinite", 0, 0)
            raise DataError(
                f"variables.{column}", f"has {what} values, first in data row {row}", "drop or impute those rows first"
            )
        d = len(names)
        a = np.zeros((d, d))
        c = np.zeros(d)
        for child, parents in dag.items():
            if not parents:
                continue
            cols = [index[p] for p in parents]
            reg = LinearRegression().fit(data[:, cols], data[:, index[child]])
            a[index[child], cols] = reg.coef_
            c[index[child]] = reg.intercept_
        return cls(names, a, c)

    def index(self, names: Iterable[str]) -> list[int]:
        """Return the positions of ``names``; raise ConfigError for unknown ones."""
        names = list(names)
        unknown = [n for n in names if n not in self.variables]
        if unknown:
            raise ConfigError(
                "variables", f"unknown SCM variable(s) {unknown}", f"use names from {list(self.variables)}"
            )
        return [self.variables.index(n) for n in names]

    def cut_effects(self, intervened: Sequence[int]) -> np.ndarray:
        """Total effects after a hard intervention on ``intervened`` (their equations removed)."""
        a = self.coefficients.copy()
        a[list(intervened), :] = 0.0
        return np.linalg.inv(np.eye(len(self.variables)) - a)

    def is_antichain(self, members: Sequence[int]) -> bool:
        """Return True if no member is an ancestor of another."""
        reach = np.isfinite(shortest_path((self.coefficients != 0).astype(float), unweighted=True))
        return not any(reach[k, j] for j in members for k in members if k != j)

    def propagate(self, x: np.ndarray, intervened: Sequence[int], delta: np.ndarray) -> np.ndarray:
        """Counterfactual values after shifting ``intervened`` by ``delta`` (abduction keeps noise)."""
        effects = self.cut_effects(intervened)[:, list(intervened)]
        return np.asarray(x, dtype=float) + np.asarray(delta, dtype=float) @ effects.T


def _topological_order(parents: Mapping[str, Sequence[str]]) -> list[str]:
    try:
        return list(TopologicalSorter({c: list(p) for c, p in parents.items()}).static_order())
    except CycleError as error:
        cycle = " -> ".join(str(v) for v in error.args[1])
        raise ConfigError("dag", f"has a cycle ({cycle})", "give an acyclic graph of child: [parents]") from None
