"""The benchmark figures a docs page quotes are those of the results file it names."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- figures from (benchmarks/results/\S+\.json) -->\n((?:\|.*\n)+)")
#: Row label -> how the results file's real-data figures print in that row.
ROWS = {
    "German credit run, wall clock / CPU time": lambda f: (
        f"{f['german_gbm_run_s']:.2f} s / {f['german_gbm_cpu_s']:.2f} s"
    ),
    "Adult run (10,000 initial agents, 30,000 in all), wall clock / CPU time": lambda f: (
        f"{f['adult_gbm_run_s']:.2f} s / {f['adult_gbm_cpu_s']:.2f} s"
    ),
    "`dice` per agent (random method, 4 counterfactuals, 10 agents)": lambda f: (
        f"{f['dice_recommend_per_agent_s']:.2f} s"
    ),
    "`search` per agent (the same 10 agents, one batch)": lambda f: (
        f"{1000 * f['search_recommend_per_agent_s']:.1f} ms"
    ),
}


#: Row label -> how the results file's engine figures print in that row.
ENGINE_ROWS = {
    "paper scale (T=20, 1000 agents, k=100, 100 entrants), baseline, median of 30": lambda f: (
        f"{1000 * f['paper_scale_median_s']:.1f} ms | —"
    ),
    "the same with CNS / with CDA (a logistic refit every step, one recommendation pass)": lambda f: (
        f"{1000 * f['cns_paper_scale_median_s']:.1f} ms / {1000 * f['cda_spec_paper_scale_median_s']:.1f} ms | —"
    ),
    "10⁴ agents × steps 0..20 (k = entrants = 10%)": lambda f: _scaling(f, 0, "{:.2f} s | {:.0f} MB"),
    "10⁵ agents": lambda f: _scaling(f, 1, "{:.2f} s | {:.0f} MB"),
    "10⁶ agents (21 M ledger rows)": lambda f: _scaling(f, 2, "{:.2f} s | {:.2f} GB", gigabytes=True),
}


def _scaling(figures: dict, i: int, form: str, gigabytes: bool = False) -> str:
    row = figures["scaling"][i]
    assert row["n_agents"] == 10 ** (4 + i)
    return form.format(row["seconds"], row["peak_rss_mb"] / (1000 if gigabytes else 1))


def _quoted(page: str) -> tuple[dict, list[list[str]], str]:
    """The results file a page names, the rows of the table after the marker (label, then the rest), its path."""
    (path, block), *others = MARKER.findall((ROOT / "docs" / page).read_text(encoding="utf-8"))
    assert not others
    rows = [line.strip().strip("|").split(" | ", 1) for line in block.strip("\n").splitlines()[2:]]
    return json.loads((ROOT / path).read_text(encoding="utf-8"))["scripts"], rows, path


#: Row label -> how the calibration benchmark's figures for that scenario print in that row.
CALIBRATION_ROWS = {
    "`bell2024`, 10 steps": "bell2024",
    "German credit, 6 steps": "german-credit",
}


def test_calibration_page_quotes_its_results_file() -> None:
    scripts, rows, _ = _quoted("calibration.md")
    figures = scripts["calibration"]["figures"]
    assert [label.strip() for label, _ in rows] == list(CALIBRATION_ROWS)
    for label, value in rows:
        f = figures[CALIBRATION_ROWS[label.strip()]]
        printed = (
            f"{f['afresh_cpu_s_per_run']:.3f} CPU s a run | {f['reusing_cpu_s_per_run']:.3f} CPU s a run | "
            f"{f['speedup_cpu']:.2f}"
        )
        assert value.strip() == printed, label


def test_performance_page_quotes_its_results_file() -> None:
    scripts, rows, _ = _quoted("performance.md")
    figures = scripts["engine"]["figures"]
    assert [label.strip() for label, _ in rows] == list(ENGINE_ROWS)
    for label, value in rows:
        assert value.strip() == ENGINE_ROWS[label.strip()](figures), label


def test_recourse_page_quotes_its_results_file() -> None:
    scripts, rows, _ = _quoted("recourse.md")
    figures = scripts["real_data"]["figures"]
    assert figures["adult_n_agents"] == 10_000
    assert [label.strip() for label, _ in rows] == list(ROWS)
    for label, value in rows:
        assert value.strip() == ROWS[label.strip()](figures), label


def test_performance_page_quotes_the_sweep_results() -> None:
    """The sweep paragraph's throughput, efficiency and Dask ratio are those of the sweep results file."""
    text = " ".join((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").split())
    (name,) = re.findall(r"`(benchmarks/results/\S+-sweep-skip-table1\.json)`", text)
    sweep = json.loads((ROOT / name).read_text(encoding="utf-8"))
    assert (
        f"{sweep['runs_per_s_1']:.1f} runs/s with 1 worker and {sweep['runs_per_s_2']:.1f} with 2 "
        f"(parallel efficiency {sweep['efficiency_2']:.1%}"
    ) in text
    assert f"took {sweep['dask_vs_joblib_2']:.2f}× the time of 2 loky workers" in text
    scaling = json.loads((ROOT / _quoted("performance.md")[2]).read_text(encoding="utf-8"))
    large, small = (scaling["scripts"]["engine"]["figures"]["scaling"][i]["seconds"] for i in (2, 1))
    assert f"10⁵ → 10⁶: ×{large / small:.1f}" in text


#: FACTS benchmark case -> its row's label and target on docs/facts.md.
FACTS_ROWS = {
    "german-sex": ("German credit/sex, defaults", "<= 10 s, <= 1 GB"),
    "compas-race": ("COMPAS/race, defaults", "<= 10 s, <= 1 GB"),
    "adult-sex": ("Adult/sex, defaults", "<= 30 s, <= 2 GB"),
    "adult-sex-1pct": ("Adult/sex, `--support 0.01`", "not slower"),
}


def test_facts_page_quotes_its_results_file() -> None:
    scripts, rows, path = _quoted("facts.md")
    figures = scripts["facts"]["figures"]
    expected = [
        [
            label,
            f"{target} | {f['seconds']:.2f} s | {f['cpu_seconds']:.2f} s | {f['peak_rss_mb']:.0f} MB "
            f"| {f['common_subgroups']:,} | {f['actions']:,}",
        ]
        for case, (label, target) in FACTS_ROWS.items()
        for f in [figures[case]]
    ]
    assert [[label.strip(), rest.strip()] for label, rest in rows] == expected
    assert all(figures[case].get("meets_target", True) for case in FACTS_ROWS)
    text = " ".join((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").split())
    one = figures["adult-sex-1pct"]
    audit = f"{one['seconds']:.2f} s ({one['audit_seconds']:.2f} s of it the audit) and {one['peak_rss_mb']:.0f} MB"
    assert f"1% support: {audit}" in text
    assert path in text
