"""A short run of the default scenario with a given trainer, and tiny hand-written market ledgers."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from recoursesim.scenario import Scenario
from recoursesim.simulate import RunResult, simulate


@pytest.fixture
def small_run() -> Callable[..., RunResult]:
    """``small_run(training, steps=3, initial=60, **overrides)``: the default scenario, shortened, with ``training``."""

    def run(training: dict[str, Any], steps: int = 3, initial: int = 60, **overrides: Any) -> RunResult:
        scenario = Scenario.bundled("default").with_overrides(
            {"training": training, "run.steps": steps, "population.initial": initial, **overrides}
        )
        return simulate(scenario)

    return run


NAN = np.nan


def market_ledger(rows: list[tuple], lenders: tuple[str, ...] = ("A", "B"), groups: tuple[str, ...] = ("g0", "g1")):
    """A ledger from ``(step, agent, group, lender, selected, rec_x, effort, acted, score)`` tuples.

    Each agent enters at the first step it appears.
    """
    frame = pd.DataFrame(
        rows, columns=["step", "agent_id", "group", "lender", "selected", "rec_x", "effort", "acted", "score"]
    )
    entry = frame.groupby("agent_id")["step"].transform("min")
    return pd.DataFrame(
        {
            "step": frame["step"].astype(np.int32),
            "agent_id": frame["agent_id"].astype(np.int64),
            "group": pd.Categorical(frame["group"], categories=list(groups)),
            "entry_step": entry.astype(np.int32),
            "x": 0.0,
            "score": frame["score"].astype(float),
            "threshold": 0.5,
            "selected": frame["selected"].astype(bool),
            "rec_x": frame["rec_x"].astype(float),
            "effort": frame["effort"].astype(float),
            "lender": pd.Categorical(frame["lender"], categories=list(lenders)),
            "acted": frame["acted"].astype(bool),
        }
    )


T, F = True, False
#: Two steps, two lenders, four agents (0, 1 in g0; 2, 3 in g1), as the engine records them: only
#: agents still waiting (refused everywhere) get advice, and agent 3 gets none from B at step 0.
#: Agent 1 acts on A's advice at step 0 (effort 0.5, on A's row), agent 3 on A's (effort 0.25).
HAND = market_ledger(
    [
        (0, 0, "g0", "A", T, NAN, 0.0, F, 0.8),
        (0, 0, "g0", "B", F, NAN, 0.0, F, 0.4),
        (0, 1, "g0", "A", F, 0.6, 0.5, T, 0.3),
        (0, 1, "g0", "B", F, 0.7, 0.0, F, 0.2),
        (0, 2, "g1", "A", F, NAN, 0.0, F, 0.4),
        (0, 2, "g1", "B", T, NAN, 0.0, F, 0.6),
        (0, 3, "g1", "A", F, 0.6, 0.25, T, 0.1),
        (0, 3, "g1", "B", F, NAN, 0.0, F, 0.1),
        (1, 1, "g0", "A", T, NAN, 0.0, F, 0.6),
        (1, 1, "g0", "B", F, NAN, 0.0, F, 0.4),
        (1, 3, "g1", "A", F, 0.6, 0.0, F, 0.3),
        (1, 3, "g1", "B", F, 0.9, 0.0, F, 0.2),
    ]
)


@pytest.fixture
def hand_ledger() -> pd.DataFrame:
    """:data:`HAND`, a fresh copy."""
    return HAND.copy()


@pytest.fixture(scope="session")
def make_market_ledger() -> Callable[..., pd.DataFrame]:
    """:func:`market_ledger`."""
    return market_ledger
