"""How many rows make an itemset frequent: a support fraction and an absolute minimum count.

FACTS mines subgroups in each protected group's affected rows and actions in the unaffected rows.
A fraction alone is the paper's rule, but on a small population it asks for almost nothing: with
31 affected rows, 1% is a third of a row, so every combination of values seen once is a subgroup
and the miner enumerates tens of millions of them. :class:`SupportRule` therefore combines the
fraction with a minimum number of rows; an itemset is frequent when both hold. The rule for the
fraction is mlxtend's, so with ``min_count=1`` the itemsets are exactly those of its fp-growth: with
``n`` rows and support ``s``, an itemset covering ``c`` rows is frequent when ``c / n >= s`` and, for
two or more items, also ``c >= ceil(s * n)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from recoursesim.errors import ConfigError

#: The paper's support fraction, used when none is given.
DEFAULT_SUPPORT = 0.01

#: Rows an itemset needs in each population when neither a fraction nor a count is given.
DEFAULT_MIN_COUNT = 10


@dataclass(frozen=True)
class SupportRule:
    """A support fraction and a minimum row count; an itemset must meet both.

    Attributes:
        fraction: Minimum share of the population's rows, in (0, 1].
        min_count: Minimum number of rows (at least 1).
    """

    fraction: float
    min_count: int

    def fraction_rows(self, n: int) -> int:
        """Return the rows the fraction alone asks for among ``n`` (mlxtend's ``ceil(s * n)``)."""
        return max(1, math.ceil(self.fraction * n))

    def least_rows(self, n: int) -> int:
        """Return the fewest rows a frequent itemset of ``n`` rows covers."""
        return max(self.fraction_rows(n), self.min_count)

    def binding(self, n: int) -> str:
        """Return which bound decides among ``n`` rows: ``"min_count"`` or ``"support"`` (ties: support)."""
        return "min_count" if self.min_count > self.fraction_rows(n) else "support"

    def frequent(self, counts: np.ndarray, n: int, single: bool) -> np.ndarray:
        """Return which itemsets covering ``counts`` rows (of ``n``) are frequent.

        Args:
            counts: Rows covered by each itemset.
            n: Rows of the population.
            single: Whether the itemsets have one item (mlxtend checks those by the fraction only).
        """
        ok = (counts / float(n) >= self.fraction) & (counts >= self.min_count)
        if not single:
            ok &= counts >= math.ceil(self.fraction * n)
        return ok

    def mlxtend_fraction(self, n: int) -> float:
        """Return the fraction to give mlxtend's fp-growth so it finds exactly this rule's itemsets.

        When the count binds, ``(min_count - 0.5) / n`` admits exactly the itemsets with at least
        ``min_count`` rows (no rounding of ``min_count / n * n`` up to ``min_count + 1``).
        """
        if self.binding(n) == "min_count":
            return (self.min_count - 0.5) / n
        return self.fraction

    def describe(self, n: int, rows: str) -> str:
        """Return e.g. ``">= 10 of 31 affected female rows (min_count binds; 1% asks for 1)"``."""
        least = self.least_rows(n)
        if self.binding(n) == "min_count":
            why = f"min_count binds; support {self.fraction:g} asks for {self.fraction_rows(n)}"
        else:
            why = f"support {self.fraction:g} binds; min_count is {self.min_count}"
        return f">= {least} of {n} {rows} ({why})"


def resolve_support(min_support: float | None, min_count: int | None, name: str = "min_support") -> SupportRule:
    """Turn the auditor's ``min_support`` and ``min_count`` into a :class:`SupportRule`.

    Neither given: :data:`DEFAULT_SUPPORT` and :data:`DEFAULT_MIN_COUNT`. A fraction alone is the
    fraction alone (``min_count`` 1, the paper's rule). A count alone: the count, with the default
    fraction. Both: both.

    Raises:
        ConfigError: For a fraction outside (0, 1] or a count below 1.
    """
    count_name = "min_count" if name == "min_support" else "action_min_count"
    if min_support is not None and (
        isinstance(min_support, bool) or not isinstance(min_support, int | float) or not 0 < min_support <= 1
    ):
        raise ConfigError(name, f"must be in (0, 1], got {min_support!r}", "use a fraction such as 0.01")
    if min_count is not None and (
        isinstance(min_count, bool) or not isinstance(min_count, int | np.integer) or min_count < 1
    ):
        raise ConfigError(count_name, f"must be a whole number >= 1, got {min_count!r}", "use e.g. 10")
    fraction = DEFAULT_SUPPORT if min_support is None else float(min_support)
    count = (DEFAULT_MIN_COUNT if min_support is None else 1) if min_count is None else int(min_count)
    return SupportRule(fraction, count)


def support_line(bounds: Sequence[Any], subgroups: SupportRule, actions: SupportRule) -> str:
    """Return the one-line note of how many rows subgroups and actions need, and which bound decided.

    Args:
        bounds: The mined populations (the two groups' affected rows, then the unaffected), each
            with ``name`` and ``rows``
            (:class:`~recoursesim.auditors.facts.estimate.PopulationBound`).
        subgroups: The subgroups' rule.
        actions: The actions' rule.
    """
    parts = [subgroups.describe(b.rows, f"{b.name} rows") for b in bounds[:-1]]
    action_part = actions.describe(bounds[-1].rows, "unaffected rows")
    return f"support: subgroups need {' and '.join(parts)}; actions need {action_part}"
