"""The ranked columns of a FACTS audit: each definition of the paper, its viewpoint and parameter."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Metric names (the ``metric`` column) in report order.
METRICS: tuple[str, ...] = (
    "equal_effectiveness",
    "equal_choice_for_recourse",
    "equal_effectiveness_within_budget",
    "equal_cost_of_effectiveness",
    "fair_effectiveness_cost_tradeoff",
    "equal_conditional_mean_recourse",
)

#: Human-readable titles.
TITLES: dict[str, str] = {
    "equal_effectiveness": "Equal Effectiveness",
    "equal_choice_for_recourse": "Equal Choice for Recourse",
    "equal_effectiveness_within_budget": "Equal Effectiveness within Budget",
    "equal_cost_of_effectiveness": "Equal Cost of Effectiveness",
    "fair_effectiveness_cost_tradeoff": "Fair Effectiveness-Cost Trade-Off",
    "equal_conditional_mean_recourse": "Equal (Conditional) Mean Recourse",
}


@dataclass(frozen=True)
class MetricVariant:
    """One ranked column of the audit: a definition, a viewpoint and its parameter."""

    metric: str
    viewpoint: str
    parameter: float = math.nan

    @property
    def key(self) -> str:
        """Return a unique label such as ``equal_cost_of_effectiveness[macro, phi=0.7]``."""
        if math.isnan(self.parameter):
            return f"{self.metric}[{self.viewpoint}]"
        name = "c" if self.metric == "equal_effectiveness_within_budget" else "phi"
        return f"{self.metric}[{self.viewpoint}, {name}={self.parameter:g}]"

    @property
    def title(self) -> str:
        """Return the paper's name with viewpoint and parameter."""
        extra = [self.viewpoint]
        if not math.isnan(self.parameter):
            extra.append(
                ("c" if self.metric == "equal_effectiveness_within_budget" else "ϕ") + f" = {self.parameter:g}"
            )
        return f"{TITLES[self.metric]} ({', '.join(extra)})"
