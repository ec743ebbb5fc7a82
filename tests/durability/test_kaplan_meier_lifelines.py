"""recoursesim's Kaplan–Meier estimator against lifelines' on the same durations.

recoursesim writes the estimator out (whole-step durations, a few lines of numpy) to keep
lifelines out of a core run. lifelines caps pandas below 3, so it is not a test dependency of the
main suite (which then skips this file): CI runs this file in a venv of its own with the
``lifelines`` extra (``.ci/run``). The two estimators get the same inputs: random whole-step
durations, some censored, with ties at every step.
"""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.durability import kaplan_meier

if os.environ.get("RECOURSESIM_REQUIRE_LIFELINES"):  # CI's own stage: a missing lifelines is a failure
    import lifelines
else:
    lifelines = pytest.importorskip("lifelines")


@settings(max_examples=40, deadline=None)
@given(
    durations=st.lists(st.integers(min_value=1, max_value=12), min_size=1, max_size=80),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_survival_and_risk_sets_equal_lifelines(durations: list[int], seed: int) -> None:
    durations_ = np.asarray(durations)
    expired = np.random.default_rng(seed).random(durations_.size) < 0.6
    ours = kaplan_meier(durations_, expired)
    fitter = lifelines.KaplanMeierFitter().fit(durations_, event_observed=expired, timeline=ours["time"])
    theirs = fitter.survival_function_.iloc[:, 0].to_numpy()
    np.testing.assert_allclose(ours["survival"].to_numpy(), theirs, rtol=0, atol=1e-12)
    table = fitter.event_table.reindex(ours["time"].to_numpy(), fill_value=0)
    at = table["observed"].to_numpy() + table["censored"].to_numpy() > 0  # lifelines lists only times with an event
    np.testing.assert_array_equal(ours["at_risk"].to_numpy()[at], table["at_risk"].to_numpy()[at])
    np.testing.assert_array_equal(ours["expired"].to_numpy(), table["observed"].to_numpy())
    np.testing.assert_array_equal(ours["censored"].to_numpy(), table["censored"].to_numpy())
