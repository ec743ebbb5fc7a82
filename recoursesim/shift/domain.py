"""Domain shift: how far the waiting population has moved from the step-0 population (MMD)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim._validate import check_bool, check_int
from recoursesim.component import Component
from recoursesim.observers import PopulationSnapshot
from recoursesim.registry import register
from recoursesim.shift._common import check_name, rows, step_zero
from recoursesim.shift.mmd import check_bandwidth, median_bandwidth, mmd_test


@register("observer", "domain_shift")
class DomainShiftObserver(Component):
    """MMD between the step-0 population and the current waiting population, overall and per group.

    The reference is the population scored at step 0, before anyone acted (from the ledger). Both
    samples are standardised with the reference's per-feature mean and standard deviation, and
    each is subsampled (without replacement) to at most ``max_samples`` agents. The Gaussian
    kernel's bandwidth is fixed once per run: a number, or the median heuristic applied to the
    (standardised, subsampled) reference, so values at different steps are on one scale. The
    p-value comes from a permutation test (see :func:`recoursesim.shift.mmd.mmd_test`).

    Args:
        every: Observe every ``every`` steps.
        bandwidth: ``"median"`` or a kernel bandwidth > 0 (in standard deviations).
        permutations: Permutations for the p-value (0: no p-value).
        max_samples: At most this many agents per sample and test.
        by_group: Also test each group's current agents against the same group at step 0.
        name: Observer name in the observations.
    """

    def __init__(
        self,
        every: int = 1,
        bandwidth: float | str = "median",
        permutations: int = 100,
        max_samples: int = 200,
        by_group: bool = True,
        name: str = "domain_shift",
    ) -> None:
        self.every = every
        check_int("every", every, minimum=1)
        self.bandwidth = bandwidth
        self._bandwidth = check_bandwidth(bandwidth)
        self.permutations = permutations
        check_int("permutations", permutations, minimum=0)
        self.max_samples = max_samples
        check_int("max_samples", max_samples, minimum=2)
        self.by_group = check_bool("by_group", by_group)
        self.name = name
        check_name(name)
        self._reference: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None = None

    def observe(self, snapshot: PopulationSnapshot) -> pd.DataFrame:
        """Return rows ``group, metric, value`` with ``mmd2``, ``p_value`` and ``n`` (plus ``bandwidth``).

        ``group`` is NA for the whole population. A sample with fewer than two agents gives NaN.
        """
        reference, ref_group, mean, sd, h = self._reference_of(snapshot)
        current = (np.asarray(snapshot.features, dtype=float) - mean) / sd
        group = np.asarray(snapshot.group).astype(np.int64)
        entries: list[tuple[object, str, float]] = [(pd.NA, "bandwidth", h)]
        parts: list[tuple[object, np.ndarray, np.ndarray]] = [(pd.NA, reference, current)]
        if self.by_group:
            for code, group_name in enumerate(snapshot.group_names):
                parts.append((group_name, reference[ref_group == code], current[group == code]))
        for label, ref, now in parts:
            if ref.shape[0] < 2 or now.shape[0] < 2:
                entries += [(label, "mmd2", np.nan), (label, "p_value", np.nan), (label, "n", float(now.shape[0]))]
                continue
            result = mmd_test(
                self._subsample(ref, snapshot.rng),
                self._subsample(now, snapshot.rng),
                bandwidth=h,
                permutations=self.permutations,
                rng=snapshot.rng,
            )
            entries += [(label, "mmd2", result.mmd2), (label, "p_value", result.p_value), (label, "n", now.shape[0])]
        return rows(entries)

    def _reference_of(
        self, snapshot: PopulationSnapshot
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        if self._reference is None or snapshot.step == 0:
            record, groups = step_zero(snapshot)
            features = np.asarray(record.features, dtype=float)
            mean = features.mean(axis=0)
            sd = features.std(axis=0)
            sd = np.where(sd > 0, sd, 1.0)
            standard = (features - mean) / sd
            median = self._bandwidth == "median"
            h = median_bandwidth(self._subsample(standard, snapshot.rng)) if median else float(self._bandwidth)
            self._reference = (standard, groups, mean, sd, h)
        return self._reference

    def _subsample(self, sample: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if sample.shape[0] <= self.max_samples:
            return sample
        return sample[np.sort(rng.choice(sample.shape[0], self.max_samples, replace=False))]
