"""The frequent-itemset miners FACTS can use: level-wise counting on bit sets, or mlxtend's fp-growth.

Both return the same itemsets (tested on the bundled data sets); they differ in speed. ``"bitset"``
(:func:`recoursesim.auditors.facts.apriori.frequent`, the default) counts a whole level of
candidates at once with vectorised bit operations; ``"mlxtend"`` is
``mlxtend.frequent_patterns.fpgrowth``, the miner the FACTS authors used, written in Python.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from recoursesim.auditors.facts.support import SupportRule

#: Miner names accepted by :class:`~recoursesim.auditors.facts.FactsAuditor` (``miner=``).
MINERS: tuple[str, ...] = ("bitset", "mlxtend")


def mlxtend_levels(hot: np.ndarray, n: int, rule: SupportRule) -> list[np.ndarray]:
    """Mine with mlxtend's fp-growth; return the itemsets level by level as item indices.

    Args:
        hot: ``(q, n)`` boolean matrix: which rows hold each candidate item (items in feature
            order, so sorted item indices have increasing features).
        n: Number of rows.
        rule: The support rule (its fraction and count are turned into one fp-growth fraction).

    Returns:
        Per level ``k = 1, 2, ...``, a ``(m_k, k)`` int64 array of item indices, ascending within a row.
    """
    from mlxtend.frequent_patterns import fpgrowth

    table = pd.DataFrame(hot.T, columns=range(hot.shape[0]))
    found = fpgrowth(table, min_support=rule.mlxtend_fraction(n))
    itemsets = [sorted(itemset) for itemset in found["itemsets"]]
    by_length: dict[int, list[list[int]]] = {}
    for itemset in itemsets:
        by_length.setdefault(len(itemset), []).append(itemset)
    return [np.array(by_length[k], dtype=np.int64).reshape(-1, k) for k in sorted(by_length)]
