"""The FACTS auditor: mine subgroups and actions, score every Section 2.3 definition, rank."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from recoursesim._validate import check_float, check_list
from recoursesim.auditors.facts import metrics as fm
from recoursesim.auditors.facts.config import FactsConfig
from recoursesim.auditors.facts.effects import ACTION_RULES, Evaluation, evaluate
from recoursesim.auditors.facts.encoding import ItemSpace, build_item_space
from recoursesim.auditors.facts.estimate import MemoryGuard, PopulationBound, estimate_audit, population_bound
from recoursesim.auditors.facts.inputs import BinaryPredictor, check_finite, distinct_values
from recoursesim.auditors.facts.linear import linear_codes
from recoursesim.auditors.facts.miners import MINERS
from recoursesim.auditors.facts.mining import Itemsets, intersect
from recoursesim.auditors.facts.populations import Population, mine_populations
from recoursesim.auditors.facts.protected import ProtectedGroups, affected_rows, protected_groups
from recoursesim.auditors.facts.ranking import ranking_table
from recoursesim.auditors.facts.support import SupportRule, resolve_support, support_line
from recoursesim.auditors.facts.variants import METRICS, TITLES, MetricVariant
from recoursesim.errors import ConfigError, DataError


class FactsAuditor:
    """Fairness-aware Counterfactuals for Subgroups (Kavouras et al., 2023).

    Args:
        min_support: Support fraction for subgroups, in (0, 1]: a subgroup must cover this share
            of each protected group's affected rows (the paper uses 0.01). See ``min_count``.
        actions: Which mined actions are candidates for a subgroup: ``"same_features"`` (the
            paper's rule, default) pairs a subgroup with the actions over exactly the features of
            its predicate; ``"subsets"`` also admits actions over a subset of them, which finds
            options the unaffected population is too diverse to show as one frequent itemset
            (e.g. "change occupation" for a subgroup that also fixes marital status) at the price
            of more pairs and a different ranking from the paper's. Either way, actions with the
            same effect on a subgroup count once.
        action_support: Support fraction for actions on the unaffected (default ``min_support``).
        phis: Effectiveness levels ϕ for Equal Choice for Recourse and Equal Cost of Effectiveness.
        budgets: Cost budgets c for Equal Effectiveness within Budget (de-duplicated and sorted);
            ``None`` chooses them as the paper's Appendix A does (percentiles of the micro Equal
            Cost of Effectiveness costs at ``budget_phi``), falling back, with a warning, to
            percentiles of the valid actions' costs when no subgroup reaches ``budget_phi`` in
            both groups.
        budget_percentiles: Percentiles used when ``budgets`` is ``None``.
        budget_phi: Effectiveness level of those costs (the paper: 0.5).
        alpha: Confidence level of the KS α-rule.
        config: Cost and feasibility configuration (default: every feature categorical, weight 1).
        min_count: Rows a subgroup must cover in each protected group's affected rows, on top of
            the fraction. Neither given: 1% and at least
            :data:`~recoursesim.auditors.facts.support.DEFAULT_MIN_COUNT` rows (on a small data
            set 1% is less than a row, and every combination of values seen once would be a
            subgroup). ``min_support`` given alone: the fraction alone (the paper's rule).
        action_min_count: Rows an action must cover among the unaffected (default ``min_count``,
            resolved the same way with ``action_support``).
        miner: Frequent-itemset miner, ``"bitset"`` (default, faster) or ``"mlxtend"`` (its
            fp-growth); both find the same itemsets.
        progress: Show progress bars on stderr while mining and scoring (``None``: when stderr is
            a terminal).
        force: Audit even when the estimate before mining exceeds the available memory.
    """

    def __init__(
        self,
        min_support: float | None = None,
        action_support: float | None = None,
        actions: str = "same_features",
        phis: tuple[float, ...] = (0.3, 0.7),
        budgets: tuple[float, ...] | None = None,
        budget_percentiles: tuple[float, ...] = (30.0, 60.0, 90.0),
        budget_phi: float = 0.5,
        alpha: float = 0.05,
        config: FactsConfig | None = None,
        min_count: int | None = None,
        action_min_count: int | None = None,
        miner: str = "bitset",
        progress: bool | None = None,
        force: bool = False,
    ) -> None:
        self.min_support = min_support
        self.min_count = min_count
        self.action_min_count = action_min_count
        self.miner = miner
        self.progress = progress
        self.force = force
        self.action_support = action_support
        self.actions = actions
        self.phis = phis
        self.budgets = budgets
        self.budget_percentiles = budget_percentiles
        self.budget_phi = budget_phi
        self.alpha = alpha
        self.config = config

    def _support_rules(self) -> tuple[SupportRule, SupportRule]:
        """Return the support rules of subgroups and of actions."""
        subgroup_rule = resolve_support(self.min_support, self.min_count)
        fraction = self.min_support if self.action_support is None else self.action_support
        count = self.min_count if self.action_min_count is None else self.action_min_count
        return subgroup_rule, resolve_support(fraction, count, name="action_support")

    def _check_params(self) -> None:
        self._support_rules()
        if self.miner not in MINERS:
            raise ConfigError("miner", f"unknown miner {self.miner!r}", f"use one of {list(MINERS)}")
        if self.actions not in ACTION_RULES:
            raise ConfigError("actions", f"unknown rule {self.actions!r}", f"use one of {list(ACTION_RULES)}")
        for phi in check_list("phis", self.phis):
            check_float("phis", phi, minimum=0.0, maximum=1.0)
        check_float("budget_phi", self.budget_phi, minimum=0.0, maximum=1.0)
        check_float("alpha", self.alpha, minimum=0.0, maximum=1.0, strict_minimum=True)
        for budget in () if self.budgets is None else check_list("budgets", self.budgets):
            check_float("budgets", budget, minimum=0.0)

    def fit(
        self,
        X: pd.DataFrame,
        model: Any,
        protected: str,
        *,
        positive_label: object = 1,
        reference_value: object = None,
        y_pred: np.ndarray | None = None,
        echo: Callable[[str], object] | None = None,
    ) -> FactsAuditor:
        """Audit ``model`` on ``X``.

        Args:
            X: Discrete features (continuous ones binned), including the protected column.
            model: Anything with ``predict(DataFrame)`` returning binary labels.
            protected: The protected column.
            positive_label: The favourable label of ``model.predict``.
            reference_value: The protected value forming group 1; the other values form group 0.
                Default: the most frequent value (with two values, the other is group 0).
            y_pred: Predictions of ``X`` to use instead of ``model.predict(X)`` for who is
                affected (counterfactuals are always scored with ``model.predict``).
            echo: Called before mining with two lines: which support bound binds for each
                mined population, and the estimate (``support_``, ``estimate_.line()``).

        Returns:
            ``self``, with ``ranking_``, ``summary_``, ``timings_["total"]`` (seconds) and the
            fitted state set.

        Raises:
            ConfigError: For bad parameters, or when the estimate before mining exceeds the
                available memory (unless ``force``).
            DataError: For a missing or single-valued protected column, non-binary predictions,
                or a protected group without affected individuals.
        """
        self._check_params()
        started = time.perf_counter()
        config = self.config or FactsConfig()
        if protected not in X.columns:
            raise DataError("protected", f"column {protected!r} is not in the data", f"use one of {list(X.columns)}")
        config.check_columns(X)
        check_finite(X, protected)
        X = X.reset_index(drop=True)
        groups = protected_groups(X, protected, reference_value)
        self.predict_ = BinaryPredictor(model, positive_label)
        positive = self.predict_(X) if y_pred is None else self.predict_.check(np.asarray(y_pred)[X.index])
        affected = affected_rows(positive, groups)
        immutable = set(config.immutable) | {protected}
        space = build_item_space(X, config, immutable)
        populations = self._populations(space, groups, immutable, affected, positive)
        bounds = [population_bound(space, p.rows, p.features, p.rule, p.name) for p in populations]
        self.estimate_ = estimate_audit(bounds, len(space.features))
        self.support_ = support_line(bounds, populations[0].rule, populations[2].rule)
        if echo is not None:
            echo(self.support_)
            echo(self.estimate_.line())
        guard = MemoryGuard(self.estimate_, self.force, "raise --min-count (min_count) or --support (min_support)")
        found = mine_populations(space, populations, self.miner, self.progress, guard)
        per_group, actions = found[:2], found[2]
        subgroups = intersect(*per_group)
        in_group = groups.of_row[affected].astype(np.int64)
        ev = evaluate(
            space,
            affected,
            in_group,
            subgroups,
            actions,
            lambda codes: self.predict_(space.frame(codes)),
            rule=self.actions,
            linear=linear_codes(model, space, positive_label),
            progress=self.progress,
        )
        self.warnings_: list[str] = []
        self.phis_ = distinct_values(self.phis)
        self.budgets_, self.budget_rule_ = self._budgets(ev)
        self.n_affected_ = np.bincount(in_group, minlength=2)
        self.space_, self.protected_, self.group_names_ = space, protected, groups.names
        self.subgroups_, self.actions_, self.evaluation_ = subgroups, actions, ev
        self._items = [[space.label(j, c) for c in range(len(values))] for j, values in enumerate(space.values)]
        self.subgroup_labels_ = [self._label(row) for row in subgroups.values.tolist()]
        self.ranking_ = ranking_table(self, ev, self.n_affected_)
        self.timings_ = {"total": time.perf_counter() - started}
        self.summary_ = self._summary(len(X), len(affected), [len(s) for s in per_group], bounds)
        return self

    def _populations(
        self,
        space: ItemSpace,
        groups: ProtectedGroups,
        immutable: set[str],
        affected: np.ndarray,
        positive: np.ndarray,
    ) -> list[Population]:
        """The three mined populations: each group's affected rows (subgroups) and the unaffected (actions)."""
        pj = space.features.index(groups.column)
        subgroup_features = [j for j in range(len(space.features)) if j != pj]
        if self.actions == "subsets":
            # An action fixing an immutable feature must keep it, so under the subset rule it has
            # the effect of the same action without that feature: mine mutable features only.
            action_features = [j for j in subgroup_features if space.features[j] not in immutable]
        else:
            # The paper's rule needs actions over exactly a subgroup's features, immutable ones
            # included (kept at the subgroup's value; feasibility forbids changing them).
            action_features = subgroup_features
        subgroup_rule, action_rule = self._support_rules()
        in_group = groups.of_row[affected]
        populations = [
            Population(f"affected {groups.names[g]}", affected[in_group == g], subgroup_features, subgroup_rule)
            for g in (0, 1)
        ]
        populations.append(Population("unaffected", np.flatnonzero(positive), action_features, action_rule))
        return populations

    def _summary(self, rows: int, affected: int, per_group: list[int], bounds: list[PopulationBound]) -> dict[str, Any]:
        """The fitted audit in numbers and lines (``summary_``)."""
        ev, names, n_subgroups = self.evaluation_, self.group_names_, len(self.subgroups_)
        return {
            "rows": rows,
            "affected": affected,
            "affected_per_group": dict(zip(names, self.n_affected_.tolist(), strict=True)),
            "subgroups_per_group": dict(zip(names, per_group, strict=True)),
            "common_subgroups": n_subgroups,
            "mined": (
                f"{n_subgroups:,} subgroups common to both groups (of {per_group[0]:,} and "
                f"{per_group[1]:,}) and {len(self.actions_):,} actions"
            ),
            "support": self.support_,
            "estimate": self.estimate_.line(),
            "least_rows": {b.name: b.least for b in bounds},
            "bound_by": {b.name: b.binding for b in bounds},
            "miner": self.miner,
            "action_rule": self.actions,
            "actions": len(self.actions_),
            "valid_pairs": len(ev.pair_subgroup),
            "merged_duplicate_pairs": ev.n_merged_pairs,
            "applications": ev.n_applications,
            "counterfactual_rows": ev.n_counterfactuals,
            "model_calls": ev.n_model_calls + 1,
            "budgets": list(self.budgets_),
            "budget_rule": self.budget_rule_,
            "warnings": list(self.warnings_),
        }

    def _budgets(self, ev: Evaluation) -> tuple[tuple[float, ...], str]:
        """Return the distinct budgets (sorted) and the rule that chose them."""
        if self.budgets is not None:
            return distinct_values(self.budgets), "given"
        both = np.maximum(
            fm.micro_cost_of_effectiveness(ev, 0, self.budget_phi),
            fm.micro_cost_of_effectiveness(ev, 1, self.budget_phi),
        )
        finite = both[np.isfinite(both)]
        percentiles = list(self.budget_percentiles)
        if len(finite):
            rule = f"micro_cost_of_effectiveness[phi={self.budget_phi:g}]"
            return distinct_values(np.percentile(finite, percentiles)), rule
        costs = ev.pair_cost[np.isfinite(ev.pair_cost)]
        if len(costs):
            self._warn(
                f"no subgroup lets {self.budget_phi:.0%} of both groups reach recourse, so the budgets are "
                f"percentiles {percentiles} of the valid actions' costs instead"
            )
            return distinct_values(np.percentile(costs, percentiles)), "valid_action_costs"
        self._warn("no valid action for any subgroup, so Equal Effectiveness within Budget is skipped")
        return (), "none"

    def _warn(self, message: str) -> None:
        self.warnings_.append(message)
        warnings.warn(f"FACTS: {message}", FactsWarning, stacklevel=3)

    def variants(self) -> list[MetricVariant]:
        """Return every ranked metric variant of the fitted audit."""
        out = [MetricVariant("equal_effectiveness", "micro"), MetricVariant("equal_effectiveness", "macro")]
        out += [MetricVariant("equal_choice_for_recourse", "macro", phi) for phi in self.phis_]
        for view in ("micro", "macro"):
            out += [MetricVariant("equal_effectiveness_within_budget", view, c) for c in self.budgets_]
        for view in ("micro", "macro"):
            out += [MetricVariant("equal_cost_of_effectiveness", view, phi) for phi in self.phis_]
        out += [MetricVariant("fair_effectiveness_cost_tradeoff", v) for v in ("micro", "macro")]
        out.append(MetricVariant("equal_conditional_mean_recourse", "micro"))
        return out

    def values(self, variant: MetricVariant) -> tuple[np.ndarray, np.ndarray]:
        """Return both groups' values of one metric variant for every subgroup."""
        ev, name, view, p = self.evaluation_, variant.metric, variant.viewpoint, variant.parameter
        if name == "equal_effectiveness":
            fn = fm.micro_effectiveness if view == "micro" else fm.macro_effectiveness
            return fn(ev, 0), fn(ev, 1)
        if name == "equal_choice_for_recourse":
            return fm.choice_count(ev, 0, p), fm.choice_count(ev, 1, p)
        if name == "equal_effectiveness_within_budget":
            budgeted = fm.micro_within_budget if view == "micro" else fm.macro_within_budget
            return budgeted(ev, 0, p), budgeted(ev, 1, p)
        if name == "equal_cost_of_effectiveness":
            costed = fm.micro_cost_of_effectiveness if view == "micro" else fm.macro_cost_of_effectiveness
            return costed(ev, 0, p), costed(ev, 1, p)
        if name == "equal_conditional_mean_recourse":
            return fm.conditional_mean_recourse(ev, 0), fm.conditional_mean_recourse(ev, 1)
        raise ConfigError("metric", f"no group values for {name!r}", "use the KS statistic columns instead")

    def _label(self, values: np.ndarray | list[int]) -> str:
        """Return ``"feature = value, ..."`` for a row of value codes (-1: feature left free)."""
        return ", ".join(self._items[j][int(c)] for j, c in enumerate(values) if c >= 0)

    def action_label(self, action: int, subgroup_id: int | None = None) -> str:
        """Return ``"feature = value, ..."`` for an action index.

        With ``subgroup_id``, only the action's changes to that subgroup are listed (the features
        it keeps at the subgroup's value are left out), which is what the action does there.
        """
        values = self.actions_.values[action]
        if subgroup_id is not None:
            values = np.where(values != self.subgroups_.values[subgroup_id], values, -1)
        return self._label(values)

    def ranking(self, metric: str | None = None, top: int | None = None) -> pd.DataFrame:
        """Return the ranked table, optionally one metric (name or key) and its ``top`` ranks.

        Rows are sorted by metric variant, then rank (most unfair first, fair last), then
        subgroup id. ``top`` keeps the rows with rank <= ``top`` (ties included).

        Raises:
            ConfigError: If ``metric`` names no metric of this audit.
        """
        table = self.ranking_
        if metric is not None:
            keep = (table["metric"] == metric) | (table["key"] == metric)
            if not keep.any():
                choices = sorted(set(METRICS) | set(table["key"].astype(str)))
                raise ConfigError("--metric", f"unknown metric {metric!r}", f"use one of {choices}")
            table = table[keep]
        if top is not None:
            table = table[table["rank"].fillna(np.iinfo(np.int64).max) <= top]
        order = table.assign(_r=table["rank"].fillna(np.iinfo(np.int64).max).astype(np.int64))
        keys = [v.key for v in self.variants()]
        order["_k"] = order["key"].astype(str).map({k: i for i, k in enumerate(keys)})
        return table.loc[order.sort_values(["_k", "_r", "subgroup_id"], kind="stable").index].reset_index(drop=True)


class FactsWarning(UserWarning):
    """A FACTS result is incomplete or chosen by a fallback rule (also listed in ``summary_["warnings"]``)."""


__all__ = ["METRICS", "TITLES", "FactsAuditor", "FactsWarning", "Itemsets", "MetricVariant"]
