"""Market measures: systemic exclusion, outcome homogenization and recourse portability.

A *market* is several lenders deciding on the same applicants. One step of it is described by two
``(n, L)`` boolean arrays, one row per applicant and one column per lender: ``applied`` (the
applicant applied to that lender) and ``accepted`` (that lender accepted it; entries where the
applicant did not apply are ignored). Every measure is returned as a dictionary with the pooled
value under ``"all"`` and one value per group label (``str`` of the group code) when ``group`` is
given; a share with an empty denominator is NaN. The definitions are in docs/markets.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from recoursesim.errors import ConfigError

#: The key of the pooled value in every measure's result.
ALL = "all"


def _masks(applied: np.ndarray, accepted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Check the two ``(n, L)`` masks and return them as booleans (acceptance only where applied)."""
    applied = np.asarray(applied)
    accepted = np.asarray(accepted)
    if applied.ndim != 2 or applied.shape != accepted.shape:
        raise ConfigError(
            "applied",
            f"applied {applied.shape} and accepted {accepted.shape} must be two (applicants, lenders) arrays",
            "give one row per applicant and one column per lender in both",
        )
    if applied.dtype != bool or accepted.dtype != bool:
        raise ConfigError("applied", "applied and accepted must be boolean arrays", "pass masks (dtype bool)")
    return applied, accepted & applied


def _codes(group: np.ndarray | None, n: int) -> tuple[np.ndarray, list[str]]:
    """Integer group codes and their labels (one group, ``"all"``, when ``group`` is ``None``)."""
    if group is None:
        return np.zeros(n, dtype=np.int64), []
    group = np.asarray(group)
    if group.shape != (n,):
        raise ConfigError("group", f"has shape {group.shape}, expected ({n},)", "give one group per applicant")
    labels, codes = np.unique(group, return_inverse=True)
    return codes.astype(np.int64), [str(label) for label in labels]


def _ratio_dict(numerator: np.ndarray, denominator: np.ndarray, labels: list[str]) -> dict[str, float]:
    with np.errstate(invalid="ignore", divide="ignore"):
        total = float(numerator.sum() / denominator.sum()) if denominator.sum() > 0 else float("nan")
        per_group = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)
    by_group = zip(labels, per_group, strict=True) if labels else ()
    return {ALL: total, **{label: float(value) for label, value in by_group}}


def systemic_exclusion(applied: np.ndarray, accepted: np.ndarray, group: np.ndarray | None = None) -> dict[str, float]:
    """The share of applicants rejected by every lender they applied to.

    Among applicants who applied to at least one lender, ``mean(1[no lender applied to accepted])``;
    applicants who applied nowhere are not counted.

    Args:
        applied: ``(n, L)`` bool, applicant ``i`` applied to lender ``j``.
        accepted: ``(n, L)`` bool, lender ``j`` accepted applicant ``i`` (ignored where not applied).
        group: ``(n,)`` group of each applicant (optional).

    Returns:
        ``{"all": share, "<group>": share, ...}``.
    """
    applied, accepted = _masks(applied, accepted)
    codes, labels = _codes(group, applied.shape[0])
    counts = exclusion_counts(applied, accepted, codes, max(len(labels), 1))
    return _ratio_dict(counts.excluded, counts.applicants, labels)


def rejection_rates(applied: np.ndarray, accepted: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
    """Each lender's rejection rate among its applicants, per group: a ``(G, L)`` array (NaN where none applied).

    With ``group=None`` there is one row (the pooled rates).
    """
    applied, accepted = _masks(applied, accepted)
    codes, labels = _codes(group, applied.shape[0])
    return _rejection_rates(applied, accepted, codes, max(len(labels), 1))


def _rejection_rates(applied: np.ndarray, accepted: np.ndarray, codes: np.ndarray, size: int) -> np.ndarray:
    """:func:`rejection_rates` on checked masks, for integer group codes in ``0 .. size - 1``."""
    rows = np.zeros((size, applied.shape[0]))
    rows[codes, np.arange(applied.shape[0])] = 1.0
    counts = rows @ applied
    rejected = rows @ (applied & ~accepted)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, rejected / np.where(counts > 0, counts, 1), np.nan)


def homogenization(applied: np.ndarray, accepted: np.ndarray, group: np.ndarray | None = None) -> dict[str, float]:
    """Outcome homogenization: observed systemic exclusion over what independent lenders would give.

    Bommasani et al.'s (2022) ratio. For applicants of group ``g`` who applied to at least one
    lender, with ``S_i`` the lenders applicant ``i`` applied to and ``r_jg`` lender ``j``'s rejection
    rate among its applicants of group ``g``::

        homogenization_g = mean_i 1[rejected by every j in S_i] / mean_i prod_{j in S_i} r_jg

    The denominator is the systemic exclusion expected if each lender rejected each of its
    applicants independently of the others, at its observed rate. 1 means decisions are as
    independent as chance; above 1, the same applicants are rejected everywhere more often than
    chance (monoculture); below 1, lenders' rejections are spread out. The pooled value (``"all"``)
    uses the rates over all applicants. With everybody applying to all ``L`` lenders and every
    lender making the same decisions at rate ``r``, it is ``r / r^L = r^(1-L)``. A single lender
    gives 1. NaN when the expected exclusion is 0.

    Args:
        applied: ``(n, L)`` bool, applicant ``i`` applied to lender ``j``.
        accepted: ``(n, L)`` bool, lender ``j`` accepted applicant ``i`` (ignored where not applied).
        group: ``(n,)`` group of each applicant (optional).

    Returns:
        ``{"all": ratio, "<group>": ratio, ...}``.
    """
    applied, accepted = _masks(applied, accepted)
    codes, labels = _codes(group, applied.shape[0])
    counts = exclusion_counts(applied, accepted, codes, max(len(labels), 1))
    result = _ratio_dict(counts.excluded, counts.expected, labels)
    pooled = counts.expected_pooled
    result[ALL] = float(counts.excluded.sum() / pooled) if pooled > 0 else float("nan")
    return result


@dataclass(frozen=True)
class ExclusionCounts:
    """The counts behind systemic exclusion and homogenization, per group (arrays of length ``G``).

    Counts add up over steps or runs, so pooled shares and ratios are sums of these.

    Attributes:
        applicants: Applicants who applied to at least one lender.
        excluded: Of those, the ones rejected by every lender they applied to.
        expected: The exclusion expected from independent lenders at their per-group rejection rates.
        expected_pooled: The same over all applicants, at the lenders' pooled rates (a number).
    """

    applicants: np.ndarray
    excluded: np.ndarray
    expected: np.ndarray
    expected_pooled: float


def exclusion_counts(applied: np.ndarray, accepted: np.ndarray, codes: np.ndarray, size: int) -> ExclusionCounts:
    """Count applicants, the systemically excluded and the exclusion independent lenders would give.

    Args:
        applied: ``(n, L)`` bool, applicant ``i`` applied to lender ``j``.
        accepted: ``(n, L)`` bool, lender ``j`` accepted applicant ``i`` (ignored where not applied).
        codes: ``(n,)`` integer group code of each applicant, in ``0 .. size - 1``.
        size: The number of groups (groups with no applicant get zero counts).

    Returns:
        The per-group counts (:class:`ExclusionCounts`); see :func:`homogenization` for the expectation.
    """
    applied, accepted = _masks(applied, accepted)
    codes = np.asarray(codes, dtype=np.int64)
    applicant = applied.any(axis=1)
    excluded = (applicant & ~accepted.any(axis=1)).astype(float)

    def expected(rates: np.ndarray, rows: np.ndarray) -> np.ndarray:
        chance = np.where(applied, np.nan_to_num(rates[rows]), 1.0).prod(axis=1)
        return np.where(applicant, chance, 0.0)

    per_group = expected(_rejection_rates(applied, accepted, codes, size), codes)
    pooled = expected(_rejection_rates(applied, accepted, np.zeros_like(codes), 1), np.zeros_like(codes))
    return ExclusionCounts(
        applicants=np.bincount(codes, weights=applicant, minlength=size),
        excluded=np.bincount(codes, weights=excluded, minlength=size),
        expected=np.bincount(codes, weights=per_group, minlength=size),
        expected_pooled=float(pooled.sum()),
    )


def recourse_portability(
    recommendation: np.ndarray,
    applied_next: np.ndarray,
    accepted_next: np.ndarray,
    group: np.ndarray | None = None,
) -> dict[str, float]:
    """The share of one lender's recommendations that the other lenders accept at the next step.

    Lender A gives recommendations at step ``t`` (finite rows of ``recommendation``; NaN rows are
    applicants it gave none). At ``t + 1`` the other lenders decide. Over every pair (recommended
    applicant ``i``, other lender ``j`` it applied to at ``t + 1``), portability is the share of
    pairs that ``j`` accepted::

        portability = Σ_i Σ_j 1[rec_i] applied_ij accepted_ij / Σ_i Σ_j 1[rec_i] applied_ij

    Args:
        recommendation: ``(n, d)`` lender A's recommendations at ``t`` (NaN rows: none given).
        applied_next: ``(n, L-1)`` bool, applicant applied to each other lender at ``t + 1``.
        accepted_next: ``(n, L-1)`` bool, each other lender's acceptance at ``t + 1``.
        group: ``(n,)`` group of each applicant (optional).

    Returns:
        ``{"all": share, "<group>": share, ...}``.
    """
    applied_next, accepted_next = _masks(applied_next, accepted_next)
    recommendation = np.asarray(recommendation, dtype=float)
    if recommendation.ndim != 2 or recommendation.shape[0] != applied_next.shape[0]:
        raise ConfigError(
            "recommendation",
            f"has shape {recommendation.shape}, expected ({applied_next.shape[0]}, d)",
            "give one recommendation row per applicant (NaN rows for none)",
        )
    codes, labels = _codes(group, applied_next.shape[0])
    recommended = np.isfinite(recommendation).all(axis=1)
    ported, pairs = portability_counts(recommended, applied_next, accepted_next, codes, max(len(labels), 1))
    return _ratio_dict(ported, pairs, labels)


def portability_counts(
    recommended: np.ndarray, applied_next: np.ndarray, accepted_next: np.ndarray, codes: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The counts behind :func:`recourse_portability`, per group: ``(accepted pairs, pairs)``.

    Args:
        recommended: ``(n,)`` bool, lender A gave applicant ``i`` a recommendation at ``t``.
        applied_next: ``(n, L-1)`` bool, applicant applied to each other lender at ``t + 1``.
        accepted_next: ``(n, L-1)`` bool, each other lender's acceptance at ``t + 1``.
        codes: ``(n,)`` integer group code of each applicant, in ``0 .. size - 1``.
        size: The number of groups.

    Returns:
        Two arrays of length ``size``: the (recommended applicant, other lender) pairs accepted, and all pairs.
    """
    applied_next, accepted_next = _masks(applied_next, accepted_next)
    recommended = np.asarray(recommended, dtype=bool)[:, None]
    pairs = (applied_next & recommended).sum(axis=1)
    ported = (accepted_next & recommended).sum(axis=1)
    codes = np.asarray(codes, dtype=np.int64)
    return (
        np.bincount(codes, weights=ported, minlength=size),
        np.bincount(codes, weights=pairs, minlength=size),
    )
