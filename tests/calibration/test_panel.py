"""Panel statistics from a ledger (hand-computed), and the observed-panel reader's checks."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recoursesim.calibration import flatten, panel_statistics, read_panel
from recoursesim.calibration.posterior import read_posterior, summary, weighted_quantile
from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate
from tests.hostile.conftest import one_line_error

GROUPS = ["A", "B"]


def hand_ledger() -> pd.DataFrame:
    # agent 0 (A): refused at 0, selected at 1; agent 1 (A): selected at 0;
    # agent 2 (B): refused at 0 and 1, selected at 2; agent 3 (B): first scored at 1, selected at 2.
    rows = [
        (0, 0, "A", 0.2, False),
        (0, 1, "A", 0.8, True),
        (0, 2, "B", 0.1, False),
        (1, 0, "A", 0.6, True),
        (1, 2, "B", 0.3, False),
        (1, 3, "B", 0.4, False),
        (2, 2, "B", 0.5, True),
        (2, 3, "B", 0.7, True),
    ]
    return pd.DataFrame(rows, columns=["step", "agent_id", "group", "score", "selected"])


def test_panel_statistics_match_hand_counts():
    panel = panel_statistics(hand_ledger(), GROUPS, steps=2)
    expected = pd.DataFrame(
        {
            "step": [0, 0, 1, 1, 2, 2],
            "group": ["A", "B"] * 3,
            "applicants": [2, 1, 1, 2, 0, 2],
            "approvals": [1, 0, 1, 0, 0, 2],
            "reapplicants": [0, 0, 1, 1, 0, 2],
            "mean_score": [0.5, 0.1, 0.6, 0.35, math.nan, 0.6],
        }
    )
    pd.testing.assert_frame_equal(panel, expected, check_dtype=False)


@pytest.mark.parametrize("categories", [["A", "B"], ["B", "A"], ["C", "B", "A"]])
def test_a_categorical_group_column_gives_the_panel_its_strings_give(categories):
    # A run's ledger holds the group as a categorical, its categories not necessarily in the order of the
    # groups counted, and possibly with a category no row has.
    ledger = hand_ledger()
    as_categorical = ledger.assign(group=pd.Categorical(ledger["group"], categories=categories))
    pd.testing.assert_frame_equal(
        panel_statistics(as_categorical, GROUPS, steps=2), panel_statistics(ledger, GROUPS, steps=2), check_exact=True
    )


def test_flatten_names_each_statistic_group_and_step_and_counts_an_empty_mean_as_zero():
    stats = flatten(panel_statistics(hand_ledger(), GROUPS, steps=2), ["approvals", "mean_score"])
    assert stats["approvals|B|2"] == 2
    assert stats["mean_score|B|1"] == pytest.approx(0.35)
    assert stats["mean_score|A|2"] == 0.0
    assert len(stats) == 2 * 6


def test_panel_of_a_run_adds_up_to_its_ledger():
    result = simulate("bell2024-baseline", 3, steps=4)
    ledger = result.ledger
    panel = panel_statistics(ledger, list(result.model.group_names), 4)
    assert panel["applicants"].sum() == len(ledger)
    assert panel["approvals"].sum() == int(ledger["selected"].sum())
    assert panel.loc[panel["step"] == 0, "reapplicants"].sum() == 0
    # Every agent still waiting at step t + 1 was scored at t: re-applicants at t + 1 = refused at t.
    refused = panel["applicants"] - panel["approvals"]
    for group in result.model.group_names:
        rows = panel[panel["group"] == group]
        assert rows["reapplicants"].to_numpy()[1:].tolist() == refused[rows.index].to_numpy()[:-1].tolist()


def test_a_borrower_who_applies_again_after_a_loan_is_not_a_reapplicant():
    # agent 0: approved at 0, applies again at 1 (refused) and 2; agent 1: refused at 0, approved at 1, back at 2.
    rows = [
        (0, 0, "A", 0.9, True),
        (0, 1, "A", 0.2, False),
        (1, 0, "A", 0.4, False),
        (1, 1, "A", 0.7, True),
        (2, 0, "A", 0.5, False),
        (2, 1, "A", 0.8, False),
    ]
    ledger = pd.DataFrame(rows, columns=["step", "agent_id", "group", "score", "selected"])
    panel = panel_statistics(ledger.sample(frac=1, random_state=1), ["A"], steps=2)
    assert panel["reapplicants"].tolist() == [0, 1, 1]
    assert panel["applicants"].tolist() == [2, 2, 2]


def test_fico_borrowers_reapply_and_only_the_refused_count_as_reapplicants():
    scenario = Scenario.from_dict({"base": "fico-delayed-impact-recourse", "population": {"initial": 200}})
    result = simulate(scenario, 3, steps=3)
    panel = panel_statistics(result.ledger, list(result.model.group_names), 3)
    # Nobody leaves: every applicant applies every step, and those refused at t are the re-applicants at t + 1.
    refused = panel["applicants"] - panel["approvals"]
    for group in result.model.group_names:
        rows = panel[panel["group"] == group]
        assert len(set(rows["applicants"])) == 1
        assert rows["reapplicants"].to_numpy()[1:].tolist() == refused[rows.index].to_numpy()[:-1].tolist()
        assert (rows["reapplicants"].to_numpy()[1:] < rows["applicants"].to_numpy()[1:]).all()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 3), st.sampled_from(GROUPS), st.floats(0, 1), st.booleans()),
        min_size=1,
        max_size=30,
        unique_by=lambda r: (r[0], r[1]),
    )
)
def test_counts_are_bounded_by_applicants_and_sum_to_the_rows(rows):
    ledger = pd.DataFrame(rows, columns=["step", "agent_id", "group", "score", "selected"])
    panel = panel_statistics(ledger, GROUPS, steps=5)
    assert len(panel) == 12
    assert panel["applicants"].sum() == len(ledger)
    assert (panel["approvals"] <= panel["applicants"]).all()
    assert (panel["reapplicants"] <= panel["applicants"]).all()
    ordered = ledger.sort_values(["agent_id", "step"])
    previous = ordered.groupby("agent_id")["selected"].shift()
    assert panel["reapplicants"].sum() == int((previous == False).sum())  # noqa: E712 (NaN for first rows)


def write(tmp_path, text):
    path = tmp_path / "observed.csv"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = "step,group,applicants,approvals\n0,A,10,3\n0,B,8,2\n1,A,9,4\n1,B,7,1\n"


def test_reader_accepts_a_good_panel_in_any_row_order(tmp_path):
    lines = GOOD.splitlines()
    panel = read_panel(write(tmp_path, "\n".join([lines[0], *reversed(lines[1:])]) + "\n"), GROUPS, steps=5)
    assert panel[["step", "group"]].values.tolist() == [[0, "A"], [0, "B"], [1, "A"], [1, "B"]]
    assert panel["approvals"].tolist() == [3, 2, 4, 1]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("step,group,applicants\n0,A,10\n2,A,9\n", "group A has no row for step 1"),
        ("step,group,applicants\n0,A,-1\n", "column applicants: row 2 is -1"),
        ("step,group,applicants\n0,A,2.5\n", "non-negative whole number"),
        ("step,group,applicants\n0,C,3\n", "'C' is not a group of the scenario"),
        ("step,group,mean_score\n0,A,nan\n", "column mean_score: row 2"),
        ("step,group,applicants,approvals\n0,A,3,4\n", "approvals: row 2 exceeds applicants"),
        ("step,group,applicants\n0,A,3\n9,A,3\n", "reaches step 9"),
        ("step,group,applicants\n0,A,3\n0,A,4\n", "two rows for step 0, group A"),
        ("step,group,income\n0,A,3\n", "unknown column 'income'"),
        ("step,group\n0,A\n", "no statistic column"),
        ("group,applicants\nA,3\n", "no step column"),
        ("step,group,applicants\n", "no rows"),
    ],
)
def test_reader_refuses_a_bad_panel_naming_the_problem(tmp_path, text, words):
    with pytest.raises(ConfigError, match=words):
        read_panel(write(tmp_path, text), GROUPS, steps=5)


def test_reader_refuses_an_unreadable_file(tmp_path):
    path = tmp_path / "observed.csv"
    path.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(ConfigError, match="cannot be read as CSV"):
        read_panel(path, GROUPS, steps=5)
    with pytest.raises(ConfigError, match="cannot be read as CSV"):
        read_panel(tmp_path / "missing.csv", GROUPS, steps=5)


def test_command_refuses_a_bad_panel_in_one_line_and_writes_nothing(tmp_path, capsys):
    data = write(tmp_path, "step,group,applicants\n0,advantaged,-4\n")
    out = tmp_path / "out"
    argv = ["calibrate", "bell2024-baseline", "--data", str(data), "--param", "population.q=0:3", "--out", str(out)]
    line = one_line_error(main(argv), capsys.readouterr().err)
    assert "column applicants" in line and "non-negative whole number" in line
    assert not out.exists()


def test_command_refuses_a_param_that_is_not_a_scenario_field(tmp_path, capsys):
    data = write(tmp_path, "step,group,applicants\n0,advantaged,500\n")
    out = tmp_path / "out"
    argv = ["calibrate", "bell2024-baseline", "--data", str(data), "--param", "population.qq=0:3", "--out", str(out)]
    line = one_line_error(main(argv), capsys.readouterr().err)
    assert "qq" in line
    assert not out.exists()


def test_weighted_quantiles_and_summary_by_hand():
    values, weights = np.array([3.0, 1.0, 2.0, 4.0]), np.array([0.1, 0.2, 0.3, 0.4])
    # sorted: 1 (0.2), 2 (0.3), 3 (0.1), 4 (0.4); cumulative 0.2, 0.5, 0.6, 1.0; times n / (n + 1) = 4/5:
    # positions 0.16, 0.40, 0.48, 0.80
    assert weighted_quantile(values, weights, 0.05) == 1.0  # below the first position
    assert weighted_quantile(values, weights, 0.5) == pytest.approx(3 + 0.02 / 0.32)  # 3.0625
    assert weighted_quantile(values, weights, 0.44) == pytest.approx(2.5)  # half way from 0.40 to 0.48
    assert weighted_quantile(values, weights, 0.95) == 4.0  # beyond the last position
    table = summary(pd.DataFrame({"a": values, "weight": weights}), ["a"])
    assert table.iloc[0].to_dict() == pytest.approx({"parameter": "a", "median": 3.0625, "low": 1.0, "high": 4.0})


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60, unique=True),
       st.floats(0.0, 1.0))  # fmt: skip
def test_equal_weights_give_numpys_weibull_quantile(values, q):
    x = np.array(values)
    assert weighted_quantile(x, np.full(len(x), 2.5), q) == pytest.approx(np.quantile(x, q, method="weibull"))


def test_a_zero_weight_particle_has_no_say():
    values, weights = np.array([1.0, 2.0, 100.0]), np.array([0.5, 0.5, 0.0])
    assert weighted_quantile(values, weights, 0.95) == 2.0


def test_the_90_percent_interval_of_25_particles_covers_a_further_draw_90_percent_of_the_time():
    # What the recovery experiment's coverage rests on: with few particles, the smallest value whose
    # cumulative weight reaches 5 % (and 95 %) gives an interval that covers a further draw 22 / 26 = 84.6 %
    # of the time (for 25 particles: the 2nd and 24th smallest); the interpolated positions give 90 %.
    rng = np.random.default_rng(0)
    interpolated = first_reaching = 0
    for _ in range(4000):
        x, truth = rng.normal(size=25), rng.normal()
        interpolated += weighted_quantile(x, np.ones(25), 0.05) <= truth <= weighted_quantile(x, np.ones(25), 0.95)
        ordered = np.sort(x)
        first_reaching += ordered[1] <= truth <= ordered[23]
    assert 0.88 <= interpolated / 4000 <= 0.92
    assert 0.83 <= first_reaching / 4000 <= 0.86


def test_read_posterior_refuses_a_file_that_is_not_one(tmp_path):
    path = tmp_path / "posterior.toml"
    path.write_text('[posterior]\nscenario = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="is not a posterior file"):
        read_posterior(path)
    path.write_text('[posterior.parameters]\n"a.b" = [1.0, 2.0]\n', encoding="utf-8")
    assert read_posterior(path)["a.b"].tolist() == [1.0, 2.0]
