"""The policy figures as people read them: titles inside the figure, results said in words."""

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from recoursesim.policy.discover import Box
from recoursesim.policy.figures import (
    discovery_boxes_figure,
    discovery_tradeoff_figure,
    pareto_figure,
    robustness_figure,
    sensitivity_figure,
)

SOBOL = pd.DataFrame(
    {
        "parameter": ["selection.k", "population.entrants", "run.steps"],
        "S1": [0.5, 0.2, 0.0], "S1_low": [0.3, 0.1, -0.1], "S1_high": [0.7, 0.3, 0.1],
        "ST": [0.6, 0.3, 0.01], "ST_low": [0.4, 0.2, -0.05], "ST_high": [0.8, 0.4, 0.05],
        "rank": [1, 2, 3],
    }
)  # fmt: skip
MORRIS = pd.DataFrame(
    {
        "parameter": ["selection.k", "run.steps"],
        "mu_star": [1.2, 0.1], "mu_star_low": [0.9, 0.0], "mu_star_high": [1.5, 0.2], "mu": [1.1, 0.0],
        "sigma": [0.3, 0.1], "rank": [1, 2],
    }
)  # fmt: skip


def _drawn(fig):
    """Draw ``fig`` as a PNG would be; return its texts (titles and words on the axes) with their extents."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [t for ax in fig.axes for t in (ax.title, *ax.texts) if t.get_text()]
    if fig.get_suptitle():
        texts.append(fig._suptitle)
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts], fig.bbox


def _assert_inside(fig):
    texts, page = _drawn(fig)
    assert texts
    for text, box in texts:
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, text
    return [text for text, _ in texts]


@pytest.mark.parametrize("n_seeds, share", [(1, math.nan), (2, 0.5), (16, 0.034)])
@pytest.mark.parametrize("method, table", [("sobol", SOBOL), ("morris", MORRIS)])
def test_the_sensitivity_title_fits_with_one_seed_and_with_many(method, table, n_seeds, share):
    fig = sensitivity_figure(
        table, method=method, n=64, samples=320, metric="dttr:disadvantaged", noise_share=share, n_seeds=n_seeds
    )
    (title,) = _assert_inside(fig)
    assert f"{n_seeds} seed{'s' if n_seeds > 1 else ''} per sample;" in title
    assert ("n/a (needs two seeds)" in title) == (n_seeds == 1)


def test_a_title_too_long_for_one_line_is_wrapped_and_fits():
    metric = "censored_mean_wait:" + "-".join(["a-group-name-from-a-user-file"] * 4)
    fig = sensitivity_figure(SOBOL, method="sobol", n=64, samples=320, metric=metric, noise_share=0.1, n_seeds=4)
    (title,) = _assert_inside(fig)
    assert title.count("\n") >= 2  # the long first line was wrapped
    whole = f"Sobol indices of {metric} (N=64, 320 samples)4 seeds per sample; seed-noise share of the variance"
    assert "".join(title.split()) == "".join(f"{whole} of the sample means: 10.0%".split())  # nothing lost


TRAJECTORY = pd.DataFrame(
    {"step": [0, 1], "coverage": [1.0, 0.9], "density": [0.5, 0.7], "mass": [1.0, 0.6], "res_dim": [0, 1]}
).assign(n=[100, 60], chosen=[True, False])
LIMIT = pd.DataFrame(
    [{"parameter": "selection.k", "low": 10.0, "high": 18.0, "values": "", "qp_low": math.nan, "qp_high": 0.01}]
)


def _painted(fig):
    """Pixels of the axes' inside that are not white."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())[..., :3]
    box = fig.axes[0].get_window_extent()
    height = pixels.shape[0]
    inside = pixels[int(height - box.y1) + 3 : int(height - box.y0) - 3, int(box.x0) + 3 : int(box.x1) - 3]
    return int((inside < 250).any(axis=-1).sum())


def test_a_box_that_restricts_no_parameter_is_said_on_the_axes():
    unrestricted = Box(1, 0, 1.0, 0.62, 1.0, 100, LIMIT.iloc[:0], TRAJECTORY)
    fig = discovery_boxes_figure([unrestricted], ranges={"selection.k": (10.0, 40.0)}, condition="dttr:female > 2")
    texts = _assert_inside(fig)
    assert any("restricts no parameter: no subspace stands out" in t and "density 0.62" in t for t in texts)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["box 1: every parameter\nover its whole range"]
    assert _painted(fig) > 1000  # not a blank plot


def test_boxes_with_and_without_limits_each_get_their_row():
    restricted = Box(1, 1, 0.9, 0.95, 0.3, 30, LIMIT, TRAJECTORY)
    unrestricted = Box(2, 0, 1.0, 0.62, 1.0, 70, LIMIT.iloc[:0], TRAJECTORY)
    fig = discovery_boxes_figure(
        [restricted, unrestricted], ranges={"selection.k": (10.0, 40.0)}, condition="dttr:female > 2"
    )
    _assert_inside(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["box 1: selection.k\n10 … 18 (of 10 … 40)", "box 2: every parameter\nover its whole range"]
    bar = fig.axes[0].patches[0]
    assert bar.get_x() == 0.0 and bar.get_width() == pytest.approx(8 / 30)  # 10 … 18 of 10 … 40


def test_no_box_is_said_on_the_axes():
    fig = discovery_boxes_figure([], ranges={}, condition="dttr:female > 2")
    assert "no box reaches the density threshold" in _assert_inside(fig)


LONG = "dttr:" + "a-group-name-from-a-user-file-" * 3 + "end"


def test_every_policy_figure_title_fits_however_long_the_labels():
    trials = pd.DataFrame(
        {
            "number": [0, 1],
            "pareto": [True, False],
            "feasible": [True, True],
            "min a": [1.0, 2.0],
            "min a_se": [0.1, 0.2],
        }
    )
    robust = pd.DataFrame({"regret": [0.0, 0.5], "satisficing": [1.0, 0.5]}, index=["k=20", "k=40"])
    figures = {
        "pareto": pareto_figure(trials, ["min a"], title=f"default: 2 trials × 4 seeds; min |{LONG}| per trial"),
        "tradeoff": discovery_tradeoff_figure(
            [Box(1, 1, 0.9, 0.95, 0.3, 30, LIMIT, TRAJECTORY)], threshold=0.8, condition=f"{LONG} > 2"
        ),
        "robustness": robustness_figure(robust, outcome=LONG, threshold=1.0),
    }
    for name, fig in figures.items():
        texts = _assert_inside(fig)  # the tradeoff figure's box labels too
        (title,) = [t for t in texts if t.startswith(("default:", "PRIM", "Robustness"))]
        assert "\n" in title, name  # wrapped, not cut off
