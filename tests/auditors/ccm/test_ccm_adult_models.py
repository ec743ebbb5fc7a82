"""The Adult CCM reproduction's model choice: a boosted model that reads the group, and the paper-style table."""

import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.ccm.crossval import cross_validated_ccm
from recoursesim.auditors.ccm.tabular import encode_table
from recoursesim.errors import ConfigError
from recoursesim.reproductions import ccm_adult


def _table(seed: int = 0, n: int = 400):
    # y depends on x and, for the boosted model to pick up, on the group: g = "M" adds 1.5 to the margin.
    rng = np.random.default_rng(seed)
    group = rng.choice(["F", "M"], size=n)
    x = rng.normal(size=n)
    margin = 2 * x + 1.5 * (group == "M") - 0.75
    y = (rng.random(n) < 1 / (1 + np.exp(-margin))).astype(int)
    frame = pd.DataFrame({"sex": group, "x": x, "income": y})
    return encode_table(frame, {"sex": "binary", "x": "numerical"}, "sex", "income")


def test_gbm_model_reads_the_group_so_the_naive_world_switches_in_the_expected_direction():
    table = _table()
    report, _ = cross_validated_ccm(table, ccm_adult.gbm_model("sklearn", 0), n_splits=3, seed=0, potential_features=[])
    by_scope = report.set_index("scope")
    # flipping F -> M raises the margin by 1.5: positive switches that way, negative ones the other way
    assert by_scope.loc["F→M", "PSR"] > 0.1 and by_scope.loc["F→M", "NSR"] < by_scope.loc["M→F", "NSR"]
    assert by_scope.loc["M→F", "NSR"] > 0.1


def test_paper_table_layout_and_units():
    table = _table(1)
    report, _ = cross_validated_ccm(table, ccm_adult.gbm_model("sklearn", 0), n_splits=3, seed=0, potential_features=[])
    paper = ccm_adult.paper_table(report)
    assert list(paper.index) == list(ccm_adult.PAPER_TABLE_METRICS)
    assert list(paper.columns) == ["Total", "F→M", "M→F"]
    total = report.set_index("scope").loc["Total"]
    assert paper.loc["ACC", "Total"] == pytest.approx(round(100 * total["ACC"], 3))  # rates in %
    assert paper.loc["RMSCD", "Total"] == pytest.approx(round(total["RMSCD"], 3))  # score metrics as they are


def test_gbm_library_resolution(monkeypatch):
    monkeypatch.setattr(ccm_adult.importlib.util, "find_spec", lambda name: None)
    assert ccm_adult.gbm_library("auto") == "sklearn"
    assert ccm_adult.gbm_library("sklearn") == "sklearn"
    with pytest.raises(ConfigError, match="recoursesim\\[lightgbm\\]"):
        ccm_adult.gbm_library("lightgbm")


def _kept_rows() -> pd.DataFrame:
    # every metric of a model and scope has one value: the model's base plus 0.01 per scope step
    # (rates become %: 0.51 -> "51.0"); the greedy world's rows (0.99) must not be shown
    base = {"lightgbm": 0.5, "logistic": 0.25}
    rows = []
    for world in ("naive", "greedy"):
        for model, value in base.items():
            for step, scope in enumerate(("Total", "Female→Male", "Male→Female")):
                metric_value = value + 0.01 * step if world == "naive" else 0.99
                rows.append(
                    {"world": world, "model": model, "scope": scope}
                    | dict.fromkeys(ccm_adult.PAPER_TABLE_METRICS, metric_value)
                )
    return pd.DataFrame(rows)


def test_markdown_table_puts_each_models_naive_value_beside_the_published_one():
    lines = ccm_adult.markdown_table(_kept_rows(), ["logistic", "lightgbm"]).splitlines()
    names = "(logistic / LightGBM / published)"
    assert lines[0] == f"| metric | Total {names} | F→M {names} | M→F {names} |"
    assert len(lines) == 2 + len(ccm_adult.PAPER_TABLE_METRICS)
    assert lines[2] == "| ACC | 25.0 / 50.0 / 87.0 | 26.0 / 51.0 / 93.3 | 27.0 / 52.0 / 83.7 |"
    assert lines[7] == "| NSR | 25.0 / 50.0 / 6.7 | 26.0 / 51.0 / 16.2 | 27.0 / 52.0 / 5.1 |"
    assert lines[10] == "| RMSCD | 0.250 / 0.500 / 0.054 | 0.260 / 0.510 / 0.059 | 0.270 / 0.520 / 0.052 |"
    assert lines[11] == "| JSCD | 0.2500 / 0.5000 / 0.079 | 0.2600 / 0.5100 / 0.130 | 0.2700 / 0.5200 / 0.062 |"


def test_chosen_models(monkeypatch):
    monkeypatch.setattr(ccm_adult.importlib.util, "find_spec", lambda name: None)
    assert ccm_adult.chosen_models("logistic", "auto") == ["logistic"]
    assert ccm_adult.chosen_models("gbm", "auto") == ["sklearn"]
    with pytest.raises(ConfigError, match="recoursesim\\[lightgbm\\]"):
        ccm_adult.chosen_models("all", "auto")  # every model includes LightGBM
