"""A lender named "market" would collide with the market's own rows of the market table: refused, nothing written."""

from recoursesim.cli import main


def test_a_lender_named_market_is_refused_before_anything_is_written(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(
        'base = "default"\n[run]\nsteps = 1\n[market]\nchoice = { name = "all" }\n'
        '[[lenders]]\nname = "market"\n[[lenders]]\nname = "b"\n'
    )
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and " lenders[0].name:" in err and "fix:" in err and "Traceback" not in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]
