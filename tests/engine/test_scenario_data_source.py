"""A user's CSV on a bundled data-set scenario: the child's data source replaces the base's; ``unset``."""

from __future__ import annotations

import pytest

from recoursesim.cli import main
from recoursesim.datasets import load_german
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario, load_table, resolve_table


@pytest.fixture(scope="module")
def german_csv(tmp_path_factory):
    """300 rows of the German credit data as a user's own CSV (target ``credit``, 1 = good)."""
    path = tmp_path_factory.mktemp("csv") / "mine.csv"
    load_german().frame.head(300).to_csv(path, index=False)
    return path


def _child(folder, text):
    path = folder / "mine.toml"
    path.write_text('name = "mine"\nbase = "german-credit-lending"\n' + text, encoding="utf-8")
    return path


def test_a_path_in_the_child_replaces_the_bases_dataset(german_csv, tmp_path):
    path = _child(tmp_path, f'[population]\npath = "{german_csv}"\ntarget = "credit"\nfavourable = 1\n')
    resolved = resolve_table(*load_table(path))
    assert "dataset" not in resolved["population"]
    assert resolved["population"]["path"] == str(german_csv)
    german = Scenario.bundled("german-credit-lending").spec["population"]
    assert resolved["population"]["initial"] == german["initial"]  # every other key is still inherited
    assert resolved["population"]["group"] == german["group"]


def test_a_dataset_in_the_child_replaces_the_bases_path(german_csv, tmp_path):
    (tmp_path / "parent.toml").write_text(
        f'base = "german-credit-lending"\n[population]\npath = "{german_csv}"\ntarget = "credit"\n', encoding="utf-8"
    )
    (tmp_path / "child.toml").write_text('base = "parent.toml"\n[population]\ndataset = "german"\n', encoding="utf-8")
    resolved = resolve_table(*load_table(tmp_path / "child.toml"))
    assert resolved["population"]["dataset"] == "german" and "path" not in resolved["population"]


def test_the_readme_case_runs_from_the_command_line(german_csv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    german_csv_here = tmp_path / "mine.csv"
    german_csv_here.write_bytes(german_csv.read_bytes())
    _child(tmp_path, '[run]\nsteps = 1\n[population]\npath = "mine.csv"\ntarget = "credit"\nfavourable = 1\n')
    assert main(["run", "mine.toml", "--no-write"]) == 0
    out = capsys.readouterr().out
    assert "scenario mine" in out and "female" in out


def test_unset_removes_an_inherited_key(german_csv, tmp_path):
    path = _child(tmp_path, 'unset = ["population.stratify", "scorer.params"]\n')
    resolved = resolve_table(*load_table(path))
    assert "stratify" not in resolved["population"] and "params" not in resolved["scorer"]
    assert "unset" not in resolved
    assert resolved["scorer"]["model"] == "gradient_boosting"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('unset = ["population.nope"]', r"unset: 'population.nope' is not a key of the base german-credit-lending"),
        ('unset = "population.stratify"', r"unset: must be a list of dotted keys"),
        ('unset = ["stratify"]', r"unset: must be a list of dotted keys"),
        ('unset = ["population.name"]', r"unset: 'population.name' is the component's name"),
    ],
)
def test_bad_unset_names_the_field_and_the_keys_it_can_take(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message) as caught:
        resolve_table(*load_table(_child(tmp_path, text + "\n")))
    if "nope" in text:
        assert "population.stratify" in caught.value.fix  # lists what the base has


def test_unset_without_a_base_is_refused():
    with pytest.raises(ConfigError, match="unset: removes keys inherited from a base, but there is no base"):
        resolve_table({"unset": ["population.initial"], "run": {"steps": 1}})


def test_a_missing_section_suggests_a_base_that_fits_the_scenario():
    with pytest.raises(ConfigError) as data_based:
        Scenario.from_dict({"run": {"steps": 1}, "population": {"name": "dataset", "path": "x.csv"}})
    assert 'base = "german-credit-lending"' in data_based.value.fix and "bell2024" not in data_based.value.fix
    with pytest.raises(ConfigError) as synthetic:
        Scenario.from_dict({"run": {"steps": 1}, "population": {"name": "mixture"}})
    assert 'base = "bell2024"' in synthetic.value.fix
