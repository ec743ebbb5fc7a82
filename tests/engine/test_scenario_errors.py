"""Malformed input: one clear line naming the field and the fix; exit 2 from the CLI; no files written."""

import math
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario, load_scenario

DEFAULT = resources.files("recoursesim.scenarios").joinpath("default.toml")


def default_text():
    return DEFAULT.read_text()


CASES = {
    "unknown_key": (
        lambda t: t.replace("[selection]\n", "[selection]\ncolour = 1\n"),
        "selection.colour: unknown parameter",
    ),
    "unknown_top_level": (lambda t: "colour = 1\n" + t, "colour: unknown top-level key"),
    "wrong_type": (lambda t: t.replace("k = 20", 'k = "twenty"'), "selection.k: must be an integer"),
    "negative_k": (lambda t: t.replace("k = 20", "k = -5"), "selection.k: must be >= 1"),
    "zero_k": (lambda t: t.replace("k = 20", "k = 0"), "selection.k: must be >= 1"),
    "shares": (lambda t: t.replace("share = 0.5", "share = 0.4", 1), "population.groups: shares sum to 0.9"),
    "empty_group": (
        lambda t: t.replace('name = "disadvantaged"\nshare = 0.5', 'name = "disadvantaged"\nshare = 0.0'),
        "population.groups[1].share: is 0",
    ),
    "unknown_selector": (
        lambda t: t.replace('name = "top_k"', 'name = "top_kk"'),
        "selection.name: unknown selector 'top_kk'",
    ),
    "unknown_behaviour": (
        lambda t: t.replace('name = "bounded_effort"', 'name = "lazy"'),
        "behaviour.name: unknown behaviour 'lazy'",
    ),
    "nan_parameter": (
        lambda t: t.replace("scale = 0.04", "scale = nan", 1),
        "population.groups[0].effort.scale: must be finite",
    ),
    "nan_weight": (lambda t: t.replace("weights = [0.5, 0.5]", "weights = [0.5, nan]"), "scorer.weights: contains NaN"),
    "weights_length": (
        lambda t: t.replace("weights = [0.5, 0.5]", "weights = [0.5, 0.5, 0.1]"),
        "scorer.weights: has 3 entries",
    ),
    "bad_toml": (lambda t: t.replace("k = 20", "k = = 20"), "toml: "),
    "negative_steps": (lambda t: t.replace("steps = 20", "steps = -1"), "run.steps: must be >= 0"),
    "entrants_list": (lambda t: t.replace("entrants = 20", "entrants = [1, 2]"), "population.entrants: lists 2 steps"),
    "bad_reference": (
        lambda t: t.replace('reference_group = "advantaged"', 'reference_group = "rich"'),
        "metrics.reference_group: 'rich' is not a group",
    ),
    "missing_section": (lambda t: t.replace("[scorer]", "[scorerx]"), "scorerx: unknown top-level key"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_scenario_raises_one_line_naming_field(case, tmp_path):
    mutate, expected = CASES[case]
    path = tmp_path / "bad.toml"
    path.write_text(mutate(default_text()))
    with pytest.raises(ConfigError) as info:
        Scenario.from_file(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {expected}"), message
    assert "fix:" in message


@pytest.mark.parametrize("case", ["negative_k", "unknown_selector", "nan_parameter", "shares"])
def test_cli_exit_2_one_line_no_files(case, tmp_path, capsys):
    mutate, expected = CASES[case]
    path = tmp_path / "bad.toml"
    path.write_text(mutate(default_text()))
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]


def test_missing_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "scenario: file" in err and "not found" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_bad_cli_argument_is_one_line_exit_2():
    proc = subprocess.run(
        [sys.executable, "-m", "recoursesim.cli", "run", "--seed", "-3"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--seed" in proc.stderr and "Traceback" not in proc.stderr


def test_failure_while_writing_leaves_no_output(tmp_path, monkeypatch, capsys):
    from recoursesim import simulate as simulate_module

    def broken(self, directory):
        (Path(directory) / "ledger.parquet").write_text("partial")
        raise ConfigError("output", "disk full", "free some space")

    monkeypatch.setattr(simulate_module.RunResult, "write", broken)
    out = tmp_path / "out"
    assert main(["run", "--out", str(out)]) == 2
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_with_overrides_validates_and_unknown_path_fails():
    scenario = load_scenario()
    assert scenario.with_overrides({"selection.k": 5}).spec["selection"]["k"] == 5
    with pytest.raises(ConfigError, match=r"selection\.k: must be >= 1"):
        scenario.with_overrides({"selection.k": 0})
    with pytest.raises(ConfigError, match=r"nosuch\.k: is not a scenario key"):
        scenario.with_overrides({"nosuch.k": 1})


def test_preset_overrides_and_section_replacement():
    s = Scenario.from_dict({"preset": "bell2024", "population": {"q": 2.0}, "recourse": {"name": "linear"}})
    assert s.spec["population"]["initial"] == 1000 and s.spec["population"]["q"] == 2.0
    assert s.spec["recourse"] == {"name": "linear"}  # another component: preset parameters dropped
    assert math.isclose(s.spec["population"].get("high_fraction", 0.05), 0.05)


def test_output_parents_created_only_on_success(tmp_path, monkeypatch):
    from recoursesim import simulate as simulate_module

    nested = tmp_path / "a" / "b" / "out"
    assert main(["run", "--steps", "1", "--out", str(nested)]) == 0
    assert (nested / "ledger.parquet").exists()

    def broken(self, directory):
        raise ConfigError("output", "disk full", "free some space")

    monkeypatch.setattr(simulate_module.RunResult, "write", broken)
    assert main(["run", "--steps", "1", "--out", str(tmp_path / "c" / "d")]) == 2
    assert not (tmp_path / "c").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]
