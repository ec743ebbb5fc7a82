"""The Liu et al. (2018) reproduction: its kept rows are what the code gives, the docs' figures, bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import guarded
from recoursesim.datasets import load_fico
from recoursesim.reproductions import liu2018
from recoursesim.selection.lending import LendingGroup, policy_at_rate, threshold_score
from recoursesim.selection.outcome_curve import ScoreChange, outcome_curve

ROOT = Path(__file__).resolve().parents[2]
KEPT = ROOT / "experiments" / "runs" / "liu2018_delayed_impact.csv.gz"


def test_the_kept_rows_are_what_the_code_gives_now() -> None:
    kept = pd.read_csv(KEPT, dtype={"group": str})
    rows, _ = liu2018.run(load_fico(groups=["Black", "White"]), liu2018.SETTINGS, ScoreChange())
    assert list(rows["criterion"]) == list(kept["criterion"]) and list(rows["region"]) == list(kept["region"])
    for column in ("selection_rate", "true_positive_rate", "threshold", "delta_mu"):
        np.testing.assert_allclose(rows[column], kept[column], rtol=0, atol=1e-12, err_msg=column)


def test_the_differences_the_docs_quote() -> None:
    kept = pd.read_csv(KEPT, dtype={"group": str}).dropna(subset=["as published selection_rate"])
    published = liu2018._gap(kept, "as published")
    assert f"{published.max():.1e}" == "6.2e-04"
    assert f"{(kept['selection_rate'] - kept['as published selection_rate']).abs().max():.1e}" == "5.0e-06"
    assert f"{liu2018._gap(kept, 'tight tolerance').max():.1e}" == "6.1e-10"
    exact = kept[kept["criterion"] == "max_utility"]
    assert liu2018._gap(exact, "as published").max() < 1e-14


def test_the_active_harm_rates_the_docs_quote() -> None:
    tables = load_fico(groups=["Black", "White"])
    black, white = (outcome_curve(g, ScoreChange()) for g in liu2018.lending_groups(tables))
    group = liu2018.lending_groups(tables)[0]
    assert f"{black.harm_rate():.4f}" == "0.4312"
    assert f"{threshold_score(group.score, policy_at_rate(group.pmf, black.harm_rate())):.1f}" == "527.8"
    assert white.harm_rate() == 1.0 and round(white.delta_mu[-1]) == 21
    # the reference's 497.47: Black's distribution with White's repayment, randomised point at s + τ·gap
    mixed = LendingGroup("mixed", tables.score, tables.pmf("Black"), tables.repay["White"], 1.0)
    policy = policy_at_rate(mixed.pmf, outcome_curve(mixed, ScoreChange()).harm_rate())
    i = int(np.flatnonzero(policy > 0)[0])
    assert mixed.score[i] + policy[i] * (mixed.score[i + 1] - mixed.score[i]) == pytest.approx(497.4724038026517)


def test_the_script_writes_the_table_figure_and_curves(tmp_path, capsys) -> None:
    out = tmp_path / "liu"
    assert guarded(lambda: liu2018.main(["--out", str(out), "--utility-default", "-4"])) == 0
    assert {"liu2018.csv", "outcome_curves.csv", "outcome_curves.png", "table.md"} <= {p.name for p in out.iterdir()}
    assert (
        "| -4 | demographic parity | Black | 0.577400 | 0.9239 | 480.1 | -17.1422 | active harm |"
        in capsys.readouterr().out
    )


def _bad_cdf(tmp_path: Path) -> Path:
    import gzip

    from recoursesim.datasets._files import DATA_DIR

    folder = tmp_path / "tables"
    folder.mkdir()
    for path in (DATA_DIR / "fico").iterdir():
        (folder / path.name.removesuffix(".gz")).write_bytes(gzip.decompress(path.read_bytes()))
    cdf = folder / "transrisk_cdf_by_race_ssa.csv"
    cdf.write_text(cdf.read_text().replace("1.5,1.43,6.47", "1.5,1.43,1.47", 1))
    return folder


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--score-default", "10"], "error: --score-default: must lower the score (< 0), got 10; fix:"),
        (["--score-repaid", "-5"], "error: --score-repaid: must be > 0.0, got -5.0; fix:"),
        (["--utility-default", "0.5"], "error: --utility-default: must be a loss (< 0), got 0.5; fix:"),
        (["--groups", "Black", "Martian"], "error: groups: 'Martian' is not in the FICO tables; fix:"),
        ("bad-cdf", "error: transrisk_cdf_by_race_ssa.csv: Black: is not a CDF: it decreases at score 1.5; fix:"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_with_nothing_written(tmp_path, capsys, args, message) -> None:
    if args == "bad-cdf":
        args = ["--tables", str(_bad_cdf(tmp_path))]
    out = tmp_path / "liu"
    assert guarded(lambda: liu2018.main(["--out", str(out), *args])) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize("loss", [-4.0, -10.0])
def test_max_utility_is_one_threshold_per_group_on_the_fico_tables(loss) -> None:
    # docs/reproduction.md: the repayment tables are not monotone, but where they cross 0.8 and 10/11 they are
    from recoursesim.selection.lending import Utility, max_utility

    groups = liu2018.lending_groups(load_fico())
    assert any(np.any(np.diff(g.repay) < 0) for g in groups)
    for policy in max_utility(groups, Utility(1.0, loss)):
        assert np.all(np.diff(policy) >= 0)
