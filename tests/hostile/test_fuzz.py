"""Fuzzing the command line: whatever a user types or puts in a scenario, the outcome is success
(exit 0) or one line naming the problem (exit 2) with nothing written, never a traceback.

Bounded so that it stays fast: small scenarios, step counts that are either tiny or absurd (the
resource guard must refuse those before allocating), a fixed number of examples, derandomised.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recoursesim.cli import main
from tests.hostile.conftest import small_text

FUZZ = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None
)

#: Integers a careless user may give: tiny valid ones, boundaries, negatives and absurd sizes.
HOSTILE_INTS = st.one_of(st.integers(-3, 3), st.sampled_from([-(2**63), 2**31, 10**12, 2**63 - 1]))
HOSTILE_TEXT = st.one_of(
    st.sampled_from(["", " ", "../../x", "/tmp/x", "a\x00b", "n" * 300, "nan", "-1", "1.5", "top_k", "x:y"]),
    st.text(max_size=12),
)
HOSTILE_FLOATS = st.one_of(st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308]), st.floats(-2, 2))
SCALARS = st.one_of(HOSTILE_INTS, HOSTILE_TEXT, HOSTILE_FLOATS, st.booleans())
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.dictionaries(st.sampled_from(["a", "k"]), SCALARS))

#: Scenario fields to break, as dotted keys (a new key is an unknown field).
FIELDS = [
    "name",
    "run.steps",
    "run.seed",
    "population.initial",
    "population.entrants",
    "population.name",
    "scorer.weights",
    "scorer.name",
    "selection.k",
    "selection.name",
    "recourse.norm",
    "behaviour.name",
    "behaviour.budget",
    "metrics.reference_group",
    "model.patience",
    "run.bogus",
    "selection.bogus",
]


def toml_value(value: Any) -> str:
    """Render a value as TOML (JSON strings are TOML basic strings; floats may be nan or inf)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"


def with_field(text: str, dotted: str, value: Any) -> str:
    """Set ``dotted`` in the small scenario's TOML text (a key line appended under its table)."""
    if "." not in dotted:
        lines = [line for line in text.splitlines() if not line.startswith(f"{dotted} =")]
        return f"{dotted} = {toml_value(value)}\n" + "\n".join(lines)
    table, key = dotted.split(".", 1)
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith("["):
            inside = line.strip() == f"[{table}]"
        if inside and line.split("=")[0].strip() == key:
            continue
        out.append(line)
        if line.strip() == f"[{table}]":
            out.append(f"{key} = {toml_value(value)}")
    if f"[{table}]" not in text:
        out.append(f"[{table}]\n{key} = {toml_value(value)}")
    return "\n".join(out) + "\n"


def run_cli(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run the command line in ``cwd``; return (status, stderr)."""
    err = io.StringIO()
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numerical warnings are not errors; they are not what is judged
            try:
                status = main(argv)
            except SystemExit as exit_:
                status = int(exit_.code or 0)
    finally:
        os.chdir(previous)
    return status, err.getvalue()


def judge(status: int, err: str, before: set[Path], folder: Path) -> None:
    assert status in (0, 2), f"exit {status}: {err}"
    assert "Traceback" not in err, err
    if status == 2:
        assert len(err.strip().splitlines()) <= 1, err
        assert set(folder.rglob("*")) == before, "something was written on a refused command"


@FUZZ
@given(edits=st.lists(st.tuples(st.sampled_from(FIELDS), VALUES), min_size=1, max_size=3))
def test_fuzz_scenario_fields(edits):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        text = small_text(steps=1)
        for dotted, value in edits:
            text = with_field(text, dotted, value)
        (folder / "s.toml").write_text(text, encoding="utf-8")
        before = set(folder.rglob("*"))
        status, err = run_cli(["run", "s.toml", "--out", "r"], folder)
        judge(status, err, before, folder)


COMMAND_ARGS = st.sampled_from(
    [
        ["run", "s.toml"],
        ["run", "s.toml", "--no-write"],
        ["sweep", "s.toml", "--seeds", "1", "--quiet"],
        ["summarise", "s.toml"],
        ["report", "s.toml"],
        ["compare", "s.toml"],
        ["audit", "ccm", "--csv", "s.toml", "--target", "y"],
        ["audit", "facts", "--csv", "s.toml", "--target", "y"],
    ]
)
OPTIONS = st.sampled_from(["--seed", "--steps", "--out", "--workers", "--grid", "--seeds", "--overwrite", "--html"])
#: Option values; paths stay inside the example's temporary folder (or are unwritable), so that a
#: command that succeeds cannot write anywhere else on the machine.
OPTION_VALUES = st.one_of(
    HOSTILE_INTS.map(str),
    st.sampled_from(["", " ", "a\x00b", "n" * 300, "nan", "-1", "1.5", "top_k", "x:y", "sub/../r", "r"]),
    st.text(max_size=8).filter(lambda text: not text.startswith(("/", "~")) and ".." not in text),
    st.sampled_from(["run.steps=nan", "selection.k=0,1", "x=", "=1", "run.steps=1,1", "/proc/x", "/dev/full/x"]),
)


@FUZZ
@given(command=COMMAND_ARGS, options=st.lists(st.tuples(OPTIONS, OPTION_VALUES), max_size=3))
def test_fuzz_command_lines(command, options):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "s.toml").write_text(small_text(steps=1), encoding="utf-8")
        argv = list(command)
        for option, value in options:
            argv += [option] if option == "--overwrite" else [option, value]
        if "--workers" in argv and "sweep" not in argv and "compare" not in argv:
            return
        before = set(folder.rglob("*"))
        status, err = run_cli(argv, folder)
        judge(status, err, before, folder)


# Scenario dictionaries over a small user CSV: whatever the table and the fields, exit 0 or one
# line with exit 2; nothing appears outside --out, no input changes, nothing is left half-written.

CSV_COLUMNS = ["income", "savings", "sex", "approved"]
CSV_CELLS = st.one_of(
    st.integers(-5, 100).map(str),
    st.sampled_from(["", "nan", "inf", "-inf", "1e308", "f", "m", "yes", "no", '"a,b"', "0", "1"]),
    st.floats(-10, 10, allow_nan=False).map(repr),
)
CSV_TABLES = st.tuples(
    st.lists(st.sampled_from([*CSV_COLUMNS, "income", "other"]), min_size=0, max_size=5),
    st.lists(st.lists(CSV_CELLS, min_size=0, max_size=5), min_size=0, max_size=8),
)


def csv_text(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join([",".join(header), *(",".join(row) for row in rows)]) + "\n"


def dataset_scenario(population: dict[str, Any], steps: int) -> str:
    """The small scenario with a [population] table of the dataset kind, as TOML."""
    text = small_text(steps=1).replace("steps = 1", f"steps = {steps}", 1)
    start, end = text.index("[population]"), text.index("[scorer]")
    table = "[population]\n" + "".join(f"{key} = {toml_value(value)}\n" for key, value in population.items())
    text = text[:start] + table + "\n" + text[end:]
    start, end = text.index("[scorer]"), text.index("[selection]")
    text = text[:start] + '[scorer]\nname = "model"\n\n' + text[end:]
    start, end = text.index("[recourse]"), text.index("[behaviour]")
    text = text[:start] + '[recourse]\nname = "auto"\n\n' + text[end:]
    return text[: text.index("[metrics]")]


POPULATION_FIELDS = st.fixed_dictionaries(
    {"name": st.just("dataset"), "path": st.sampled_from(["people.csv", "out/people.csv", "missing.csv"])},
    optional={
        "group": st.sampled_from(["sex", "income", "nope", ""]),
        "target": st.sampled_from(["approved", "sex", "nope"]),
        "initial": HOSTILE_INTS,
        "entrants": HOSTILE_INTS,
        "favourable": SCALARS,
        "feature_types": st.dictionaries(
            st.sampled_from(["income", "savings", "sex", "zzz"]),
            st.sampled_from(["numeric", "integer", "categorical", "binary", "bogus"]),
            max_size=3,
        ),
        "train_fraction": HOSTILE_FLOATS,
    },
)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` outside ``out/``, with its content."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and p.relative_to(folder).parts[0] != "out"
    }


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(
    table=CSV_TABLES,
    population=POPULATION_FIELDS,
    steps=st.integers(0, 2),
    out_exists=st.booleans(),
    overwrite=st.booleans(),
)
def test_fuzz_scenarios_over_small_csv_files(table, population, steps, out_exists, overwrite):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = csv_text(*table)
        (folder / "people.csv").write_text(data, encoding="utf-8")
        if out_exists or population["path"] == "out/people.csv":
            (folder / "out").mkdir()
            (folder / "out" / "people.csv").write_text(data, encoding="utf-8")  # an input kept in --out
        (folder / "s.toml").write_text(dataset_scenario(population, steps), encoding="utf-8")
        inputs = snapshot(folder)
        inside_out = {p: p.read_bytes() for p in (folder / "out").rglob("*") if p.is_file()}
        status, err = run_cli(["run", "s.toml", "--out", "out", *(["--overwrite"] if overwrite else [])], folder)
        assert status in (0, 2), f"exit {status}: {err}"
        assert "Traceback" not in err, err
        if status == 2:
            assert len(err.strip().splitlines()) == 1, err
        assert snapshot(folder) == inputs, "a file outside --out appeared or an input changed"
        for path, content in inside_out.items():  # the user's files in --out are never removed
            assert path.read_bytes() == content
        assert not [p for p in folder.iterdir() if p.name.startswith(".")], "a temporary directory was left"


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(files_before_interrupt=st.integers(0, 6), command=st.sampled_from(["run", "sweep"]))
def test_fuzz_an_interrupted_command_leaves_no_partial_output(files_before_interrupt, command):
    """Ctrl-C after the n-th file written: exit 130, one line, and no output directory or temporary file."""
    from unittest import mock

    import recoursesim.simulate as simulate
    from recoursesim.sweep import store

    real_parquet, real_atomic = simulate.write_parquet, store.write_atomic
    count = [0]

    def counted(real):
        def write(*args, **kwargs):
            if count[0] >= files_before_interrupt:
                raise KeyboardInterrupt
            count[0] += 1
            return real(*args, **kwargs)

        return write

    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(simulate, "write_parquet", counted(real_parquet)):
        folder = Path(tmp)
        (folder / "s.toml").write_text(small_text(steps=1), encoding="utf-8")
        with mock.patch.object(store, "write_atomic", counted(real_atomic)):
            argv = ["run", "s.toml"] if command == "run" else ["sweep", "s.toml", "--seeds", "3", "--quiet"]
            status, err = run_cli([*argv, "--out", "out"], folder)
        if status == 0:  # fewer files than the interruption point: the command simply finished
            return
        assert status == 130 and len(err.strip().splitlines()) == 1, err
        assert not [p for p in folder.rglob(".*tmp*")], "a temporary file or directory was left"
        if command == "run":
            assert not (folder / "out").exists()
        else:  # a sweep keeps its finished runs, each complete: resuming finishes it
            status, err = run_cli(["sweep", "s.toml", "--seeds", "3", "--out", "out", "--resume", "--quiet"], folder)
            assert status == 0, err
            assert len(list((folder / "out" / "runs").glob("*.parquet"))) == 3


# Generated markets over the small scenario: random lender counts, names, choice policies, k values,
# copies and cultures either run or are refused with one line (exit 2), never a traceback.


def mostly(draw: st.DrawFn, valid: st.SearchStrategy[Any], hostile: st.SearchStrategy[Any]) -> Any:
    """A value from ``valid`` seven times in eight, else from ``hostile`` (so that some markets run)."""
    return draw(hostile) if draw(st.integers(0, 7)) == 0 else draw(valid)


HOSTILE_NAMES = st.one_of(
    st.sampled_from(["", " ", "a ", "0", "7", "a.b", "../x", "a\x00b", "a\nb", "n" * 65]),
    st.text(max_size=6),
    HOSTILE_INTS,
)
HOSTILE_K = st.one_of(HOSTILE_INTS, HOSTILE_FLOATS, st.sampled_from([0, 41, 10**12]))


@st.composite
def lender_table(draw: st.DrawFn, i: int = 0) -> dict[str, Any]:
    """A ``[[lenders]]`` table: a name, maybe its own k, scorer and trainer, rarely an unknown key."""
    table: dict[str, Any] = {
        "name": mostly(
            draw, st.sampled_from(["a", "bank-", "market", "default"]).map(lambda name: f"{name}{i}"), HOSTILE_NAMES
        )
    }
    if draw(st.booleans()):
        table["selection"] = {"name": "top_k", "k": mostly(draw, st.integers(1, 8), HOSTILE_K)}
    if draw(st.integers(0, 3)) == 0:
        weights = mostly(draw, st.lists(st.floats(-1, 1), min_size=2, max_size=2), st.lists(HOSTILE_FLOATS, max_size=3))
        table["scorer"] = {"name": "linear", "weights": weights}
    if draw(st.integers(0, 3)) == 0:
        table["training"] = {"name": draw(st.sampled_from(["refit", "cda", "nope"]))}
    if draw(st.integers(0, 31)) == 0:
        table["bogus"] = draw(SCALARS)
    return table


@st.composite
def market_table(draw: st.DrawFn, names: list[Any]) -> Any:
    """A ``[market]`` table: a choice policy (maybe sequential with a cost and order), culture, copies."""
    policy = mostly(
        draw,
        st.sampled_from(["all", "best-odds", "cheapest", "random", "sequential"]),
        st.sampled_from(["nope", "", "ALL"]),
    )
    choice: Any = {"name": policy}
    if policy == "sequential" and draw(st.booleans()):
        choice["cost"] = mostly(draw, st.floats(0, 2), st.one_of(HOSTILE_FLOATS, HOSTILE_INTS, st.just("1")))
    if policy == "sequential" and draw(st.booleans()):
        known = [name for name in names if isinstance(name, str)] + ["a0-1", "a0-2"]
        choice["order"] = mostly(
            draw, st.permutations(known).map(lambda p: p[:2]), st.lists(st.sampled_from([*known, "zz", 3]), max_size=3)
        )
    if draw(st.integers(0, 15)) == 0:
        choice = draw(st.one_of(SCALARS, st.just({"name": "all", "price": 1})))
    market: dict[str, Any] = {"choice": choice}
    if draw(st.booleans()):
        market["culture"] = mostly(draw, st.sampled_from(["polyculture", "monoculture"]), SCALARS)
    if (len(names) == 1 and draw(st.booleans())) or draw(st.integers(0, 7)) == 0:
        market["copies"] = mostly(
            draw, st.integers(1, 3), st.one_of(HOSTILE_INTS, st.sampled_from([10**9, 2.5, True, "2"]))
        )
    return market if draw(st.integers(0, 15)) else draw(SCALARS)


@st.composite
def markets(draw: st.DrawFn) -> tuple[Any, Any]:
    """``([market], [[lenders]])``: one to four lenders, rarely none, a bare table or a scalar."""
    tables: Any = [draw(lender_table(i)) for i in range(draw(st.integers(1, 4)))]
    if draw(st.integers(0, 15)) == 0:
        tables = draw(st.one_of(st.just([]), lender_table(), SCALARS))
    names = [table.get("name") for table in tables] if isinstance(tables, list) else []
    return draw(market_table(names)), tables


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(generated=markets())
def test_fuzz_markets(generated):
    market, tables = generated
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # top-level keys (inline tables) precede the scenario's first table
        text = f"market = {toml_value(market)}\nlenders = {toml_value(tables)}\n" + small_text(steps=1)
        (folder / "s.toml").write_text(text, encoding="utf-8")
        before = set(folder.rglob("*"))
        status, err = run_cli(["run", "s.toml", "--out", "r"], folder)
        judge(status, err, before, folder)
