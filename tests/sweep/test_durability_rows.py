"""A sweep records the groups' validity of advice only when its plan asks for it (it costs run time)."""

from recoursesim.sweep import SweepPlan, iter_point_results, run_sweep
from recoursesim.sweep.identity import digest
from recoursesim.sweep.worker import DURABILITY_METRICS


def _pooled_metrics(directory) -> set[str]:
    [(_, _, rows)] = list(iter_point_results(directory))
    return set(rows.loc[rows["step"].isna(), "metric"])


def test_validity_rows_only_when_asked(small, tmp_path):
    plain = SweepPlan.from_grid(small, n_seeds=2)
    judged = SweepPlan.from_grid(small, n_seeds=2, durability=True)
    assert plain.sweep_id != judged.sweep_id
    assert "durability" not in plain.describe() and judged.describe()["durability"] is True
    # a sweep without it keeps the identity it had before the option existed (kept sweeps still --resume)
    points = [[p.params, p.scenario.spec] for p in plain.points]
    assert plain.sweep_id == digest("sweep", points, 2, plain.root_seed, True)
    run_sweep(plain, tmp_path / "plain", progress=False)
    run_sweep(judged, tmp_path / "judged", progress=False)
    without, with_ = _pooled_metrics(tmp_path / "plain"), _pooled_metrics(tmp_path / "judged")
    assert not without & set(DURABILITY_METRICS)
    assert with_ == without | set(DURABILITY_METRICS)
    [(_, _, rows)] = list(iter_point_results(tmp_path / "judged"))
    shares = rows.loc[rows["metric"].isin(DURABILITY_METRICS), "value"].dropna()
    assert len(shares) and shares.between(0, 1).all()
