import importlib

import pytest


def _load(name):
    return importlib.import_module(f"recoursesim.reproductions.{name}")


@pytest.mark.slow
def test_eoe_synthetic_experiment_meets_acceptance(tmp_path):
    assert _load("eoe_synthetic").main(["--seeds", "20", "--out", str(tmp_path / "syn")]) == 0
    assert (tmp_path / "syn" / "figure2_alpha2.png").exists()
    assert (tmp_path / "syn" / "figure3_alphas.png").exists()


@pytest.mark.slow
def test_eoe_german_experiment_runs(tmp_path):
    assert _load("eoe_german").main(["--out", str(tmp_path / "ger")]) == 0
    assert (tmp_path / "ger" / "german_acr.csv").exists()
