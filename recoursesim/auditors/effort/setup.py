"""Fit a complete equality-of-effort audit from a table: logistic model, SCM and recourse problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from recoursesim.auditors.effort.audit import EqualityOfEffortAuditor, check_groups
from recoursesim.auditors.effort.recourse import MinimalInterventionRecourse
from recoursesim.auditors.effort.scm import LinearAdditiveSCM
from recoursesim.errors import ConfigError, DataError
from recoursesim.scoring.base import standardised_terms


def fit_logistic_audit(
    frame: pd.DataFrame,
    *,
    sensitive: str,
    protected_value: Any,
    target: str,
    variables: Sequence[str],
    dag: Mapping[str, Sequence[str]],
    actionable: Sequence[str],
    direction: Mapping[str, str] | None = None,
    model_uses_sensitive: bool = True,
    intervention: Literal["antichain", "subsets"] = "antichain",
    threshold: float = 0.5,
) -> tuple[EqualityOfEffortAuditor, Pipeline]:
    """Fit a logistic regression and a linear SCM, and price every row's minimal recourse.

    The sensitive attribute enters the SCM (and optionally the model) as an indicator that is 0
    for the protected group; it is immutable and excluded from the distance. Ranges are the
    data ranges; there are no bounds (as in the paper's experiments).

    Args:
        frame: The audited data.
        sensitive: The sensitive attribute's column.
        protected_value: Its protected value.
        target: Binary 0/1 target (1 = favourable).
        variables: Numeric SCM variables other than the sensitive attribute.
        dag: ``{child: [parents]}`` over ``variables`` and ``sensitive``.
        actionable: Actionable variables.
        direction: Monotonicity constraints.
        model_uses_sensitive: Whether the classifier reads the sensitive indicator.
        intervention: ``"antichain"`` (fail on non-antichains) or ``"subsets"``.
        threshold: Probability threshold of a favourable decision.

    Returns:
        ``(auditor, model)``: the fitted auditor and the classifier.
    """
    protected = check_groups(
        frame, sensitive, protected_value, {"target": [target], "variables": list(variables)}, "protected"
    )
    if not 0 < threshold < 1:
        raise ConfigError("threshold", f"must lie in (0, 1), got {threshold}", "use e.g. 0.5")
    y = frame[target]
    if y.isna().any() or not y.isin([0, 1]).all() or y.nunique() < 2:
        raise DataError(target, "must be a 0/1 label with both classes", "binarise it (1 = favourable)")
    try:
        data = frame[list(variables)].astype(float)
    except (TypeError, ValueError):
        raise DataError("variables", "SCM variables must be numeric", "encode them as numbers") from None
    if data.isna().any().any():
        raise DataError("variables", "contain missing values", "drop or impute those rows")
    data.insert(0, sensitive, (~protected).astype(float))
    names = [sensitive, *variables]
    inputs = names if model_uses_sensitive else list(variables)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(data[inputs], y.astype(int))
    scaler, logistic = model[0], model[1]
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    _, coef, intercept = standardised_terms(logistic.coef_[0], logistic.intercept_, [], scaler.mean_, scale)
    scm = LinearAdditiveSCM.fit(data, dag, variables=names)
    values = data[names].to_numpy(dtype=float)
    recourse = MinimalInterventionRecourse(
        scm,
        dict(zip(inputs, coef, strict=True)),
        intercept,
        threshold=float(np.log(threshold / (1 - threshold))),
        actionable=actionable,
        ranges=values.max(axis=0) - values.min(axis=0),
        direction=direction,
        sensitive=[sensitive],
        intervention=intervention,
    )
    auditor = EqualityOfEffortAuditor(recourse, sensitive, 0.0, distance_features=list(variables))
    return auditor.fit(data), model
