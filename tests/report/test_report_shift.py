"""The report's "Shift and ground truth" section: reliability shares from hand-made counts, and a real run."""

from __future__ import annotations

import pandas as pd
import pytest

from recoursesim.report import load_results
from recoursesim.report.build import build_report
from recoursesim.report.shift import EVERYONE, reliability_table, shift_observers
from recoursesim.scenario import Scenario
from recoursesim.simulate import simulate


def _counts(seed, group, step, **values):
    return [
        {"seed": seed, "step": step, "observer": "gt", "group": group, "metric": k, "value": float(v)}
        for k, v in values.items()
    ]


def test_reliability_shares_pool_steps_within_a_seed_then_average_seeds():
    rows = []
    # seed 0: successes 4 + 6 = 10 -> improved 2/10, gamed 7/10, already 1/10
    rows += _counts(0, "a", 0, n_recourse_success=4, n_success_improved=1, n_success_gamed=3, n_success_already=0)
    rows += _counts(0, "a", 1, n_recourse_success=6, n_success_improved=1, n_success_gamed=4, n_success_already=1)
    # seed 1: 5 successes -> improved 0.4, gamed 0.6
    rows += _counts(1, "a", 0, n_recourse_success=5, n_success_improved=2, n_success_gamed=3, n_success_already=0)
    rows += _counts(0, "a", 0, n_selected=10, n_selected_qualified=5) + _counts(
        1, "a", 0, n_selected=4, n_selected_qualified=1
    )
    table = reliability_table(pd.DataFrame(rows), ["a"]).set_index("group")
    assert table.loc["a", "improved"].startswith(f"{(0.2 + 0.4) / 2:.3f} [")
    assert table.loc["a", "gamed"].startswith(f"{(0.7 + 0.6) / 2:.3f} [")
    assert table.loc["a", "already qualified"].startswith(f"{(0.1 + 0.0) / 2:.3f} [")
    assert table.loc["a", "precision of all selections"].startswith(f"{(0.5 + 0.25) / 2:.3f} [")
    assert table.loc["a", "recourse successes per run"].startswith("7.5 [")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    spec = Scenario.bundled("default").spec | {
        "run": {"steps": 6, "seed": 0},
        "observers": [
            {"name": "domain_shift", "every": 3, "permutations": 49},
            {"name": "model_shift", "every": 3},
            {"name": "selection_boundary"},
            {"name": "ground_truth", "weights": {"skill": 1.0}, "cutoff": 0.6, "causal": ["skill"], "every": 3},
            {"name": "ccm", "every": 3},
        ],
    }
    scenario = Scenario.from_dict(spec)
    root = tmp_path_factory.mktemp("shift")
    for seed in (0, 1):
        (root / f"seed-{seed}").mkdir()
        simulate(scenario, seed).write(root / f"seed-{seed}")
    return build_report(load_results(root))


def test_report_has_the_shift_section_with_table_and_figure(report):
    sections = {section.id: section for section in report.sections}
    shift = sections["shift"]
    table = shift.tables[0]
    assert list(table["group"]) == ["advantaged", "disadvantaged", EVERYONE]
    assert table["gamed"].str.match(r"^\d\.\d{3}").all()
    assert [figure.name for figure in shift.figures] == ["shift_over_time"]
    titles = [ax.get_title() for ax in shift.figures[0].figure.axes if ax.get_visible()]
    assert titles == ["Domain shift", "Model shift: disagreement with step 0", "Selection boundary", "Gaming rate"]
    assert "ccm" in sections["auditors"].paragraphs[0] and "domain_shift" not in sections["auditors"].paragraphs[0]


def test_no_shift_section_without_shift_observers():
    frame = pd.DataFrame(
        {"seed": [0], "step": [0], "observer": ["ccm"], "group": ["a"], "metric": ["n"], "value": [1.0]}
    )
    assert shift_observers(frame) == []
