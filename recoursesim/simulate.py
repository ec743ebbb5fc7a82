"""One run of a scenario for one seed, and its results as plain data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim._validate import check_int
from recoursesim.durability import durability_summary, recommendation_fates
from recoursesim.engine.model import RecourseModel
from recoursesim.errors import ConfigError
from recoursesim.ledger import by_applicant, write_parquet
from recoursesim.metrics import agent_outcomes, recourse_over_time, recourse_summary, until_first_success
from recoursesim.metrics.market_ledger import is_market
from recoursesim.metrics.market_table import market_table
from recoursesim.resources import check_run_memory
from recoursesim.scenario import Scenario, load_scenario
from recoursesim.threads import threads_for_run

#: Files a run writes, and what each holds.
RESULT_FILES: dict[str, str] = {
    "ledger.parquet": "one row per (agent, step; in a market, per lender applied to): features, score, threshold, "
    "outcome, recommendation, effort",
    "metrics.parquet": "one row per (step, group): selections, ETR_t, TTR_t, rETR_t, dTTR_t",
    "summary.parquet": "one row per group: pooled ETR/TTR, rETR/dTTR, censored and wasted effort",
    "agents.parquet": "one row per agent: group, entry and exit step, status, effort capacity",
    "durability.parquet": "one row per recommendation: valid h = 0..5 steps later, steps until it expired",
    "observations.parquet": "one row per (step, observer, group, metric) from the per-step auditors",
    "loans.parquet": "one row per loan (runs with an outcome): repayment probability, repaid, utility, score moved",
    "market.parquet": "market runs: one row per (step, lender or market, group): selection and recourse rates, "
    "systemic exclusion, homogenization, portability, ETR_t/TTR_t per lender and for the market",
    "scenario.json": "the resolved scenario and the seed",
}


@dataclass
class RunResult:
    """A finished run: the model plus its metrics, computed from the ledger on first use.

    Attributes:
        scenario: The scenario that was run.
        seed: The run seed: an integer, or the ``SeedSequence`` a sweep spawned for the run.
        model: The finished model (its ledger is the source of every metric).
    """

    scenario: Scenario
    seed: int | np.random.SeedSequence
    model: RecourseModel = field(repr=False)

    @cached_property
    def ledger(self) -> pd.DataFrame:
        """The ledger frame."""
        return self.model.ledger

    @cached_property
    def applicant_ledger(self) -> pd.DataFrame:
        """The ledger with one row per (step, agent): a market's rows folded (:func:`~recoursesim.ledger.by_applicant`).

        Without a market, the :attr:`ledger` itself. Every metric below reads this one.
        """
        return by_applicant(self.ledger)

    @cached_property
    def market(self) -> pd.DataFrame | None:
        """Per step, lender (and the market) and group: :func:`~recoursesim.metrics.market_table.market_table`.

        ``None`` for a run without a ``lender`` column in its ledger (no ``[market]``).
        """
        if not is_market(self.ledger):
            return None
        return market_table(
            self.ledger, list(self.model.group_names), effort=self.scenario.effort_measure,
            reference_group=self.reference_group,
        )  # fmt: skip

    @cached_property
    def recourse_ledger(self) -> pd.DataFrame:
        """The ledger the per-agent outcomes read: where the selected stay, each agent up to its first success.

        Selection counts and rates are taken from the whole :attr:`ledger`; effort and time to
        recourse from :attr:`outcomes`, hence to each agent's first success.
        """
        return until_first_success(self.applicant_ledger) if self.scenario.reapplies else self.applicant_ledger

    @cached_property
    def outcomes(self) -> pd.DataFrame:
        """One row per agent (:func:`~recoursesim.metrics.agent_outcomes`), shared by the metrics below."""
        return agent_outcomes(self.recourse_ledger, self.scenario.effort_measure)

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """Per-step, per-group metrics (:func:`~recoursesim.metrics.recourse_over_time`)."""
        return recourse_over_time(self.applicant_ledger, **self._measures)

    @cached_property
    def summary(self) -> pd.DataFrame:
        """Pooled per-group metrics (:func:`~recoursesim.metrics.recourse_summary`)."""
        return recourse_summary(self.applicant_ledger, **self._measures)

    @property
    def _measures(self) -> dict[str, Any]:
        """What the per-step and pooled metrics are measured with: the effort measure, reference group and outcomes."""
        return {
            "effort": self.scenario.effort_measure,
            "reference_group": self.reference_group,
            "outcomes": self.outcomes,
        }

    @cached_property
    def durability(self) -> pd.DataFrame:
        """One row per recommendation, judged at later steps (:func:`~recoursesim.durability.recommendation_fates`).

        Empty when the run kept no recommendations (``record_recommendations`` off), and in a
        market of several lenders (not measured per lender yet).
        """
        if not self.model.ledger_store.record_recommendations or len(self.model.lenders) > 1:
            return pd.DataFrame()
        return recommendation_fates(self.model)

    @cached_property
    def durability_summary(self) -> pd.DataFrame:
        """Per-group durability (:func:`~recoursesim.durability.durability_summary`)."""
        return durability_summary(self.durability) if len(self.durability.columns) else pd.DataFrame()

    @property
    def reference_group(self) -> str:
        """The group disparities are measured against (the scenario's, else the first group)."""
        return self.scenario.reference_group or self.model.group_names[0]

    def write(self, directory: str | Path) -> list[Path]:
        """Write the result files (:data:`RESULT_FILES`) into an existing ``directory``.

        The same scenario and seed always produce byte-identical files.
        """
        directory = Path(directory)
        frames = {
            "ledger.parquet": self.ledger,
            "metrics.parquet": self.metrics,
            "summary.parquet": self.summary,
            "agents.parquet": self.model.agent_frame(),
        }
        if len(self.durability.columns):
            frames["durability.parquet"] = self.durability
        if self.model.observers:
            frames["observations.parquet"] = self.model.observations
        if self.model.outcome is not None:
            frames["loans.parquet"] = self.model.loans
        if self.market is not None:
            frames["market.parquet"] = self.market
        for name, frame in frames.items():
            write_parquet(frame, directory / name)
        meta = {"seed": _seed_record(self.seed), "scenario": self.scenario.spec}
        (directory / "scenario.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return [directory / name for name in [*frames, "scenario.json"]]


def simulate(
    scenario: Scenario | str | Path,
    seed: int | np.random.SeedSequence | None = None,
    *,
    steps: int | None = None,
    force: bool = False,
    model: Any = None,
    data: Any = None,
    allow_imports: Sequence[str] | None = None,
    trusted: Sequence[str] | None = None,
) -> RunResult:
    """Run ``scenario`` once.

    Args:
        scenario: A :class:`Scenario`, a bundled scenario name (``"default"``) or a TOML file path.
        seed: The run seed, a non-negative integer (default: the scenario's ``run.seed``), or a
            ``SeedSequence`` spawned by a sweep.
        steps: Override ``T``.
        force: Run even if the estimated memory (:func:`~recoursesim.resources.check_run_memory`)
            exceeds what is available.
        model: Your own fitted classifier as the decision model (see :meth:`Scenario.with_inputs`).
        data: Your own DataFrame of applicants for a dataset population (see :meth:`Scenario.with_inputs`).
        allow_imports: With a file path: modules an import-path component name may import
            (:mod:`recoursesim.trust`); a :class:`Scenario` carries its own.
        trusted: With a file path: types a model file it names may hold beyond the allow-list
            (:mod:`recoursesim.scoring.model_trust`); a :class:`Scenario` carries its own.

    Returns:
        The finished run.

    Raises:
        ConfigError: a bad scenario, seed or step count, or a run too large for the memory.
    """
    if not isinstance(scenario, Scenario):
        if not isinstance(scenario, str | Path):
            raise ConfigError(
                "scenario", f"must be a Scenario, a bundled name or a file path, got {type(scenario).__name__}",
                "pass load_scenario(...) or a name such as 'default'",
            )  # fmt: skip
        scenario = load_scenario(scenario, allow_imports=allow_imports, trusted=trusted)
    if model is not None or data is not None:
        scenario = scenario.with_inputs(model=model, data=data)
    seed = check_seed(seed)
    if steps is not None:
        steps = check_int("steps", steps, minimum=0)
    check_run_memory(scenario.config, steps=steps, force=force)
    if steps is not None:
        scenario = scenario.with_overrides({"run.steps": steps})
    if seed is None:
        seed = scenario.seed
    model = scenario.build_model(seed)
    with threads_for_run(model.n_initial):  # large runs: one BLAS/OpenMP thread (see recoursesim.threads)
        model.run()
    return RunResult(scenario, seed, model)


def check_seed(seed: object, field: str = "seed") -> int | np.random.SeedSequence | None:
    """Return a valid run seed: ``None``, a ``SeedSequence``, or a non-negative integer (not a bool).

    Raises:
        ConfigError: for floats (even whole ones), strings, bools, NaN and negative integers.
    """
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ConfigError(field, f"must be a non-negative integer or a SeedSequence, got {seed!r}", "pass e.g. seed=0")
    if seed < 0:
        raise ConfigError(field, f"must be non-negative, got {seed}", "pass a seed of 0 or more")
    return int(seed)


def _seed_record(seed: int | np.random.SeedSequence) -> int | dict[str, object]:
    if isinstance(seed, np.random.SeedSequence):
        if not isinstance(seed.entropy, int):
            raise ConfigError("seed", "a spawned seed needs an integer root entropy", "spawn from SeedSequence(n)")
        return {"entropy": seed.entropy, "spawn_key": [int(k) for k in seed.spawn_key]}
    return int(seed)
