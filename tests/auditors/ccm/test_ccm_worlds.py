"""Naive and greedy counterfactual worlds, worked by hand, and the command line's default world.

A model that never looks at the sensitive attribute: positive iff income x >= 5. Reference rows
with label 1: group F has x = 1, 2, 3, 4 and group M has x = 5, 6, 7, 8 (empirical CDFs 1/4, 2/4,
3/4, 1 on their supports). The samples are those eight rows themselves.

Greedy world (x may change; quantile mapping within label 1): F's x = k maps to M's value at CDF
k/4, i.e. k + 4, so each F sample (a false negative: y = 1, prediction 0) becomes positive: FSP = 4,
FCN = 0 and FNSR(F→M) = FSP / (FSP + FCN) = 4/4 = 100%. M's x = k + 4 maps to k, so each M sample
(a true positive) becomes negative: TSN = 4, TPSR(M→F) = TSN / (TCP + TSN) = 100%.

Naive world (only the group flips): x is unchanged, the model ignores the group, nothing
switches: FNSR(F→M) = 0 and TPSR(M→F) = 0.

So the greedy world's switch rates measure how far apart the groups' feature distributions are
(here entirely apart), not whether the model treats the groups differently, which is why the
command line's default is the naive world.
"""

import numpy as np
import pandas as pd
import pytest

from recoursesim.auditors.ccm import eccm, eccm_metrics, generate_counterfactuals
from recoursesim.cli import main

REFERENCE = pd.DataFrame({"g": ["F"] * 4 + ["M"] * 4, "x": [1.0, 2, 3, 4, 5, 6, 7, 8], "y": [1] * 8})


def predict(x) -> np.ndarray:
    return (np.asarray(x, dtype=float) >= 5).astype(int)


def world_metrics(potential) -> dict[str, dict[str, float]]:
    cf = generate_counterfactuals(REFERENCE, REFERENCE, "g", "y", continuous=["x"], potential_features=potential)
    out = {}
    for group in ("F", "M"):
        rows = cf[cf["orig_group"] == group]
        original = REFERENCE.loc[rows["sample_id"], "x"]
        counts = eccm(rows["label"], predict(original), predict(rows["x"]))
        out[group] = {**counts, **eccm_metrics(counts)}
    return out


def test_greedy_world_switches_every_prediction_of_a_model_blind_to_the_group():
    cf = generate_counterfactuals(REFERENCE, REFERENCE, "g", "y", continuous=["x"], potential_features=None)
    assert cf["x"].tolist() == [5.0, 6, 7, 8, 1, 2, 3, 4]
    metrics = world_metrics(None)
    assert (metrics["F"]["FSP"], metrics["F"]["FCN"]) == (4, 0)
    assert metrics["F"]["FNSR"] == 1.0
    assert (metrics["M"]["TCP"], metrics["M"]["TSN"]) == (0, 4)
    assert metrics["M"]["TPSR"] == 1.0


def test_naive_world_switches_nothing_for_a_model_blind_to_the_group():
    metrics = world_metrics([])
    assert (metrics["F"]["FSP"], metrics["F"]["FCN"]) == (0, 4)
    assert metrics["F"]["FNSR"] == 0.0
    assert (metrics["M"]["TCP"], metrics["M"]["TSN"]) == (4, 0)
    assert metrics["M"]["TPSR"] == 0.0


@pytest.mark.parametrize(("extra", "changed"), [([], False), (["--mode", "greedy"], True)])
def test_cli_default_world_is_naive(tmp_path, capsys, extra, changed):
    rng = np.random.default_rng(0)
    n = 200
    g = rng.choice(["f", "m"], n)
    x = rng.normal(size=n) + 2.0 * (g == "m")
    pd.DataFrame({"g": g, "x": x, "y": (x > 1.0).astype(int)}).to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    argv = ["audit", "ccm", "--csv", str(tmp_path / "data.csv"), "--target", "y", "--sensitive", "g"]
    assert main([*argv, "--out", str(out), *extra]) == 0
    assert f"world: {'greedy' if changed else 'naive'}" in capsys.readouterr().out
    rows = pd.read_csv(out / "counterfactuals.csv")
    original = pd.read_csv(tmp_path / "data.csv").loc[rows["sample_id"], "x"].to_numpy()
    assert (rows["orig_group"] != rows["g"]).all()
    assert (not np.allclose(rows["x"], original)) == changed
