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


def test_optimise_figure_bars_stop_at_the_bounds_of_each_objective():
    """|dTTR| and a regret are never below 0, a satisficing share never above 1: ±1 SE bars stop there."""
    from recoursesim.policy.figures import pareto_figure

    # by hand: value 0.1 with SE 0.5 would reach -0.4; a share of 0.9 with SE 0.3 would reach 1.2
    trials = pd.DataFrame(
        {
            "number": [0, 1],
            "pareto": [True, True],
            "feasible": [True, True],
            "min |dttr:a|": [0.1, 2.0],
            "min |dttr:a|_se": [0.5, 0.5],
            "satisficing retr:a <= 1.2": [0.9, 0.2],
            "satisficing retr:a <= 1.2_se": [0.3, 0.3],
        }
    )
    figure = pareto_figure(trials, ["min |dttr:a|", "satisficing retr:a <= 1.2"], title="t")
    segments = [seg for c in figure.axes[0].collections for seg in getattr(c, "get_segments", list)()]
    xs = [point[0] for seg in segments for point in seg]
    ys = [point[1] for seg in segments for point in seg]
    assert min(xs) == 0.0 and max(xs) == 2.5  # 0.1 - 0.1 (cut) and 2.0 + 0.5 (uncut)
    assert min(ys) == pytest.approx(0.0) and max(ys) == pytest.approx(1.0)  # 0.2 - 0.2 (cut) and 0.9 + 0.1 (cut)
    one = pareto_figure(trials, ["min |dttr:a|"], title="t")
    lows = [point[1] for c in one.axes[0].collections for seg in getattr(c, "get_segments", list)() for point in seg]
    assert min(lows) == 0.0
