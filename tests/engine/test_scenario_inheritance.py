"""Scenario inheritance: ``base = NAME or PATH`` (alias ``preset``), deep merge, chains and cycles."""

import tomllib

import pytest

from recoursesim.cli import main
from recoursesim.errors import ConfigError
from recoursesim.scenario import Scenario, ScenarioError, load_scenario, load_table, resolve_table
from recoursesim.scenario.tables import merge_scenarios


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_base_bundled_real_data_scenario_is_extendable():
    scenario = Scenario.from_dict({"base": "german-credit-lending", "selection": {"k": 10}, "run": {"steps": 2}})
    german = Scenario.bundled("german-credit-lending").spec
    assert scenario.spec["selection"] == {"name": "top_k", "k": 10}
    assert scenario.spec["run"] == {"steps": 2, "seed": 0}  # merged key by key: seed kept
    for section in ("population", "scorer", "recourse", "behaviour", "metrics"):
        assert scenario.spec[section] == german[section], section
    # name and description describe the base file, not this one
    assert "name" not in scenario.spec and "description" not in scenario.spec
    assert "base" not in scenario.spec


def test_deep_merge_and_component_replacement():
    base = {
        "scorer": {"name": "model", "model": "gradient_boosting", "params": {"max_iter": 50, "max_depth": 3}},
        "recourse": {"name": "search", "rounds": 2, "action_set": {"fixed": ["age"]}},
        "observers": [{"name": "ccm"}, {"name": "facts"}],
    }
    own = {
        "scorer": {"params": {"max_iter": 10}},  # same component: nested tables merge too
        "recourse": {"name": "exact_linear", "tolerance": 0.1},  # another component: replaced whole
        "observers": [{"name": "model_shift"}],  # a list replaces the base's list
    }
    merged = merge_scenarios(base, own)
    assert merged["scorer"]["params"] == {"max_iter": 10, "max_depth": 3}
    assert merged["scorer"]["model"] == "gradient_boosting"
    assert merged["recourse"] == {"name": "exact_linear", "tolerance": 0.1}
    assert merged["observers"] == [{"name": "model_shift"}]
    assert base["scorer"]["params"] == {"max_iter": 50, "max_depth": 3}  # inputs untouched
    # the same name written out merges like no name
    same = merge_scenarios(base, {"recourse": {"name": "search", "samples": 4}})["recourse"]
    assert same == {"name": "search", "rounds": 2, "action_set": {"fixed": ["age"]}, "samples": 4}


def test_chain_of_files_with_paths_relative_to_each_file(tmp_path):
    _write(tmp_path / "bases" / "lending.toml", 'base = "german-credit-lending"\n[selection]\nk = 30\n')
    _write(tmp_path / "bases" / "short.toml", 'base = "lending.toml"\n[run]\nsteps = 3\n')
    child = _write(tmp_path / "studies" / "mine.toml", 'base = "../bases/short.toml"\nname = "mine"\n')
    scenario = load_scenario(child)
    assert scenario.name == "mine"
    assert scenario.steps == 3 and scenario.spec["selection"]["k"] == 30
    assert scenario.spec["population"]["dataset"] == "german"


def test_preset_is_an_alias_of_base_for_any_scenario(tmp_path):
    by_base = Scenario.from_dict({"base": "german-credit-lending", "selection": {"k": 7}}).spec
    by_preset = Scenario.from_dict({"preset": "german-credit-lending", "selection": {"k": 7}}).spec
    assert by_base == by_preset
    # and base reaches the Python presets the bundled bell2024 files use
    assert Scenario.from_dict({"base": "bell2024"}).spec["population"]["name"] == "bell2024"


@pytest.mark.parametrize(
    ("files", "start", "message"),
    [
        ({"a.toml": 'base = "a.toml"\n'}, "a.toml", r"base: inheritance cycle .*a\.toml -> a\.toml"),
        (
            {"a.toml": 'base = "b.toml"\n', "b.toml": 'base = "sub/c.toml"\n', "sub/c.toml": 'base = "../a.toml"\n'},
            "a.toml",
            r"base: inheritance cycle .*a\.toml -> b\.toml -> sub/c\.toml -> \.\./a\.toml",
        ),
    ],
)
def test_cycles_are_refused_in_one_line(tmp_path, capsys, files, start, message):
    for name, text in files.items():
        _write(tmp_path / name, text)
    with pytest.raises(ScenarioError, match=message):
        load_scenario(tmp_path / start)
    assert main(["run", str(tmp_path / start), "--no-write"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "inheritance cycle" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"base": "german-credit"}, r"base: no preset or bundled scenario 'german-credit'"),
        ({"base": "missing/file.toml"}, r"base: base file .*missing/file\.toml not found"),
        ({"base": 3}, r"base: must name a scenario"),
        ({"base": "default", "preset": "bell2024"}, r"preset: is another spelling of base"),
        ({"bse": "default"}, r"bse: unknown top-level key; fix: did you mean 'base'"),
    ],
)
def test_bad_bases_name_the_field(data, message):
    with pytest.raises(ConfigError, match=message):
        Scenario.from_dict(data)


def test_base_file_with_bad_toml_is_named(tmp_path):
    _write(tmp_path / "broken.toml", "[run\n")
    child = _write(tmp_path / "child.toml", 'base = "broken.toml"\n')
    with pytest.raises(ScenarioError, match=r"child\.toml: base: .*broken\.toml is not valid TOML"):
        load_scenario(child)


def test_errors_from_inherited_values_are_checked_after_merging():
    with pytest.raises(ConfigError, match=r"selection\.k"):
        Scenario.from_dict({"base": "german-credit-lending", "selection": {"k": 0}})


def test_resolve_table_needs_no_component(tmp_path):
    _write(tmp_path / "b.toml", 'base = "default"\n[selection]\nk = 3\n')
    data, source, origin = load_table(tmp_path / "b.toml")
    resolved = resolve_table(data, source, origin)
    assert resolved["selection"] == {"name": "top_k", "k": 3}
    assert resolved["population"]["name"] == "mixture"
    # what show prints loads back to the same table
    assert tomllib.loads(Scenario.from_dict(resolved).to_toml()) == Scenario.from_dict(resolved).spec
