"""The report's auditor figure on real-data observations: readable titles, per-step FACTS budgets merged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recoursesim.report.auditor_figure import auditor_figure, merge_step_budgets, panel_title
from recoursesim.report.figures import distribution_figure

WITHIN = "top_score:equal_effectiveness_within_budget[macro, c={}]"


def _rows(step, metric, value, group=None, seed=0):
    return {"seed": seed, "step": step, "observer": "facts", "group": group, "metric": metric, "value": value}


def test_budgets_chosen_per_step_become_one_worst_budget_series():
    frame = pd.DataFrame(
        [
            _rows(0, WITHIN.format(1), 0.6),
            _rows(1, WITHIN.format(0.666667), 0.4),
            _rows(1, WITHIN.format(1.06667), 0.7),
            _rows(2, WITHIN.format(0.333333), 0.2),
            _rows(2, "n_subgroups", 12.0),
        ]
    )
    merged = merge_step_budgets(frame)
    series = merged[merged["metric"].str.startswith("top_score:")].sort_values("step")
    assert set(series["metric"]) == {"top_score:equal_effectiveness_within_budget[macro, worst of the step's budgets]"}
    np.testing.assert_allclose(series["value"], [0.6, 0.7, 0.2])
    assert (merged["metric"] == "n_subgroups").sum() == 1


def test_budgets_fixed_by_the_user_stay_separate():
    frame = pd.DataFrame([_rows(t, WITHIN.format(c), c + t) for t in range(3) for c in (0.5, 1)])
    merged = merge_step_budgets(frame)
    assert set(merged["metric"]) == {WITHIN.format(0.5), WITHIN.format(1)}


def test_panel_titles_say_what_the_metric_is():
    assert panel_title("ccm", "SR").startswith("CCM: switch rate")
    assert "(ACR)" in panel_title("effort", "ACR") and panel_title("effort", "ACR").startswith("Equality of effort")
    title = panel_title("facts", "top_score:equal_choice_for_recourse[macro, phi=0.3]")
    assert title.splitlines()[0] == "FACTS: largest subgroup unfairness" and "ϕ=0.3" in title
    assert all(len(line) <= 44 for line in title.splitlines())
    assert panel_title("mine", "custom_metric") == "mine: custom metric"


def test_count_panels_have_integer_ticks():
    frame = pd.DataFrame(
        [
            {"seed": 0, "step": t, "observer": "ccm", "group": g, "metric": "CP", "value": v}
            for t in range(4)
            for g, v in (("a", 1.0 + t), ("b", 2.0))
        ]
    )
    figure = auditor_figure(frame, ["a", "b"])
    ticks = figure.axes[0].get_yticks()
    assert figure.axes[0].get_ylabel() == "agents (count)" and np.array_equal(ticks, np.round(ticks))


def test_distribution_keeps_every_slot_and_whole_steps():
    outcomes = pd.DataFrame(
        {
            "outcome": "recourse",
            "group": ["b", "a", "b", "a", "b"],
            "qualification": ["low", "high", "high", "high", "high"],
            "ttr": [4, 2, 1, 3, 5],
        }
    )
    figure = distribution_figure(outcomes, ["a", "b"], "ttr", "time to recourse (steps)", "german data", integer=True)
    ax = figure.axes[0]
    assert ax.get_xlim()[0] < -0.5  # the empty low-score slot of group a is inside the axes
    assert any(text.get_text() == "none" for text in ax.texts)
    ticks = ax.get_yticks()
    assert np.array_equal(ticks, np.round(ticks))


def test_bounded_interval_t_inside_the_range_else_bootstrap():
    from recoursesim.stats import bounded_interval

    # t-interval of [1, 2, 3]: mean 2, sd 1, half-width t(0.975, 2) / sqrt(3) = 4.303 / 1.732 = 2.484.
    mean, low, high = bounded_interval([1.0, 2.0, 3.0])
    assert (mean, low, high) == pytest.approx((2.0, 2 - 2.4843, 2 + 2.4843), abs=1e-3)
    # A share of [0, 0, 0, 1]: t gives 0.25 -/+ 0.80, below 0; the bootstrap stays within [0, 1].
    mean, low, high = bounded_interval([0.0, 0.0, 0.0, 1.0], 0.0, 1.0)
    assert mean == 0.25 and 0.0 <= low <= mean <= high <= 1.0
    assert bounded_interval([0.0, 0.0, 0.0, 1.0])[1] < 0  # unbounded: the t-interval
    assert np.isnan(bounded_interval([0.5], 0.0, 1.0)[1])


def test_seed_bands_and_too_few_rows_steps_drawn():
    from recoursesim.report.auditor_figure import auditor_figure, seed_bands

    rows = pd.DataFrame(
        {
            "seed": [0, 1, 2, 0, 1, 2],
            "step": [0, 0, 0, 1, 1, 1],
            "observer": "ccm",
            "group": "a",
            "metric": "SR",
            "value": [0.1, 0.2, 0.3, 0.0, 0.0, 0.3],
        }
    )
    bands = seed_bands(rows, 0.0, 1.0)
    assert bands["mean"].tolist() == pytest.approx([0.2, 0.1])
    assert (bands["low"] >= 0).all() and (bands["low"] <= bands["mean"]).all()
    flagged = pd.DataFrame(
        {"seed": [0], "step": [2], "observer": "ccm", "group": [None], "metric": "too_few_rows", "value": [1.0]}
    )
    fig = auditor_figure(pd.concat([rows, flagged], ignore_index=True), ["a"])
    ax = fig.axes[0]
    assert "too_few_rows" not in ax.get_title()
    assert "too few rows to audit" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(ax.collections) == 1 and len(ax.patches) >= 1  # the band, and the too-few-rows span at step 2
