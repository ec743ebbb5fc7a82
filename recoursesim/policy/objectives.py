"""Objectives and constraints of a policy search, read from short expressions.

An objective is ``min |dTTR:female|``, ``min |rETR:female - 1|`` or ``max selected:all``: a
direction, then a pooled metric (:class:`~recoursesim.policy.space.MetricSpec`), optionally minus
a constant and inside ``|…|``. It applies to the metric's *mean over seeds*: ``|mean − c|``,
whose standard error is the mean's. A constraint is ``selected:all >= 900`` or
``censored:female <= 100``, also on the mean over seeds.

A search over uncertain scenarios (``--uncertainty``, ``--scenarios``) may take a robustness
objective, computed by :mod:`recoursesim.policy.robust` from the outcome in each scenario:
``regret min |dTTR:female|`` (minimise the maximum regret of that outcome over the scenarios) or
``satisficing |dTTR:female| <= 1`` (maximise the share of scenarios that meet the bound).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from recoursesim.errors import ConfigError
from recoursesim.policy.space import MetricSpec, parse_metric

#: A number as written in an expression (integer, decimal or scientific).
NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_OBJECTIVE = re.compile(
    rf"^\s*(?P<dir>min|max)\s+(?P<bar>\|)?\s*(?P<metric>[A-Za-z_]\w*\s*:\s*[^\s|+-]+)"
    rf"\s*(?:(?P<sign>[-+])\s*(?P<offset>{NUMBER}))?\s*(?P<end>\|)?\s*$"
)
_ROBUST = re.compile(r"^\s*(?P<measure>regret|satisficing)\s+(?P<rest>.*?)\s*$")
_BOUND = re.compile(rf"^(?P<outcome>.*?)\s*(?P<op><=|>=)\s*(?P<bound>{NUMBER})$")
_CONSTRAINT = re.compile(rf"^\s*(?P<metric>[A-Za-z_]\w*\s*:\s*[^\s<>=]+)\s*(?P<op><=|>=)\s*(?P<bound>{NUMBER})\s*$")


@dataclass(frozen=True)
class Objective:
    """One objective: a transform of a metric's mean over seeds, minimised or maximised.

    With a robustness ``measure`` the transform is the *outcome* in each scenario, and the
    objective is the measure over the scenarios: ``"regret"`` (the maximum regret, minimised) or
    ``"satisficing"`` (the share of scenarios whose outcome meets ``threshold``, maximised).

    Attributes:
        metric: The metric.
        maximise: Larger outcomes are better (else smaller).
        offset: Subtracted from the mean.
        absolute: Take the absolute value after subtracting.
        measure: ``""`` (the outcome itself), ``"regret"`` or ``"satisficing"``.
        threshold: The outcome to reach (satisficing only).
    """

    metric: MetricSpec
    maximise: bool = False
    offset: float = 0.0
    absolute: bool = False
    measure: str = ""
    threshold: float = math.nan

    @property
    def maximised(self) -> bool:
        """Whether the search maximises this objective (a satisficing share, or a ``max`` outcome)."""
        return self.measure == "satisficing" or (self.maximise and self.measure != "regret")

    @property
    def direction(self) -> str:
        """Optuna's direction name."""
        return "maximize" if self.maximised else "minimize"

    @property
    def outcome_label(self) -> str:
        """The outcome, normalised (``"|dttr:female - 1|"``)."""
        inner = self.metric.label
        if self.offset:
            inner += f" - {self.offset:g}" if self.offset > 0 else f" + {-self.offset:g}"
        return "|" + inner + "|" if self.absolute else inner

    @property
    def label(self) -> str:
        """The objective as written, normalised (``"min |dttr:female|"``, ``"regret min dttr:a"``)."""
        if self.measure == "satisficing":
            return f"satisficing {self.outcome_label} {'>=' if self.maximise else '<='} {self.threshold:g}"
        plain = f"{'max' if self.maximise else 'min'} {self.outcome_label}"
        return f"regret {plain}" if self.measure == "regret" else plain

    def value(self, mean: float) -> float:
        """The objective's value for a seed mean."""
        shifted = mean - self.offset
        return abs(shifted) if self.absolute else shifted


@dataclass(frozen=True)
class Constraint:
    """A bound on a metric's mean over seeds.

    Attributes:
        metric: The metric.
        at_least: ``>=`` (else ``<=``).
        bound: The bound.
    """

    metric: MetricSpec
    at_least: bool
    bound: float

    @property
    def label(self) -> str:
        """The constraint as written, normalised."""
        return f"{self.metric.label} {'>=' if self.at_least else '<='} {self.bound:g}"

    def violation(self, mean: float) -> float:
        """Optuna's constraint value: ``<= 0`` when met, else by how much it is missed."""
        if not math.isfinite(mean):
            return float("inf")
        return self.bound - mean if self.at_least else mean - self.bound


def parse_objective(text: str) -> Objective:
    """Parse ``min |dTTR:female|``, ``min |rETR:female - 1|``, ``max selected:all``, or a robust form.

    The robust forms are ``regret min|max OUTCOME`` and ``satisficing OUTCOME <= N`` (or ``>= N``),
    with ``OUTCOME`` written as after ``min`` (``|dTTR:female - 1|``).

    Raises:
        ConfigError: Unreadable expression or unbalanced ``|``.
    """
    robust = _ROBUST.match(text)
    if robust is not None:
        return _parse_robust(text, robust["measure"], robust["rest"])
    match = _OBJECTIVE.match(text)
    if match is None or bool(match["bar"]) != bool(match["end"]):
        raise ConfigError(
            "--objective",
            f"cannot read {text!r}",
            "write min|max METRIC:GROUP, optionally as |METRIC:GROUP - C| (e.g. 'min |rETR:female - 1|'),"
            " or 'regret min |dTTR:female|' or 'satisficing |dTTR:female| <= 1'",
        )
    offset = float(match["offset"] or 0.0) * (-1.0 if match["sign"] == "+" else 1.0)
    metric = parse_metric(match["metric"].replace(" ", ""), "--objective")
    return Objective(metric, match["dir"] == "max", offset, bool(match["bar"]))


def _parse_robust(text: str, measure: str, rest: str) -> Objective:
    bound = _BOUND.match(rest) if measure == "satisficing" else None
    if measure == "satisficing" and bound is None:
        raise ConfigError("--objective", f"cannot read {text!r}", "write satisficing OUTCOME <= N or >= N")
    try:
        outcome = parse_objective(rest if bound is None else f"min {bound['outcome']}")
    except ConfigError:
        fix = "write 'regret min|max OUTCOME' or 'satisficing OUTCOME <= N', e.g. 'regret min |dTTR:female|'"
        raise ConfigError("--objective", f"cannot read {text!r}", fix) from None
    if outcome.measure:
        raise ConfigError("--objective", f"cannot read {text!r}", "name one robustness measure")
    if bound is None:
        return Objective(outcome.metric, outcome.maximise, outcome.offset, outcome.absolute, measure="regret")
    at_least, threshold = bound["op"] == ">=", float(bound["bound"])
    return Objective(outcome.metric, at_least, outcome.offset, outcome.absolute, "satisficing", threshold)


def parse_constraint(text: str) -> Constraint:
    """Parse ``selected:all >= 900``.

    Raises:
        ConfigError: Unreadable expression.
    """
    match = _CONSTRAINT.match(text)
    if match is None:
        raise ConfigError("--constraint", f"cannot read {text!r}", "write METRIC:GROUP >= N or <= N")
    return Constraint(
        parse_metric(match["metric"].replace(" ", ""), "--constraint"), match["op"] == ">=", float(match["bound"])
    )


def seed_mean(values: np.ndarray) -> tuple[float, float, int]:
    """Mean, standard error (``sd / √n``, NaN for one value) and count of the finite values."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        return float("nan"), float("nan"), 0
    se = float(finite.std(ddof=1) / math.sqrt(finite.size)) if finite.size > 1 else float("nan")
    return float(finite.mean()), se, int(finite.size)


def pareto_mask(values: np.ndarray) -> np.ndarray:
    """Rows of ``values`` (``(n, m)``, all minimised) that no other row dominates.

    A row dominates another when it is no worse in every column and better in one; equal rows
    do not dominate each other.
    """
    values = np.asarray(values, dtype=float)
    no_worse = (values[:, None, :] <= values[None, :, :]).all(axis=2)
    better = (values[:, None, :] < values[None, :, :]).any(axis=2)
    dominated = (no_worse & better).any(axis=0)
    return ~dominated
