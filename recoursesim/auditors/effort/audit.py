"""Equality of effort via algorithmic recourse: system-level, per-centre and ACR(q) curves (Alg. 1)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from recoursesim.auditors.effort.distance import feature_ranges, mixed_distance, neighbourhood_radii
from recoursesim.auditors.effort.ratio import cost_ratio, effort_decision
from recoursesim.auditors.effort.recourse import MinimalInterventionRecourse
from recoursesim.errors import ConfigError, DataError
from recoursesim.resources import check_memory
from recoursesim.stats import mean_interval

#: Default quantile levels of the neighbourhood radius.
DEFAULT_QS = tuple(round(0.1 * k, 1) for k in range(1, 11))
#: Which group's members serve as neighbourhood centres.
#: Centres whose distances to every row are held at once (bounds memory: block x rows x ~48 bytes).
CENTRE_BLOCK = 512
#: Peak bytes per (centre, row) of a block: distances, their sorted copy, and the masks per radius.
BYTES_PER_CENTRE_ROW = 48
#: Memory of an audit whatever its size.
BASE_BYTES = 200 * 2**20

CentreGroup = Literal["protected", "unprotected"]
#: Both centre groups, protected first.
CENTRE_GROUPS: tuple[CentreGroup, ...] = ("protected", "unprotected")


class EqualityOfEffortAuditor:
    """Prices every individual's minimal recourse once, then compares groups within neighbourhoods.

    Args:
        recourse: The minimal-intervention recourse problem (model, SCM, actionability).
        sensitive: The sensitive attribute's column (never part of the distance).
        protected_value: The protected group's value of ``sensitive``.
        distance_features: Covariates of the situation-testing distance (default: the SCM
            variables other than ``sensitive``).
        categorical: Those of ``distance_features`` compared by overlap.
        block: Centres whose distances to every row are computed at once (memory is about
            ``block x rows x 48`` bytes; the results do not depend on it).
        force: Compute even when the estimated memory exceeds what is available.

    Attributes:
        cost_: Minimal cost of each row (0 favourable, inf without recourse).
        unfavourable_: True where the model's decision is unfavourable.
        protected_: True for rows of the protected group.
        group_: Each row's value of ``sensitive``.
    """

    def __init__(
        self,
        recourse: MinimalInterventionRecourse,
        sensitive: str,
        protected_value: Any,
        *,
        distance_features: Sequence[str] | None = None,
        categorical: Sequence[str] = (),
        block: int = CENTRE_BLOCK,
        force: bool = False,
    ) -> None:
        self.recourse = recourse
        self.sensitive = sensitive
        self.protected_value = protected_value
        self.distance_features = distance_features
        self.categorical = tuple(categorical)
        self.block = block
        self.force = force

    def fit(self, frame: pd.DataFrame) -> EqualityOfEffortAuditor:
        """Compute costs, predictions and the pairwise distances of ``frame``'s rows."""
        variables = list(self.recourse.scm.variables)
        if self.sensitive in self.recourse.actionable:
            raise ConfigError("actionable", "includes the sensitive attribute", "make it immutable")
        self.protected_ = check_groups(
            frame, self.sensitive, self.protected_value, {"variables": variables}, "protected_value"
        )
        self.group_ = frame[self.sensitive].to_numpy()
        features = (
            [v for v in variables if v != self.sensitive]
            if self.distance_features is None
            else list(self.distance_features)
        )
        if self.sensitive in features:
            raise ConfigError("distance_features", "includes the sensitive attribute", "leave it out")
        unknown = [c for c in [*features, *self.categorical] if c not in frame.columns]
        if unknown or not set(self.categorical) <= set(features):
            raise ConfigError("distance_features", f"unknown or unlisted column(s) {unknown}", "name frame columns")
        numeric = [c for c in features if c not in self.categorical]
        result = self.recourse.solve(frame[variables].to_numpy(dtype=float))
        self.cost_ = result.cost
        self.unfavourable_ = result.unfavourable
        num = frame[numeric].to_numpy(dtype=float)
        cat = frame[list(self.categorical)].to_numpy() if self.categorical else None
        self._numeric, self._categorical, self._ranges = num, cat, feature_ranges(num)
        return self

    def system(self, group: CentreGroup = "protected") -> dict[str, float]:
        """System-level comparison: the whole group against everyone else (``I = D``)."""
        own = self.protected_ if group == "protected" else ~self.protected_
        return cost_ratio(self.cost_[own & self.unfavourable_], self.cost_[~own & self.unfavourable_])

    def centre(self, index: int, q: float) -> dict[str, float]:
        """Compare a centre's own group with the other group inside its q-neighbourhood."""
        table = self._centre_table(np.array([int(index)]), [q])
        row = table.iloc[0]
        return {
            k: float(row[k])
            for k in ("ACR", "RD", "Phi_own", "Phi_other", "rho_own", "rho_other", "n_own", "n_other", "size")
        }

    def centre_indices(self, centres: CentreGroup | Sequence[int] = "protected") -> np.ndarray:
        """Return the centres: the unfavourable members of a group, or the given positions."""
        if isinstance(centres, str):
            if centres not in ("protected", "unprotected"):
                raise ConfigError("centres", f"unknown value {centres!r}", "use protected, unprotected or positions")
            group = self.protected_ if centres == "protected" else ~self.protected_
            return np.flatnonzero(group & self.unfavourable_)
        return np.asarray(centres, dtype=np.int64)

    def _centre_table(self, centres: np.ndarray, qs: Sequence[float]) -> pd.DataFrame:
        """Per (q, centre) ACR, RD and their parts."""
        n = self.cost_.size
        if centres.size and (centres.min() < 0 or centres.max() >= n):
            raise ConfigError("centre", "position out of range", f"use 0 .. {n - 1}")
        check_memory(
            estimate_effort_bytes(n, centres.size, self.block),
            f"{n:,} rows, {centres.size:,} centres, {min(self.block, max(centres.size, 1)):,} at a time",
            "audit fewer rows or pass a smaller block",
            force=self.force,
            field="equality of effort",
        )
        blocks = [
            self._block_table(centres[lo : lo + self.block], qs) for lo in range(0, max(centres.size, 1), self.block)
        ]
        per_q = [pd.concat([table[i] for table in blocks], ignore_index=True) for i in range(len(qs))]
        return pd.concat(per_q, ignore_index=True)

    def _block_table(self, centres: np.ndarray, qs: Sequence[float]) -> list[pd.DataFrame]:
        """Per q, the table of one block of centres (the distances of a block at a time bound memory)."""
        dist = mixed_distance(
            self._numeric[centres],
            None if self._categorical is None else self._categorical[centres],
            self._ranges,
            self._numeric,
            self._categorical,
        )
        dist[np.arange(centres.size), centres] = -1.0  # the centre sorts first and is dropped
        radii = neighbourhood_radii(dist, qs)
        dist[np.arange(centres.size), centres] = 0.0
        feasible = np.isfinite(self.cost_)
        cost0 = np.where(feasible, self.cost_, 0.0)
        same = self.group_[np.newaxis, :] == self.group_[centres][:, np.newaxis]
        unfav = self.unfavourable_[np.newaxis, :]
        frames = []
        for level, radius in zip(qs, radii, strict=True):
            member = dist <= radius[:, np.newaxis]
            parts = {}
            for side, mask in (("own", member & same & unfav), ("other", member & ~same & unfav)):
                count = mask.sum(axis=1).astype(float)
                n_feasible = (mask & feasible).sum(axis=1).astype(float)
                total = (mask * cost0).sum(axis=1)
                with np.errstate(invalid="ignore"):  # 0 / 0: no member (with recourse), NaN
                    parts[f"Phi_{side}"] = total / n_feasible
                    parts[f"rho_{side}"] = n_feasible / count
                parts[f"n_{side}"] = count
            with np.errstate(invalid="ignore", divide="ignore"):
                acr = np.where(parts["Phi_other"] > 0, parts["Phi_own"] / parts["Phi_other"], np.nan)
            size = member.sum(axis=1)
            protected_share = (member & self.protected_[np.newaxis, :]).sum(axis=1) / size
            frames.append(
                pd.DataFrame(
                    {
                        "q": float(level),
                        "centre": centres,
                        "ACR": acr,
                        "RD": parts["rho_other"] - parts["rho_own"],
                        **parts,
                        "size": size,
                        "protected_share": protected_share,
                    }
                )
            )
        return frames

    def curve(
        self,
        qs: Sequence[float] = DEFAULT_QS,
        centres: CentreGroup | Sequence[int] = "protected",
        confidence: float = 0.95,
    ) -> pd.DataFrame:
        """ACR(q): mean and confidence interval of ACR over the centres where it is defined.

        Args:
            qs: Quantile levels of the neighbourhood radius.
            centres: ``"protected"``/``"unprotected"`` (that group's unfavourable members) or positions.
            confidence: Confidence level of the t-interval of the mean.

        Returns:
            One row per q: ``q, mean, ci_low, ci_high, sd, n_defined, n_centres`` and the means of
            ``RD, Phi_own, Phi_other, size, protected_share``.
        """
        index = self.centre_indices(centres)
        if index.size == 0:
            raise DataError(
                "centres", "there are no centres (no unfavourable members of the group)", "audit another group"
            )
        table = self._centre_table(index, qs)
        rows = []
        for level, part in table.groupby("q", sort=True):
            acr = mean_interval(part["ACR"].to_numpy(), confidence)
            rows.append(
                {
                    "q": level,
                    "mean": acr.mean,
                    "ci_low": acr.low,
                    "ci_high": acr.high,
                    "sd": acr.sd,
                    "n_defined": acr.n,
                    "n_centres": int(index.size),
                    **{
                        f"mean_{k}": float(part[k].mean())
                        for k in ("RD", "Phi_own", "Phi_other", "size", "protected_share")
                    },
                }
            )
        return pd.DataFrame(rows)


def check_groups(
    frame: pd.DataFrame, sensitive: str, protected_value: Any, columns: dict[str, list[str]], field: str
) -> np.ndarray:
    """Return the rows of the protected group; refuse what an audit of ``frame`` cannot compare.

    Raises:
        DataError: ``sensitive`` or a column listed in ``columns`` (field -> names) is missing,
            ``frame`` has fewer than two rows, ``sensitive`` has a missing value or a single
            value, or ``protected_value`` (named ``field`` in the message) does not occur in it.
    """
    for option, names in {"sensitive": [sensitive], **columns}.items():
        missing = [c for c in names if c not in frame.columns]
        if missing:
            raise DataError(
                option, f"names {missing[0]!r}, not a column of the data", f"use one of {list(frame.columns)}"
            )
    if len(frame) < 2:
        raise DataError("data", f"has {len(frame)} row(s); the audit compares at least two", "audit a larger data set")
    groups = frame[sensitive]
    if groups.isna().any():
        raise DataError(sensitive, "has missing values", "drop or impute them")
    if groups.nunique() < 2:
        raise DataError(sensitive, f"has a single value {groups.iloc[0]!r}", "audit an attribute with two groups")
    protected = (groups == protected_value).to_numpy()
    if not protected.any():
        raise DataError(
            field,
            f"{protected_value!r} does not occur in {sensitive}",
            f"use one of {sorted(map(str, groups.unique()))}",
        )
    return protected


def estimate_effort_bytes(rows: int, centres: int, block: int = CENTRE_BLOCK) -> int:
    """Return the estimated peak memory of a curve over ``centres`` centres among ``rows`` rows.

    The distances of ``block`` centres to every row are held at once, with their sorted copy and
    the neighbourhood masks; the rest is linear in ``rows``.
    """
    return BASE_BYTES + min(block, max(centres, 1)) * rows * BYTES_PER_CENTRE_ROW + rows * 64


def equality_of_effort(
    frame: pd.DataFrame,
    recourse: MinimalInterventionRecourse,
    sensitive: str,
    protected_value: Any,
    *,
    distance_features: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
    q: float = 1.0,
    centre: int | None = None,
    tau: float = 1.2,
    eps: float = 0.1,
    rule: Literal["one_sided", "band"] = "one_sided",
    band: tuple[float, float] = (0.8, 1.2),
) -> dict[str, Any]:
    """Equality-of-effort test (Algorithm 1) at system level or around one centre.

    Args:
        frame: The audited data: SCM variables and the sensitive attribute.
        recourse: The minimal-intervention recourse problem.
        sensitive: The sensitive attribute's column.
        protected_value: The protected group's value.
        distance_features: Covariates of the distance (default: SCM variables but ``sensitive``).
        categorical: Distance features compared by overlap.
        q: Neighbourhood quantile (with ``centre``).
        centre: Row position of the centre; ``None`` compares the protected group with the rest.
        tau: ACR limit.
        eps: RD tolerance.
        rule: ``"one_sided"`` or ``"band"``.
        band: Bounds of the band rule.

    Returns:
        ``ACR, RD, Phi_own, Phi_other, rho_own, rho_other, n_own, n_other`` and ``decision``.
    """
    auditor = EqualityOfEffortAuditor(
        recourse, sensitive, protected_value, distance_features=distance_features, categorical=categorical
    ).fit(frame)
    result: dict[str, Any] = auditor.system() if centre is None else auditor.centre(centre, q)
    result["decision"] = effort_decision(result["ACR"], result["RD"], tau, eps, rule, band)
    return result


def acr_curve(
    frame: pd.DataFrame,
    recourse: MinimalInterventionRecourse,
    sensitive: str,
    protected_value: Any,
    *,
    qs: Sequence[float] = DEFAULT_QS,
    centres: CentreGroup | Sequence[int] = "protected",
    distance_features: Sequence[str] | None = None,
    categorical: Sequence[str] = (),
) -> pd.DataFrame:
    """ACR(q) curve with 95% confidence intervals over centres (see :meth:`EqualityOfEffortAuditor.curve`)."""
    auditor = EqualityOfEffortAuditor(
        recourse, sensitive, protected_value, distance_features=distance_features, categorical=categorical
    ).fit(frame)
    return auditor.curve(qs, centres)
