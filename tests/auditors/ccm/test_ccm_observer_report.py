import math

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from recoursesim.auditors.ccm import (
    CounterfactualSwitchObserver,
    audit,
    ccm_parity,
    ccm_report,
    generate_counterfactuals,
)
from recoursesim.auditors.ccm.tabular import encode_table
from recoursesim.errors import ConfigError, DataError
from recoursesim.observers import Observer, PopulationSnapshot, observation_rows
from recoursesim.scoring import LinearScorer


def _snapshot(features, group, threshold=5.0, names=("a", "b")):
    features = np.asarray(features, dtype=float).reshape(len(group), -1)
    return PopulationSnapshot(
        step=3,
        agent_id=np.arange(len(group)),
        features=features,
        group=np.asarray(group),
        feature_names=tuple(f"x{j}" for j in range(features.shape[1])),
        group_names=names,
        scorer=LinearScorer([1.0] * features.shape[1]),
        threshold=threshold,
        rng=np.random.default_rng(0),
    )


def _values(frame):
    return {(g, m): v for g, m, v in frame[["group", "metric", "value"]].itertuples(index=False)}


def test_observer_switch_rates_by_hand():
    snap = _snapshot([0, 1, 2, 3, 10, 11, 12, 13], [0, 0, 0, 0, 1, 1, 1, 1])
    observer = CounterfactualSwitchObserver()
    assert isinstance(observer, Observer)
    v = _values(observer.observe(snap))
    assert v[("a", "SP")] == 4 and v[("a", "PSR")] == 1 and v[("a", "SR")] == 1
    assert v[("b", "SN")] == 4 and v[("b", "NSR")] == 1
    assert math.isnan(v[("a", "NSR")])  # no positive originals in group a
    rows = observation_rows(observer.name, snap.step, observer.observe(snap))
    assert list(rows.columns) == ["step", "observer", "group", "metric", "value"]


def test_observer_same_distributions_never_switch():
    snap = _snapshot([1, 4, 6, 9, 1, 4, 6, 9], [0, 0, 0, 0, 1, 1, 1, 1])
    v = _values(CounterfactualSwitchObserver().observe(snap))
    assert v[("a", "SR")] == 0 and v[("b", "SR")] == 0


def test_observer_three_groups_and_single_group():
    snap = _snapshot([0, 1, 5, 6, 10, 11], [0, 0, 1, 1, 2, 2], names=("a", "b", "c"))
    out = CounterfactualSwitchObserver().observe(snap)
    assert {"a→b", "a→c", "b→a", "b→c", "c→a", "c→b"} == set(out["group"])
    alone = CounterfactualSwitchObserver().observe(_snapshot([0, 1], [0, 0]))
    assert alone["metric"].tolist() == ["too_few_rows", "too_few_rows:1 group(s) among 2 agents, CCM needs two"]
    assert alone["value"].tolist() == [1.0, 1.0]
    with pytest.raises(ConfigError):
        CounterfactualSwitchObserver(every=0)


def test_report_directions_and_parity():
    score = np.array([0.9, 0.2, 0.7, 0.4])
    score_cf = np.array([0.3, 0.6, 0.8, 0.1])
    report = ccm_report(score, score_cf, ["A", "A", "B", "B"], ["B", "B", "A", "A"], [1, 0, 1, 0])
    assert report["scope"].tolist() == ["Total", "A→B", "B→A"]
    total, ab, ba = (report.iloc[k] for k in range(3))
    assert (ab["SN"], ab["SP"], ba["CP"], ba["CN"]) == (1, 1, 1, 1)
    assert total["n"] == ab["n"] + ba["n"]
    assert ab["SR"] == 1 and ba["SR"] == 0
    parity = ccm_parity(report)
    assert parity.loc[0, "SR"] == pytest.approx(1.0)


def test_report_excludes_invalid_and_rejects_all_invalid():
    report = ccm_report([0.9, 0.9], [0.1, 0.9], ["A", "A"], ["B", "B"], valid=[False, True])
    assert report.loc[0, "n"] == 1 and report.loc[0, "SN"] == 0
    with pytest.raises(DataError):
        ccm_report([0.9], [0.1], ["A"], ["B"], valid=[False])


def test_audit_end_to_end_counts_match_rows():
    rng = np.random.default_rng(0)
    n = 300
    g = rng.choice(["F", "M"], n)
    x = rng.normal(size=n) + (g == "M")
    y = (x + rng.normal(size=n) > 0.5).astype(int)
    frame = pd.DataFrame({"sex": g, "x": x, "y": y})
    table = encode_table(frame, {"sex": "binary", "x": "numerical"}, "sex", "y")
    model = LogisticRegression().fit(table.frame[["x"]], y)
    cf = generate_counterfactuals(table.frame, table.frame, "sex", "y", **table.generator_kwargs())
    report = audit(model, table.frame, cf, ["x"], "y")
    total = report.iloc[0]
    cells = ["TCP", "TSN", "FSP", "FCN", "FCP", "FSN", "TSP", "TCN"]
    assert total[cells].sum() == n == total[["CP", "SN", "SP", "CN"]].sum()
    # M samples mapped into F: quantile mapping lowers x, so no positive switches for M→F
    mf = report.set_index("scope").loc["M→F"]
    assert mf["SP"] == 0 and mf["SN"] > 0


def test_encode_table_errors():
    frame = pd.DataFrame({"g": ["a", "b"], "x": [1.0, 2.0], "y": [0, 1]})
    with pytest.raises(ConfigError, match="unknown feature type"):
        encode_table(frame, {"x": "weird"}, "g", "y")
    with pytest.raises(DataError, match="single value"):
        encode_table(frame.assign(g="a"), {"x": "numerical"}, "g", "y")
    with pytest.raises(DataError, match="binary"):
        encode_table(frame.assign(y=[0, 2]), {"x": "numerical"}, "g", "y")
    with pytest.raises(DataError, match="outside its order"):
        encode_table(frame.assign(o=["lo", "zz"]), {"o": "ordinal"}, "g", "y", {"o": ["lo", "hi"]})
