"""The FACTS ranking table: every metric variant's values, score, rank and bias per subgroup."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from recoursesim.auditors.facts import metrics as fm
from recoursesim.auditors.facts.effects import Evaluation


def ranking_table(auditor: Any, ev: Evaluation, n_group: np.ndarray) -> pd.DataFrame:
    """Return the tidy ranked table: one row per (subgroup, metric variant) of a fitted auditor.

    Args:
        auditor: The :class:`~recoursesim.auditors.facts.FactsAuditor` being fitted (its
            variants, group values, names, labels and ``alpha``).
        ev: Its evaluation.
        n_group: Affected individuals per group.
    """
    m = len(ev.sizes)
    names = np.array(auditor.group_names_, dtype=object)
    n_actions = np.bincount(ev.pair_subgroup, minlength=m)
    labels = pd.Categorical(auditor.subgroup_labels_) if m else pd.Categorical([])
    frames = []
    for variant in auditor.variants():
        critical = np.full(m, np.nan)
        ks_fair = pd.array([pd.NA] * m, dtype="boolean")
        if variant.metric == "fair_effectiveness_cost_tradeoff":
            stat, against = (fm.micro_ks if variant.viewpoint == "micro" else fm.macro_ks)(ev)
            value0 = value1 = np.full(m, np.nan)
            score = np.where(stat < fm.TOLERANCE, 0.0, stat)
            against = np.where(score > 0, against, -1)
            critical = fm.ks_critical(ev.sizes[:, 0], ev.sizes[:, 1], auditor.alpha)
            ks_fair = pd.array(score < critical, dtype="boolean")
        else:
            value0, value1 = auditor.values(variant)
            higher = variant.metric not in ("equal_cost_of_effectiveness", "equal_conditional_mean_recourse")
            score, against = fm.compare(value0, value1, higher)
        rank = fm.dense_rank(score)
        frames.append(
            pd.DataFrame(
                {
                    "subgroup_id": np.arange(m),
                    "subgroup": labels,
                    "metric": variant.metric,
                    "viewpoint": variant.viewpoint,
                    "parameter": variant.parameter,
                    "key": variant.key,
                    "group_0": names[0],
                    "value_0": value0,
                    "group_1": names[1],
                    "value_1": value1,
                    "score": score,
                    "fair": score == 0,
                    "rank": pd.array(np.where(rank > 0, rank, np.nan), dtype="Int64"),  # NaN -> <NA>
                    "bias_against": pd.array(np.where(against >= 0, names[np.maximum(against, 0)], None)),
                    "size_0": ev.sizes[:, 0],
                    "size_1": ev.sizes[:, 1],
                    "coverage_0": ev.sizes[:, 0] / n_group[0],
                    "coverage_1": ev.sizes[:, 1] / n_group[1],
                    "n_actions": n_actions,
                    "ks_critical": critical,
                    "ks_fair": ks_fair,
                }
            )
        )
    table = pd.concat(frames, ignore_index=True)
    for column in ("metric", "viewpoint", "key", "group_0", "group_1", "bias_against"):
        table[column] = table[column].astype("category")
    return table
