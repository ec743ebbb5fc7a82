"""The shift-dynamics experiment's pieces on a small synthetic world."""

import copy

import numpy as np
import pandas as pd

from recoursesim.reproductions import shift_dynamics as dynamics


def _small():
    base = copy.deepcopy(dynamics.SYNTHETIC)
    base["population"] |= {"initial": 200, "entrants": 20}
    base["selection"] = {"name": "top_k", "k": 20}
    return {"synthetic": (base, dynamics.SYNTHETIC_TRUTH, {"linear": dynamics.GENERATORS["linear"]})}


def test_conditions_run_summarise_and_draw():
    cells = dynamics.conditions(_small())
    assert [(c.generator, c.retraining) for c in cells] == [("linear", "fixed model"), ("linear", "refit each step")]
    for cell in cells:
        assert [o["name"] for o in cell.spec["observers"]] == ["domain_shift", "model_shift", "ground_truth"]
    rows = dynamics.run(cells, seeds=2)
    assert set(rows["step"]) == set(dynamics.STEPS) and set(rows["seed"]) == {0, 1}
    summary = dynamics.summarise(rows)
    fixed = summary[(summary["retraining"] == "fixed model") & (summary["metric"] == "disagreement with step-0 model")]
    assert np.allclose(fixed["mean"], 0.0)  # a model that never changes never disagrees with itself
    mmd = summary[(summary["retraining"] == "fixed model") & (summary["metric"] == "MMD² to step 0")]
    assert mmd.set_index("step").loc[20, "mean"] > mmd.set_index("step").loc[0, "mean"]
    table = dynamics.table(summary)
    assert {"step 0", "step 10", "step 20"} <= set(table.columns)
    titles = [ax.get_title() for ax in dynamics.figure(summary, "synthetic").axes]
    assert titles == ["MMD² to step 0", "disagreement with step-0 model", "gaming rate", "improvement rate"]
    assert "improvement rate" in set(summary["metric"])
    # rates, p-values and disagreements are in [0, 1]: so are their intervals (percentile bootstrap)
    bounded = summary[summary["metric"].str.contains("rate|p-value|precision|disagreement")].dropna(subset=["low"])
    assert len(bounded) and (bounded["low"] >= 0).all() and (bounded["high"] <= 1).all()


def test_unregistered_generators_are_skipped():
    worlds = _small()
    base, truth, _ = worlds["synthetic"]
    cells = dynamics.conditions({"synthetic": (base, truth, {"nope": {"name": "no_such_generator"}})})
    assert cells == []


def test_a_refused_run_is_reported_not_fatal():
    base, truth, generators = _small()["synthetic"]
    good = dynamics.conditions({"synthetic": (base, truth, generators)})[0]
    bad = dynamics.Condition("synthetic", "linear", "broken", good.spec | {"selection": {"name": "top_k", "k": -1}})
    rows = dynamics.run([bad], seeds=2)
    failed = dynamics.failures(rows)
    assert len(failed) == 2 and failed["error"].str.contains("selection.k").all()
    assert dynamics.summarise(pd.concat([rows, dynamics.run([good], seeds=2)])).shape[0] > 0


def test_every_world_offers_only_generators_it_can_run() -> None:
    # The manifold generator needs observed profiles: a data set's world only (60 failed runs otherwise).
    assert "manifold" not in dynamics.GENERATORS
    assert "manifold" in dynamics.GERMAN_GENERATORS
