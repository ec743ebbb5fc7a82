"""The report's bands stay inside their quantity's range: efforts, times and ratios are never below 0."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.report.aggregate import BOUNDED, NON_NEGATIVE, STEP_METRICS, mean_ci
from recoursesim.stats import bootstrap_interval, mean_interval


@pytest.mark.parametrize("column", sorted(NON_NEGATIVE))
def test_a_non_negative_band_near_zero_stays_at_or_above_zero(column):
    # four seeds, three at 0 and one at 0.4: the t-interval is 0.1 -/+ 3.182 * 0.2 / 2 = [-0.218, 0.418]
    frame = pd.DataFrame({"step": [1] * 4 + [2] * 4, column: [0.0, 0.0, 0.0, 0.4, 1.0, 1.1, 0.9, 1.0]})
    assert mean_interval(frame[column][:4]).low == pytest.approx(-0.2182, abs=1e-3)  # what Student-t gave
    band = mean_ci(frame, ["step"], [column]).set_index("step")
    low, high = band.loc[1, f"{column}_low"], band.loc[1, f"{column}_high"]
    assert (low, high) == bootstrap_interval([0.0, 0.0, 0.0, 0.4])  # percentile bootstrap instead
    assert 0.0 <= low <= 0.1 <= high <= 0.4
    # far from 0 the t-interval stays: mean 1, sd 0.0816, half-width 3.182 * 0.0816 / 2 = 0.130
    t = mean_interval([1.0, 1.1, 0.9, 1.0])
    assert band.loc[2, f"{column}_low"] == pytest.approx(t.low) and band.loc[2, f"{column}_high"] == pytest.approx(
        t.high
    )


def test_every_figure_band_of_a_quantity_with_a_bound_is_covered():
    # the per-step figures draw every STEP_METRICS column; those that cannot leave a range are handled
    signed = {"dttr", "mean_selected_score", "mean_selected_initial_score"}  # can be negative: t-interval
    assert set(STEP_METRICS) == NON_NEGATIVE | BOUNDED | signed


def test_dttr_keeps_its_symmetric_interval_below_zero():
    frame = pd.DataFrame({"step": [1] * 4, "dttr": [0.0, 0.0, 0.0, 0.4]})
    band = mean_ci(frame, ["step"], ["dttr"])
    assert np.isclose(band["dttr_low"].iloc[0], -0.2182, atol=1e-3)  # a difference may be negative
