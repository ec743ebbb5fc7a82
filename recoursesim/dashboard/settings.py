"""The dashboard's knobs (the paper authors' *Game of Recourse* controls) and the scenario they build."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario

#: Mitigation strategies offered by the dashboard → (label, selection section, training section).
MITIGATIONS: dict[str, str] = {
    "none": "none (top-k)",
    "cns": "CNS (circumstance-normalised selection)",
    "cda": "CDA (counterfactual data augmentation)",
    "cns_cda": "CNS + CDA",
    "effort_rewarding": "effort-rewarding selection",
}

#: Feature distributions: ``bimodal`` is the paper's bell2024 generator, ``mixture`` the generic one.
DISTRIBUTIONS: dict[str, str] = {
    "bimodal": "bimodal (Bell et al. 2024)",
    "mixture": "mixture of normals",
}

#: Where applicants apply in a market of several lenders (the registered choice policies).
CHOICES: dict[str, str] = {
    "all": "all lenders",
    "best-odds": "the lender with the best odds",
    "cheapest": "the lender whose advice is cheapest",
    "sequential": "one at a time, best odds first",
    "random": "a lender at random",
}
#: The most lenders the dashboard offers.
MAX_LENDERS = 5

#: The feature box agents' recommendations are kept in (the reference code's [-0.1, 1.1]).
_BOX = {"lower": [-0.1, -0.1], "upper": [1.1, 1.1]}


@dataclass(frozen=True)
class DashboardSettings:
    """Every control of the dashboard; :meth:`to_scenario` turns them into a validated scenario.

    Attributes:
        initial: Initial agents.
        entrants: New agents per step.
        distribution: ``"bimodal"`` (the paper's bell2024 population) or ``"mixture"``.
        q: Qualification gap of the disadvantaged group's low performers, in standard deviations.
        k: Favourable outcomes per step.
        difficulty: Global difficulty: agents' effort capacities are divided by it (1 = the
            paper's capacity, 2 = every move is twice as hard).
        adaptation: ``"continuous"`` (move part of the way) or ``"binary"`` (all of the way or not at all).
        effort: ``"flexible"`` (a fresh draw of the effort budget each step) or ``"constant"``.
        steps: Time steps ``T`` (steps ``0 … T``).
        mitigation: One of :data:`MITIGATIONS`.
        weights: Ranker coefficients of the two features.
        seed: Run seed.
        auditor: Run the equality-of-effort observer every step (the auditor panel).
        lenders: Lenders in the market (1: a single lender, no ``[market]``); each uses the
            settings' scorer, selection, recourse and mitigation.
        choice: Where applicants apply when there are several lenders (one of :data:`CHOICES`).
    """

    initial: int = 200
    entrants: int = 20
    distribution: str = "bimodal"
    q: float = 2.0
    k: int = 20
    difficulty: float = 0.5
    adaptation: str = "continuous"
    effort: str = "flexible"
    steps: int = 20
    mitigation: str = "none"
    weights: tuple[float, float] = field(default=(0.5, 0.5))
    seed: int = 0
    auditor: bool = True
    lenders: int = 1
    choice: str = "all"

    def to_spec(self) -> dict[str, Any]:
        """Return the scenario table (as :meth:`Scenario.from_dict` takes it) for these settings.

        Raises:
            ConfigError: A choice that is not offered (distribution, mitigation) or a non-positive difficulty.
        """
        if self.distribution not in DISTRIBUTIONS:
            raise ConfigError(
                "distribution", f"unknown {self.distribution!r}", f"use one of {', '.join(DISTRIBUTIONS)}"
            )
        if self.mitigation not in MITIGATIONS:
            raise ConfigError("mitigation", f"unknown {self.mitigation!r}", f"use one of {', '.join(MITIGATIONS)}")
        if not self.difficulty > 0:
            raise ConfigError("difficulty", f"must be positive, got {self.difficulty}", "use a value such as 1.0")
        if not 1 <= int(self.lenders) <= MAX_LENDERS:
            raise ConfigError("lenders", f"must be 1 … {MAX_LENDERS}, got {self.lenders}", "choose 1 to 5 lenders")
        if self.choice not in CHOICES:
            raise ConfigError("choice", f"unknown {self.choice!r}", f"use one of {', '.join(CHOICES)}")
        spec: dict[str, Any] = {
            "name": "dashboard",
            "run": {"steps": int(self.steps), "seed": int(self.seed)},
            "population": self._population(),
            "scorer": {"name": "linear", "weights": [float(w) for w in self.weights], "intercept": 0.0},
            "selection": self._selection(),
            "recourse": {"name": "linear", "norm": "l2", "action_set": dict(_BOX)},
            "behaviour": {"name": "bounded_effort", "budget": self.effort, "adaptation": self.adaptation},
            "metrics": {"effort": "cost", "reference_group": "advantaged"},
        }
        if self.mitigation in ("cda", "cns_cda"):
            spec["training"] = {"name": "cda", "initial_threshold": 0.5}
        if int(self.lenders) > 1:  # observers do not run in a market yet: no auditor, no ground truth
            spec["market"] = {"choice": {"name": self.choice}, "copies": int(self.lenders)}
            spec["lenders"] = [{"name": "bank"}]
            return spec
        spec["observers"] = [self._ground_truth()]
        if self.auditor:
            spec["observers"].append({"name": "equality_of_effort", "every": 1})
        return spec

    def _ground_truth(self) -> dict[str, Any]:
        """The ground truth behind the "ground truth" colouring: x0 is the qualification, x1 a proxy.

        Truly qualified iff x0 is above the midpoint between the low and the high performers
        (0.5 for the bimodal population, 0.7 for the mixture); moving x1 changes only the score.
        """
        cutoff = 0.5 if self.distribution == "bimodal" else 0.7
        return {"name": "ground_truth", "outcome": "linear", "weights": {"x0": 1.0}, "cutoff": cutoff, "causal": ["x0"]}

    def to_scenario(self) -> Scenario:
        """Return the validated scenario (raises :class:`ConfigError` on a bad value)."""
        return Scenario.from_dict(self.to_spec(), source="dashboard")

    def _population(self) -> dict[str, Any]:
        if self.distribution == "bimodal":
            return {
                "name": "bell2024",
                "initial": int(self.initial),
                "entrants": int(self.entrants),
                "q": float(self.q),
                "effort": "equal",
                "adaptation": 0.5 / float(self.difficulty),
                "high_fraction": min(0.5, int(self.k) / (2 * int(self.initial))),  # the paper's k / 2N
            }
        effort = {"mean": 1.0, "sd": 1.0, "scale": 0.04 / float(self.difficulty)}
        low_disadvantaged = 0.5 - 0.1 * float(self.q)
        return {
            "name": "mixture",
            "initial": int(self.initial),
            "entrants": int(self.entrants),
            "features": ["x0", "x1"],
            "groups": [
                {
                    "name": "advantaged",
                    "share": 0.5,
                    "effort": effort,
                    "qualification": [
                        {"weights": [0.1, 0.9], "means": [0.85, 0.5], "sds": [0.05, 0.1]},
                        {"means": [0.5], "sds": [0.1]},
                    ],
                },
                {
                    "name": "disadvantaged",
                    "share": 0.5,
                    "effort": dict(effort),
                    "qualification": [
                        {"weights": [0.1, 0.9], "means": [0.85, low_disadvantaged], "sds": [0.05, 0.1]},
                        {"means": [0.5], "sds": [0.1]},
                    ],
                },
            ],
        }

    def _selection(self) -> dict[str, Any]:
        k = int(self.k)
        if self.mitigation in ("cns", "cns_cda"):
            return {"name": "cns", "k": k}
        if self.mitigation == "effort_rewarding":
            return {"name": "effort_rewarding", "k": k, "returning_share": 0.5, "measure": "score_gain"}
        return {"name": "top_k", "k": k}
