"""Average minimal effort, Average Cost Ratio (ACR), recourse ratios and RD (Raimondi et al., Defs. 5–8)."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from recoursesim.errors import ConfigError


def average_effort(costs: np.ndarray) -> tuple[float, float]:
    """Return ``(Phi, rho)`` of the unfavourable members of a subset.

    Args:
        costs: Minimal recourse costs of the subset's unfavourable members (``inf`` = no recourse).

    Returns:
        ``Phi``, the mean cost over members with recourse (NaN if none), and ``rho``, the share
        of members with recourse (NaN for an empty subset).
    """
    costs = np.asarray(costs, dtype=float).ravel()
    if costs.size == 0:
        return math.nan, math.nan
    feasible = np.isfinite(costs)
    rho = float(feasible.mean())
    return (float(costs[feasible].mean()) if feasible.any() else math.nan), rho


def cost_ratio(own_costs: np.ndarray, other_costs: np.ndarray) -> dict[str, float]:
    """ACR and RD of a centre's own group (I+) against the other group (I-).

    Args:
        own_costs: Costs of the unfavourable members of the centre's own group.
        other_costs: Costs of the unfavourable members of the other group.

    Returns:
        ``ACR = Phi_own / Phi_other`` (NaN when either is undefined or ``Phi_other = 0``),
        ``RD = rho_other - rho_own``, and ``Phi_own, Phi_other, rho_own, rho_other, n_own, n_other``.
    """
    phi_own, rho_own = average_effort(own_costs)
    phi_other, rho_other = average_effort(other_costs)
    valid = math.isfinite(phi_own) and math.isfinite(phi_other) and phi_other > 0
    return {
        "ACR": phi_own / phi_other if valid else math.nan,
        "RD": rho_other - rho_own,
        "Phi_own": phi_own,
        "Phi_other": phi_other,
        "rho_own": rho_own,
        "rho_other": rho_other,
        "n_own": float(np.size(own_costs)),
        "n_other": float(np.size(other_costs)),
    }


def effort_decision(
    acr: float,
    rd: float,
    tau: float = 1.2,
    eps: float = 0.1,
    rule: Literal["one_sided", "band"] = "one_sided",
    band: tuple[float, float] = (0.8, 1.2),
) -> bool | None:
    """Algorithm 1's decision: is there equality of effort?

    ``|RD| >= eps`` means recourse availability differs (False). Otherwise the one-sided rule
    returns ``ACR <= tau``; the band rule returns ``band[0] <= ACR <= band[1]``.

    Args:
        acr: Average cost ratio.
        rd: Recourse discrepancy.
        tau: Upper ACR limit of the one-sided rule.
        eps: RD tolerance.
        rule: ``"one_sided"`` (the paper's literal rule) or ``"band"``.
        band: Bounds of the band rule.

    Returns:
        True (fair), False (unfair) or ``None`` when the quantities needed are undefined (NaN).
    """
    if rule not in ("one_sided", "band"):
        raise ConfigError("rule", f"unknown rule {rule!r}", "use one_sided or band")
    if not (tau > 0 and eps >= 0 and band[0] <= band[1]):
        raise ConfigError("tau", "need tau > 0, eps >= 0 and band low <= high", "use tau=1.2, eps=0.1, band=(0.8, 1.2)")
    if math.isnan(rd):
        return None
    if abs(rd) >= eps:
        return False
    if math.isnan(acr):
        return None
    if rule == "band":
        return band[0] <= acr <= band[1]
    return abs(acr) <= tau
