"""A sweep's shards are verified on resume, and a full disk stops it in one line, resumable."""

from __future__ import annotations

import errno

from recoursesim.sweep import store as sweep_store
from tests.hostile.conftest import one_line_error


def test_resume_reruns_a_truncated_or_changed_shard(cli, scenario_file, tmp_path):
    path = str(scenario_file())
    assert cli("sweep", path, "--seeds", "3", "--out", "o", "--quiet")[0] == 0
    runs = tmp_path / "work" / "o" / "runs"
    shards = sorted(runs.glob("*.parquet"))
    original = {p.name: p.read_bytes() for p in shards}
    shards[0].write_bytes(original[shards[0].name][: len(original[shards[0].name]) // 2])  # truncated
    data = bytearray(original[shards[1].name])
    data[len(data) // 2] ^= 0xFF  # same size, one byte changed
    shards[1].write_bytes(bytes(data))
    status, _, err = cli("sweep", path, "--seeds", "3", "--out", "o", "--resume")
    assert status == 0, err
    assert "2 shard(s)" in err and "run again" in err
    assert {p.name: p.read_bytes() for p in runs.glob("*.parquet")} == original  # reruns are deterministic
    assert cli("summarise", "o", "--quiet")[0] == 0


def test_a_full_disk_stops_the_sweep_in_one_line_and_it_resumes(cli, scenario_file, tmp_path, monkeypatch):
    path = str(scenario_file())
    real_write = sweep_store.write_atomic
    calls = []

    def full_after_two(target, data):
        calls.append(target)
        if len(calls) == 3:  # the manifest and one shard fit, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device", str(target))
        return real_write(target, data)

    monkeypatch.setattr(sweep_store, "write_atomic", full_after_two)
    line = one_line_error(*cli("sweep", path, "--seeds", "4", "--out", "o", "--quiet")[::2])
    assert "No space left on device" in line and "--resume" in line and "1 finished runs are kept" in line
    runs = tmp_path / "work" / "o" / "runs"
    assert len(list(runs.glob("*.parquet"))) == 1 and not list(runs.glob(".*"))  # no partial shard
    monkeypatch.setattr(sweep_store, "write_atomic", real_write)
    status, _, err = cli("sweep", path, "--seeds", "4", "--out", "o", "--quiet", "--resume")
    assert status == 0, err
    assert len(list(runs.glob("*.parquet"))) == 4
