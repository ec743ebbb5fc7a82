"""The lending world as agents: the FICO population, the lending selector, loans that move scores, re-application."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError, DataError
from recoursesim.metrics import until_first_success
from recoursesim.populations.fico import FicoPopulation
from recoursesim.reproductions.liu2018 import lending_groups
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.selection.base import SelectionContext
from recoursesim.selection.lending import CRITERIA, Utility
from recoursesim.selection.lending_selector import LendingSelector
from recoursesim.selection.loan_outcome import LoanContext, RepaymentOutcome
from recoursesim.selection.outcome_curve import ScoreChange, delta_mu

SCENARIO = resources.files("recoursesim.scenarios").joinpath("fico-delayed-impact.toml")


def _context(scores, group, repay, entry=None) -> SelectionContext:
    n = len(scores)
    return SelectionContext(
        step=2,
        agent_id=np.arange(n),
        entry_step=np.zeros(n, dtype=np.int64) if entry is None else np.asarray(entry),
        group=np.asarray(group, dtype=np.int16),
        n_groups=2,
        features=np.asarray(scores, dtype=float)[:, None],
        initial_score=np.asarray(scores, dtype=float),
        effort_spent=np.zeros(n),
        repay=np.asarray(repay, dtype=float),
    )


# Three scores. Group 0: 4 at 800 (repay 0.95), 4 at 600 (0.85), 2 at 300 (0.5); group 1: 2 at 800
# (0.9), 4 at 600 (0.7), 4 at 300 (0.5). A loan is worth 5ρ − 4 at u = (1, −4); break-even ρ = 0.8.
SCORES = np.array([800.0] * 4 + [600.0] * 4 + [300.0] * 2 + [800.0] * 2 + [600.0] * 4 + [300.0] * 4)
GROUP = np.array([0] * 10 + [1] * 10)
REPAY = np.array([0.95] * 4 + [0.85] * 4 + [0.5] * 2 + [0.9] * 2 + [0.7] * 4 + [0.5] * 4)


def _select(criterion: str, entry=None):
    return LendingSelector(criterion).select(SCORES, _context(SCORES, GROUP, REPAY, entry))


def test_max_utility_lends_where_a_loan_pays_off_in_each_group() -> None:
    selection = _select("max_utility")
    # group 0: 0.95 and 0.85 reach 0.8 (8 loans, cut-off 600); group 1: only 0.9 (2 loans, cut-off 800)
    np.testing.assert_array_equal(selection.selected, (GROUP == 0) & (SCORES >= 600) | (GROUP == 1) & (SCORES == 800))
    np.testing.assert_array_equal(selection.threshold, np.where(GROUP == 0, 600.0, 800.0))


def test_the_group_blind_cut_off_is_the_one_of_highest_total_utility() -> None:
    # Equal sizes: the total per loan at 800 is (0.75 + 0.5) / 2 > 0, at 600 (0.25 − 0.5) / 2 < 0: lend at 800 only.
    selection = _select("max_utility_blind")
    np.testing.assert_array_equal(selection.selected, SCORES == 800)
    np.testing.assert_array_equal(selection.threshold, np.full(20, 800.0))


def test_demographic_parity_splits_the_boundary_score_longest_waiting_first() -> None:
    # Slopes of the total utility in the common rate: 1.25, 0.25, −0.25 on [0, .2], [.2, .4], [.4, .6]: β = 0.4.
    entry = np.zeros(20, dtype=np.int64)
    entry[12:14] = 5  # two of group 1's applicants at 600 came later: the other two get the loans
    selection = _select("demographic_parity", entry)
    assert selection.selected[GROUP == 0].sum() == 4 and selection.selected[GROUP == 1].sum() == 4
    np.testing.assert_array_equal(np.flatnonzero(selection.selected), [0, 1, 2, 3, 10, 11, 14, 15])
    np.testing.assert_array_equal(selection.threshold, np.where(GROUP == 0, 800.0, 600.0))


def test_equal_opportunity_matches_the_exact_policy_on_the_same_groups() -> None:
    selection = _select("equal_opportunity")
    groups = [
        LendingSelector._group(g, np.array([300.0, 600.0, 800.0]), np.searchsorted([300, 600, 800], SCORES), _context(
            SCORES, GROUP, REPAY
        ))
        for g in (0, 1)
    ]  # fmt: skip
    policies = CRITERIA["equal_opportunity"](groups, Utility())
    for code, (group, policy) in enumerate(zip(groups, policies, strict=True)):
        lent = int(np.rint(policy * group.pmf * 10).sum())
        assert lent > 0 and selection.selected[np.equal(GROUP, code)].sum() == lent


def test_the_selector_needs_repayment_probabilities() -> None:
    context = _context(SCORES, GROUP, REPAY)
    bare = SelectionContext(**{**context.__dict__, "repay": None})
    with pytest.raises(ConfigError, match=r"^selection: .*repayment probability"):
        LendingSelector().select(SCORES, bare)
    with pytest.raises(ConfigError, match=r"^criterion"):
        LendingSelector("best")
    with pytest.raises(ConfigError, match=r"^utility.default: must be a loss"):
        LendingSelector(utility={"repaid": 1.0, "default": 2.0})


def _loans(repay: np.ndarray, scores: np.ndarray) -> LoanContext:
    return LoanContext(1, scores[:, None], ("score",), repay, np.random.default_rng(0))


def test_a_repaid_loan_adds_c_plus_and_a_default_adds_c_minus_within_the_scale() -> None:
    outcome = RepaymentOutcome(score_change={"repaid": 75.0, "default": -150.0}, utility={"default": -4.0})
    scores = np.array([500.0, 820.0, 400.0, 700.0])
    result = outcome.resolve(_loans(np.array([1.0, 1.0, 0.0, 0.0]), scores))
    np.testing.assert_array_equal(result.repaid, [True, True, False, False])
    np.testing.assert_array_equal(result.features[:, 0], [575.0, 850.0, 300.0, 550.0])
    np.testing.assert_array_equal(result.utility, [1.0, 1.0, -4.0, -4.0])


def test_repayments_follow_the_probabilities() -> None:
    repay = np.full(20_000, 0.3)
    repaid = RepaymentOutcome().resolve(_loans(repay, np.full(20_000, 600.0))).repaid
    assert abs(repaid.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / 20_000)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"score_change": {"repaid": 75.0, "default": 150.0}}, "score_change.default"),
        ({"score_change": {"repaid": -75.0}}, "score_change.repaid"),
        ({"utility": {"default": 4.0}}, "utility.default"),
        ({"utility": {"gain": 1.0}}, "utility.gain"),
        ({"feature": 3}, "feature"),
    ],
)
def test_the_outcome_refuses_a_gain_where_the_paper_requires_a_loss(params, field) -> None:
    with pytest.raises(ConfigError) as info:
        RepaymentOutcome(**params)
    assert info.value.field == field


def test_the_population_draws_the_tables_distributions_in_the_samples_proportions() -> None:
    population = FicoPopulation(groups=["Black", "White"])
    cohort = population.sample(20_000, np.random.default_rng(1))
    tables = population.tables
    share = tables.totals["Black"] / (tables.totals["Black"] + tables.totals["White"])
    assert abs((cohort.group == 0).mean() - share) <= 1 / 20_000
    grid = tables.score
    assert np.isin(cohort.features[:, 0], grid).all()
    for code, name in enumerate(population.group_names):
        scores = cohort.features[cohort.group == code, 0]
        exact = float(np.sum(tables.pmf(name) * grid))
        assert abs(scores.mean() - exact) < 4 * scores.std() / np.sqrt(scores.size)
    np.testing.assert_array_equal(cohort.effort, 0.0)  # no effort unless the scenario gives some


def test_repayment_follows_the_score_through_the_performance_table() -> None:
    population = FicoPopulation(groups=["Black", "White"])
    grid, repay = population.tables.score, population.tables.repay
    on_grid = np.array([[grid[10]], [grid[10]], [grid[150]]])
    np.testing.assert_array_equal(
        population.repay_probability(on_grid, np.array([0, 1, 0])),
        [repay["Black"][10], repay["White"][10], repay["Black"][150]],
    )
    # a score moved off the grid repays at the nearest listed score
    near = grid[40] + 0.4 * (grid[41] - grid[40])
    assert population.repay_probability(np.array([[near]]), np.array([1]))[0] == repay["White"][40]


def test_a_group_absent_from_the_tables_is_refused() -> None:
    with pytest.raises(DataError, match="'Martian' is not in the FICO tables"):
        FicoPopulation(groups=["Black", "Martian"])


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda t: t.replace('groups = ["Black", "White"]', 'groups = ["Black", "Martian"]'), "population.groups"),
        (lambda t: t.replace("default = -150.0", "default = 150.0"), "outcome.score_change.default"),
        (
            lambda t: t.replace(
                "utility = { repaid = 1.0, default = -4.0 }\n\n[outcome]", "utility = { default = 4.0 }\n\n[outcome]"
            ),
            "selection.utility.default",
        ),
        (lambda t: t.replace('criterion = "max_utility"', 'criterion = "fairest"'), "selection.criterion"),
        (lambda t: t.replace('name = "repayment"', 'name = "repaiment"'), "outcome.name"),
    ],
)
def test_bad_lending_scenarios_exit_2_with_one_line_naming_the_field(mutate, field, tmp_path, capsys) -> None:
    path = tmp_path / "bad.toml"
    text = mutate(SCENARIO.read_text(encoding="utf-8"))
    assert text != SCENARIO.read_text(encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--steps", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{field}:" in err and "fix:" in err and "Traceback" not in err, err
    assert not out.exists()


def test_an_outcome_needs_a_population_that_gives_repayment_probabilities() -> None:
    spec = load_scenario("default").spec
    spec["outcome"] = {"name": "repayment"}
    model = Scenario.from_dict(spec).build_model()
    with pytest.raises(ConfigError, match=r"^outcome: the population gives no repayment probabilities"):
        model.step()


def _run(criterion: str = "demographic_parity", n: int = 400, steps: int = 3, seed: int = 0):
    scenario = load_scenario("fico-delayed-impact").with_overrides(
        {"selection.criterion": criterion, "population.initial": n, "run.steps": steps}
    )
    return scenario.build_model(seed).run()


def test_borrowers_stay_and_apply_again_with_the_score_their_loan_left_them() -> None:
    model = _run()
    ledger, loans = model.ledger, model.loans
    assert ledger.groupby("step").size().tolist() == [400] * 4  # nobody leaves
    assert len(loans) == int(ledger["selected"].sum()) > 0
    assert (model.agent_frame()["status"] == "waiting").all()
    # the score a borrower applies with next step is the score its loan left it with
    later = ledger.set_index(["step", "agent_id"])["score"]
    first = loans[loans["step"] == 0].set_index("agent_id")
    np.testing.assert_array_equal(later.loc[1].loc[first.index].to_numpy(), first["score_after"].to_numpy())
    moved = first["score_after"] - first["score_before"]
    expected = np.where(first["repaid"], 75.0, -150.0)
    inside = (first["score_before"] + expected).between(300, 850)
    np.testing.assert_array_equal(moved[inside], expected[inside])
    assert set(loans["utility"]) <= {1.0, -4.0}


def test_refused_applicants_without_effort_keep_their_score() -> None:
    model = _run()
    ledger = model.ledger.set_index(["step", "agent_id"])
    refused = ledger.loc[0].index[~ledger.loc[0]["selected"]]
    np.testing.assert_array_equal(ledger.loc[1].loc[refused, "score"], ledger.loc[0].loc[refused, "score"])


def test_a_lending_run_is_a_pure_function_of_its_seed() -> None:
    first, second, other = _run(seed=3), _run(seed=3), _run(seed=4)
    assert first.loans.equals(second.loans) and first.ledger.equals(second.ledger)
    assert not first.loans.equals(other.loans)


def test_recourse_metrics_stop_at_each_agents_first_loan() -> None:
    ledger = _run(steps=4).ledger
    cut = until_first_success(ledger)
    per_agent = cut.groupby("agent_id")["selected"]
    assert (per_agent.sum() <= 1).all()
    ended = cut.groupby("agent_id")["step"].max()
    last_selected = cut[cut["selected"]].set_index("agent_id")["step"]
    np.testing.assert_array_equal(ended.loc[last_selected.index], last_selected)
    never = ledger.groupby("agent_id")["selected"].sum() == 0
    assert (ended[never[never].index] == ledger["step"].max()).all()


@pytest.mark.parametrize("criterion", list(CRITERIA))
def test_at_t_1_the_simulated_score_change_agrees_with_the_exact_delta_mu(criterion: str) -> None:
    """One step of 20,000 agents: each group's mean score change is Liu et al.'s Δμ within sampling error.

    The simulation keeps each outcome's new score within 300–850, where Δμ clips the expected new
    score; the difference, computed exactly here, is added to the tolerance (it is below 0.5 points).
    """
    model = _run(criterion, n=20_000, steps=0, seed=0)
    ledger, loans = model.ledger, model.loans
    population = model.population
    groups = lending_groups(population.tables)
    policies = CRITERIA[criterion](groups, Utility())
    for group, policy in zip(groups, policies, strict=True):
        members = ledger[ledger["group"] == group.name]
        mine = loans[loans["group"] == group.name].set_index("agent_id")
        change = members["agent_id"].map(mine["score_after"] - mine["score_before"]).fillna(0.0).to_numpy()
        exact = delta_mu(group, policy, ScoreChange())
        up = np.clip(group.score + 75.0, 300, 850) - group.score
        down = np.clip(group.score - 150.0, 300, 850) - group.score
        per_outcome = float(np.sum(group.pmf * policy * (group.repay * up + (1 - group.repay) * down)))
        assert abs(per_outcome - exact) < 0.5
        error = change.std(ddof=1) / np.sqrt(change.size)
        assert abs(change.mean() - per_outcome) < 4 * error, (group.name, change.mean(), per_outcome, error)


def test_a_runs_selection_rates_count_every_application_and_its_recourse_the_first_loan() -> None:
    from recoursesim.simulate import simulate

    scenario = load_scenario("fico-delayed-impact-recourse").with_overrides(
        {"population.initial": 300, "run.steps": 4, "selection.criterion": "max_utility"}
    )
    result = simulate(scenario, 0)
    ledger = result.ledger
    rates = ledger.groupby(["step", "group"], observed=True)["selected"].mean()
    metrics = result.metrics.set_index(["step", "group"])["selection_rate"]
    np.testing.assert_allclose(metrics.loc[rates.index].to_numpy(), rates.to_numpy())
    assert (result.metrics.groupby("step")["n_scored"].sum() == 300).all()  # borrowers are scored again
    outcomes = result.outcomes.set_index("agent_id")
    first = ledger[ledger["selected"]].groupby("agent_id")["step"].min()
    won = outcomes["success_step"] >= 0
    np.testing.assert_array_equal(outcomes.loc[won, "success_step"], first.loc[outcomes.index[won]])
    assert scenario.reapplies and not load_scenario("default").reapplies


@pytest.mark.parametrize(
    ("table", "old", "new", "message"),
    [
        ("transrisk_cdf_by_race_ssa.csv", "1.5,1.43,6.47", "1.5,1.43,1.47", "Black: is not a CDF: it decreases"),
        ("transrisk_cdf_by_race_ssa.csv", "100,100.00,", "100,99.99,", "White: is not a CDF: it ends at 99.99"),
        ("transrisk_performance_by_race_ssa.csv", "0,98.54,99.67", "0,98.54,101.5", "Black: has a default rate"),
        ("transrisk_performance_by_race_ssa.csv", "Black,", "Blk,", "Black: is missing"),
    ],
)
def test_a_scenarios_own_bad_tables_exit_2_naming_the_table(table, old, new, message, tmp_path, capsys) -> None:
    from tests.datasets.test_fico_tables import _copy, _edit

    folder = tmp_path / "tables"
    folder.mkdir()
    _copy(folder)
    _edit(folder / table, old, new)
    path = tmp_path / "bad.toml"
    text = SCENARIO.read_text(encoding="utf-8").replace(
        'groups = ["Black", "White"]', f'groups = ["Black", "White"]\ntables_dir = "{folder.as_posix()}"', 1
    )
    path.write_text(text, encoding="utf-8")
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--steps", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"population.tables_dir.{table}: {message}" in err and "fix:" in err, err
    assert not (tmp_path / "out").exists()


def test_a_scenarios_own_good_tables_run_like_the_bundled_ones(tmp_path) -> None:
    from tests.datasets.test_fico_tables import _copy

    own = FicoPopulation(tables_dir=str(_copy(tmp_path)))
    bundled = FicoPopulation()
    a, b = own.sample(500, np.random.default_rng(2)), bundled.sample(500, np.random.default_rng(2))
    np.testing.assert_array_equal(a.features, b.features)
