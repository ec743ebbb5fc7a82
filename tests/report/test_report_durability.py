"""The report's durability section: numbers from the runs' fates, the no-expiry note, older runs."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recoursesim.durability import durability_summary
from recoursesim.report import build_report, load_results
from recoursesim.simulate import simulate


def _write(root: Path, name: str, seeds, steps=10) -> Path:
    for seed in seeds:
        directory = root / f"seed-{seed}"
        directory.mkdir(parents=True)
        simulate(name, seed, steps=steps).write(directory)
    return root


def _section(root: Path):
    report = build_report(load_results(root))
    return next(s for s in report.sections if s.id == "durability")


def test_section_table_is_the_mean_of_each_runs_summary(tmp_path):
    root = _write(tmp_path / "rising", "rising-competition", [0, 1], steps=20)
    section = _section(root)
    table = section.tables[0].set_index("group")
    per_seed = [
        durability_summary(pd.read_parquet(root / f"seed-{s}" / "durability.parquet")).set_index("group")
        for s in (0, 1)
    ]
    for group in table.index:
        mean = np.mean([summary.loc[group, "validity_3"] for summary in per_seed])
        assert table.loc[group, "valid 3 steps later"].startswith(f"{mean:.3f}")
    assert len(section.tables) == 2 and "minus advantaged's" in " ".join(section.tables[1].columns)
    assert section.figures and section.figures[0].name == "durability"
    assert not any("No recommendation expired" in p for p in section.paragraphs)


def test_fixed_model_falling_cutoff_says_nothing_expired(tmp_path):
    section = _section(_write(tmp_path / "default", "default", [0]))
    assert any("No recommendation expired" in p for p in section.paragraphs)
    assert section.tables[0]["valid 1 step later"].str.startswith("1.000 ").all()


def test_recommendations_that_expire_by_construction_are_explained_in_the_report(tmp_path):
    from recoursesim.report.durability import never_valid_note

    section = _section(_write(tmp_path / "bell", "bell2024-baseline", [0], steps=3))
    (note,) = [p for p in section.paragraphs if "expire by construction" in p]
    assert "only 0.0% of them would have been accepted even at the step they were issued" in note
    assert "`offset_target`" in note and "score is `threshold - offset`" in note  # which generator, and why
    assert section.tables[0]["valid 1 step later"].str.startswith("0.000 ").all()
    assert not any("expire by construction" in p for p in _section(_write(tmp_path / "d", "default", [0])).paragraphs)
    # the bound by hand: 1 of 200 accepted at issue is 0.5% (< 1%): explained; 2 of 100 is 2%: not
    summaries = pd.DataFrame({"n_recommendations": [100, 100, 0], "valid_at_issue": [0.01, 0.0, np.nan]})
    assert "only 0.5% of them" in never_valid_note(summaries, None)
    assert never_valid_note(summaries.assign(valid_at_issue=[0.02, 0.02, np.nan]), "linear") == ""


def test_runs_without_the_durability_file_say_why(tmp_path):
    # a results directory written before durability was recorded has no durability.parquet
    directory = tmp_path / "old" / "seed-0"
    directory.mkdir(parents=True)
    simulate("default", 0, steps=3).write(directory)
    (directory / "durability.parquet").unlink()
    section = _section(tmp_path / "old")
    assert "kept no recommendations" in section.paragraphs[-1] and not section.figures


@pytest.mark.parametrize("name", ["german-credit-lending"])
def test_german_credit_report_has_the_section(tmp_path, name):
    section = _section(_write(tmp_path / name, name, [1], steps=4))
    assert section.tables[0].shape[0] == 2 and section.figures
