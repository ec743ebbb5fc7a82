"""The three populations FACTS mines, and mining them with progress bars under the memory guard.

Subgroups are mined in each protected group's affected rows, actions in the unaffected rows.
Before mining, each population's itemsets are bounded from the data
(:mod:`recoursesim.auditors.facts.estimate`); mining then reports every block of itemsets it
finds to a progress bar and to the :class:`~recoursesim.auditors.facts.estimate.MemoryGuard`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.estimate import MemoryGuard
from recoursesim.auditors.facts.mining import Itemsets, frequent_itemsets
from recoursesim.auditors.facts.support import SupportRule
from recoursesim.sweep.progress import Progress, progress_bar


@dataclass(frozen=True)
class Population:
    """Rows to mine, the features their itemsets may fix, and the support rule.

    Attributes:
        name: E.g. ``"affected female"`` or ``"unaffected"``.
        rows: Row indices into the encoded data.
        features: Feature indices.
        rule: The support rule.
    """

    name: str
    rows: np.ndarray
    features: list[int]
    rule: SupportRule


def mine_populations(
    space: ItemSpace, populations: list[Population], miner: str, progress: bool | None, guard: MemoryGuard
) -> list[Itemsets]:
    """Mine each population's frequent itemsets, counting them on a bar and against the guard.

    Raises:
        ConfigError: From the guard, as soon as the itemsets found would not fit in memory.
    """
    found = []
    for population in populations:
        bar = progress_bar(
            None, 0, enabled=progress, description=f"mining {population.name}", unit="itemsets", transient=True
        )

        def counted(n: int, bar: Progress = bar) -> None:
            guard.count(n)
            bar.update(n)

        try:
            found.append(
                frequent_itemsets(space, population.rows, population.features, population.rule, miner, counted)
            )
        finally:
            bar.close()
    return found
