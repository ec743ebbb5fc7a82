"""Per-step equality-of-effort observer: ACR and RD of the current decision model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Self

import numpy as np
import pandas as pd

from recoursesim._validate import check_choice, check_float, check_int, check_list, check_table
from recoursesim.auditors.effort.audit import EqualityOfEffortAuditor
from recoursesim.auditors.effort.mixed import linear_view
from recoursesim.auditors.effort.recourse import MinimalInterventionRecourse
from recoursesim.auditors.effort.scm import LinearAdditiveSCM
from recoursesim.auditors.too_few import too_few_rows
from recoursesim.component import Component, RunContext
from recoursesim.errors import ConfigError
from recoursesim.features.capabilities import group_column_of
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register
from recoursesim.scoring.base import linear_form_of

#: Group column name used internally for the snapshot's group codes.
_GROUP = "__group__"


@register("observer", "equality_of_effort")
class EqualityOfEffortObserver(Component):
    """Equality of effort (ACR, RD) of the current decision model over the waiting population.

    Every step, the scorer's linear form and threshold define the decision (with one threshold
    per agent, their median: minimal recourse needs one decision boundary); the SCM (no edges
    unless ``dag`` is given, then refitted on the current population) and the current feature
    ranges define the cost of minimal recourse. On a dataset population the model may be any
    additive one (the built-in one-hot ``logistic`` model, a pipeline ending in a logistic
    regression): the problem is its linear part, with categories held fixed (see
    :mod:`recoursesim.auditors.effort.mixed`); a non-additive model (gradient boosting, a forest)
    is refused with a one-line error. For each group g the observer reports the
    system-level ACR and RD of g against every other agent and, when ``q < 1``, the mean ACR(q)
    over g's unfavourable agents as centres.

    Args:
        every: Observe every ``every`` steps.
        actionable: Actionable features (default: all).
        dag: ``{child: [parents]}`` over feature names (default: independent features).
        direction: Monotonicity constraints by feature.
        q: Neighbourhood quantile for the individual-level mean ACR (1 = system level only).
        intervention: ``"antichain"`` or ``"subsets"`` (see :class:`MinimalInterventionRecourse`).
        name: Observer name.

    :meth:`bind` reads from the run's population its group column (left out of the distance and
    never actionable), its data set's default action set (immutable features, directions and
    bounds of the actionable ones) and its feature schema: ``actionable`` and ``dag`` naming an
    unknown or categorical feature are refused then, before the run starts.

    Attributes:
        name: Observer name.
        every: Observation period in steps.
    """

    def __init__(
        self,
        every: int = 1,
        actionable: Sequence[str] | None = None,
        dag: Mapping[str, Sequence[str]] | None = None,
        direction: Mapping[str, str] | None = None,
        q: float = 1.0,
        intervention: Literal["antichain", "subsets"] = "antichain",
        name: str = "effort",
    ) -> None:
        check_int("every", every, minimum=1)
        if not 0 < check_float("q", q) <= 1:
            raise ConfigError("q", f"must lie in (0, 1], got {q}", "use 1 for the system level")
        self.every = every
        self.actionable = actionable
        self._actionable = None if actionable is None else tuple(check_list("actionable", actionable))
        self.dag = dag
        self._dag = {} if dag is None else dict(check_table("dag", dag))
        for child, parents in self._dag.items():
            self._dag[child] = check_list(f"dag.{child}", parents)
        self.direction = direction
        self._direction = {} if direction is None else dict(check_table("direction", direction))
        for feature, value in self._direction.items():
            check_choice(f"direction.{feature}", value, ["increase", "decrease", "both"])
        self.q = q
        self._q = float(q)
        self.intervention = intervention
        check_choice("intervention", intervention, ["antichain", "subsets"])
        self.name = name
        self.group_column_: str | None = None
        self.action_defaults_: Mapping[str, Any] | None = None

    def bind(self, context: RunContext) -> Self:
        """Keep the population's group column and default action set; check the named features."""
        self.group_column_ = group_column_of(context.population)
        self.action_defaults_ = context.action_defaults
        schema = context.schema
        if schema is not None:
            named = [("actionable", n) for n in self._actionable or ()]
            named += [("dag", n) for child, parents in self._dag.items() for n in (child, *parents)]
            for field, feature in named:
                if feature not in schema.names:
                    raise ConfigError(field, f"unknown feature {feature!r}", f"use some of {', '.join(schema.names)}")
                if schema[feature].kind == "categorical":
                    raise ConfigError(
                        field,
                        f"{feature!r} is categorical",
                        "equality of effort intervenes on numbers and ranks only: leave it out",
                    )
        return self

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Audit one snapshot: one block of rows per group.

        Returns:
            Rows ``group, metric, value`` with metrics ``ACR, RD, Phi_own, Phi_other, rho_own,
            rho_other, n_unfavourable`` (and ``ACR_q_mean``, ``ACR_q_defined`` when ``q < 1``).
        """
        form = linear_form_of(snapshot.scorer) if snapshot.schema is None else None
        if snapshot.schema is None and form is None:
            raise ConfigError(
                "name",
                f"equality_of_effort needs a linear scorer, got {type(snapshot.scorer).__name__}",
                'use a linear ranker or [scorer] model = "logistic", or drop this observer',
            )
        codes = np.asarray(snapshot.group).astype(np.int64)
        present = np.unique(codes)
        if present.size < 2 or codes.size < 2:
            return too_few_rows(f"{present.size} group(s) among {codes.size} agents, effort needs two of each")
        if form is None:
            return self._observe_mixed(snapshot, codes, present)
        names = list(snapshot.feature_names)
        features = np.asarray(snapshot.features, dtype=float)
        margin_threshold = float(form.to_margin(float(np.median(snapshot.agent_thresholds()))))
        frame = pd.DataFrame(features, columns=names)
        frame[_GROUP] = codes
        ranges = features.max(axis=0) - features.min(axis=0)
        actionable = [
            n for k, n in enumerate(names) if ranges[k] > 0 and (self._actionable is None or n in self._actionable)
        ]
        if not actionable:
            return pd.DataFrame([], columns=["group", "metric", "value"])
        recourse = MinimalInterventionRecourse(
            self._scm(frame, names),
            np.asarray(form.coef, dtype=float),
            float(form.intercept),
            threshold=margin_threshold,
            actionable=actionable,
            ranges=ranges,
            direction=self._direction,
            intervention=self.intervention,
        )
        return self._per_group(snapshot, recourse, frame, present, names, [])

    def _scm(self, frame: pd.DataFrame, variables: list[str]) -> LinearAdditiveSCM:
        """The ``dag`` fitted on the snapshot, or independent variables without one."""
        if self._dag:
            return LinearAdditiveSCM.fit(frame, self._dag, variables=variables)
        return LinearAdditiveSCM(variables, np.zeros((len(variables), len(variables))))

    def _observe_mixed(self, snapshot: PopulationSnapshot, codes: np.ndarray, present: np.ndarray) -> pd.DataFrame:
        """Audit a mixed-type snapshot through its :class:`~recoursesim.auditors.effort.mixed.LinearView`."""
        try:
            view = linear_view(
                snapshot, self._actionable, self._direction, self._dag, self.action_defaults_, self.group_column_
            )
        except ConfigError as error:  # the model puts the observer's place (observers[i]) in front
            raise (error if error.field else ConfigError("name", error.problem, error.fix)) from None
        if not view.actionable:
            return pd.DataFrame([], columns=["group", "metric", "value"])
        frame = view.frame
        frame[_GROUP] = codes
        recourse = MinimalInterventionRecourse(
            self._scm(frame, view.variables),
            view.coef,
            0.0,
            threshold=view.threshold,
            actionable=view.actionable,
            ranges=view.ranges,
            direction=view.direction,
            lower=view.lower,
            upper=view.upper,
            intervention=self.intervention,
        )
        return self._per_group(snapshot, recourse, frame, present, view.distance_features, view.categorical)

    def _per_group(
        self,
        snapshot: PopulationSnapshot,
        recourse: MinimalInterventionRecourse,
        frame: pd.DataFrame,
        present: np.ndarray,
        distance: list[str],
        categorical: list[str],
    ) -> pd.DataFrame:
        """One block of rows per group: that group against every other agent."""
        rows: list[dict[str, object]] = []
        for code in present:
            auditor = EqualityOfEffortAuditor(
                recourse, _GROUP, int(code), distance_features=distance, categorical=categorical
            ).fit(frame)
            result = auditor.system("protected")
            values = {k: result[k] for k in ("ACR", "RD", "Phi_own", "Phi_other", "rho_own", "rho_other")}
            values["n_unfavourable"] = result["n_own"]
            if self._q < 1 and (auditor.protected_ & auditor.unfavourable_).any():
                curve = auditor.curve([self._q], "protected")
                values["ACR_q_mean"] = float(curve["mean"].iloc[0])
                values["ACR_q_defined"] = float(curve["n_defined"].iloc[0])
            group = snapshot.group_names[int(code)]
            rows.extend({"group": group, "metric": k, "value": float(v)} for k, v in values.items())
        return pd.DataFrame(rows, columns=["group", "metric", "value"])
