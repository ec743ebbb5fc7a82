"""The shift-dynamics experiment's command (experiments/shift_dynamics.py) on the synthetic world."""

from __future__ import annotations

import pandas as pd
import pytest

from recoursesim.cli import guarded
from recoursesim.reproductions import shift_dynamics
from tests.hostile.conftest import one_line_error


def test_refuses_bad_arguments_and_unknown_worlds(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        shift_dynamics.main(["--seeds", "1", "--out", str(tmp_path / "a")])
    assert stopped.value.code == 2 and "argument --seeds: must be at least 2" in capsys.readouterr().err
    status = guarded(lambda: shift_dynamics.main(["--seeds", "2", "--worlds", "mars", "--out", str(tmp_path / "b")]))
    line = one_line_error(status, capsys.readouterr().err)
    assert line.startswith("error: --worlds: unknown mars; fix: use some of") and "synthetic" in line
    assert list(tmp_path.iterdir()) == []


def test_writes_table_observations_and_figure(tmp_path) -> None:
    out = tmp_path / "out"
    assert shift_dynamics.main(["--seeds", "2", "--worlds", "synthetic", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "failed_runs.csv",
        "observations.parquet",
        "recoursesim-files.jsonl",  # the record of what recoursesim wrote (docs/security.md)
        "shift_dynamics.csv",
        "shift_dynamics_synthetic.png",
        "table-synthetic.md",
    ]
    markdown = (out / "table-synthetic.md").read_text().splitlines()
    assert markdown[0].startswith("| generator | retraining | step | MMD² to step 0 |")
    assert len(markdown) == 2 + 2 * 2 * 2  # header, rule; 2 generators x 2 settings x steps 10 and 20
    table = pd.read_csv(out / "shift_dynamics.csv")
    assert set(table["world"]) == {"synthetic"}
    assert list(table.columns[-3:]) == ["step 0", "step 10", "step 20"]
    assert {"linear", "search"} <= set(table["generator"])
    assert "MMD² to step 0" in set(table["metric"])
