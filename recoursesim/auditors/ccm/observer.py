"""Per-step CCM observer: how often the current decision rule switches when an agent changes group."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from recoursesim._validate import check_int, check_list
from recoursesim.auditors.ccm.mapping import ordinal_map, quantile_map
from recoursesim.auditors.ccm.matrix import ccm
from recoursesim.auditors.ccm.metrics import ccm_metrics
from recoursesim.auditors.too_few import too_few_rows
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register


@register("observer", "ccm")
class CounterfactualSwitchObserver(Component):
    """Counterfactual Confusion Matrix observer (CCM switch rates per group and step).

    Each waiting agent of group A gets, for every other group B present, a counterfactual whose
    features are quantile-mapped from A's current feature distribution to B's (ordinal features
    by nearest CDF; on a dataset population also integer and ordinal features, while categorical
    features keep their category unless they are the group itself). The current decision rule
    (``score < threshold`` is negative) classifies both; the result is the CCM of each direction
    A→B with its switch rates.

    Args:
        every: Observe every ``every`` steps.
        ordinal: Feature names mapped by nearest CDF instead of interpolation.
        name: Observer name in the model's observations.

    Attributes:
        name: Observer name.
        every: Observation period in steps.
    """

    def __init__(self, every: int = 1, ordinal: Sequence[str] = (), name: str = "ccm") -> None:
        check_int("every", every, minimum=1)
        self.every = every
        self.ordinal = ordinal
        self._ordinal = tuple(check_list("ordinal", ordinal))
        self.name = name

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Return rows ``group, metric, value`` with ``n, CP, SN, SP, CN, SR, PSR, NSR, CMCC``.

        ``group`` is the source group's name with two groups, ``"A→B"`` with more.
        """
        features = np.asarray(snapshot.features, dtype=float)
        codes = np.asarray(snapshot.group).astype(np.int64)
        unknown = set(self._ordinal) - set(snapshot.feature_names)
        if unknown:
            raise ConfigError("ordinal", f"unknown feature(s) {sorted(unknown)}", "name features of the population")
        is_ordinal = np.array([f in self._ordinal for f in snapshot.feature_names], dtype=bool)
        categorical = np.zeros(features.shape[1], dtype=bool)
        if snapshot.schema is not None:  # whole-number features map by nearest CDF; categories see below
            is_ordinal |= snapshot.schema.is_integer | snapshot.schema.is_ordinal
            categorical = snapshot.schema.is_categorical
        present = [int(c) for c in np.unique(codes)]
        threshold = snapshot.agent_thresholds()
        rows: list[dict[str, object]] = []
        if len(present) < 2 or features.shape[0] == 0:
            return too_few_rows(f"{len(present)} group(s) among {features.shape[0]} agents, CCM needs two")
        if np.isnan(threshold).all():
            raise ConfigError("threshold", "the snapshot has no threshold", "observe after the first selection")
        pred = snapshot.scorer.score(features) >= threshold
        many = len(present) > 2
        for a in present:
            in_a = codes == a
            for b in (c for c in present if c != a):
                in_b = codes == b
                cf = features[in_a].copy()
                for j in range(features.shape[1]):
                    if categorical[j]:
                        cf[:, j] = _category_map(features[in_a, j], features[in_b, j])
                        continue
                    mapper = ordinal_map if is_ordinal[j] else quantile_map
                    cf[:, j] = mapper(features[in_a, j], features[in_a, j], features[in_b, j])
                pred_cf = snapshot.scorer.score(cf) >= threshold[in_a]
                counts = ccm(pred[in_a].astype(int), pred_cf.astype(int))
                rates = ccm_metrics(counts)
                label = snapshot.group_names[a] if not many else f"{snapshot.group_names[a]}→{snapshot.group_names[b]}"
                values = {"n": float(in_a.sum()), **counts, **{k: rates[k] for k in ("SR", "PSR", "NSR", "CMCC")}}
                rows.extend({"group": label, "metric": k, "value": float(v)} for k, v in values.items())
        return pd.DataFrame(rows, columns=["group", "metric", "value"])


def _category_map(source: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Counterfactual values of a categorical feature (codes) for agents moved from one group to another.

    Categories have no order, so there is no quantile to match: a feature that is constant within
    both groups (the protected attribute itself, such as sex) takes the other group's value, and
    any other categorical feature keeps the agent's own category.
    """
    if source.size and target.size and np.all(source == source[0]) and np.all(target == target[0]):
        return np.full(source.shape, target[0])
    return source.copy()
