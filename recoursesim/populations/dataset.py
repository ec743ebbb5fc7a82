"""Applicants drawn from a real data set: bundled Adult / German credit / COMPAS, or the user's file."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import numpy as np
import pandas as pd

from recoursesim._validate import check_bool, check_float, check_list, check_str
from recoursesim.component import Component
from recoursesim.datasets import LOADERS, Dataset
from recoursesim.datasets.user import favourable_labels, read_table, require_complete
from recoursesim.errors import ConfigError, DataError
from recoursesim.features.actions import MixedActionSet, merge_action_specs
from recoursesim.features.defaults import DEFAULT_ACTIONS, DEFAULT_COLUMNS
from recoursesim.features.infer import infer_feature_types, report_inferred
from recoursesim.features.schema import FeatureSchema
from recoursesim.populations.base import Cohort, FoldedNormal, allocate
from recoursesim.registry import register

#: Most distinct values a group column may have.
MAX_GROUPS = 10


@functools.cache
def _bundled(name: str) -> Dataset:
    """Load a bundled data set once per process (loaders decompress and checksum every time)."""
    return LOADERS[name]()


def _complete_rows(frame: pd.DataFrame, needed: list[str]) -> pd.DataFrame:
    """The rows with no missing value in a ``needed`` column, numbered from 0."""
    return frame.loc[~frame[needed].isna().any(axis=1)].reset_index(drop=True)


@functools.cache
def _bundled_codes(name: str, features: tuple[str, ...], group: str) -> np.ndarray:
    """The code-space features of a bundled data set's usable rows, encoded once per process.

    A calibration builds the population thousands of times; every build with the same data set,
    features and group would encode the same rows into the same codes. The array is read-only:
    every population built from it shares it, and takes copies of the rows it uses.
    """
    data = _bundled(name)
    schema = FeatureSchema.from_dataset(data, list(features))
    frame = _complete_rows(data.frame, [*schema.names, group, data.target])
    codes = schema.encode(frame, field="data")
    codes.flags.writeable = False
    return codes


@register("population", "dataset")
@dataclass(eq=False, repr=False)
class DatasetPopulation(Component):
    """Agents bootstrapped from the rows of a real data set, with the group from a protected column.

    At ``fit`` the usable rows (no missing value in a needed column) are split at random into a
    training part, which only the decision model sees (:meth:`training_data`), and a disjoint
    applicant pool. Each cohort is a bootstrap sample of the pool: stratified by group (group
    sizes follow ``shares``, by default the pool's, with largest-remainder rounding) or plain.
    Features live in the code space of :attr:`schema` (see :mod:`recoursesim.features`); each
    agent's effort capacity is drawn from its group's folded normal ``scale * |N(mean, sd)|``, in
    cost-model units (a move across a feature's whole observed range costs 1 at weight 1).

    Rows of a bundled data set with a missing value in a needed column are dropped; a user file
    with a missing value in a needed column is refused.

    Args:
        dataset: A bundled data set (``"adult"``, ``"german"``, ``"compas"``), or ``None`` with ``path``.
        path: A user CSV or Parquet file (needs ``target``).
        group: The protected column whose values are the groups (at most 10 distinct values).
        target: The binary outcome column of a user file (bundled: from the metadata).
        favourable: The target value that counts as favourable; needed unless the labels are 0/1 or
            ``false``/``true``.
        features: Feature columns (bundled default: see ``docs/real-data.md``; user data: the
            columns of ``feature_types`` if given, else every column but the target).
        feature_types: For user data, ``column = "kind"`` or ``{kind = "ordinal", order = [...]}``
            per feature (see :meth:`~recoursesim.features.FeatureSchema.from_table`); features
            not listed get a type inferred from their dtype (:mod:`recoursesim.features.infer`).
        train_fraction: Share of the usable rows that train the decision model.
        stratify: Bootstrap each group separately so cohorts have exactly the group shares.
        shares: Group -> share of each cohort (with ``stratify``; default the pool's shares).
        effort: ``{mean, sd, scale}`` for every group, or ``{group = {mean, sd, scale}, ...}``.
        actions: The data's default action set (keys of :class:`~recoursesim.features.MixedActionSet`),
            merged with the bundled data set's defaults; for user data the group column, when it
            is a feature, is immutable by default. Every recourse generator and auditor starts
            from it; their own ``action_set`` adds to it.
        data_fingerprint: Set by :meth:`~recoursesim.scenario.Scenario.with_inputs`: a digest of a
            DataFrame given from Python.
        data: A DataFrame given from Python instead of ``path`` (supplied, never a scenario key).
    """

    check_params: ClassVar[dict[str, Any]] = {"dataset": "german", "group": "sex"}

    group: str
    dataset: str | None = None
    path: str | None = None
    target: str | None = None
    favourable: Any = None
    features: Sequence[str] | None = None
    feature_types: Mapping[str, Any] | None = None
    train_fraction: float = 0.5
    stratify: bool = True
    shares: Mapping[str, float] | None = None
    effort: Mapping[str, Any] | None = None
    actions: Mapping[str, Any] | None = None
    data_fingerprint: str | None = None
    data: pd.DataFrame | None = None

    def __post_init__(self) -> None:
        texts = {"dataset": self.dataset, "target": self.target, "data_fingerprint": self.data_fingerprint}
        for key, text in texts.items():
            if text is not None:
                check_str(key, text)
        if self.path is not None and not isinstance(self.path, os.PathLike):
            check_str("path", self.path)
        self._features = None if self.features is None else check_list("features", self.features)
        if self._features is not None and not self._features:
            raise ConfigError("features", "is empty", "list at least one feature column, or remove features")
        self._train_fraction = check_float("train_fraction", self.train_fraction, minimum=0.0, maximum=1.0)
        if not 0.0 < self._train_fraction < 1.0:
            raise ConfigError("train_fraction", f"must be between 0 and 1, got {self.train_fraction}", "use e.g. 0.5")
        check_bool("stratify", self.stratify)
        group = self.group
        frame, target_name, self.schema, defaults = self._load()
        if not isinstance(group, str) or group not in frame.columns:
            listed = ", ".join(str(c) for c in frame.columns if c != target_name)
            raise ConfigError("group", f"{group!r} is not a column of the data", f"use one of {listed}")
        self.default_action_set = self._action_defaults(defaults)
        needed = [*self.schema.names, group, target_name]
        frame = self._usable_rows(frame, needed)
        if self.dataset is not None:  # the same rows and columns encode alike: once per process
            self.codes = _bundled_codes(self.dataset, tuple(self.schema.names), group)
        else:
            self.codes = self.schema.encode(frame, field="data")
        self.labels = self._labels(frame[target_name], target_name)
        values = frame[group]
        names = sorted(values.unique().tolist(), key=str)
        if len(names) > MAX_GROUPS:
            raise ConfigError(
                "group", f"{group!r} has {len(names)} distinct values", "choose a categorical column such as sex"
            )
        self.group_names = tuple(str(name) for name in names)
        self.group_codes = pd.Index(names).get_indexer(values.to_numpy(dtype=object)).astype(np.int16)
        self.feature_names = self.schema.names
        self._shares = self._parse_shares(self.shares)
        self._effort = self._parse_effort(self.effort)
        if len(self.labels) < 4:
            raise DataError("data", f"has only {len(self.labels)} usable rows", "give at least 4 rows")

    # ------------------------------------------------------------------ loading

    def _load(self) -> tuple[pd.DataFrame, str, FeatureSchema, dict[str, Any]]:
        sources = [self.dataset is not None, self.path is not None, self.data is not None or self.data_fingerprint]
        if sum(map(bool, sources)) != 1:
            raise ConfigError(
                "dataset",
                "give exactly one of dataset, path and a DataFrame (data=)",
                'write dataset = "german" or path = "file.csv"',
            )
        if self.dataset is not None:
            if self.dataset not in LOADERS:
                raise ConfigError("dataset", f"unknown data set {self.dataset!r}", f"use one of {', '.join(LOADERS)}")
            for key, value in (("target", self.target), ("feature_types", self.feature_types)):
                if value is not None:
                    raise ConfigError(key, f"is only for user data, not {self.dataset!r}", f"remove {key}")
            data = _bundled(self.dataset)
            columns = self._features if self._features is not None else DEFAULT_COLUMNS[self.dataset]
            schema = FeatureSchema.from_dataset(data, columns)
            used = set(schema.names)
            defaults = {
                key: [name for name in value if name in used] for key, value in DEFAULT_ACTIONS[self.dataset].items()
            }
            return data.frame, data.target, schema, defaults
        frame, source = self._user_frame()
        if self.target is None:
            raise ConfigError(
                "target", "is required with user data", 'name the outcome column, e.g. target = "approved"'
            )
        if self.target not in frame.columns:
            raise DataError(
                "target", f"{self.target!r} is not a column of {source}", f"use one of {', '.join(map(str, frame))}"
            )
        return frame, self.target, self._user_schema(frame, source), {}

    def _user_frame(self) -> tuple[pd.DataFrame, str]:
        if self.path is not None:
            return read_table(str(self.path), field="path"), str(self.path)
        if self.data is None:
            raise ConfigError(
                "data_fingerprint",
                f"the scenario names a DataFrame given from Python (fingerprint {self.data_fingerprint}), not here",
                "pass it again (data=...), or save it as CSV/Parquet and set path",
            )
        if not isinstance(self.data, pd.DataFrame):
            raise ConfigError("data", f"must be a pandas DataFrame, got {type(self.data).__name__}", "pass a DataFrame")
        if self.data.empty:
            raise DataError("data", "the DataFrame has no rows", "pass a DataFrame with data")
        return self.data, "the DataFrame"

    def _user_schema(self, frame: pd.DataFrame, source: str) -> FeatureSchema:
        """The schema of user data: declared types, the rest inferred (and reported)."""
        if self.feature_types is not None and not isinstance(self.feature_types, Mapping):
            raise ConfigError("feature_types", "must be a table of column = kind", 'write income = "numeric", ...')
        table = dict(self.feature_types or {})
        if self.features is not None:
            names = list(self.features)
        elif table:
            names = list(table)
        else:
            names = [str(c) for c in frame.columns if c != self.target]
        if self.target in names or self.target in table:
            field = f"feature_types.{self.target}" if self.target in table else "features"
            raise ConfigError(field, f"{self.target!r} is the target, not a feature", "remove it")
        unknown = [name for name in table if name not in names]
        if unknown:
            raise ConfigError(f"feature_types.{unknown[0]}", "is not in features", "add it to features or remove it")
        inferred = infer_feature_types(frame, [name for name in names if name not in table])
        report_inferred(source, inferred)
        self.inferred_types_ = inferred
        require_complete(
            frame,
            [name for name in names if name in frame.columns],
            field="feature_types.{column}",
            source=source,
            fix="replace them with finite values or drop those rows",
        )
        return FeatureSchema.from_table(frame, {name: table.get(name, inferred.get(name)) for name in names})

    def _action_defaults(self, defaults: dict[str, Any]) -> dict[str, Any]:
        """The data's default action set: the bundled one or the group column, plus ``actions``."""
        if self.dataset is None and self.group in self.schema.names:
            defaults = {"immutable": [self.group]}
        if self.actions is not None and not isinstance(self.actions, Mapping):
            raise ConfigError("actions", "must be a table", 'write actions = { immutable = ["age"] }')
        merged = merge_action_specs(defaults, self.actions)
        try:
            MixedActionSet.from_spec(self.schema, merged)
        except ConfigError as error:
            raise error.under("actions") from None
        return merged

    def _usable_rows(self, frame: pd.DataFrame, needed: list[str]) -> pd.DataFrame:
        if self.dataset is None and frame[needed].isna().any(axis=None):
            column = next(name for name in needed if frame[name].isna().any())
            raise DataError(column, f"has missing values in {self.path or 'the DataFrame'}", "fill or drop those rows")
        return _complete_rows(frame, needed)

    def _labels(self, column: pd.Series, name: str) -> np.ndarray:
        labels = favourable_labels(column, self.favourable, field="target", favourable_field="favourable")
        self.target_, self.favourable_ = name, column[labels == 1].iloc[0] if labels.any() else self.favourable
        return labels

    def _parse_shares(self, shares: Mapping[str, float] | None) -> np.ndarray:
        counts = np.bincount(self.group_codes, minlength=len(self.group_names)).astype(float)
        if shares is None:
            return counts / counts.sum()
        if not self.stratify:
            raise ConfigError("shares", "needs stratify = true", "set stratify = true or remove shares")
        if not isinstance(shares, Mapping):
            raise ConfigError(
                "shares", "must be a table of group = share", "write shares = { female = 0.5, male = 0.5 }"
            )
        out = np.zeros(len(self.group_names))
        for name, value in shares.items():
            if name not in self.group_names:
                raise ConfigError(f"shares.{name}", "is not a group", f"use one of {', '.join(self.group_names)}")
            out[self.group_names.index(name)] = check_float(f"shares.{name}", value, minimum=0.0, maximum=1.0)
        if abs(out.sum() - 1.0) > 1e-9:
            raise ConfigError("shares", f"sum to {out.sum():g}, not 1", "rescale the shares to sum to 1")
        return out

    def _parse_effort(self, effort: Mapping[str, Any] | None) -> tuple[FoldedNormal, ...]:
        keys = {"mean", "sd", "scale"}
        if effort is None:
            return tuple(FoldedNormal(0.0, 1.0, 0.1) for _ in self.group_names)
        if not isinstance(effort, Mapping):
            raise ConfigError("effort", "must be a table", "write effort = { mean = 0.0, sd = 1.0, scale = 0.1 }")
        if set(effort) <= keys:
            return tuple(FoldedNormal.from_spec("effort", effort) for _ in self.group_names)
        out = []
        for name in effort:
            if name not in self.group_names:
                listed = ", ".join([*sorted(keys), *self.group_names])
                raise ConfigError(f"effort.{name}", "is neither mean/sd/scale nor a group", f"use {listed}")
        for name in self.group_names:
            if name not in effort:
                raise ConfigError(f"effort.{name}", "is missing", "give every group an effort table")
            out.append(FoldedNormal.from_spec(f"effort.{name}", effort[name]))
        return tuple(out)

    # ------------------------------------------------------------------ the protocol

    def fit(self, rng: np.random.Generator) -> Self:
        """Split the rows into a training part and a disjoint applicant pool; return ``self``."""
        n = len(self.labels)
        order = rng.permutation(n)
        n_train = min(max(round(self._train_fraction * n), 2), n - 2)
        self.train_rows_ = np.sort(order[:n_train])
        self.pool_rows_ = np.sort(order[n_train:])
        pool_groups = self.group_codes[self.pool_rows_]
        self._by_group = [self.pool_rows_[pool_groups == g] for g in range(len(self.group_names))]
        for g, rows in enumerate(self._by_group):
            if self.stratify and rows.size == 0 and self._shares[g] > 0:
                raise DataError(
                    "group",
                    f"group {self.group_names[g]!r} has no rows in the applicant pool",
                    "give that group more rows in the data, or lower train_fraction",
                )
        return self

    def sample(self, n: int, rng: np.random.Generator) -> Cohort:
        """Draw ``n`` applicants from the pool (group blocks in group order when stratified)."""
        if not hasattr(self, "pool_rows_"):
            raise RuntimeError("DatasetPopulation.sample called before fit")
        if self.stratify:
            counts = allocate(n, self._shares)
            rows = np.concatenate(
                [
                    pool[rng.integers(0, pool.size, size=int(c))]
                    for pool, c in zip(self._by_group, counts, strict=True)
                    if c
                ]
                or [np.zeros(0, dtype=np.int64)]
            )
        else:
            rows = self.pool_rows_[rng.integers(0, self.pool_rows_.size, size=n)]
        group = self.group_codes[rows]
        effort = np.empty(rows.size)
        for g, dist in enumerate(self._effort):
            members = group == g
            effort[members] = dist.sample(int(members.sum()), rng)
        return Cohort(self.codes[rows].copy(), group.copy(), effort)

    def labelled_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Every usable row of the data set: ``(features in code space, 0/1 labels)``."""
        return np.asarray(self.codes, dtype=float), np.asarray(self.labels).astype(int)

    def test_split(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The applicant pool's rows ``(features, labels)``, which the step-0 model is not fitted on.

        ``None`` before :meth:`fit` has drawn the pool.
        """
        if not hasattr(self, "pool_rows_"):
            return None
        return self.codes[self.pool_rows_], self.labels[self.pool_rows_]

    def training_data(self) -> tuple[np.ndarray, np.ndarray]:
        """The training part: ``(features in code space, labels)`` (1 = favourable)."""
        if not hasattr(self, "train_rows_"):
            raise RuntimeError("DatasetPopulation.training_data called before fit")
        return self.codes[self.train_rows_].copy(), self.labels[self.train_rows_].copy()
