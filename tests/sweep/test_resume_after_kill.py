"""Acceptance: a sweep killed with SIGKILL part-way, then resumed, equals an uninterrupted sweep."""

import os
import signal
import subprocess
import sys
import time

import pandas as pd

from recoursesim.cli import main

SEEDS = 25
GRID = "selection.k=10,20"


def test_sigkill_then_resume_loses_and_duplicates_nothing(small_toml, tmp_path):
    out = tmp_path / "killed"
    argv = ["sweep", str(small_toml), "--seeds", str(SEEDS), "--grid", GRID, "--out", str(out), "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "recoursesim.cli", *argv],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    runs = out / "runs"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if runs.is_dir() and sum(1 for _ in runs.glob("*.parquet")) >= 5:
                break
            time.sleep(0.005)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL, "the sweep finished (or failed) before it could be killed"
    before = {p.name for p in runs.glob("*.parquet")}
    assert 5 <= len(before) < 2 * SEEDS
    dead = ".deadbeef.parquet.recoursesim-999999999-0123abcd.tmp"  # what a kill mid-write leaves (pid gone)
    (runs / dead).write_bytes(b"half a shard")
    (runs / ".my-notes.tmp").write_text("the user's")  # not a name recoursesim writes: kept

    assert main([*argv, "--resume"]) == 0
    after = {p.name for p in runs.glob("*.parquet")}
    assert before < after and len(after) == 2 * SEEDS
    assert [p.name for p in runs.glob(".*")] == [".my-notes.tmp"]
    shards = pd.concat(pd.read_parquet(runs / name) for name in sorted(after))
    per_run = shards.groupby("run_id")["seed_index"].agg(["nunique", "size"])
    assert len(per_run) == 2 * SEEDS and (per_run["nunique"] == 1).all()
    assert per_run["size"].nunique() == 1  # every shard holds one complete run
    assert sorted(shards.drop_duplicates("run_id")[["point", "seed_index"]].itertuples(index=False)) == sorted(
        (p, s) for p in range(2) for s in range(SEEDS)
    )

    clean = tmp_path / "clean"
    assert main(["sweep", str(small_toml), "--seeds", str(SEEDS), "--grid", GRID, "--out", str(clean), "--quiet"]) == 0
    assert (out / "summary.parquet").read_bytes() == (clean / "summary.parquet").read_bytes()
    for name in after:
        assert (runs / name).read_bytes() == (clean / "runs" / name).read_bytes()
