"""The wheel built from a clean checkout carries the bundled scenarios and runs ``recoursesim run default``.

The scenarios live in the top-level ``scenarios/`` folder and are mapped to the package
``recoursesim.scenarios`` at build time (``setup.py``). This test builds the wheel, unpacks it and runs
it with the site machinery switched off (``python -S``), so the editable install of the checkout cannot
stand in for the wheel: only the wheel's own files and the third-party dependencies are importable.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.subprocesses import run_python

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the wheel from a copy of the files git would commit (nothing ignored, no build leftovers)."""
    work = tmp_path_factory.mktemp("wheel")
    checkout = work / "checkout"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, checkout / name)
    dist = work / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check", "-w", str(dist), "."],
        cwd=checkout,
        check=True,
    )
    (built,) = dist.glob("recoursesim-*.whl")
    return built


def test_wheel_holds_every_bundled_scenario(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    bundled = sorted(p.name for p in (ROOT / "scenarios").glob("*.toml"))
    assert bundled, "the top-level scenarios/ folder holds the bundled scenarios"
    missing = [name for name in bundled if f"recoursesim/scenarios/{name}" not in names]
    assert not missing
    assert not any(name.startswith("scenarios/") for name in names), "no top-level 'scenarios' package"


def test_wheel_holds_the_bundled_data_sets(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "recoursesim" / "datasets" / "data").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert shipped
    assert [name for name in shipped if name not in names] == []


def test_wheel_declares_the_command(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    (entry_points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
    parser = configparser.ConfigParser()
    parser.read_string(archive.read(entry_points).decode())
    assert parser["console_scripts"]["recoursesim"] == "recoursesim.__main__:main"


def test_unpacked_wheel_runs_default(wheel: Path, tmp_path: Path) -> None:
    unpacked = tmp_path / "site"
    shutil.unpack_archive(wheel, unpacked, format="zip")
    deps = sysconfig.get_paths()["purelib"]
    env = {"PYTHONPATH": f"{unpacked}:{deps}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    code = "import sys; from recoursesim.__main__ import main; sys.argv[0] = 'recoursesim'; sys.exit(main())"
    run = run_python(["-S", "-c", code, "run", "default", "--no-write"], tmp_path, env)
    assert run.returncode == 0, run.stderr
    where = run_python(["-S", "-c", "import recoursesim.scenarios as s; print(s.__file__)"], tmp_path, env)
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip().startswith(str(unpacked))
    from_checkout = run_python(["-m", "recoursesim", "run", "default", "--no-write"], tmp_path, os.environ)
    assert from_checkout.returncode == 0, from_checkout.stderr
    assert "advantaged" in run.stdout
    assert run.stdout == from_checkout.stdout
