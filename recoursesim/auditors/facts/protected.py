"""The two protected groups of a FACTS audit, and who in them is affected (predicted unfavourably)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recoursesim.errors import DataError


@dataclass(frozen=True)
class ProtectedGroups:
    """The audit's two groups: the reference value of the protected column (group 1) and the rest (group 0).

    Attributes:
        column: The protected column.
        names: ``(group 0, group 1)``: the other value (or ``"non-<reference>"`` for several) and the reference.
        of_row: ``int8`` per row of the audited table, 1 for the reference group.
    """

    column: str
    names: tuple[str, str]
    of_row: np.ndarray


def protected_groups(X: pd.DataFrame, protected: str, reference_value: object = None) -> ProtectedGroups:
    """The groups of ``X`` (indexed ``0..n-1``) by ``protected``.

    Args:
        X: The audited table.
        protected: The protected column (checked to be in ``X`` by the caller).
        reference_value: The value forming group 1; default the most frequent one.

    Raises:
        DataError: If the column has one distinct value, or ``reference_value`` does not occur.
    """
    values = X[protected].value_counts()
    if len(values) < 2:
        raise DataError(
            "protected",
            f"column {protected!r} has {len(values)} distinct value(s)",
            "choose an attribute with at least two values",
        )
    reference = values.index[0] if reference_value is None else reference_value
    if reference not in values.index:
        raise DataError(
            "reference_value",
            f"{reference!r} does not occur in {protected!r}",
            f"use one of {', '.join(map(str, values.index))}",
        )
    others = [v for v in values.index if v != reference]
    names = (str(others[0]) if len(others) == 1 else f"non-{reference}", str(reference))
    return ProtectedGroups(protected, names, (X[protected] == reference).to_numpy().astype(np.int8))


def affected_rows(positive: np.ndarray, groups: ProtectedGroups) -> np.ndarray:
    """The rows predicted unfavourably, in order.

    Raises:
        DataError: If a group has no such row (the audit compares the two groups' affected rows).
    """
    affected = np.flatnonzero(~positive)
    for g in (0, 1):
        if not (groups.of_row[affected] == g).any():
            raise DataError(
                "protected",
                f"group {groups.names[g]!r} has no negatively predicted (affected) individual",
                "audit a model or data where both groups have affected individuals",
            )
    return affected
