"""How large a FACTS audit will be, from the data, before mining; refuse what cannot fit in memory.

For each population FACTS mines (each protected group's affected rows, the unaffected rows), the
frequent single items and the frequent pairs of items are counted exactly (one matrix product).
Every longer frequent itemset has all its pairs frequent, so within a row it is a clique of the
row's frequent pairs; a row whose items form ``p`` frequent pairs holds at most ``C(x, l)``
cliques of ``l`` items where ``C(x, 2) = p`` (Kruskal-Katona), and never more than ``C(d, l)``
with ``d`` frequent items. A frequent itemset covers at least ``least`` rows, so the number of
frequent itemsets of three or more items is at most the sum of those per-row counts divided by
``least``; and at most the number of ways to pick at most one frequent value per feature. The
same per-row sums bound the membership entries (itemset, covered row) the scoring works through.

Memory and time are taken as linear in those counts, with constants chosen to stay above the peaks
``benchmarks/facts.py`` measures (German credit defaults: estimate 0.7 GiB, peak 0.26 GB; Adult
defaults: 1.4 GiB, 0.67 GB). The counts are upper bounds, so the estimate is pessimistic where the
bounds are loose (many rows that share few long itemsets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import binom

from recoursesim.auditors.facts.encoding import ItemSpace
from recoursesim.auditors.facts.support import SupportRule
from recoursesim.errors import ConfigError
from recoursesim.resources import ABSURD_BYTES, available_memory, format_bytes

#: Memory of an audit whatever its size (interpreter, libraries, model, data).
BASE_BYTES = 250 * 2**20
#: Peak bytes per mined itemset and feature (codes, item indices, sort keys, intersection).
BYTES_PER_ITEMSET_FEATURE = 24
#: Peak bytes per membership entry (index, group, cost, sort order, per-plan scoring arrays).
BYTES_PER_ENTRY = 64
#: Seconds per mined itemset and feature.
SECONDS_PER_ITEMSET_FEATURE = 1.5e-7
#: Populations up to this many rows also get the bound over pairs of rows (quadratic in rows).
PAIR_ROWS = 12_000
#: Seconds per membership entry.
SECONDS_PER_ENTRY = 2e-6


@dataclass(frozen=True)
class PopulationBound:
    """What the data says about the itemsets of one mined population.

    Attributes:
        name: E.g. ``"affected female"`` or ``"unaffected"``.
        rows: Rows of the population.
        least: Rows a frequent itemset needs.
        binding: Which bound decided ``least``: ``"support"`` or ``"min_count"``.
        items: Frequent single items (exact).
        pairs: Frequent pairs (exact).
        itemsets: Upper bound on the frequent itemsets (singles and pairs exact, the rest bounded).
        entries: Upper bound on (itemset, covered row) entries.
    """

    name: str
    rows: int
    least: int
    binding: str
    items: int
    pairs: int
    itemsets: int
    entries: int


def population_bound(
    space: ItemSpace, rows: np.ndarray, features: list[int], rule: SupportRule, name: str
) -> PopulationBound:
    """Count the frequent items and pairs of ``rows`` exactly and bound the longer itemsets.

    Args:
        space: The encoded data.
        rows: The population's row indices.
        features: Features whose values may appear in itemsets.
        rule: The support rule.
        name: The population's name in messages.
    """
    n = len(rows)
    least = rule.least_rows(n) if n else 0
    binding = rule.binding(n) if n else "support"
    codes = space.codes[rows][:, sorted(features)]
    hot: list[np.ndarray] = []
    per_feature: list[int] = []
    for column in codes.T:
        counts = np.bincount(column[column >= 0])
        frequent = np.flatnonzero(rule.frequent(counts, n, single=True))
        per_feature.append(len(frequent))
        hot.extend(column == value for value in frequent)
    if not hot:  # no rows, no features, or no frequent item
        return PopulationBound(name, n, least, binding, 0, 0, 0, 0)
    H = np.array(hot, dtype=np.float32).T  # (n, q)
    together = H.T @ H  # exact: counts below 2**24
    frequent_pair = rule.frequent(together, n, single=False)
    np.fill_diagonal(frequent_pair, False)  # two values of one feature never share a row anyway
    adjacency = frequent_pair.astype(np.float32)
    d_row = H.sum(axis=1).astype(np.float64)
    p_row = ((H @ adjacency) * H).sum(axis=1).astype(np.float64) / 2
    x_row = (1 + np.sqrt(1 + 8 * p_row)) / 2  # C(x, 2) = p
    longer = np.zeros(n)
    for size in range(3, int(d_row.max(initial=0)) + 1):
        possible = x_row >= size
        longer += np.where(possible, np.minimum(binom(np.maximum(x_row, size), size), binom(d_row, size)), 0.0)
    pairs = int(frequent_pair.sum() // 2)
    items = len(hot)
    product = float(np.prod(np.asarray(per_feature, dtype=float) + 1) - 1)
    longer_sets, longer_entries = float(longer.sum()) / least, float(longer.sum())
    if least >= 3 and n <= PAIR_ROWS:
        shared = _shared_subsets(H)
        longer_sets = min(longer_sets, shared / float(binom(least, 2)))
        longer_entries = min(longer_entries, 2 * shared / (least - 1))
    itemsets = min(product, items + pairs + longer_sets)
    entries = float(d_row.sum() + p_row.sum() + longer_entries)
    return PopulationBound(name, n, least, binding, items, pairs, _whole(itemsets), _whole(entries))


def _shared_subsets(H: np.ndarray, block: int = 1024) -> float:
    """Return the sum over pairs of distinct rows of their shared subsets of three or more frequent items.

    A frequent itemset of ``c`` rows is shared by ``C(c, 2)`` pairs of rows, so this sum divided by
    ``C(least, 2)`` bounds the longer itemsets (tight where rows differ, unlike the per-row bound).
    """
    total = 0.0
    n = len(H)
    for lo in range(0, n, block):
        common = (H[lo : lo + block] @ H[lo:].T).astype(np.int64)  # pairs (i, j) with j >= i
        common = np.triu(common, k=1)  # each pair once, no row with itself
        counts = np.bincount(common.ravel())
        sizes = np.arange(len(counts), dtype=float)
        total += float((counts * (2.0**sizes - 1 - sizes - sizes * (sizes - 1) / 2)).sum())
    return total


def _whole(value: float) -> int:
    return int(min(value, 2.0**62))


@dataclass(frozen=True)
class AuditEstimate:
    """Upper bounds on the size of one FACTS audit, with the memory and time they imply.

    Attributes:
        populations: One bound per mined population (the groups' affected rows, the unaffected).
        features: Number of features.
        bytes: Estimated peak memory.
        seconds: Estimated time on one core.
    """

    populations: tuple[PopulationBound, ...]
    features: int
    bytes: int
    seconds: float

    @property
    def subgroups(self) -> int:
        """Upper bound on the common subgroups (each group's bound; the common ones are fewer)."""
        return min(p.itemsets for p in self.populations[:-1])

    @property
    def actions(self) -> int:
        """Upper bound on the actions."""
        return self.populations[-1].itemsets

    def line(self) -> str:
        """Return the one-line summary printed before mining."""
        return (
            f"estimate: at most {self.subgroups:,} subgroups and {self.actions:,} actions, "
            f"about {format_bytes(self.bytes)} and {_duration(self.seconds)}"
        )


def estimate_audit(populations: list[PopulationBound], features: int) -> AuditEstimate:
    """Turn per-population bounds into memory and time (the constants of this module)."""
    itemsets = sum(p.itemsets for p in populations)
    groups = populations[:-1]
    # Every membership entry of a common subgroup is an entry of both groups' bounds.
    entries = sum(p.entries for p in groups)
    work = itemsets * features
    size = BASE_BYTES + work * BYTES_PER_ITEMSET_FEATURE + entries * BYTES_PER_ENTRY
    seconds = work * SECONDS_PER_ITEMSET_FEATURE + entries * SECONDS_PER_ENTRY
    return AuditEstimate(tuple(populations), features, _whole(size), seconds)


class MemoryGuard:
    """Refuse an audit that will not fit in memory: first by the bound, then while mining.

    The bound before mining is pessimistic where rows share few long itemsets, so exceeding the
    available memory with it does not refuse yet: mining then goes on with the itemsets counted
    as they are found, and stops with the refusal as soon as the itemsets found so far (with the
    audit's base memory) would need more than is available. Absurd bounds are refused outright,
    even with ``force``.

    Args:
        estimate: The estimate before mining.
        force: Never refuse (except absurd sizes).
        fix: What the user can change, for the message.
    """

    def __init__(self, estimate: AuditEstimate, force: bool, fix: str) -> None:
        self.estimate = estimate
        self.fix = fix
        self.found = 0
        what = f"at most {estimate.subgroups:,} subgroups and {estimate.actions:,} actions"
        if estimate.bytes > ABSURD_BYTES:
            raise ConfigError("support", f"the audit needs about {format_bytes(estimate.bytes)} ({what})", fix)
        self.available = None if force else available_memory()
        self.watching = self.available is not None and estimate.bytes > self.available
        self.per_itemset = estimate.features * BYTES_PER_ITEMSET_FEATURE

    def count(self, found: int) -> None:
        """Count ``found`` more mined itemsets; raise once they would not fit.

        Raises:
            ConfigError: One line naming the itemsets found, the memory they need, the memory
                available and the fix.
        """
        self.found += found
        if not self.watching or self.available is None:
            return
        needed = BASE_BYTES + self.found * self.per_itemset
        if needed > self.available:
            raise ConfigError(
                "support",
                f"mining stopped after {self.found:,} itemsets, which need about {format_bytes(needed)} of the "
                f"{format_bytes(self.available)} available (bound before mining: {format_bytes(self.estimate.bytes)})",
                f"{self.fix}; or add --force (force=True) to try anyway",
            )


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
