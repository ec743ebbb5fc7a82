"""Start-up cost: what importing the package and asking for ``--help`` pulls in."""

import argparse
import json
import subprocess
import sys

import pytest

from recoursesim import cli


def _modules_after(code: str) -> set[str]:
    """Top-level module names imported by a fresh interpreter running ``code``."""
    script = f"import sys\n{code}\nimport json\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_import_recoursesim_leaves_heavy_libraries_alone():
    loaded = _modules_after("import recoursesim")
    assert not loaded & {"matplotlib", "dask", "distributed", "solara"}
    assert not loaded & {"numpy", "pandas", "sklearn", "mesa"}  # the package root is lazy too


def test_help_parser_needs_no_numerical_stack():
    loaded = _modules_after("from recoursesim.cli import build_parser\nbuild_parser('')")
    assert not loaded & {"numpy", "pandas", "sklearn", "scipy", "mesa", "matplotlib", "dask", "solara"}


def test_help_runs_and_lists_every_command():
    result = subprocess.run([sys.executable, "-m", "recoursesim", "--help"], capture_output=True, text=True)
    assert result.returncode == 0
    for name in cli.COMMANDS:
        assert f"    {name} " in result.stdout


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_listed_help_matches_the_command_module(name):
    """The one-line help shown by ``recoursesim --help`` is the command's own."""
    full = cli.build_parser(name)
    commands = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    own = next(choice.help for choice in commands._choices_actions if choice.dest == name)
    assert own == cli.COMMANDS[name]


def test_command_of_skips_options():
    assert cli.command_of(["--debug", "run", "x"]) == "run"
    assert cli.command_of(["--version"]) == ""
