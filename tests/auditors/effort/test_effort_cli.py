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
    printed = capsys.readouterr().out
    assert printed.startswith("protected group: s = p ")  # named as the user named it
    header, *rows = printed.split("ACR(q), mean and 95% CI over unfavourable centres:\n", 1)[1].splitlines()[:3]
    assert header.split()[-2:] == ["n_defined", "n_centres"]
    for row in rows:  # counts print as counts: "31", never "31.000"
        assert all(cell.isdigit() for cell in row.split()[-2:]), row
    system = printed.split("system level (own group vs the rest):\n", 1)[1].splitlines()[1]
    assert all("." not in cell for cell in system.split()[-3:-1]), system  # n_own, n_other
    assert main([*args, "--overwrite"]) == 0  # (the same command again would replace it as well)


def test_acr_figure_has_the_title_it_is_given(tmp_path):
    import matplotlib.image

    from recoursesim.cli.audit_effort import plot_acr_curves

    curve = pd.DataFrame(
        {"centres": ["protected"] * 2, "q": [0.5, 1.0], "mean": [1.2, 1.1], "ci_low": [1.0, 1.0], "ci_high": [1.4, 1.2]}
    )
    titled, plain = tmp_path / "t.png", tmp_path / "p.png"
    plot_acr_curves(curve, titled, title="Equality of effort, protected group sex = female")
    plot_acr_curves(curve, plain, title="")
    assert (matplotlib.image.imread(titled) != matplotlib.image.imread(plain)).any()  # the title is drawn


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
