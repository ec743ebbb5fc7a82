import numpy as np
import pandas as pd

from recoursesim.cli import main


def _csv(tmp_path, cyclic=False):
    rng = np.random.default_rng(1)
    n = 300
    s = rng.choice(["p", "u"], n)
    a = rng.normal(size=n) + (s == "u")
    b = 0.5 * a + rng.normal(size=n)
    y = (a + b + rng.normal(size=n) > 0.8).astype(int)
    path = tmp_path / "d.csv"
    pd.DataFrame({"s": s, "a": a, "b": b, "c": rng.normal(size=n), "y": y}).to_csv(path, index=False)
    return path


def test_cli_effort_csv(tmp_path, capsys):
    out = tmp_path / "out"
    args = [
        "audit",
        "effort",
        "--csv",
        str(_csv(tmp_path)),
        "--sensitive",
        "s",
        "--protected",
        "p",
        "--target",
        "y",
        "--variables",
        "a",
        "b",
        "c",
        "--dag",
        "b=a",
        "--actionable",
        "b",
        "c",
        "--qs",
        "0.2",
        "1.0",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    curve = pd.read_csv(out / "effort_curve.csv")
    assert set(curve["centres"]) == {"protected", "unprotected"}
    assert (out / "acr_curve.png").stat().st_size > 0
    system = pd.read_csv(out / "effort_system.csv")
    assert np.isclose(system["ACR"].iloc[0] * system["ACR"].iloc[1], 1.0)
    assert "ACR(q)" in capsys.readouterr().out


def test_cli_effort_non_antichain_and_cycle_fail(tmp_path, capsys):
    out = tmp_path / "out"
    base = [
        "audit",
        "effort",
        "--csv",
        str(_csv(tmp_path)),
        "--sensitive",
        "s",
        "--protected",
        "p",
        "--target",
        "y",
        "--variables",
        "a",
        "b",
        "--out",
        str(out),
    ]
    assert main([*base, "--dag", "b=a", "--actionable", "a", "b"]) == 2
    assert "antichain" in capsys.readouterr().err
    assert main([*base, "--dag", "b=a", "a=b", "--actionable", "a"]) == 2
    assert "cycle" in capsys.readouterr().err
    assert not out.exists()
