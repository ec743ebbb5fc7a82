import numpy as np
import pandas as pd

from recoursesim.cli import main


def _csv(tmp_path, groups=("f", "m")):
    rng = np.random.default_rng(0)
    n = 200
    g = rng.choice(list(groups), n)
    x = rng.normal(size=n) + (g == groups[-1])
    frame = pd.DataFrame({"g": g, "x": x, "c": rng.choice(["u", "v", "w"], n), "y": (x > 0.3).astype(int)})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_cli_ccm_csv_writes_tables(tmp_path, capsys):
    out = tmp_path / "out"
    status = main(
        ["audit", "ccm", "--csv", str(_csv(tmp_path)), "--target", "y", "--sensitive", "g", "--out", str(out)]
    )
    assert status == 0
    report = pd.read_csv(out / "ccm_report.csv")
    assert report["scope"].tolist() == ["Total", "f→m", "m→f"]
    assert (out / "ccm_parity.csv").exists() and (out / "counterfactuals.csv").exists()
    assert "metrics (%)" in capsys.readouterr().out


def test_cli_ccm_errors_are_one_line_and_write_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    status = main(
        ["audit", "ccm", "--csv", str(_csv(tmp_path, ("f",))), "--target", "y", "--sensitive", "g", "--out", str(out)]
    )
    assert status == 2 and not out.exists()
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "single value" in err
    status = main(
        [
            "audit",
            "ccm",
            "--csv",
            str(_csv(tmp_path)),
            "--target",
            "y",
            "--sensitive",
            "g",
            "--types",
            "x=weird",
            "--out",
            str(out),
        ]
    )
    assert status == 2 and not out.exists()
    assert "unknown feature type" in capsys.readouterr().err
