"""Run FACTS every few steps of a simulation, on the waiting population and the current model."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, Self

import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.auditors.facts.auditor import FactsAuditor, FactsWarning
from recoursesim.auditors.facts.population_view import population_view
from recoursesim.auditors.too_few import too_few_rows
from recoursesim.component import Component, RunContext
from recoursesim.errors import DataError
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer

#: Name of the protected column the observer builds from the snapshot's group codes.
GROUP_COLUMN = "group"


class _BinnedScorerModel:
    """Classify binned rows: each bin becomes its median value, then ``score >= threshold``."""

    def __init__(self, scorer: Scorer, threshold: float, features: list[str], medians: dict[str, dict]) -> None:
        self.scorer = scorer
        self.threshold = threshold
        self.features = features
        self.medians = medians

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        columns = []
        for name in self.features:
            lookup = self.medians[name]
            values = frame[name]
            if isinstance(values.dtype, pd.CategoricalDtype):
                table = np.array([lookup[c] for c in values.cat.categories], dtype=float)
                codes = values.cat.codes.to_numpy()
                columns.append(np.where(codes >= 0, table[codes], np.nan))
            else:
                columns.append(values.map(lookup).to_numpy(dtype=float))
        matrix = np.column_stack(columns)
        return (np.asarray(self.scorer.score(matrix)) >= self.threshold).astype(np.int64)


@register("observer", "facts")
class FactsObserver(Component):
    """Per-step FACTS audit of the simulated population (the :class:`~recoursesim.observers.Observer` protocol).

    Every ``every`` steps it bins each numeric feature into quantile bins of the current
    population (categorical and ordinal features of a dataset population keep their own
    categories), audits the decision model on the discrete population (a counterfactual puts a feature at its
    target bin's median; who is affected comes from the real scores, ``score < threshold``), and
    records, per metric variant, the top unfairness score and the number of unfair subgroups.

    With a per-agent threshold, each agent's own threshold decides whether it is affected, and
    counterfactuals (binned rows, not agents) use the median of the agents' thresholds.

    Args:
        every: Audit every this many steps.
        n_bins: Quantile bins per feature.
        min_support: fp-growth support.
        phis: Effectiveness levels ϕ.
        budgets: Cost budgets (default: chosen per audit as in the paper's Appendix A).
        actions: Candidate-action rule, ``"same_features"`` (the paper's) or ``"subsets"`` (see
            :class:`~recoursesim.auditors.facts.FactsAuditor`).
        name: The observer's name in the observations table.

    :meth:`bind` reads the run's default action set (a dataset population's): its immutable and
    increase-only features (see :mod:`recoursesim.auditors.facts.population_view` for how real
    feature types are kept).

    A step where the audit cannot run (e.g. one group has no affected agent) gives the rows
    ``n_subgroups = 0``, ``skipped = 1`` and ``skipped:<reason> = 1``, the reason in the metric
    name so that it survives the numeric observations table; each audit warning (e.g. how the
    budgets were chosen) gives a row ``warning:<message> = 1``.
    """

    def __init__(
        self,
        every: int = 1,
        n_bins: int = 4,
        min_support: float = 0.05,
        phis: tuple[float, ...] = (0.3, 0.7),
        budgets: tuple[float, ...] | None = None,
        actions: str = "same_features",
        name: str = "facts",
    ) -> None:
        self.every = every
        check_int("every", every, minimum=1)
        self.n_bins = n_bins
        check_int("n_bins", n_bins, minimum=1)
        self.min_support = min_support
        self.phis = phis
        self.budgets = budgets
        self.actions = actions
        self.name = name
        self.action_defaults_: Mapping[str, Any] | None = None
        # refused when the scenario is loaded, not at the first audit
        FactsAuditor(min_support=min_support, phis=phis, budgets=budgets, actions=actions)._check_params()

    def bind(self, context: RunContext) -> Self:
        """Keep the run's default action set (``action_defaults_``)."""
        self.action_defaults_ = context.action_defaults
        return self

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Audit one snapshot; return rows ``metric, value`` (top score and unfair count per variant)."""
        features = list(snapshot.feature_names)
        view = population_view(snapshot, self.n_bins, self.action_defaults_)
        frame = view.frame
        names = np.asarray(snapshot.group_names, dtype=object)
        frame[GROUP_COLUMN] = names[np.asarray(snapshot.group, dtype=np.int64)]
        threshold = snapshot.agent_thresholds()
        positive = np.asarray(snapshot.scorer.score(snapshot.features), dtype=float) >= threshold
        model = _BinnedScorerModel(snapshot.scorer, float(np.median(threshold)), features, view.lookups)
        auditor = FactsAuditor(
            min_support=self.min_support,
            phis=self.phis,
            budgets=self.budgets,
            actions=self.actions,
            config=view.config,
        )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FactsWarning)  # recorded as rows below
                auditor.fit(frame, model, GROUP_COLUMN, y_pred=positive.astype(np.int64))
        except DataError as error:
            reason = f"skipped:{error.field}: {error.problem}"
            few = too_few_rows(f"{error.field}: {error.problem}")[["metric", "value"]]
            skipped = pd.DataFrame({"metric": ["n_subgroups", "skipped", reason], "value": [0.0, 1.0, 1.0]})
            return pd.concat([skipped, few], ignore_index=True)
        table = auditor.ranking_
        rows = [{"metric": "n_subgroups", "value": float(auditor.summary_["common_subgroups"])}]
        if auditor.summary_["common_subgroups"] == 0:
            least = ", ".join(f"{name} {n}" for name, n in auditor.summary_["least_rows"].items())
            reason = f"no subgroup has the rows the support asks for in both groups (needs {least})"
            rows += too_few_rows(reason)[["metric", "value"]].to_dict("records")
        rows += [{"metric": f"warning:{message}", "value": 1.0} for message in auditor.warnings_]
        for key, part in table.groupby("key", observed=True, sort=False):
            score = part["score"].to_numpy()
            rows.append({"metric": f"top_score:{key}", "value": float(score.max()) if len(score) else 0.0})
            rows.append({"metric": f"n_unfair:{key}", "value": float((score > 0).sum())})
        return pd.DataFrame(rows)
