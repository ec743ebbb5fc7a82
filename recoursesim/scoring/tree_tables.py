"""Exact, vectorised scoring of the built-in gradient-boosting model by leaf tables.

Scikit-learn's :class:`~sklearn.ensemble.HistGradientBoostingClassifier` walks every tree once per
row, one call per tree, after validating its input. The search generator scores tens of
thousands of rows per step in many small batches, so that per-call work and the per-row walk
dominate a run. :class:`BoostingTables` gives the same numbers another way, for the built-in
models (a :func:`~recoursesim.scoring.encoding.builtin_pipeline` ending in a binary
histogram gradient-boosting classifier):

- The leaves of each tree are numbered left to right, and every split node knows the set of
  leaves in its left subtree (a bit mask). A row exits a tree at the leftmost leaf that is not in
  the left subtree of any split whose test it fails (the row goes right there): the lowest set
  bit of the AND of those nodes' complemented masks.
- Every split tests one encoded column, and every encoded column comes from one code-space
  feature. For a numeric, integer or ordinal feature the failed tests of a row are the splits
  whose threshold lies below its encoded value: a prefix of that feature's thresholds in sorted
  order, so one table row per prefix holds the AND over all trees, and a binary search finds
  it. For a categorical feature there is one table row per category (and one for a code outside
  the categories).
- Small tables of several features are merged into one table of all their combinations (one
  look-up serves them all).
- A row's leaf in every tree is then one table look-up and one AND per table; the raw score
  is the baseline plus the leaf values in tree order, added one at a time as scikit-learn adds
  them, so the result is bit-for-bit the same (a check against scikit-learn on rows at every
  threshold runs when the tables are built, and the tables are not used if it fails).

Rows that differ from a known row in one feature (the search generator's probes, and its tries
at undoing one change) are scored by :meth:`BoostingTables.raw_edits`: the known row's look-ups
are made once, and per table the AND of all the other tables' look-ups kept, so an edited row
needs one look-up and one AND before its leaves are read.

Rows with a missing value (NaN) are scored by scikit-learn itself.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from recoursesim.scoring.base import edited_rows
from recoursesim.scoring.encoding import CodeEncoder
from recoursesim.threads import single_threaded

#: Rows per block: the per-block arrays (rows x trees) stay in the processor's cache.
BLOCK_ROWS = 1024

#: Most rows of a table merged from several features' tables.
JOINT_ROWS = 4096

#: Base rows whose look-ups :meth:`BoostingTables.raw_edits` keeps at a time (per table: rows x trees).
EDIT_BASE_ROWS = 1024


class BoostingTables:
    """Leaf tables of a fitted ``Pipeline([CodeEncoder, HistGradientBoostingClassifier])`` (binary).

    Build with :meth:`of`, which returns ``None`` for any other model. See the module docstring.

    Attributes:
        n_trees: Number of trees.
    """

    def __init__(self, pipeline: Any) -> None:
        encoder, booster = pipeline.steps[0][1], pipeline.steps[-1][1]
        schema = encoder.schema
        self._booster = booster
        self._encoder = encoder
        self._baseline = np.asarray(booster._baseline_prediction, dtype=float).reshape(-1)
        trees = [predictors[0].nodes for predictors in booster._predictors]
        self.n_trees = len(trees)
        leaves = [int(nodes["is_leaf"].sum()) for nodes in trees]
        self._dtype = np.uint32 if max(leaves, default=1) <= 32 else np.uint64
        width = max(leaves, default=1)
        self._values = np.zeros((self.n_trees, width))
        # for every split node: (tree, encoded column, threshold, mask of the leaves NOT in its left subtree)
        split_tree, split_column, split_threshold, split_keep = [], [], [], []
        for t, nodes in enumerate(trees):
            left_leaves, leaf_values = _leaf_layout(nodes)
            self._values[t, : leaf_values.size] = leaf_values
            full = (1 << leaf_values.size) - 1
            for node in np.flatnonzero(nodes["is_leaf"] == 0):
                split_tree.append(t)
                split_column.append(int(nodes["feature_idx"][node]))
                split_threshold.append(float(nodes["num_threshold"][node]))
                split_keep.append(full & ~left_leaves[node])
        tree = np.asarray(split_tree, dtype=np.int64)
        column = np.asarray(split_column, dtype=np.int64)
        threshold = np.asarray(split_threshold, dtype=float)
        keep = np.asarray(split_keep, dtype=np.uint64).astype(self._dtype)
        categorical = np.flatnonzero(schema.is_categorical)
        sizes = np.asarray(schema.n_categories)[categorical].astype(np.int64)
        offsets = encoder.starts_[categorical]
        linear = np.flatnonzero(~schema.is_categorical)
        # one entry per code-space feature some split tests: (kind, feature, table, parameters)
        self._features: list[tuple[str, int, np.ndarray, Any]] = []
        for j, size, offset in zip(categorical, sizes, offsets, strict=True):
            on = (column >= offset) & (column < offset + size)
            if on.any():
                table = self._category_table(int(size), column[on] - offset, threshold[on], tree[on], keep[on])
                self._features.append(("category", int(j), table, int(size)))
        for i, j in enumerate(linear):
            on = column == encoder.starts_[j]
            if on.any():
                order = np.argsort(threshold[on], kind="stable")
                table = self._prefix_table(tree[on][order], keep[on][order])
                mean, scale = float(encoder.mean_[i]), float(encoder.scale_[i])
                self._features.append(("number", int(j), table, (threshold[on][order], mean, scale)))
        self._groups = self._joint_tables()
        # the categorical features some split tests, and their numbers of categories (see :meth:`_all_positions`)
        self._category_columns = np.array([j for kind, j, _, _ in self._features if kind == "category"], dtype=np.int64)
        self._category_sizes = np.array([p for kind, _, _, p in self._features if kind == "category"], dtype=np.int64)
        self._flat_values = self._values.ravel()
        self._tree_offsets = np.arange(self.n_trees, dtype=np.int64)[:, None] * width - 1023
        # for edits (:meth:`raw_edits`): every table stacked, then one all-ones row; where each feature sits
        stacked = [table for _, table in self._groups]
        stacked.append(np.full((1, self.n_trees), np.iinfo(self._dtype).max, dtype=self._dtype))
        self._all_tables = np.concatenate(stacked)
        self._tables_offset = np.concatenate([[0], np.cumsum([t.shape[0] for t in stacked])]).astype(np.int64)
        self._place: dict[int, tuple[int, int, int]] = {}  # feature -> (table, member, stride)
        for g, (members, _) in enumerate(self._groups):
            stride = 1
            for member in range(len(members) - 1, -1, -1):
                self._place[members[member][1]] = (g, member, stride)
                stride *= members[member][2]

    @classmethod
    def of(cls, pipeline: Any) -> BoostingTables | None:
        """The tables of ``pipeline``, or ``None`` if it is not a model they can score exactly."""
        try:
            from sklearn.ensemble import HistGradientBoostingClassifier
            from sklearn.pipeline import Pipeline

            if not isinstance(pipeline, Pipeline) or len(pipeline.steps) != 2:
                return None
            encoder, booster = pipeline.steps[0][1], pipeline.steps[-1][1]
            if type(encoder) is not CodeEncoder or type(booster) is not HistGradientBoostingClassifier:
                return None
            if len(booster.classes_) != 2 or booster.n_trees_per_iteration_ != 1:
                return None
            if any(p[0].nodes["is_categorical"].any() for p in booster._predictors):
                return None
            if max((int(p[0].nodes["is_leaf"].sum()) for p in booster._predictors), default=1) > 64:
                return None
            tables = cls(pipeline)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            return None  # a scikit-learn version whose internals differ: scikit-learn scores the rows
        return tables if tables._agrees() else None

    # ------------------------------------------------------------------ scoring

    def raw(self, X: np.ndarray) -> np.ndarray:
        """Raw scores (log-odds) of code-space rows, as ``booster.decision_function(encoder.transform(X))``."""
        X = np.asarray(X, dtype=float)
        out = np.empty(X.shape[0])
        finite = np.isfinite(X).all(axis=1)
        if not finite.all():  # missing values follow scikit-learn's rules: let it score those rows
            with single_threaded():
                out[~finite] = self._booster.decision_function(self._encoder.transform(X[~finite]))
        rows = np.flatnonzero(finite)
        for start in range(0, rows.size, BLOCK_ROWS):
            block = rows[start : start + BLOCK_ROWS]
            out[block] = self._raw_block(X[block])
        return out

    def proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities ``(n, 2)``, as ``booster.predict_proba(encoder.transform(X))``."""
        return np.asarray(self._booster._loss.predict_proba(self.raw(X)))

    def raw_edits(self, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Raw scores of edited rows: row ``i`` is ``base[agent[i]]`` with column ``column[i]`` set to ``value[i]``.

        The same numbers as :meth:`raw` of those rows, found with fewer look-ups: each base row's
        table look-ups are done once, with, per table, the AND of all the other tables' look-ups;
        an edited row then needs one look-up (the table holding the changed feature) and one AND.
        """
        base = np.asarray(base, dtype=float)
        agent, column = np.asarray(agent, dtype=np.int64), np.asarray(column, dtype=np.int64)
        value = np.asarray(value, dtype=float)
        if not (np.isfinite(base).all(axis=1)[agent].all() and np.isfinite(value).all()):
            return self.raw(edited_rows(base, agent, column, value))
        out = np.empty(agent.size)
        order = np.argsort(agent, kind="stable")
        starts = np.arange(0, base.shape[0] + EDIT_BASE_ROWS, EDIT_BASE_ROWS)
        bounds = np.searchsorted(agent[order], starts)
        for at, first in enumerate(starts[:-1]):
            edits = order[bounds[at] : bounds[at + 1]]
            if edits.size:
                out[edits] = self._edit_block(
                    base[first : first + EDIT_BASE_ROWS], agent[edits] - first, column[edits], value[edits]
                )
        return out

    def _edit_block(self, base: np.ndarray, local: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
        """:meth:`raw_edits` for edits of the few base rows ``base`` (``local`` indexes them)."""
        n, n_groups = base.shape[0], len(self._groups)
        at = self._all_positions(base)
        index = np.array([self._table_rows(at, members) for members, _ in self._groups], dtype=np.int64)
        index = index.reshape(n_groups, n)
        looked_up = [table[index[g]] for g, (_, table) in enumerate(self._groups)]
        # others[g]: per base row, the AND of every table's look-up except table g's; others[G]: all of them
        others = np.empty((n_groups + 1, n, self.n_trees), dtype=self._dtype)
        others[0] = np.iinfo(self._dtype).max
        for g in range(n_groups):  # prefixes first: others[g + 1] = AND of tables 0..g
            np.bitwise_and(others[g], looked_up[g], out=others[g + 1])
        suffix = np.full((n, self.n_trees), np.iinfo(self._dtype).max, dtype=self._dtype)
        for g in range(n_groups - 1, -1, -1):  # others[g] = (AND of tables before g) & (AND of tables after g)
            np.bitwise_and(others[g], suffix, out=others[g])
            np.bitwise_and(suffix, looked_up[g], out=suffix)
        group = np.full(column.size, n_groups, dtype=np.int64)
        row = self._tables_offset[n_groups] + np.zeros(column.size, dtype=np.int64)  # the all-ones row
        for j in np.unique(column):
            place = self._place.get(int(j))
            if place is None:
                continue  # no split tests feature j: the edited row leaves every tree where its base row does
            g, member, stride = place
            kind, _, _, parameters = self._groups[g][0][member]
            on = np.flatnonzero(column == j)
            shift = _positions(kind, parameters, value[on]) - _positions(kind, parameters, base[local[on], j])
            group[on] = g
            row[on] = self._tables_offset[g] + index[g, local[on]] + shift * stride
        out = np.empty(column.size)
        for start in range(0, column.size, BLOCK_ROWS):
            part = slice(start, start + BLOCK_ROWS)
            alive = others.reshape(-1, self.n_trees)[group[part] * n + local[part]]
            np.bitwise_and(alive, self._all_tables[row[part]], out=alive)
            out[part] = self._finish(alive)
        return out

    def proba_edits(self, base: np.ndarray, agent: np.ndarray, column: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Class probabilities ``(n, 2)`` of the edited rows of :meth:`raw_edits`, as :meth:`proba` of those rows."""
        return np.asarray(self._booster._loss.predict_proba(self.raw_edits(base, agent, column, value)))

    def _raw_block(self, X: np.ndarray) -> np.ndarray:
        n = X.shape[0]
        alive = np.full((n, self.n_trees), np.iinfo(self._dtype).max, dtype=self._dtype)
        looked_up = np.empty_like(alive)
        at = self._all_positions(X)
        for members, table in self._groups:
            np.take(table, self._table_rows(at, members), axis=0, out=looked_up)
            np.bitwise_and(alive, looked_up, out=alive)
        return self._finish(alive)

    def _all_positions(self, X: np.ndarray) -> np.ndarray:
        """``(n, d)``: for each row of ``X``, the row of each feature's own table (:func:`_positions`).

        The categorical features are placed all at once; a feature no split tests is left at 0.
        """
        at = np.zeros(X.shape, dtype=np.int64)
        codes = np.rint(X[:, self._category_columns])
        sizes = self._category_sizes
        at[:, self._category_columns] = np.where((codes >= 0) & (codes < sizes), codes, sizes).astype(np.int64)
        for kind, j, _, parameters in self._features:
            if kind != "category":
                at[:, j] = _positions(kind, parameters, X[:, j])
        return at

    @staticmethod
    def _table_rows(at: np.ndarray, members: list[tuple[str, int, int, Any]]) -> np.ndarray:
        """The row of a (merged) table that each row looks up, from its features' rows ``at``."""
        index = np.zeros(at.shape[0], dtype=np.int64)
        for _, j, size, _ in members:
            index = index * size + at[:, j]
        return index

    def _finish(self, alive: np.ndarray) -> np.ndarray:
        """Raw scores from the leaf sets ``alive`` (``(n, trees)``): the lowest leaf, values added in tree order."""
        lowest = alive & (~alive + self._dtype(1))
        # the lowest set bit is a power of two, exact as a double: its exponent field is the leaf number
        leaf = lowest.T.astype(float).view(np.int64)
        leaf >>= 52
        leaf += self._tree_offsets  # each tree's place in the flat leaf values, less the exponent's bias
        values = self._flat_values[leaf]  # (trees, n): each tree's values lie together for the sum
        raw = np.zeros(alive.shape[0])
        raw += self._baseline[0]
        for t in range(self.n_trees):  # in tree order, one addition at a time, as scikit-learn adds
            raw += values[t]
        return raw

    # ------------------------------------------------------------------ building

    def _joint_tables(self) -> list[tuple[list[tuple[str, int, int, Any]], np.ndarray]]:
        """Features whose tables are small, merged into one table of every combination of their rows.

        One look-up then serves several features. Smallest tables are merged first, while a merged
        table has at most :data:`JOINT_ROWS` rows (so it stays in the processor's cache).
        """
        groups: list[tuple[list[tuple[str, int, int, Any]], np.ndarray]] = []
        for kind, j, table, parameters in sorted(self._features, key=lambda f: f[2].shape[0]):
            member = (kind, j, table.shape[0], parameters)
            if groups and groups[-1][1].shape[0] * table.shape[0] <= JOINT_ROWS:
                members, joint = groups[-1]
                merged = (joint[:, None, :] & table[None, :, :]).reshape(-1, self.n_trees)
                groups[-1] = ([*members, member], merged)
            else:
                groups.append(([member], table))
        return groups

    def _prefix_table(self, tree: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """Row ``p``: per tree, the AND of the masks of the first ``p`` splits (in threshold order)."""
        table = np.empty((tree.size + 1, self.n_trees), dtype=self._dtype)
        table[0] = np.iinfo(self._dtype).max
        for p in range(tree.size):
            table[p + 1] = table[p]
            table[p + 1, tree[p]] &= keep[p]
        return table

    def _category_table(
        self, size: int, column: np.ndarray, threshold: np.ndarray, tree: np.ndarray, keep: np.ndarray
    ) -> np.ndarray:
        """Row ``c``: per tree, the AND of the masks of the splits category ``c`` fails (row ``size``: no category)."""
        table = np.full((size + 1, self.n_trees), np.iinfo(self._dtype).max, dtype=self._dtype)
        for code in range(size + 1):
            encoded = (column == code).astype(float)  # the one-hot value each split sees
            for s in np.flatnonzero(~(encoded <= threshold)):
                table[code, tree[s]] &= keep[s]
        return table

    def _agrees(self) -> bool:
        """Whether the tables give scikit-learn's raw scores, bit for bit, on rows at and around every split."""
        schema = self._encoder.schema
        rng = np.random.default_rng(0)
        d = len(schema.names)
        candidates: list[np.ndarray] = [np.zeros(1) for _ in range(d)]
        for kind, j, _, parameters in self._features:
            if kind == "category":
                candidates[j] = np.arange(-1, parameters + 1, dtype=float)
            else:
                thresholds, mean, scale = parameters
                at = thresholds * scale + mean
                candidates[j] = np.concatenate([at, np.nextafter(at, np.inf), np.nextafter(at, -np.inf)])
        rows = np.column_stack([rng.choice(c, size=512) for c in candidates])
        with single_threaded():
            expected = self._booster.decision_function(self._encoder.transform(rows))
        return bool(np.array_equal(self.raw(rows), np.asarray(expected, dtype=float)))


def _positions(kind: str, parameters: Any, x: np.ndarray) -> np.ndarray:
    """Row of a feature's own table for each value ``x``: its category (or no category), or the splits it fails."""
    if kind == "category":
        codes = np.rint(x)
        return np.where((codes >= 0) & (codes < parameters), codes, parameters).astype(np.int64)
    thresholds, mean, scale = parameters
    return np.searchsorted(thresholds, (x - mean) / scale, side="left")


def _leaf_layout(nodes: np.ndarray) -> tuple[list[int], np.ndarray]:
    """Per node, the bit mask of the leaves in its left subtree (leaves numbered left to right); the leaf values."""
    left_mask = [0] * nodes.shape[0]
    values: list[float] = []

    def visit(node: int) -> int:  # returns the mask of the leaves under ``node``
        if nodes["is_leaf"][node]:
            values.append(float(nodes["value"][node]))
            return 1 << (len(values) - 1)
        left = visit(int(nodes["left"][node]))
        left_mask[node] = left
        return left | visit(int(nodes["right"][node]))

    visit(0)
    return left_mask, np.asarray(values, dtype=float)


_TABLES: weakref.WeakKeyDictionary[Any, tuple[int, BoostingTables | None]] = weakref.WeakKeyDictionary()


def boosting_tables(pipeline: Any) -> BoostingTables | None:
    """The (cached) :class:`BoostingTables` of a fitted pipeline, or ``None`` when they do not apply.

    Cached per pipeline object while its booster keeps the same trees (a refit builds new ones).
    """
    steps = getattr(pipeline, "steps", None)
    predictors = getattr(steps[-1][1], "_predictors", None) if steps else None
    stamp = id(predictors) ^ (len(predictors) if predictors is not None else -1)
    try:
        cached = _TABLES.get(pipeline)
    except TypeError:  # not weak-referenceable
        return None
    if cached is not None and cached[0] == stamp:
        return cached[1]
    tables = BoostingTables.of(pipeline) if predictors is not None else None
    _TABLES[pipeline] = (stamp, tables)
    return tables
