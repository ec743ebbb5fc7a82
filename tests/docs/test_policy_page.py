"""docs/policy.md's German-credit studies: the page's own commands, run here, give its tables and figures."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from recoursesim.cli import main

pytestmark = pytest.mark.policy

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "policy.md").read_text(encoding="utf-8")


def _command(name: str, out: Path) -> list[str]:
    """The page's ``recoursesim NAME`` command of the worked example, writing to ``out``."""
    blocks = re.findall(r"```bash\n(.*?)```", PAGE, flags=re.S)
    (block,) = [b for b in blocks if b.startswith(f"recoursesim {name} experiments/german_credit_10_steps.toml")]
    words = shlex.split(block.replace("\\\n", " "))[1:]
    words[1] = str(ROOT / words[1])  # the scenario file, from the repository's root
    words[words.index("--out") + 1] = str(out)
    return words


def _table_after(marker: str) -> list[str]:
    (block,) = re.findall(rf"<!-- made by the command above: {re.escape(marker)} -->\n((?:\|.*\n)+)", PAGE)
    return block.strip("\n").splitlines()[2:]


def _signed(value: float) -> str:
    return f"{value:.2f}".replace("-", "\u2212")


def test_the_morris_screening(tmp_path: Path) -> None:
    out = tmp_path / "morris"
    assert main(_command("sensitivity", out)) == 0
    indices = pd.read_parquet(out / "indices.parquet")
    rows = [
        f"| `{r.parameter}` | {r.mu_star:.2f} | {r.mu_star_low:.2f} – {r.mu_star_high:.2f} | {_signed(r.mu)} "
        f"| {r.sigma:.2f} | {r.rank} |"
        for r in indices.sort_values("rank").itertuples()
    ]
    assert rows == _table_after("indices.parquet")
    facts = json.loads((out / "sensitivity.json").read_text())
    variances = pd.read_parquet(out / "samples.parquet")["var"]
    text = " ".join(PAGE.split())
    assert f"{facts['n_samples']} samples, {facts['n_points']} distinct after rounding, {facts['runs']} runs" in text
    assert f"the seed-noise share is **{facts['seed_noise_share']:.0%}**" in text
    assert f"from {variances.min():.3f} to {variances.max():.1f} steps²" in text


def test_the_policy_search(tmp_path: Path) -> None:
    out = tmp_path / "opt"
    assert main(_command("optimise", out)) == 0
    trials = pd.read_parquet(out / "trials.parquet")
    trials = trials.sort_values(["pareto", "min |dttr:female|"], ascending=[False, True])
    rows = [
        f"| {t.number} | {t['selection.name']} | {t['selection.k']} | {t['min |dttr:female|']:.2f} ± "
        f"{t['min |dttr:female|_se']:.2f} | {t['selected:all_mean']:,.0f} | {'yes' if t.pareto else ''} |".replace(
            "|  |", "| |"
        )
        for _, t in trials.iterrows()
    ]
    assert rows == _table_after("trials.parquet")
    best = trials.iloc[0]
    assert best.number == 0 and "`best-policy.toml` holds trial 0" in " ".join(PAGE.split())
