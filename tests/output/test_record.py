"""``--overwrite`` deletes only files recoursesim recorded writing; a run's own inputs are never deleted."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from recoursesim.errors import ConfigError
from recoursesim.output import record as ownership
from tests.hostile.conftest import one_line_error, small_text


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_run_refuses_to_delete_its_own_scenario(cli, tmp_path):
    out = tmp_path / "work" / "out"
    out.mkdir()
    (out / "my.toml").write_text(small_text())
    before = digest(out / "my.toml")
    line = one_line_error(*cli("run", "out/my.toml", "--out", "out", "--overwrite")[::2])
    assert "my.toml" in line and "input of this run" in line
    assert digest(out / "my.toml") == before and sorted(p.name for p in out.iterdir()) == ["my.toml"]


def test_sweep_refuses_to_delete_its_own_scenario(cli, tmp_path):
    out = tmp_path / "work" / "out"
    out.mkdir()
    (out / "my.toml").write_text(small_text())
    before = digest(out / "my.toml")
    line = one_line_error(*cli("sweep", "out/my.toml", "--seeds", "1", "--out", "out", "--overwrite")[::2])
    assert "my.toml" in line and "input of this run" in line
    assert digest(out / "my.toml") == before and sorted(p.name for p in out.iterdir()) == ["my.toml"]


def test_a_data_file_the_scenario_names_is_protected_even_in_a_recorded_directory(cli, tmp_path, scenario_file):
    work = tmp_path / "work"
    assert cli("run", str(scenario_file()), "--out", "out")[0] == 0
    # The data file sits in a directory recoursesim owns, and is even recorded as written there.
    table = "income,savings,sex,approved\n" + "".join(
        f"{i % 90 + 10},{i % 40},{'fm'[i % 2]},{i % 2}\n" for i in range(80)
    )
    (work / "out" / "people.csv").write_text(table)
    ownership.record_file(work / "out", work / "out" / "people.csv")
    spec = small_text()
    start, end = spec.index("[population]"), spec.index("[scorer]")
    population = (
        '[population]\nname = "dataset"\npath = "out/people.csv"\ngroup = "sex"\ntarget = "approved"\n'
        'initial = 40\nentrants = 4\n[population.feature_types]\nincome = "numeric"\nsavings = "numeric"\n\n'
    )
    spec = spec[:start] + population + spec[end:]
    start, end = spec.index("[scorer]"), spec.index("[selection]")
    spec = spec[:start] + '[scorer]\nname = "model"\n\n' + spec[end:]
    start, end = spec.index("[recourse]"), spec.index("[behaviour]")
    spec = spec[:start] + '[recourse]\nname = "auto"\n\n' + spec[end:]
    (work / "csv.toml").write_text(spec[: spec.index("[metrics]")])
    before = digest(work / "out" / "people.csv")
    line = one_line_error(*cli("run", "csv.toml", "--out", "out", "--overwrite")[::2])
    assert "people.csv" in line and "input of this run" in line
    assert digest(work / "out" / "people.csv") == before


def test_overwrite_replaces_recorded_files_and_refuses_anything_else(cli, tmp_path, scenario_file):
    out = tmp_path / "work" / "out"
    path = str(scenario_file())
    assert cli("run", path, "--out", "out")[0] == 0
    recorded = ownership.read(out)
    assert {"ledger.parquet", "scenario.json", "summary.parquet"} <= set(recorded)
    assert all(ownership.verify(out, out / name, entry) for name, entry in recorded.items())
    assert cli("run", path, "--seed", "4", "--out", "out", "--overwrite")[0] == 0  # all recorded: replaced
    assert '"seed": 4' in (out / "scenario.json").read_text()
    (out / "notes.txt").write_text("mine")
    line = one_line_error(*cli("run", path, "--out", "out", "--overwrite")[::2])
    assert "notes.txt" in line and "did not write" in line
    (out / "notes.txt").unlink()
    (out / "scenario.json").write_text("edited by hand")  # a recorded file the user changed
    line = one_line_error(*cli("run", path, "--out", "out", "--overwrite")[::2])
    assert "scenario.json" in line and "changed after recoursesim wrote it" in line
    assert (out / "scenario.json").read_text() == "edited by hand"
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_a_directory_without_a_record_is_refused_with_how_to_remove_it(cli, tmp_path, scenario_file):
    out = tmp_path / "work" / "old"
    out.mkdir()
    for name in ("ledger.parquet", "metrics.parquet", "scenario.json"):  # as an older version wrote them
        (out / name).write_text("older results")
    line = one_line_error(*cli("run", str(scenario_file()), "--out", "old", "--overwrite")[::2])
    assert f"without a {ownership.RECORD}" in line and "remove" in line
    assert sorted(p.read_text() for p in out.iterdir()) == ["older results"] * 3


def test_sweep_overwrite_removes_only_the_earlier_sweep(cli, tmp_path, scenario_file):
    path = str(scenario_file())
    folder = tmp_path / "work" / "sw"
    assert cli("sweep", path, "--seeds", "1", "--out", "sw", "--quiet")[0] == 0
    assert {"manifest.json", "summary.parquet", ownership.RECORD} <= {p.name for p in folder.iterdir()}
    (folder / "mine.txt").write_text("mine")
    line = one_line_error(*cli("sweep", path, "--seeds", "2", "--out", "sw", "--overwrite", "--quiet")[::2])
    assert "mine.txt" in line
    (folder / "mine.txt").unlink()
    status, _, err = cli("sweep", path, "--seeds", "2", "--out", "sw", "--overwrite", "--quiet")
    assert status == 0, err
    assert len(list((folder / "runs").glob("*.parquet"))) == 2


def test_audit_overwrite_keeps_a_users_file(cli, tmp_path):
    out = tmp_path / "work" / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    argv = ("audit", "facts", "--dataset", "german", "--protected", "sex", "--support", "0.5", "--out", "out")
    line = one_line_error(*cli(*argv, "--overwrite")[::2])
    assert "keep.txt" in line and (out / "keep.txt").read_text() == "mine"


def test_remove_recorded_leaves_what_it_did_not_write(tmp_path):
    root = tmp_path / "d"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.bin").write_bytes(b"abc")
    ownership.record_tree(root)
    (root / "sub" / "b.txt").write_text("not recorded")
    assert ownership.foreign_file(root) == (
        root / "sub" / "b.txt",
        f"recoursesim did not write (is not listed in its {ownership.RECORD})",
    )
    assert ownership.remove_recorded(root) == [root / "sub", root / "sub" / "b.txt"]
    (root / "sub" / "b.txt").unlink()
    assert ownership.remove_recorded(root) == [] and not root.exists()


def test_a_nested_directory_the_outer_record_vouches_for_is_owned_through_its_own_record(tmp_path):
    root = tmp_path / "study"
    (root / "sweep" / "runs").mkdir(parents=True)
    (root / "notes.json").write_text("{}")
    ownership.record_file(root, root / "notes.json")
    (root / "sweep" / "runs" / "r1.parquet").write_bytes(b"shard")
    ownership.record_file(root / "sweep", root / "sweep" / "runs" / "r1.parquet")
    assert set(ownership.read_tree(root)) == {"notes.json"}  # not vouched for yet
    assert ownership.foreign_file(root)[0] == root / "sweep" / ownership.RECORD
    ownership.record_nested(root, root / "sweep")
    assert set(ownership.read_tree(root)) == {"notes.json", "sweep/", "sweep/runs/r1.parquet"}
    assert ownership.foreign_file(root) is None
    shard = root / "sweep" / "runs" / "r1.parquet"
    shard.write_bytes(b"edited")  # the nested record still judges it
    assert ownership.foreign_file(root) == (shard, "was changed after recoursesim wrote it")
    (root / "sweep" / "runs" / "r1.parquet").write_bytes(b"shard")
    (root / "sweep" / "mine.txt").write_text("mine")
    assert ownership.foreign_file(root)[0] == root / "sweep" / "mine.txt"
    assert ownership.remove_recorded(root) == [root / "sweep", root / "sweep" / "mine.txt"]
    (root / "sweep" / "mine.txt").unlink()
    assert ownership.remove_recorded(root) == [] and not root.exists()


def test_a_folder_of_earlier_results_is_not_replaced_as_one(cli, tmp_path, scenario_file):
    path = str(scenario_file())
    for name in ("a", "b"):
        assert cli("run", path, "--out", f"results/{name}")[0] == 0
    before = {p: p.read_bytes() for p in (tmp_path / "work" / "results").rglob("*") if p.is_file()}
    line = one_line_error(*cli("run", path, "--out", "results", "--overwrite")[::2])
    assert "did not write" in line and f"without a {ownership.RECORD}" in line
    assert {p: p.read_bytes() for p in (tmp_path / "work" / "results").rglob("*") if p.is_file()} == before


def test_a_record_cannot_name_a_file_outside_its_directory(tmp_path):
    root, outside = tmp_path / "out", tmp_path / "precious.txt"
    root.mkdir()
    outside.write_text("keep")
    entry = ownership.entry_for(tmp_path, outside)
    for path in ("../precious.txt", str(outside)):
        (root / ownership.RECORD).write_text(json.dumps({**entry, "path": path}) + "\n")
        assert ownership.read(root) == {} and ownership.remove_recorded(root) == []
        root.mkdir()
    assert outside.read_text() == "keep"


def test_a_record_that_is_a_symbolic_link_is_neither_read_nor_written_through(tmp_path):
    root, target = tmp_path / "out", tmp_path / "bashrc"
    root.mkdir()
    target.write_text('{"path": "a.txt", "bytes": 1, "sha256": "x"}\n')
    (root / ownership.RECORD).symlink_to(target)
    (root / "a.txt").write_text("a")
    assert ownership.read(root) == {}
    with pytest.raises(OSError):
        ownership.record_file(root, root / "a.txt")
    assert target.read_text() == '{"path": "a.txt", "bytes": 1, "sha256": "x"}\n'
    assert ownership.foreign_file(root)[0] == root / "a.txt"


def test_a_record_behind_a_symbolic_link_is_not_trusted(tmp_path):
    root, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    (root / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (root / "sub" / "a.txt").write_text("a")
    entry = ownership.entry_for(root / "sub", root / "sub" / "a.txt")  # a true entry, kept outside
    (elsewhere / ownership.RECORD).write_text(json.dumps(entry) + "\n")
    (root / "sub" / ownership.RECORD).symlink_to(elsewhere / ownership.RECORD)
    assert ownership.read_tree(root) == {}
    assert ownership.foreign_file(root)[0] == root / "sub" / "a.txt"
    assert ownership.remove_recorded(root) == [root / "sub", root / "sub" / "a.txt", root / "sub" / ownership.RECORD]


def test_nothing_is_vouched_for_or_written_through_a_linked_folder(tmp_path):
    root, elsewhere = tmp_path / "study", tmp_path / "elsewhere"
    (elsewhere / "inner").mkdir(parents=True)
    (elsewhere / "inner" / "precious.txt").write_text("keep")
    ownership.record_file(elsewhere / "inner", elsewhere / "inner" / "precious.txt")
    root.mkdir()
    (root / "link").symlink_to(elsewhere)
    ownership.record_nested(root, root / "link" / "inner")  # a forged vouch through the link
    assert list(ownership.vouched_records(root)) == [root]
    assert ownership.remove_recorded(root) == [root / "link"]
    assert (elsewhere / "inner" / "precious.txt").read_text() == "keep"
    (root / "front").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ConfigError, match="front is a symbolic link"):
        ownership.check_own_files(root, ["front/trial-*.toml"])


def test_a_forged_chain_of_vouches_is_read_once_per_directory(tmp_path):
    root, depth = tmp_path / "deep", 25
    levels = [root.joinpath(*["d"] * level) for level in range(depth + 1)]
    levels[-1].mkdir(parents=True)
    for level, here in enumerate(levels):  # every directory vouches for every one below it: 2**25 paths
        for inner in levels[level + 1 :]:
            ownership.record_nested(here, inner)
    assert list(ownership.vouched_records(root)) == levels


def test_hidden_folders_of_the_users_beside_out_are_not_taken_for_stale_working_directories(cli, tmp_path):
    work = tmp_path / "work"
    mine = [work / "par" / ".thesis.tmp-2024-final", work / "par" / ".photos.old-31337-backup"]
    for folder in mine:
        folder.mkdir(parents=True)
        (folder / "kept.txt").write_text("mine")
    mine.append(work / "par" / ".photos.old-2019-holidays")  # even the shape of mkdtemp's name: no mark
    mine[-1].mkdir()
    (mine[-1] / "kept.txt").write_text("mine")
    stale = work / "par" / ".y.tmp-999999999-abcd_123"  # what a killed run leaves (pid not running)
    stale.mkdir()
    (stale / ownership.WORKING_MARK).touch()
    assert cli("run", "default", "--steps", "2", "--out", "par/Y")[0] == 0
    assert all((folder / "kept.txt").read_text() == "mine" for folder in mine)
    assert not stale.exists()


def test_an_out_that_is_a_symbolic_link_is_refused_before_any_run(cli, tmp_path):
    work = tmp_path / "work"
    assert cli("run", "default", "--steps", "2", "--out", "real")[0] == 0
    (work / "link").symlink_to(work / "real")
    before = sorted(p.name for p in work.iterdir())
    line = one_line_error(*cli("run", "default", "--steps", "2", "--out", "link", "--overwrite")[::2])
    assert "link is a symbolic link" in line
    assert sorted(p.name for p in work.iterdir()) == before


def test_a_record_with_bytes_that_are_not_utf8_is_read_without_its_mangled_line(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    (root / "a.txt").write_text("a")
    ownership.record_file(root, root / "a.txt")
    with open(root / ownership.RECORD, "ab") as handle:
        handle.write(b'{"path": "\xff.txt"}\n\xff\xfe\n')
    assert list(ownership.read(root)) == ["a.txt", "\ufffd.txt"]
    assert ownership.foreign_file(root) is None


def test_a_mutable_entry_owns_its_file_while_it_carries_its_formats_signature(tmp_path):
    root, magic, journal = tmp_path / "study", b"SQLite format 3\x00", bytes.fromhex("d9d505f920a163d7")
    root.mkdir()
    (root / "study.db").write_bytes(magic + b"v1")
    ownership.record_mutable(root, root / "study.db", "sqlite")
    (root / "study.db").write_bytes(magic + b"v2, after more trials")
    (root / "study.db-journal").write_bytes(journal + b"a hot journal left by a kill")
    assert ownership.foreign_file(root) is None  # content changed, still the study's; so is its journal
    (root / "study.db-journal").write_text("my notes, named like a journal")
    assert ownership.foreign_file(root)[0] == root / "study.db-journal"
    (root / "study.db-journal").write_bytes(journal)
    (root / "study.db").write_bytes(b"my thesis notes")  # the user's file at that name
    assert ownership.foreign_file(root)[0] == root / "study.db"
    (root / "study.db").write_bytes(magic)
    assert ownership.remove_recorded(root) == [] and not root.exists()  # the journal went first
    with pytest.raises(ValueError):
        ownership.record_mutable(tmp_path, tmp_path / "notes.txt", "text")  # only known formats


def test_forged_mutable_or_companion_lines_claim_nothing(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    (root / "a.txt").write_text("a")
    ownership.record_file(root, root / "a.txt")
    (root / "notes.txt").write_text("my precious notes")
    magic = (root / ownership.RECORD).read_bytes()[:16].hex()
    forged = [
        {"path": "notes.txt", "mutable": True, "magic": magic, "of": ownership.RECORD},
        {"path": "notes.txt", "companion": "-journal", "of": "sqlite"},
        {"path": "notes.txt", "mutable": True, "magic": magic, "of": "../x"},
    ]
    with open(root / ownership.RECORD, "a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in forged)
    assert ownership.foreign_file(root)[0] == root / "notes.txt"
    assert ownership.remove_recorded(root) == [root / "notes.txt"]
    assert (root / "notes.txt").read_text() == "my precious notes"


def test_a_temporary_name_with_an_impossible_pid_is_no_traceback(tmp_path):
    from recoursesim.output.atomic import left_by_a_dead_write

    path = tmp_path / ".notes.recoursesim-99999999999999999999-deadbeef.tmp"
    path.write_text("x")
    assert left_by_a_dead_write(path)  # no such process can exist


def test_atomic_writes_replace_a_hard_link_instead_of_writing_through_it(tmp_path):
    from recoursesim.output.atomic import TEMPORARY, write_atomic

    (tmp_path / "notes.json").write_text("mine")
    os.link(tmp_path / "notes.json", tmp_path / "elsewhere.json")
    write_atomic(tmp_path / "notes.json", b"new")
    assert (tmp_path / "elsewhere.json").read_text() == "mine" and (tmp_path / "notes.json").read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.json", "notes.json"]
    assert TEMPORARY.match(".notes.json.recoursesim-4242-0123abcd.tmp") and not TEMPORARY.match(".notes.json.tmp")
    assert not TEMPORARY.match(".summary.20241126-14053012.tmp")  # a user's backup named like a pid and hex


def test_a_temporary_file_of_a_killed_write_is_recoursesims_and_a_live_ones_is_not(tmp_path):
    root = tmp_path / "study"
    root.mkdir()
    (root / "a.txt").write_text("a")
    ownership.record_file(root, root / "a.txt")
    (root / ".trials.parquet.recoursesim-999999999-0123abcd.tmp").write_bytes(b"half")  # the writer was killed
    assert ownership.foreign_file(root) is None
    live = root / f".pareto.png.recoursesim-{os.getpid()}-0123abcd.tmp"  # being written now
    live.write_bytes(b"half")
    assert ownership.foreign_file(root)[0] == live
    live.unlink()
    assert ownership.remove_recorded(root) == [] and not root.exists()


def test_nothing_is_written_through_a_linked_out_or_runs_folder(cli, tmp_path):
    work = tmp_path / "work"
    assert cli("sweep", "default", "--seeds", "1", "--out", "real", "--quiet")[0] == 0
    (work / "link").symlink_to(work / "real")
    status, _, err = cli("sweep", "default", "--seeds", "1", "--out", "link", "--quiet", "--resume")
    assert status == 2 and "link is a symbolic link" in err and "Traceback" not in err
    (work / "real" / "runs").rename(work / "elsewhere")
    (work / "real" / "runs").symlink_to(work / "elsewhere")
    before = sorted(p.name for p in (work / "elsewhere").iterdir())
    line = one_line_error(*cli("sweep", "default", "--seeds", "1", "--out", "real", "--quiet", "--resume")[::2])
    assert "runs is a symbolic link" in line
    assert sorted(p.name for p in (work / "elsewhere").iterdir()) == before


def test_an_output_directory_gets_the_mode_mkdir_gives_not_mkdtemps_private_one(cli, tmp_path):
    from recoursesim.output.folder import directory_mode

    umask = os.umask(0o027)
    try:
        assert directory_mode() == 0o750
        for extra in ((), ("--overwrite",)):
            assert cli("run", "default", "--steps", "2", "--out", "out", *extra)[0] == 0
            assert (tmp_path / "work" / "out").stat().st_mode & 0o777 == 0o750
    finally:
        os.umask(umask)
