"""Hostile markets: names, sizes and plug-in choice policies that must be refused with one line.

Each case goes through the command line: exit 2, one line naming the field (and the fix), no
traceback, nothing written.
"""

import numpy as np
import pytest

from recoursesim import registry
from recoursesim.cli import main
from recoursesim.engine.market import MAX_LENDERS, MAX_NAME_LENGTH

MARKET = '[market]\nchoice = { name = "all" }\n'


def lenders(*names: str) -> str:
    """``[[lenders]]`` tables with the given names (TOML basic strings, so escapes work)."""
    return "".join(f'[[lenders]]\nname = "{name}"\n' for name in names)


def refused(tmp_path, capsys, text: str, field: str) -> str:
    """Run ``text`` (on the default scenario): exit 2, one line naming ``field``, nothing written."""
    path = tmp_path / "bad.toml"
    path.write_text('base = "default"\n[run]\nsteps = 2\n' + text)
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f" {field}:" in err and "fix:" in err and "Traceback" not in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]
    return err


BAD_NAMES = {
    "NUL": ("a\\u0000b", "control character"),
    "newline": ("a\\nb", "control character"),
    "tab": ("a\\tb", "control character"),
    "trailing space (looks like another lender)": ("a ", "space"),
    "leading space": (" a", "space"),
    "a dot (no sweep key can address it)": ("bank.a", "dot"),
    "path-like": ("../../etc", "dot"),
    "a number (a sweep key would read it as a position)": ("1", "number"),
    "too long": ("x" * (MAX_NAME_LENGTH + 1), "characters long"),
}


@pytest.mark.parametrize("case", sorted(BAD_NAMES))
def test_unusable_lender_names_are_refused(case, tmp_path, capsys):
    name, problem = BAD_NAMES[case]
    err = refused(tmp_path, capsys, MARKET + lenders("a", name), "lenders[1].name")
    assert problem in err


def test_names_that_are_only_unusual_run(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('base = "default"\n[run]\nsteps = 1\n' + MARKET + lenders("markets", "default", "bank/b", "x" * 64))
    assert main(["run", str(path), "--out", str(tmp_path / "out")]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("copies", [MAX_LENDERS + 1, 10**9, 2**63 - 1])
def test_huge_copies_are_refused_before_any_lender_is_built(copies, tmp_path, capsys):
    err = refused(tmp_path, capsys, f'[market]\ncopies = {copies}\n[[lenders]]\nname = "a"\n', "market.copies")
    assert f"at most {MAX_LENDERS}" in err


def test_too_many_lender_tables_are_refused(tmp_path, capsys):
    names = [f"b{i}" for i in range(MAX_LENDERS + 1)]
    refused(tmp_path, capsys, MARKET + lenders(*names), "lenders")


def test_a_huge_copies_sweep_is_refused_before_it_runs(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('base = "default"\n[run]\nsteps = 1\n[market]\ncopies = 2\n[[lenders]]\nname = "a"\n')
    argv = ["sweep", str(path), "--seeds", "1", "--grid", f"market.copies={10**9}", "--out", str(tmp_path / "o")]
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "market.copies" in err and "Traceback" not in err, err
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]


class _Returns:
    """A plug-in choice policy that returns what it is told to (a function of the context)."""

    make = staticmethod(lambda context: np.ones(context.scores.shape, dtype=bool))

    def choose(self, context):
        return type(self).make(context)


BAD_MASKS = {
    "wrong shape (one column)": (lambda c: np.ones((c.scores.shape[0], 1), dtype=bool), "boolean array"),
    "transposed": (lambda c: np.ones(c.scores.shape[::-1], dtype=bool), "boolean array"),
    "integers, not booleans": (lambda c: np.ones(c.scores.shape, dtype=int), "boolean array"),
    "floats with NaN": (lambda c: np.full(c.scores.shape, np.nan), "boolean array"),
    "a list of lists of ones": (lambda c: np.ones(c.scores.shape, dtype=int).tolist(), "boolean array"),
    "None": (lambda c: None, "boolean array"),
    "all False": (lambda c: np.zeros(c.scores.shape, dtype=bool), "applying nowhere"),
}


@pytest.mark.parametrize("case", sorted(BAD_MASKS))
def test_a_plug_in_choice_returning_a_bad_mask_is_refused(case, tmp_path, capsys, monkeypatch):
    make, problem = BAD_MASKS[case]
    monkeypatch.setitem(registry._REGISTRY, "choice", dict(registry._REGISTRY["choice"]))
    policy = type("BadChoice", (_Returns,), {"make": staticmethod(make)})
    registry.register("choice", "bad-choice")(policy)
    err = refused(tmp_path, capsys, '[market]\nchoice = { name = "bad-choice" }\n' + lenders("a", "b"), "market.choice")
    assert problem in err


class _NaNScorer:
    """A plug-in scorer whose scores are NaN (a model that diverged)."""

    def score(self, features):
        return np.full(features.shape[0], np.nan)


def test_a_lender_whose_model_scores_non_finite_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "scorer", dict(registry._REGISTRY["scorer"]))
    registry.register("scorer", "nan-scorer")(_NaNScorer)
    table = MARKET + lenders("a") + '[[lenders]]\nname = "b"\nscorer = { name = "nan-scorer" }\n'
    err = refused(tmp_path, capsys, table, "lenders.b.scorer")
    assert "returned nan" in err
