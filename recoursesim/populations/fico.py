"""FICO population: credit applicants with real score distributions and repayment rates by group."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import numpy as np

from recoursesim._validate import check_list, check_str
from recoursesim.component import Component
from recoursesim.datasets.fico import FicoTables, load_fico, nearest_repay
from recoursesim.errors import ConfigError
from recoursesim.populations.base import Cohort, FoldedNormal, allocate
from recoursesim.registry import register


@register("population", "fico")
@dataclass(eq=False, repr=False)
class FicoPopulation(Component):
    """Applicants drawn from the FICO TransRisk tables: one feature, the score on the 300–850 scale.

    Group sizes follow the sample's head counts (``totals.csv``), split by largest-remainder
    rounding so a cohort's group sizes are exact. Each applicant's score is drawn from its group's
    score distribution (the differences of the group's CDF on the tables' score grid, converted to
    the 300–850 scale as :func:`~recoursesim.datasets.fico.to_fico_score` documents); its
    probability of repaying a loan is its group's performance table at its current score (at the
    nearest score the table lists, :func:`~recoursesim.datasets.fico.nearest_repay`, once the
    score has moved off the grid). Effort capacity, used
    only when the scenario gives rejected applicants recourse advice, is a folded normal in score
    points per step.

    Args:
        groups: The groups to draw, in order (default Black and White, as in Liu et al. 2018; the
            tables also hold Hispanic and Asian).
        effort: ``{mean, sd, scale}``: effort capacity ``scale * |N(mean, sd)|`` in score points.
        tables_dir: A folder holding your own ``transrisk_cdf_by_race_ssa.csv``,
            ``transrisk_performance_by_race_ssa.csv`` and ``totals.csv`` in the published format
            (default: the bundled tables). A table that is not a CDF, a default rate outside
            [0, 100] or a group missing from a table is refused with one line naming it.
    """

    #: Parameters the conformance checks build it with.
    check_params: ClassVar[dict[str, Any]] = {"groups": ["Black", "White"]}

    feature_names: ClassVar[tuple[str, ...]] = ("score",)

    groups: Sequence[str] = ("Black", "White")
    effort: Mapping[str, Any] | None = None
    tables_dir: str | None = None

    def __post_init__(self) -> None:
        names = [str(name) for name in check_list("groups", self.groups)]
        folder = None if self.tables_dir is None else check_str("tables_dir", self.tables_dir)
        try:
            self._tables = load_fico(folder, groups=names)
        except ConfigError as error:  # a bad table of the user's is named under tables_dir
            raise (error if folder is None or error.field == "groups" else error.under("tables_dir")) from None
        effort = self.effort
        self._effort = FoldedNormal.from_spec("effort", effort) if effort is not None else FoldedNormal(0.0, 1.0, 0.0)
        self.group_names = tuple(names)
        self._grid = self._tables.score
        self._pmf = np.stack([self._tables.pmf(name) for name in names])
        self._repay = np.stack([self._tables.repay[name] for name in names])
        sizes = np.array([self._tables.totals[name] for name in names], dtype=float)
        self._shares = sizes / sizes.sum()

    @property
    def tables(self) -> FicoTables:
        """The FICO tables of the groups drawn."""
        return self._tables

    def fit(self, rng: np.random.Generator) -> Self:
        """Nothing to learn; returns ``self``."""
        return self

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        """Draw ``n`` applicants, group blocks in the order the groups are listed."""
        counts = allocate(n, self._shares)
        scores, groups = [], []
        for code, count in enumerate(counts):
            scores.append(self._grid[rng.choice(self._grid.size, size=int(count), p=self._pmf[code])])
            groups.append(np.full(int(count), code, dtype=np.int16))
        effort = self._effort.sample(n, rng)
        return Cohort(np.concatenate(scores)[:, None], np.concatenate(groups), effort)

    def repay_probability(self, features: np.ndarray, group: np.ndarray) -> np.ndarray:
        """Each applicant's repayment probability: its group's performance table at its score."""
        score = np.asarray(features, dtype=float)[:, 0]
        group = np.asarray(group)
        out = np.empty(score.size)
        for code in range(len(self.group_names)):
            members = group == code
            out[members] = nearest_repay(self._grid, self._repay[code], score[members])
        return out
