"""The German credit setup of Raimondi et al. (§4.2, after Karimi et al.'s causal graph)."""

from __future__ import annotations

from typing import Literal

import pandas as pd
from sklearn.pipeline import Pipeline

from recoursesim.auditors.effort.audit import EqualityOfEffortAuditor
from recoursesim.auditors.effort.setup import fit_logistic_audit

#: Variables besides sex (sensitive, immutable): age (actionable, increase only), credit amount
#: (actionable) and duration (mutable, not actionable).
GERMAN_VARIABLES = ("age", "credit_amount", "duration")
#: Causal graph ``{child: parents}`` (Karimi et al.'s German credit graph).
GERMAN_DAG = {"credit_amount": ["sex", "age"], "duration": ["credit_amount"]}


def german_auditor(
    frame: pd.DataFrame,
    *,
    target: str = "credit",
    protected: str = "female",
    model_uses_sex: bool = True,
    intervention: Literal["antichain", "subsets"] = "subsets",
) -> tuple[EqualityOfEffortAuditor, Pipeline]:
    """Fit the paper's German credit audit.

    A logistic regression predicts good credit from (sex, age, credit amount, duration), or
    without sex; the SCM is fitted by least squares on :data:`GERMAN_DAG`; age may only increase;
    credit amount is actionable; duration changes only through the SCM. Age is a parent of
    credit amount, so the actionable set is not an antichain and intervention sets are
    enumerated (``"subsets"``, MINT's semantics).

    Args:
        frame: The German credit frame (``load_german().frame``).
        target: Its target column (1 = good credit).
        protected: The protected value of ``sex``.
        model_uses_sex: Whether the classifier reads the sensitive attribute.
        intervention: How non-antichain actionable sets are handled.

    Returns:
        ``(auditor, model)``: the fitted auditor (protected group ``sex = 0``) and the classifier.
    """
    return fit_logistic_audit(
        frame,
        sensitive="sex",
        protected_value=protected,
        target=target,
        variables=GERMAN_VARIABLES,
        dag=GERMAN_DAG,
        actionable=["age", "credit_amount"],
        direction={"age": "increase"},
        model_uses_sensitive=model_uses_sex,
        intervention=intervention,
    )
