"""CCM and equality of effort: estimate before the large arrays, refuse in one line, --force goes on."""

import numpy as np
import pandas as pd
import pytest

from recoursesim import resources
from recoursesim.auditors.effort import make_effort_synthetic, synthetic_auditor
from recoursesim.auditors.effort.audit import BASE_BYTES, estimate_effort_bytes
from recoursesim.cli import main
from recoursesim.cli.audit_ccm import CCM_BASE_BYTES, estimate_ccm_bytes
from recoursesim.errors import ConfigError


def _no_room(monkeypatch, base):
    monkeypatch.setattr(resources, "available_memory", lambda: base + 1024)


def test_effort_curve_is_the_same_block_by_block():
    auditor = synthetic_auditor(make_effort_synthetic(300, 2.0, 3))
    whole = auditor.curve([0.3, 1.0], "protected")
    auditor.block = 7  # 7 centres at a time: many blocks, the last one partial
    pd.testing.assert_frame_equal(auditor.curve([0.3, 1.0], "protected"), whole)


def test_effort_estimate_grows_with_rows_and_block():
    # Full Adult, 48,842 rows, 15,000 centres: 512 at a time, ~1.2 GB, not the 48,842 x 15,000 matrix.
    assert estimate_effort_bytes(48_842, 15_000) == BASE_BYTES + 512 * 48_842 * 48 + 48_842 * 64
    assert estimate_effort_bytes(48_842, 15_000) < 2 * 2**30
    assert estimate_effort_bytes(1000, 10) < estimate_effort_bytes(1000, 512) == estimate_effort_bytes(1000, 10_000)


def test_effort_refuses_then_force_goes_on(monkeypatch):
    auditor = synthetic_auditor(make_effort_synthetic(300, 2.0, 3))
    _no_room(monkeypatch, BASE_BYTES)
    with pytest.raises(ConfigError, match=r"equality of effort.*needs about .* available"):
        auditor.curve([1.0], "protected")
    auditor.force = True
    assert np.isfinite(auditor.curve([1.0], "protected")["mean"]).all()


def _ccm_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=200), "g": rng.choice(["f", "m"], 200), "y": rng.integers(0, 2, 200)})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_ccm_refuses_in_one_line_and_force_goes_on(monkeypatch, tmp_path, capsys):
    _no_room(monkeypatch, CCM_BASE_BYTES)
    argv = ["audit", "ccm", "--csv", str(_ccm_csv(tmp_path)), "--target", "y", "--sensitive", "g"]
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) == 2 and not out.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ccm: needs about") and "--force" in err
    assert main([*argv, "--out", str(out), "--force"]) == 0 and (out / "ccm_report.csv").exists()


def test_ccm_estimate_by_hand():
    # 1,000 rows, 3 groups (2 targets each), 10 columns: 2,000 counterfactuals x 16 columns x 24 bytes.
    assert estimate_ccm_bytes(1000, 3, 10) == CCM_BASE_BYTES + 2000 * 16 * 24 + 1000 * 10 * 32
