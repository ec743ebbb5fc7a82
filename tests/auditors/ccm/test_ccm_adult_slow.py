import pandas as pd
import pytest

from recoursesim.reproductions import ccm_adult


@pytest.mark.slow
def test_ccm_adult_experiment_pools_all_rows(tmp_path):
    assert ccm_adult.main(["--out", str(tmp_path)]) == 0
    report = pd.read_csv(tmp_path / "adult_ccm_report.csv")
    total = report[report["scope"] == "Total"]
    assert (total["n"] == 48842).all()
    cells = ["TCP", "TSN", "FSP", "FCN", "FCP", "FSN", "TSP", "TCN"]
    assert (total[cells].sum(axis=1) == 48842).all()
    naive = report[(report["world"] == "naive") & (report["scope"] == "Female→Male")].iloc[0]
    assert naive["NSR"] == 0  # a linear model can only raise scores when sex flips to male
