"""The Adult CCM reproduction's model choice: a boosted model that reads the group, and the paper-style table."""

import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.ccm.crossval import cross_validated_ccm
from recoursesim.auditors.ccm.tabular import encode_table
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
    with pytest.raises(SystemExit, match="recoursesim\\[lightgbm\\]"):
        ccm_adult.gbm_library("lightgbm")
