"""The dashboard's settings, session and figures, without a browser."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from recoursesim.cli import main
from recoursesim.dashboard import MITIGATIONS, DashboardSession, DashboardSettings, figures
from recoursesim.errors import ConfigError
from recoursesim.metrics import recourse_over_time
from recoursesim.simulate import simulate

SMALL = DashboardSettings(initial=60, entrants=6, k=6, steps=6)


@pytest.mark.parametrize("mitigation", list(MITIGATIONS))
@pytest.mark.parametrize("distribution", ["bimodal", "mixture"])
def test_every_mitigation_and_distribution_builds_and_runs(mitigation, distribution):
    settings = dataclasses.replace(SMALL, mitigation=mitigation, distribution=distribution)
    spec = settings.to_spec()
    assert (spec["selection"]["name"] == "cns") == (mitigation in ("cns", "cns_cda"))
    assert ("training" in spec) == (mitigation in ("cda", "cns_cda"))
    session = DashboardSession(settings)
    while session.step():
        pass
    assert session.finished and session.t == settings.steps + 1


def test_knobs_reach_the_scenario():
    settings = DashboardSettings(
        initial=80, entrants=7, q=1.5, k=9, difficulty=2.0, adaptation="binary", effort="constant",
        steps=4, weights=(0.3, 0.7), seed=5,
    )  # fmt: skip
    spec = settings.to_spec()
    assert spec["population"] == {
        "name": "bell2024", "initial": 80, "entrants": 7, "q": 1.5, "effort": "equal", "adaptation": 0.25,
        "high_fraction": 9 / (2 * 80),  # the paper's k / 2N, now passed by the dashboard itself
    }  # fmt: skip
    assert spec["selection"] == {"name": "top_k", "k": 9}
    assert spec["behaviour"] == {"name": "bounded_effort", "budget": "constant", "adaptation": "binary"}
    assert spec["scorer"]["weights"] == [0.3, 0.7]
    assert spec["run"] == {"steps": 4, "seed": 5}
    model = DashboardSession(settings).model
    assert model.n_initial == 80 and model.n_steps == 4


def test_bad_settings_raise_config_errors():
    with pytest.raises(ConfigError, match="mitigation"):
        dataclasses.replace(SMALL, mitigation="magic").to_spec()
    with pytest.raises(ConfigError, match="difficulty"):
        dataclasses.replace(SMALL, difficulty=0.0).to_spec()
    with pytest.raises(ConfigError):
        DashboardSession(dataclasses.replace(SMALL, k=0))


def test_session_numbers_are_the_engines_numbers():
    """The dashboard's model is the CLI's model: same scenario and seed, same ledger and metrics."""
    session = DashboardSession(SMALL)
    while session.step():
        pass
    reference = simulate(SMALL.to_scenario(), SMALL.seed)
    pd.testing.assert_frame_equal(session.ledger, reference.ledger)
    expected = recourse_over_time(reference.ledger, effort="cost", reference_group="advantaged")
    pd.testing.assert_frame_equal(session.metrics(), expected)
    assert not session.auditor().empty
    assert set(session.auditor()["metric"]) >= {"ACR", "RD"}


def test_story_follows_anne_just_below_and_dawn_far_below():
    session = DashboardSession(SMALL)
    assert session.story == () and session.story_frame().empty
    session.step()
    anne, dawn = session.story
    assert (anne.name, dawn.name) == ("Anne", "Dawn")
    first = session.latest().set_index("agent_id")
    rejected = first.loc[~first["selected"], "score"]
    assert first.loc[anne.agent_id, "score"] == rejected.max()
    assert first.loc[dawn.agent_id, "score"] < first.loc[anne.agent_id, "score"]
    for _ in range(3):
        session.step()
    story = session.story_frame()
    assert set(story["name"]) == {"Anne", "Dawn"}
    dawn_rows = story.loc[story["name"] == "Dawn"]
    assert np.allclose(dawn_rows["gap"], dawn_rows["threshold"] - dawn_rows["score"])
    text = session.story_text()
    assert text[0].startswith("Anne") and text[1].startswith("Dawn")


def test_figures_draw_the_boundary_arrows_and_lines():
    session = DashboardSession(SMALL)
    before = figures.scatter_figure(session)
    assert len(before.axes[0].collections) >= 2  # one scatter per group
    session.step()
    session.step()
    scatter = figures.scatter_figure(session)
    ax = scatter.axes[0]
    assert any(line.get_label() == "cut-off" for line in ax.get_lines())
    quivers = [c for c in ax.collections if type(c).__name__ == "Quiver"]
    assert quivers and sum(len(q.U) for q in quivers) > 0
    metrics = figures.metrics_figure(session)
    assert sum(len(line.get_xdata()) for line in metrics.axes[0].get_lines()) > 0
    assert len(figures.auditor_figure(session).axes[0].get_lines()) == 2
    assert len(figures.story_figure(session).axes[0].get_lines()) >= 2


def test_cns_boundary_is_drawn_per_group():
    session = DashboardSession(dataclasses.replace(SMALL, mitigation="cns"))
    session.step()
    labels = {line.get_label() for line in figures.scatter_figure(session).axes[0].get_lines()}
    assert {"cut-off (advantaged)", "cut-off (disadvantaged)"} <= labels


def test_dashboard_command_without_solara_says_how_to_install(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "solara" else real(name, *a))
    assert main(["dashboard", "--port", "8123"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'recoursesim[dashboard]'" in err[0]


def test_dashboard_command_rejects_a_bad_port(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["dashboard", "--port", "0"])
    assert exit_info.value.code == 2


def test_ground_truth_colouring_follows_the_observer():
    session = DashboardSession(SMALL)
    assert session.true_qualification(np.arange(3)) is None  # nothing scored yet
    before = figures.scatter_figure(session, ground_truth=True)
    assert before.axes[0].get_title() == "initial population (press Step)"
    for _ in range(3):
        session.step()
    latest = session.latest()
    truth = session.true_qualification(latest["agent_id"].to_numpy())
    assert truth.dtype == bool and truth.shape == (len(latest),)
    # x1 is a proxy and x0 the qualification: the colouring agrees with x0 >= 0.5 for agents who never moved x0
    fresh = (latest["entry_step"] == latest["step"]).to_numpy()
    np.testing.assert_array_equal(truth[fresh], latest["x0"].to_numpy()[fresh] >= 0.5)
    coloured = figures.scatter_figure(session, ground_truth=True)
    labels = [text.get_text() for text in coloured.axes[0].get_legend().get_texts()]
    assert "advantaged: truly qualified" in labels and "disadvantaged: not" in labels
    assert "true qualification" in coloured.axes[0].get_title()
    plain = figures.scatter_figure(session)
    assert "advantaged" in [text.get_text() for text in plain.axes[0].get_legend().get_texts()]


def test_durability_view_draws_validity_by_issue_step_and_the_kaplan_meier_curves():
    from recoursesim.durability import durability_by_step, survival_by_group

    # Under CDA the refitted model moves the boundary, so some recommendations expire.
    session = DashboardSession(dataclasses.replace(SMALL, mitigation="cda", auditor=False))
    empty = figures.durability_figure(session)
    assert not empty.axes[0].get_lines() and "no recommendation" in empty.axes[0].texts[0].get_text()
    while session.step():
        pass
    fates = session.durability()
    assert fates is session.durability()  # cached until the next step
    view = session.durability_view()
    assert view is session.durability_view() and view.fates is fates  # computed once per step, not per redraw
    fig = figures.durability_figure(session)
    left, right = fig.axes
    by_step = durability_by_step(fates, (1, 3, 5)).astype({"group": str})
    curves = survival_by_group(fates).astype({"group": str})
    for group in session.model.group_names:
        mine = by_step[by_step["group"] == group]
        for h in (1, 3, 5):
            line = next(line for line in left.get_lines() if line.get_label() == f"{group}, h = {h}")
            known = mine[mine[f"validity_{h}"].notna()]
            np.testing.assert_array_equal(line.get_xdata(), known["step"])
            np.testing.assert_allclose(line.get_ydata(), known[f"validity_{h}"].astype(float))
        km = next(line for line in right.get_lines() if line.get_label() == group)
        np.testing.assert_allclose(km.get_ydata(), curves.loc[curves["group"] == group, "survival"])
    # The last steps have no validity 5 steps on yet; some recommendation expired under CDA.
    assert by_step["validity_5"].isna().any() and (by_step["validity_1"].dropna() < 1).any()
    assert left.get_xlabel() == "step the recommendation was issued" and right.get_xlabel() == "steps since issue"
    assert all(float(t).is_integer() for t in right.xaxis.get_major_locator().tick_values(0, 5))


def test_the_server_log_keeps_errors_but_not_upgrade_advice_or_the_cookie_notice():
    import subprocess
    import sys

    from recoursesim.cli.dashboard import server_command, server_environment

    command = server_command("127.0.0.1", 8123)
    assert command[:4] == [sys.executable, "-m", "solara", "run"] and "--no-check-version" in command
    code = (
        "import warnings\n"
        "warnings.warn('Cookies with samesite=none require https, but according to the asgi framework, ...')\n"
        "warnings.warn('something the user must see')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=server_environment(), capture_output=True, text=True)
    assert "samesite" not in done.stderr and "something the user must see" in done.stderr


def test_a_market_session_gives_its_lenders_panel_the_market_table():
    settings = dataclasses.replace(SMALL, lenders=3, choice="best-odds")
    spec = settings.to_spec()
    assert spec["market"] == {"choice": {"name": "best-odds"}, "copies": 3} and "observers" not in spec
    session = DashboardSession(settings)
    assert session.is_market
    session.step()
    session.step()
    table = session.market()
    assert list(table["lender"].cat.categories) == ["bank-1", "bank-2", "bank-3", "market"]
    assert sorted(table["step"].unique()) == [0, 1]
    market = table.loc[(table["lender"] == "market") & (table["group"] == "all")]
    # best odds: each applicant applies to one lender, so the market's applicants are the lenders' together
    lenders = table.loc[(table["lender"] != "market") & (table["group"] == "all")]
    assert market["n_applicants"].tolist() == lenders.groupby("step")["n_applicants"].sum().tolist()
    assert np.allclose(market["homogenization"], 1.0)
    assert session.market() is table  # kept until the next step
    # the other panels read the market: one row per agent and step
    assert not session.applicant_ledger.duplicated(["step", "agent_id"]).any()
    assert len(session.latest()) == market["n_applicants"].iloc[-1]
    figure = figures.lenders_figure(session)
    assert [ax.get_title() for ax in figure.axes] == [
        "selection rate per lender",
        "systemic exclusion",
        "homogenization",
    ]
    assert len(figure.axes[0].get_lines()) == 3


@pytest.mark.parametrize(("field", "value"), [("lenders", 0), ("lenders", 6), ("choice", "nowhere")])
def test_bad_market_settings_are_refused(field, value):
    with pytest.raises(ConfigError, match=field):
        dataclasses.replace(SMALL, **{field: value}).to_spec()
