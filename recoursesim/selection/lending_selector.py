"""Liu et al.'s lending criteria as a selector: thresholds computed from the current applicants.

Each step the applicants' scores and repayment probabilities (given by the population, see
:class:`~recoursesim.features.capabilities.GivesRepayment`) make one
:class:`~recoursesim.selection.lending.LendingGroup` per group: the distinct scores of all
applicants as the shared grid, the group's share at each, and the repayment probability there.
The criterion of :mod:`recoursesim.selection.lending` turns these into a policy ``τ_g(x)``; the
applicants of group ``g`` at score ``x`` get a loan in the proportion ``τ_g(x)``, rounded to whole
applicants, the longest-waiting first (then the lowest id), so a selection needs no random draw.
The threshold is, per applicant, the lowest score lent to in its group (the top score of the step
when the group gets no loan): recourse advice aims at it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from recoursesim._validate import check_choice
from recoursesim.component import Component
from recoursesim.errors import ConfigError
from recoursesim.registry import register
from recoursesim.selection.base import Selection, SelectionContext, check_scores
from recoursesim.selection.lending import CRITERIA, LendingGroup, Utility, gain_table


@register("selector", "lending")
class LendingSelector(Component):
    """Lends by one of Liu et al. (2018)'s criteria: maximum utility, demographic parity or equal opportunity.

    Args:
        criterion: ``max_utility`` (group-aware), ``max_utility_blind`` (one cut-off),
            ``demographic_parity`` or ``equal_opportunity``.
        utility: ``{repaid = u₊ > 0, default = u₋ < 0}``, the lender's gain and loss per loan
            (the paper's 1 and −4 by default).
    """

    #: Parameters the conformance checks build it with.
    check_params: ClassVar[dict[str, Any]] = {"criterion": "demographic_parity"}

    def __init__(self, criterion: str = "max_utility", utility: dict[str, float] | None = None) -> None:
        self.criterion = check_choice("criterion", criterion, tuple(CRITERIA))
        self.utility = utility
        self._utility = Utility(**gain_table("utility", utility))

    def select(self, scores: np.ndarray, context: SelectionContext) -> Selection:
        """Lend by the criterion, computed from this step's applicants (see the module docstring)."""
        scores = check_scores(scores, context)
        if context.repay is None:
            raise ConfigError(
                "selection",
                f"{self.criterion} needs each applicant's repayment probability, which this population does not give",
                'use a population that gives it (name = "fico")',
            )
        selected = np.zeros(scores.size, dtype=bool)
        if scores.size == 0:
            return Selection(selected, float("inf"))  # nobody to lend to: no score is enough
        grid, cell = np.unique(scores, return_inverse=True)
        present = np.unique(context.group)
        groups = [self._group(int(g), grid, cell, context) for g in present]
        policies = CRITERIA[self.criterion](groups, self._utility)
        threshold = np.full(scores.size, float(grid[-1]))
        order = np.lexsort((context.agent_id, context.entry_step, cell, context.group))  # by group, then cell
        key = context.group[order].astype(np.int64) * grid.size + cell[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
        for g, group, policy in zip(present, groups, policies, strict=True):
            members = context.group == g
            counts = group.pmf * members.sum()
            quota = np.rint(policy * counts).astype(np.int64)  # applicants lent to at each score
            chosen = rank < quota[cell[order]]
            selected[order[chosen & (context.group[order] == g)]] = True
            lent = np.flatnonzero(quota > 0)
            if lent.size:
                threshold[members] = grid[lent[0]]
        return Selection(selected, threshold)

    @staticmethod
    def _group(code: int, grid: np.ndarray, cell: np.ndarray, context: SelectionContext) -> LendingGroup:
        """One group's share and mean repayment probability at each score of the grid."""
        assert context.repay is not None
        members = context.group == code
        counts = np.bincount(cell[members], minlength=grid.size).astype(float)
        repay_sum = np.bincount(cell[members], weights=context.repay[members], minlength=grid.size)
        repay = np.divide(repay_sum, counts, out=np.zeros(grid.size), where=counts > 0)
        return LendingGroup(str(code), grid, counts / counts.sum(), repay, counts.sum())
