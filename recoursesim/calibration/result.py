"""A finished calibration and the files it writes into ``--out``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from recoursesim import output
from recoursesim.calibration.posterior import best_toml, posterior_toml
from recoursesim.calibration.simulator import PanelSimulator
from recoursesim.ledger import write_parquet
from recoursesim.output import replacing
from recoursesim.report.document import Report, ReportFigure, Section, to_html
from recoursesim.scenario import Scenario

#: The ABC-SMC history file (SQLite), which ``--resume`` continues.
HISTORY_FILE = "history.db"
#: File in ``--out`` -> what it holds.
CALIBRATION_FILES: dict[str, str] = {
    "posterior.parquet": "the last generation's particles: one column per parameter and their weight",
    "estimates.parquet": "per parameter: posterior median and 90% credible interval",
    "predictive.parquet": "posterior predictive median and 90% band per (statistic, step, group)",
    "pairs.png": "pairs plot of the posterior",
    "marginals.png": "each parameter's posterior, median and 90% credible interval",
    "predictive.png": "posterior predictive check: observed statistics against the simulated band",
    "report.html": "the figures and tables in one page",
    "best.toml": "the scenario at the posterior medians (runnable)",
    "posterior.toml": "equally weighted posterior draws",
    "calibration.json": "settings, generations (epsilon, particles, seconds) and runs per second",
    HISTORY_FILE: "pyabc's ABC-SMC history (continued by --resume)",
}
#: Files rewritten at the end of each calibration (checked before a resume).
REWRITTEN = tuple(name for name in CALIBRATION_FILES if name != HISTORY_FILE)


@dataclass
class CalibrationResult:
    """Everything a calibration writes."""

    scenario: Scenario
    simulator: PanelSimulator
    observed: pd.DataFrame
    sample: pd.DataFrame
    estimates: pd.DataFrame
    bands: pd.DataFrame
    notes: dict[str, Any]
    seed: int
    n_draws: int
    figures: dict[str, Any] = field(default_factory=dict)

    def draw(self) -> None:
        """Draw the three figures (once)."""
        from recoursesim.calibration.figures import marginals_figure, pairs_figure, predictive_figure

        ranges = self.simulator.ranges
        self.figures = {
            "pairs": pairs_figure(self.sample, ranges),
            "marginals": marginals_figure(self.sample, self.estimates, ranges),
            "predictive": predictive_figure(self.observed, self.bands, self.simulator.groups, self.n_draws),
        }

    def report(self) -> Report:
        """The HTML report: estimates, figures, and what was run."""
        if not self.figures:
            self.draw()
        keys = ", ".join(r.key for r in self.simulator.ranges)
        captions = {
            "pairs": "Posterior of the free parameters: a ridge means two parameters trade off.",
            "marginals": "Each parameter's posterior with its median and 90% credible interval.",
            "predictive": "Observed statistics (points) against simulations at posterior draws (median, 90% band).",
        }
        figures = [ReportFigure(name, fig, captions[name]) for name, fig in self.figures.items()]
        generations = pd.DataFrame(self.notes["generations"])
        return Report(
            f"Calibration of {self.scenario.name}",
            [
                Section("estimates", "Estimates", [f"Free parameters: {keys}."], [self.estimates], figures[:2]),
                Section("predictive", "Posterior predictive check", [], [], figures[2:]),
                Section("generations", "ABC-SMC generations", [], [generations]),
            ],
        )

    def write(self, directory: Path) -> list[Path]:
        """Write :data:`REWRITTEN` into ``directory`` (each atomically, each recorded as recoursesim's)."""
        output.check_own_files(directory, REWRITTEN)
        if not self.figures:
            self.draw()
        frames = {
            "posterior.parquet": self.sample,
            "estimates.parquet": self.estimates,
            "predictive.parquet": self.bands,
        }
        for name, frame in frames.items():
            write_parquet(frame, directory / name)
            output.record_file(directory, directory / name)
        for name, fig in self.figures.items():
            with replacing(directory / f"{name}.png") as tmp:
                fig.savefig(tmp, dpi=110, format="png")
            output.record_file(directory, directory / f"{name}.png")
        ranges = self.simulator.ranges
        texts = {
            "report.html": to_html(self.report()),
            "best.toml": best_toml(self.scenario, self.simulator, self.estimates),
            "posterior.toml": posterior_toml(self.scenario, self.sample, ranges, self.n_draws, self.seed),
            "calibration.json": json.dumps(self.notes, indent=2) + "\n",
        }
        for name, text in texts.items():
            output.write_recorded(directory, directory / name, text.encode("utf-8"))
        return [directory / name for name in REWRITTEN]
