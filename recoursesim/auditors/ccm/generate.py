"""Plausible counterfactual generation for the Counterfactual Confusion Matrix (Pinto et al., Alg. 1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from recoursesim._validate import check_float, check_int
from recoursesim.auditors.ccm.binary import flip_units
from recoursesim.auditors.ccm.mapping import ordinal_map, quantile_map
from recoursesim.auditors.ccm.pca_check import fit_projection, subspace_valid
from recoursesim.errors import ConfigError, DataError

#: Bookkeeping columns added to every counterfactual row.
META_COLUMNS = ("sample_id", "orig_group", "target_group", "label", "valid", "reason")


def generate_counterfactuals(
    train_df: pd.DataFrame,
    samples_df: pd.DataFrame,
    sensitive: str,
    label: str,
    *,
    continuous: Sequence[str] = (),
    ordinal: Sequence[str] = (),
    binary: Sequence[str] = (),
    onehot_groups: Sequence[Sequence[str]] = (),
    potential_features: Sequence[str] | None = None,
    tau: float = 0.5,
    max_depth: int = 1,
    impossible_thr: float | None = None,
    validate_pca: bool = False,
    pca_components: int = 3,
    pca_k_sigma: float = 1.5,
    sample_labels: Sequence | np.ndarray | None = None,
) -> pd.DataFrame:
    """Generate one plausible counterfactual per (sample, other group).

    Every distribution is estimated on the reference rows with the sample's label: continuous
    features are mapped by CDF quantile mapping, ordinal features by nearest CDF, the sensitive
    attribute is set to the target group, then binary features and one-hot blocks are flipped by
    the probability-difference rules (see :mod:`recoursesim.auditors.ccm.binary`).

    Args:
        train_df: Reference set ``S_train`` (features, sensitive attribute and label).
        samples_df: Samples to counterfactualise (same columns).
        sensitive: The sensitive attribute's column.
        label: The binary label column used to stratify the distributions.
        continuous: Continuous feature columns.
        ordinal: Integer-coded ordinal feature columns.
        binary: 0/1 feature columns.
        onehot_groups: Blocks of 0/1 columns encoding one nominal feature each.
        potential_features: Columns allowed to change. ``None`` lets every listed feature change
            ("greedy"); ``[]`` flips only the sensitive attribute ("naive"). A block may change
            if any of its columns is listed.
        tau: Flip threshold of the binary rules (flip when the difference is ``>= tau``).
        max_depth: Deepest level of the binary rules (0: no probability-difference flips).
        impossible_thr: Flip binary values whose target-group probability is below this.
        validate_pca: Mark counterfactuals outside the target cell's PCA envelope invalid.
        pca_components: Number of principal components for the validation.
        pca_k_sigma: Envelope radius in RMS radii.
        sample_labels: Labels to stratify the samples by instead of ``samples_df[label]`` (for
            example predicted labels when ground truth is unavailable).

    Returns:
        One row per (sample, target group), in sample order: the counterfactual's columns plus
        ``sample_id`` (the sample's index label), ``orig_group``, ``target_group``, ``label``,
        ``valid`` and ``reason`` (empty when valid).

    Raises:
        DataError: Missing columns, empty inputs, a sensitive attribute with one value, or
            non-binary values in a binary feature.
        ConfigError: Invalid parameters.
    """
    _check_params(tau, max_depth, impossible_thr, pca_components, pca_k_sigma)
    blocks = [list(block) for block in onehot_groups]
    features = [*continuous, *ordinal, *binary, *(c for block in blocks for c in block)]
    _check_columns(train_df, samples_df, sensitive, label, features, sample_labels is None)
    _check_blocks(blocks)
    allowed = set(features) if potential_features is None else set(potential_features)
    unknown = allowed - set(features)
    if unknown:
        raise ConfigError(
            "potential_features",
            f"names columns that are not listed features: {sorted(unknown)}",
            "list them under continuous, ordinal, binary or onehot_groups",
        )
    groups = _groups(train_df[sensitive])
    train_labels = train_df[label].to_numpy()
    labels = np.asarray(samples_df[label] if sample_labels is None else sample_labels)
    if labels.shape != (len(samples_df),):
        raise DataError("sample_labels", "must have one label per sample", "pass one label per row")

    units = [[c] for c in binary] + blocks
    n_categories = [2 if len(cols) == 1 else len(cols) for cols in units]
    train_codes = _encode_units(train_df, units, "train_df")
    sample_codes = _encode_units(samples_df, units, "samples_df")
    unit_allowed = np.array([any(c in allowed for c in cols) for cols in units], dtype=bool)

    train_group = train_df[sensitive].to_numpy()
    sample_group = samples_df[sensitive].to_numpy()
    pieces: list[pd.DataFrame] = []
    positions: list[np.ndarray] = []
    for group_a in pd.unique(sample_group):
        for group_b in (g for g in groups if g != group_a):
            for y in pd.unique(labels[sample_group == group_a]):
                rows = np.flatnonzero((sample_group == group_a) & (labels == y))
                src = (train_group == group_a) & (train_labels == y)
                tgt = (train_group == group_b) & (train_labels == y)
                cf = samples_df.iloc[rows].copy()
                cf[sensitive] = group_b
                reason = _empty_cell_reason(src, tgt, group_a, group_b, y)
                if not reason:
                    _map_numeric(cf, train_df, src, tgt, [c for c in continuous if c in allowed], quantile_map)
                    _map_numeric(cf, train_df, src, tgt, [c for c in ordinal if c in allowed], ordinal_map, True)
                    if units:
                        new_codes = flip_units(
                            sample_codes[rows],
                            train_codes[src],
                            train_codes[tgt],
                            n_categories,
                            tau=tau,
                            max_depth=max_depth,
                            impossible_thr=impossible_thr,
                            allowed=unit_allowed,
                        )
                        _decode_units(cf, units, new_codes, sample_codes[rows])
                meta = {"sample_id": samples_df.index[rows].to_numpy(), "orig_group": group_a, "target_group": group_b}
                pieces.append(cf.assign(**meta, label=labels[rows], valid=not reason, reason=reason))
                positions.append(rows)
    order = np.argsort(np.concatenate(positions), kind="stable")
    out = pd.concat(pieces, ignore_index=True).iloc[order].reset_index(drop=True)
    if validate_pca and features:
        _validate_pca(out, train_df, sensitive, label, features, pca_components, pca_k_sigma)
    return out


def _check_params(
    tau: float, max_depth: int, impossible_thr: float | None, pca_components: int, pca_k_sigma: float
) -> None:
    if not 0.0 <= float(tau) <= 1.0:
        raise ConfigError("tau", f"must lie in [0, 1], got {tau}", "use a probability difference such as 0.5")
    if isinstance(max_depth, bool) or not isinstance(max_depth, int | np.integer) or max_depth < 0:
        raise ConfigError("max_depth", f"must be a non-negative integer, got {max_depth!r}", "use 0, 1, 2, ...")
    if impossible_thr is not None and not 0.0 < float(impossible_thr) < 1.0:
        raise ConfigError("impossible_thr", f"must lie in (0, 1), got {impossible_thr}", "use e.g. 0.01 or None")
    check_int("pca_components", pca_components, minimum=1)
    check_float("pca_k_sigma", pca_k_sigma, minimum=0.0, strict_minimum=True)


def _check_columns(
    train_df: pd.DataFrame,
    samples_df: pd.DataFrame,
    sensitive: str,
    label: str,
    features: list[str],
    need_label: bool,
) -> None:
    if len(train_df) == 0:
        raise DataError("train_df", "is empty", "pass the reference (training) rows")
    if len(samples_df) == 0:
        raise DataError("samples_df", "is empty", "pass at least one sample to counterfactualise")
    if sensitive in features:
        raise ConfigError("sensitive", f"{sensitive!r} is also listed as a feature", "list it only as sensitive")
    for name, frame in (("train_df", train_df), ("samples_df", samples_df)):
        required = [sensitive, *features, *([label] if need_label or name == "train_df" else [])]
        missing = [c for c in required if c not in frame.columns]
        if missing:
            raise DataError(name, f"has no column(s) {missing}", "pass a frame with every listed column")
        clash = [c for c in META_COLUMNS if c in frame.columns and c != label]
        if clash:
            raise DataError(
                name,
                f"has column(s) {clash} reserved for bookkeeping",
                "rename those columns (the audit adds columns of these names)",
            )
    duplicated = {c for c in features if features.count(c) > 1}
    if duplicated:
        raise ConfigError("features", f"columns listed twice: {sorted(duplicated)}", "list each column once")


def _check_blocks(blocks: list[list[str]]) -> None:
    for block in blocks:
        if len(block) < 2:
            raise ConfigError("onehot_groups", f"block {block} has fewer than 2 columns", "list it under binary")


def _groups(values: pd.Series) -> list:
    groups = ordered(values.dropna().to_numpy())
    if len(groups) < 2:
        raise DataError(
            "sensitive", f"has {len(groups)} distinct value(s) in the reference set", "use an attribute with 2+ groups"
        )
    return groups


def ordered(values: np.ndarray) -> list:
    """Return the distinct values, sorted when they can be (else in order of appearance)."""
    unique = list(pd.unique(values))
    try:
        return sorted(unique)
    except TypeError:
        return unique


def _encode_units(frame: pd.DataFrame, units: list[list[str]], name: str) -> np.ndarray:
    codes = np.zeros((len(frame), len(units)), dtype=np.int64)
    for u, cols in enumerate(units):
        values = frame[cols].to_numpy(dtype=float)
        if np.isnan(values).any() or not np.isin(values, (0.0, 1.0)).all():
            raise DataError(f"{name}[{cols}]", "binary columns must hold only 0 and 1", "encode them as 0/1")
        if len(cols) == 1:
            codes[:, u] = values[:, 0].astype(np.int64)
        else:
            if not np.all(values.sum(axis=1) == 1):
                raise DataError(
                    f"{name}[{cols}]",
                    "a one-hot block must have exactly one 1 per row",
                    "give each row a 1 in exactly one column of the block",
                )
            codes[:, u] = values.argmax(axis=1)
    return codes


def _decode_units(cf: pd.DataFrame, units: list[list[str]], new: np.ndarray, old: np.ndarray) -> None:
    for u, cols in enumerate(units):
        changed = new[:, u] != old[:, u]
        if not changed.any():
            continue
        if len(cols) == 1:
            column = cf[cols[0]].to_numpy().copy()
            column[changed] = new[changed, u]
            cf[cols[0]] = column
        else:
            block = cf[cols].to_numpy().copy()
            block[changed] = 0
            block[np.flatnonzero(changed), new[changed, u]] = 1
            cf[cols] = block


def _map_numeric(
    cf: pd.DataFrame,
    train_df: pd.DataFrame,
    src: np.ndarray,
    tgt: np.ndarray,
    columns: list[str],
    mapper: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    keep_missing: bool = False,
) -> None:
    """Map ``columns`` of ``cf`` from the source cell's distribution to the target cell's, in place.

    With ``keep_missing``, a missing value stays missing whatever the mapper returns for it.
    """
    for column in columns:
        values, reference = cf[column].to_numpy(dtype=float), train_df[column].to_numpy(dtype=float)
        mapped = mapper(values, reference[src], reference[tgt])
        cf[column] = np.where(np.isnan(values), np.nan, mapped) if keep_missing else mapped


def _empty_cell_reason(src: np.ndarray, tgt: np.ndarray, group_a: object, group_b: object, y: object) -> str:
    if not src.any():
        return f"no reference rows with group={group_a!r}, label={y!r}"
    if not tgt.any():
        return f"no reference rows with group={group_b!r}, label={y!r}"
    return ""


def _validate_pca(
    out: pd.DataFrame,
    train_df: pd.DataFrame,
    sensitive: str,
    label: str,
    features: list[str],
    n_components: int,
    k_sigma: float,
) -> None:
    reference, cf = train_df[features].to_numpy(dtype=float), out[features].to_numpy(dtype=float)
    medians = np.nanmedian(reference, axis=0)
    reference = np.where(np.isnan(reference), medians, reference)
    projection = fit_projection(reference, n_components)
    train_scores = projection.transform(reference)
    cf_scores = projection.transform(np.where(np.isnan(cf), medians, cf))
    train_group = train_df[sensitive].to_numpy()
    train_label = train_df[label].to_numpy()
    for (group_b, y), index in out[out["valid"]].groupby(["target_group", "label"], sort=False).groups.items():
        cell = (train_group == group_b) & (train_label == y)
        rows = out.index.get_indexer(index)
        ok = subspace_valid(train_scores[cell], cf_scores[rows], k_sigma)
        out.loc[index[~ok], "valid"] = False
        out.loc[index[~ok], "reason"] = "outside the target cell's PCA envelope"
