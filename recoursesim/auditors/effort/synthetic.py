"""The synthetic data of Raimondi et al. (§4.1) and its equality-of-effort audit."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from recoursesim.auditors.effort.audit import EqualityOfEffortAuditor
from recoursesim.auditors.effort.recourse import MinimalInterventionRecourse
from recoursesim.auditors.effort.scm import LinearAdditiveSCM
from recoursesim.errors import ConfigError

#: The synthetic DAG: the sensitive X1 drives the actionable proxy X2; X3 is independent.
SYNTHETIC_DAG = {"X2": ["X1"], "X3": []}


def make_effort_synthetic(
    n: int = 1000, alpha: float = 2.0, rng: np.random.Generator | int | None = None
) -> pd.DataFrame:
    """Draw the paper's synthetic population.

    ``X1 ~ Bernoulli(0.5)`` (sensitive; protected is ``X1 = 0``), ``X2 = alpha·X1 + U2`` with
    ``U2 ~ N(3, 1)``, ``X3 ~ N(0, 1)``, ``P(Y = 1) = sigmoid(z(X2 + X3))`` with ``z`` the z-score
    over the sample, and ``Y ~ Bernoulli(P)``.

    Args:
        n: Number of individuals.
        alpha: Strength of the X1 → X2 link.
        rng: A numpy Generator or a seed.

    Returns:
        Columns ``X1, X2, X3, P, Y``.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise ConfigError("n", f"must be an integer >= 2, got {n!r}", "use e.g. 1000")
    gen = np.random.default_rng(rng)
    x1 = gen.binomial(1, 0.5, size=n)
    x2 = alpha * x1 + gen.normal(3.0, 1.0, size=n)
    x3 = gen.normal(0.0, 1.0, size=n)
    total = x2 + x3
    prob = expit((total - total.mean()) / total.std())
    y = gen.binomial(1, prob)
    return pd.DataFrame({"X1": x1, "X2": x2, "X3": x3, "P": prob, "Y": y})


def synthetic_auditor(frame: pd.DataFrame) -> EqualityOfEffortAuditor:
    """Fit the paper's audit on a synthetic frame: logistic regression on (X2, X3), linear SCM.

    Actionable: X2 and X3 (an antichain); costs use each variable's data range; no bounds.

    Args:
        frame: Output of :func:`make_effort_synthetic`.

    Returns:
        A fitted :class:`EqualityOfEffortAuditor` with protected group ``X1 = 0``.
    """
    model = LogisticRegression().fit(frame[["X2", "X3"]], frame["Y"])
    scm = LinearAdditiveSCM.fit(frame, SYNTHETIC_DAG, variables=["X1", "X2", "X3"])
    data = frame[["X1", "X2", "X3"]].to_numpy(dtype=float)
    recourse = MinimalInterventionRecourse(
        scm,
        {"X2": model.coef_[0, 0], "X3": model.coef_[0, 1]},
        float(model.intercept_[0]),
        actionable=["X2", "X3"],
        ranges=data.max(axis=0) - data.min(axis=0),
        sensitive=["X1"],
    )
    return EqualityOfEffortAuditor(recourse, "X1", 0, distance_features=["X2", "X3"]).fit(frame)
