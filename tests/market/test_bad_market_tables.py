"""Bad markets: one line naming the field and the fix, exit 2, nothing written."""

import pytest

from recoursesim.cli import main

TWO = '[[lenders]]\nname = "a"\n[[lenders]]\nname = "b"\n'
MARKET = '[market]\nchoice = { name = "all" }\n'

BAD_TABLES = {
    "lender without a name": (MARKET + '[[lenders]]\nselection = { name = "top_k", k = 5 }\n', "lenders[0].name"),
    "empty lender name": (MARKET + '[[lenders]]\nname = " "\n', "lenders[0].name"),
    "two lenders with one name": (MARKET + '[[lenders]]\nname = "a"\n[[lenders]]\nname = "a"\n', "lenders[1].name"),
    "choice order names an unknown lender": (
        '[market]\nchoice = { name = "sequential", order = ["a", "c"] }\n' + TWO,
        "market.choice.order",
    ),
    "lender k above the initial population": (
        MARKET + '[[lenders]]\nname = "a"\nselection = { name = "top_k", k = 500 }\n',
        "lenders[0].selection.k",
    ),
    "market without lenders": (MARKET, "lenders"),
    "market with an empty lender list": ("lenders = []\n" + MARKET, "lenders"),
    "lenders without a market": (TWO, "lenders"),
    "unknown market key": ('[market]\nchoices = { name = "all" }\n' + TWO, "market.choices"),
    "unknown lender key": (
        MARKET + '[[lenders]]\nname = "a"\nselector = { name = "top_k", k = 5 }\n',
        "lenders[0].selector",
    ),
    "unknown choice": ('[market]\nchoice = { name = "cheapes" }\n' + TWO, "market.choice.name"),
    "unknown choice parameter": (
        '[market]\nchoice = { name = "sequential", price = 1 }\n' + TWO,
        "market.choice.price",
    ),
    "negative application cost": (
        '[market]\nchoice = { name = "sequential", cost = -1 }\n' + TWO,
        "market.choice.cost",
    ),
    "unknown culture": ('[market]\nculture = "mono"\n' + TWO, "market.culture"),
    "copies of two lenders": ("[market]\ncopies = 3\n" + TWO, "market.copies"),
    "zero copies": ('[market]\ncopies = 0\n[[lenders]]\nname = "a"\n', "market.copies"),
    "a lender's unknown scorer": (
        MARKET + '[[lenders]]\nname = "a"\nscorer = { name = "linera" }\n',
        "lenders[0].scorer.name",
    ),
    "refit-first order in a market": (
        MARKET
        + '[[lenders]]\nname = "a"\ntraining = { name = "refit", order = "reference" }\n[[lenders]]\nname = "b"\n',
        "lenders[0].training",
    ),
    "a monoculture lender's own scorer": (
        '[market]\nculture = "monoculture"\n[[lenders]]\nname = "a"\n[[lenders]]\nname = "b"\n'
        'scorer = { name = "linear", weights = [1.0, 0.0] }\n',
        "lenders[1].scorer",
    ),
    "a loan outcome in a market": (MARKET + TWO + '[outcome]\nname = "repayment"\n', "outcome"),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_cli_bad_market_exit_2_one_line_nothing_written(case, tmp_path, capsys):
    table, field = BAD_TABLES[case]
    path = tmp_path / "bad.toml"
    path.write_text('base = "default"\n' + table)
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f" {field}:" in err and "Traceback" not in err, err
    assert "fix:" in err
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]
