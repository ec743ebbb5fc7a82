"""Policy search with Optuna: which selector, mitigation and parameters reach the objectives.

Trials are asked from Optuna in batches; every trial of a batch becomes a point of one
:class:`~recoursesim.sweep.SweepPlan` run on the sweep engine (so a batch runs in parallel on
local processes or Dask), each for the same seeds; each objective is computed from the metric's
mean over seeds and stored with its standard error. The study lives in an SQLite file in the
output directory. A batch is sampled by a TPE sampler seeded with the search seed plus the number
of finished trials, from the finished trials only, so a stopped search that is resumed asks the
same trials as one that never stopped (a batch cut short is asked again, and its finished runs
are reused from its sweep directory).

With uncertainties (:attr:`PolicySearch.uncertainties`), every trial runs in the same
``n_scenarios`` settings of them (one Latin hypercube sample drawn from the search seed, and the
same seeds in each), so trials differ only by their levers. A plain objective is then the mean over
every scenario and seed; a robust one (:class:`~recoursesim.policy.objectives.Objective` with a
``measure``) is computed by :mod:`recoursesim.policy.robust` from the trial's outcome in each
scenario. Satisficing needs no other policy. Regret does: a trial is told its maximum regret
against the trials finished before it and itself (so the first trial's is 0, and early trials look
better than they are to the sampler); :meth:`PolicySearch.trials_frame` recomputes every trial's
regret against all finished trials, and the front and the chosen policy use those values.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from recoursesim import output
from recoursesim.errors import ConfigError
from recoursesim.policy._deps import require
from recoursesim.policy.objectives import Constraint, Objective, pareto_mask, seed_mean
from recoursesim.policy.robust import regret, sample_scenarios, satisficing
from recoursesim.policy.search_files import REWRITTEN, STUDY_FILE, SearchFacts, write_search
from recoursesim.policy.space import Choice, MetricSpec, ParamRange
from recoursesim.scenario import Scenario
from recoursesim.sweep import Executor, Point, RunTask, SweepPlan, iter_point_results, run_sweep
from recoursesim.sweep.identity import canonical_json, digest
from recoursesim.sweep.worker import RunOutcome, execute

STUDY_NAME = "policy"


def _holds_a_search(path: Path) -> bool:
    """Whether the SQLite file holds an Optuna study named :data:`STUDY_NAME` with a search identity.

    Asked of a copy (with its journal, which SQLite rolls back there if a killed process left one
    hot), so the file itself is not changed whatever it holds.
    """
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / path.name
        for name in (path.name, f"{path.name}-journal"):
            if (path.parent / name).is_file():
                shutil.copyfile(path.parent / name, Path(scratch) / name)
        try:
            with contextlib.closing(sqlite3.connect(copy)) as db:
                rows = db.execute(
                    "SELECT 1 FROM studies JOIN study_user_attributes USING (study_id)"
                    " WHERE study_name = ? AND key = 'identity'",
                    (STUDY_NAME,),
                ).fetchall()
        except sqlite3.DatabaseError:
            return False
    return bool(rows)


@dataclass(frozen=True)
class PolicySpace:
    """What the search may change: numeric ranges and choices among TOML values.

    Choices are applied first (so a choice of a whole ``selection`` table can be refined by a
    range on ``selection.k``), then ranges, in key order.
    """

    ranges: tuple[ParamRange, ...] = ()
    choices: tuple[Choice, ...] = ()

    def suggest(self, trial: Any) -> dict[str, Any]:
        """Ask ``trial`` for one value per field; return the scenario overrides."""
        params: dict[str, Any] = {}
        for choice in sorted(self.choices, key=lambda c: c.key):
            labels = [canonical_json(v) for v in choice.values]
            params[choice.key] = json.loads(trial.suggest_categorical(choice.key, labels))
        for r in sorted(self.ranges, key=lambda r: r.key):
            if r.integer:
                params[r.key] = trial.suggest_int(r.key, int(r.low), int(r.high), log=r.log)
            else:
                params[r.key] = trial.suggest_float(r.key, r.low, r.high, log=r.log)
        return params

    def describe(self) -> dict[str, Any]:
        """Plain data (stored with the study, checked on resume)."""
        return {
            "ranges": [[r.key, r.low, r.high, r.integer, r.log] for r in self.ranges],
            "choices": [[c.key, list(c.values)] for c in self.choices],
        }


@dataclass
class PolicySearch:
    """A resumable Optuna study of policies for a scenario.

    Args:
        scenario: The base scenario.
        space: What may change.
        objectives: One or more objectives.
        out: Output directory (the study file and the batches' sweeps go here).
        constraints: Bounds the chosen policy must meet.
        n_seeds: Seeds per trial.
        root_seed: Seed of the runs and of the sampler (default: the scenario's ``run.seed``).
        batch: Trials asked and run together.
        startup_trials: Random trials before TPE models the results.
        uncertainties: Scenario fields the policy does not control; each trial runs over
            ``n_scenarios`` settings of them.
        n_scenarios: Settings of the uncertainties (with ``uncertainties``).
    """

    scenario: Scenario
    space: PolicySpace
    objectives: Sequence[Objective]
    out: Path
    constraints: Sequence[Constraint] = ()
    n_seeds: int = 4
    root_seed: int | None = None
    batch: int = 1
    startup_trials: int = 10
    uncertainties: tuple[ParamRange, ...] = ()
    n_scenarios: int = 0
    study_: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.objectives:
            raise ConfigError("--objective", "no objective given", "give at least one, e.g. 'min |dTTR:female|'")
        if not self.space.ranges and not self.space.choices:
            raise ConfigError("--param", "nothing to search over", "give a --param KEY=LO:HI or a --choice KEY=A,B")
        self.out = Path(self.out)
        self.seed = self.scenario.seed if self.root_seed is None else self.root_seed
        self.settings: list[dict[str, Any]] = [{}]
        if self.uncertainties or self.n_scenarios:
            levers = {r.key for r in self.space.ranges} | {c.key for c in self.space.choices}
            for r in self.uncertainties:
                if r.key in levers:
                    fix = "give it once, as a lever or as an uncertainty"
                    raise ConfigError(f"--uncertainty {r.key}", "is also a --param or --choice", fix)
            self.settings = sample_scenarios(self.uncertainties, self.n_scenarios, self.seed)
            for setting in self.settings:  # a field the scenario does not take: refused now, not in every trial
                try:
                    self.scenario.with_overrides(setting)
                except ConfigError as error:
                    raise ConfigError(f"--uncertainty {error.field}", error.problem, error.fix) from None
        elif any(o.measure for o in self.objectives):
            measure = next(o.label for o in self.objectives if o.measure)
            fix = "give --uncertainty KEY=LO:HI and --scenarios N to evaluate each policy over"
            raise ConfigError("--objective", f"{measure!r} needs uncertain scenarios", fix)

    @property
    def identity(self) -> str:
        """Hash of everything that makes the search what it is (the sample too, with uncertainties)."""
        uncertain = [PolicySpace(self.uncertainties).describe()["ranges"], self.settings] if self.uncertainties else []
        return digest(
            "policy-search",
            self.scenario.spec,
            self.space.describe(),
            [o.label for o in self.objectives],
            [c.label for c in self.constraints],
            self.n_seeds,
            self.seed,
            self.batch,
            self.startup_trials,
            *uncertain,
        )

    def open(self, *, resume: bool) -> Any:
        """Create the study (or load it with ``resume``); mark trials cut short by a stop as interrupted.

        Raises:
            ConfigError: Resuming a directory without this study, or with another one, or whose
                study file recoursesim did not create; starting over an existing study; a file
                the search would write over that is not recoursesim's; a study that cannot be opened.
        """
        optuna = require("optuna")
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        path = self.out / STUDY_FILE
        self._check_study_file(path, resume)
        output.check_own_files(self.out, REWRITTEN, folders=("runs",))  # refused now, not after the trials
        self.out.mkdir(parents=True, exist_ok=True)
        with self.storage_errors(path):
            study = optuna.create_study(
                storage=optuna.storages.RDBStorage(f"sqlite:///{path.absolute()}"),
                study_name=STUDY_NAME,
                directions=[o.direction for o in self.objectives],
                load_if_exists=resume,
            )
            if not resume:  # recoursesim's from now on, whatever Optuna writes into it
                output.record_mutable(self.out, path, "sqlite")
            stored = study.user_attrs.get("identity")
            if stored is None:
                study.set_user_attr("identity", self.identity)
                study.set_user_attr("objectives", [o.label for o in self.objectives])
                study.set_user_attr("scenarios", self.settings)
            elif stored != self.identity:
                fix = "resume with the same scenario and options, or a new --out"
                raise ConfigError("--out", f"{self.out} holds another search", fix)
            running = optuna.trial.TrialState.RUNNING
            for frozen in study.get_trials(deepcopy=False, states=(running,)):
                study._storage.set_trial_user_attr(frozen._trial_id, "interrupted", True)
                study.tell(frozen.number, state=optuna.trial.TrialState.FAIL)
        self.study_ = study
        return study

    @contextlib.contextmanager
    def storage_errors(self, path: Path) -> Iterator[None]:
        """Turn an error of the study's storage (a full disk, a read-only file system) into one line."""
        optuna = require("optuna")
        try:
            yield
        except (optuna.exceptions.OptunaError, require("sqlalchemy.exc").SQLAlchemyError) as error:
            cause = str(error).splitlines()[0] if str(error) else type(error).__name__
            fix = "check that --out is writable and has space, then rerun with --resume"
            raise ConfigError("--out", f"the study {path} cannot be read or written ({cause})", fix) from None

    def _check_study_file(self, path: Path, resume: bool) -> None:
        """Refuse a linked study file, a new search over one, or resuming one recoursesim did not create."""
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise ConfigError("--out", f"{path} is a symbolic link or not a file", f"remove it from {self.out}")
        if not resume:
            if path.exists():
                fix = "add --resume to continue it, or choose a new --out"
                raise ConfigError("--out", f"{self.out} already holds a study", fix)
            return
        if not path.is_file():
            fix = "drop --resume to start one (with --overwrite if --out holds files)"
            raise ConfigError("--resume", f"{self.out} holds no study ({STUDY_FILE})", fix)
        entry = output.read(self.out).get(STUDY_FILE)
        if entry is None or not output.verify(self.out, path, entry) or not _holds_a_search(path):
            raise ConfigError(
                "--out",
                f"{path} is not a study recoursesim created there (not in {self.out / output.RECORD}, or changed)",
                f"move it out of {self.out}, or choose another --out",
            )

    def counted_trials(self) -> list[Any]:
        """Finished trials that count toward the budget (not those cut short by a stop)."""
        optuna = require("optuna")
        done = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.FAIL)
        return [t for t in self.study_.get_trials(deepcopy=False, states=done) if not t.user_attrs.get("interrupted")]

    def run(
        self,
        n_trials: int,
        *,
        executor: Executor | None = None,
        progress: Callable[[str], None] | None = None,
        runner: Callable[[RunTask], RunOutcome] = execute,
    ) -> int:
        """Ask, run and tell batches until ``n_trials`` trials have finished; return how many ran now.

        Raises:
            ConfigError: ``n_trials`` is fewer than the study has finished (a resumed study: nothing
                would run, and the outputs would be rewritten for a budget smaller than the trials
                in them), the study cannot be written (:meth:`storage_errors`), or as the sweep.
        """
        optuna = require("optuna")
        ran = 0
        with self.storage_errors(self.out / STUDY_FILE):
            done = len(self.counted_trials())
            if n_trials < done:
                raise ConfigError(
                    "--trials",
                    f"is {n_trials}, but the study in {self.out} has already finished {done} trials",
                    f"give --trials more than {done} to continue it (--trials {done + self.batch} runs "
                    f"{self.batch} more); its results are in {self.out} as they are",
                )
            while (remaining := n_trials - len(self.counted_trials())) > 0:
                finished = len(self.counted_trials())
                self.study_.sampler = optuna.samplers.TPESampler(
                    seed=self.seed + finished, n_startup_trials=self.startup_trials, multivariate=True
                )
                trials = [self.study_.ask() for _ in range(min(self.batch, remaining))]
                self._run_batch(trials, executor, runner)
                ran += len(trials)
                if progress is not None:
                    progress(f"trials {finished + len(trials)}/{n_trials} finished")
        return ran

    def _run_batch(self, trials: list[Any], executor: Executor | None, runner: Callable[[RunTask], RunOutcome]) -> None:
        optuna = require("optuna")
        points: list[Point] = []
        point_of: dict[int, int] = {}
        index_of: dict[str, int] = {}
        for trial in trials:
            params = self.space.suggest(trial)
            try:
                scenarios = [self.scenario.with_overrides({**params, **setting}) for setting in self.settings]
            except ConfigError as error:
                trial.set_user_attr("error", str(error))
                self.study_.tell(trial, state=optuna.trial.TrialState.FAIL)
                continue
            label = canonical_json(params)
            if label not in index_of:  # one point per setting of the uncertainties, in the sample's order
                index_of[label] = len(points)
                points.extend(Point({**params, **s}, c) for s, c in zip(self.settings, scenarios, strict=True))
            point_of[trial.number] = index_of[label]
        if not points:
            return
        plan = SweepPlan(tuple(points), n_seeds=self.n_seeds, root_seed=self.seed, per_step=False)
        directory = self.out / "runs" / plan.sweep_id[:16]
        directory.parent.mkdir(exist_ok=True)
        if not directory.exists():
            output.record_nested(self.out, directory)  # the sweep keeps its own record
        report = run_sweep(plan, directory, executor=executor, resume=directory.exists(), progress=False, runner=runner)
        errors = {f["point"]: f["error"] for f in report.failures}
        rows_of = {index: rows for index, _, rows in iter_point_results(directory)}
        for trial in trials:
            if trial.number not in point_of:
                continue
            block = range(point_of[trial.number], point_of[trial.number] + len(self.settings))
            failed = [errors[point] for point in block if point in errors]
            if failed:
                trial.set_user_attr("error", failed[0])
                self.study_.tell(trial, state=optuna.trial.TrialState.FAIL)
                continue
            self._tell(trial, [rows_of[point] for point in block])

    def _tell(self, trial: Any, rows: list[pd.DataFrame]) -> None:
        """Tell Optuna a trial's objectives from its rows in each setting of the uncertainties."""
        optuna = require("optuna")
        values = []
        for i, objective in enumerate(self.objectives):
            per_seed = _per_seed(objective.metric, rows)
            mean, se, n = seed_mean(np.concatenate(per_seed))
            trial.set_user_attr(f"objective_{i}", {"mean": mean, "se": se, "n": n})
            if not objective.measure:
                values.append(objective.value(mean))
                continue
            outcomes = [objective.value(seed_mean(values)[0]) for values in per_seed]
            trial.set_user_attr(f"outcomes_{i}", outcomes)
            if not np.isfinite(outcomes).all():
                values.append(math.nan)
            elif objective.measure == "satisficing":
                share = satisficing(pd.DataFrame([outcomes]), objective.threshold, maximise=objective.maximise)
                values.append(share.iloc[0])
            else:
                values.append(self._regrets(objective, [*self._outcomes(i), outcomes])[-1])
        for i, constraint in enumerate(self.constraints):
            mean, se, _ = seed_mean(np.concatenate(_per_seed(constraint.metric, rows)))
            trial.set_user_attr(f"constraint_{i}", {"mean": mean, "se": se})
            trial.set_constraint(constraint.label, constraint.violation(mean))
        if not np.isfinite(values).all():
            what = "in every seed" if len(rows) == 1 else "in every seed, or a robust objective's in a scenario"
            trial.set_user_attr("error", f"an objective's metric is undefined {what}")
            self.study_.tell(trial, state=optuna.trial.TrialState.FAIL)
            return
        self.study_.tell(trial, values)

    def _outcomes(self, i: int, numbers: Sequence[int] | None = None) -> list[list[float]]:
        """Objective ``i``'s outcome per scenario of the complete trials (those in ``numbers`` if given)."""
        optuna = require("optuna")
        complete = self.study_.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
        by_number = {t.number: t.user_attrs[f"outcomes_{i}"] for t in complete}
        return [by_number[n] for n in (sorted(by_number) if numbers is None else numbers)]

    @staticmethod
    def _regrets(objective: Objective, outcomes: Sequence[Sequence[float]]) -> np.ndarray:
        """The maximum regret of each row of ``outcomes`` (policies × scenarios) against the rows given."""
        if len(outcomes) == 1:  # the only policy compared is the best in every scenario
            return np.zeros(1)
        return regret(pd.DataFrame(outcomes), maximise=objective.maximise).to_numpy().max(axis=1)

    def trials_frame(self) -> pd.DataFrame:
        """Every counted trial: number, state, parameters, objectives with SEs, constraints, feasibility, Pareto.

        Objective columns are named by their labels (``"min |dttr:female|"``), their standard
        errors ``<label>_se``; ``pareto`` marks the feasible complete trials no other dominates.
        The sampler may propose a policy again (a small space, choices only): ``same_as`` is then
        the number of the first trial with the same parameters (``-1`` for a first), and only that
        first one can be on the front, so the front lists each policy once.
        """
        records = []
        first: dict[str, int] = {}
        for t in self.counted_trials():
            record: dict[str, Any] = {"number": t.number, "state": t.state.name}
            params = self.params_of(t.number)
            record |= {k: canonical_json(v) if isinstance(v, dict | list) else v for k, v in params.items()}
            policy = canonical_json(params)
            record["same_as"] = first.setdefault(policy, t.number) if t.state.name == "COMPLETE" else -1
            record["same_as"] = -1 if record["same_as"] == t.number else record["same_as"]
            for i, objective in enumerate(self.objectives):
                attr = t.user_attrs.get(f"objective_{i}", {})
                record[objective.label] = t.values[i] if t.values is not None else np.nan
                record[f"{objective.label}_se"] = np.nan if objective.measure else attr.get("se", np.nan)
                record[f"{objective.metric.label}_mean"] = attr.get("mean", np.nan)
            for i, constraint in enumerate(self.constraints):
                record[constraint.label] = t.user_attrs.get(f"constraint_{i}", {}).get("mean", np.nan)
            record["feasible"] = t.state.name == "COMPLETE" and all(v <= 0 for v in t.constraints.values())
            record["error"] = t.user_attrs.get("error", "")
            records.append(record)
        frame = pd.DataFrame.from_records(records)
        for i, objective in enumerate(self.objectives):
            if objective.measure == "regret" and len(frame):  # against every finished trial, not those before
                frame[f"{objective.label}_told"] = frame[objective.label]
                complete = frame.index[frame["state"] == "COMPLETE"]
                numbers = frame.loc[complete, "number"].astype(int).tolist()
                if numbers:
                    frame.loc[complete, objective.label] = self._regrets(objective, self._outcomes(i, numbers))
        frame["pareto"] = False
        usable = frame.index[frame["feasible"] & (frame["same_as"] < 0)] if len(frame) else frame.index
        if len(usable):
            values = frame.loc[usable, [o.label for o in self.objectives]].to_numpy(dtype=float)
            signs = np.array([-1.0 if o.maximised else 1.0 for o in self.objectives])
            frame.loc[usable, "pareto"] = pareto_mask(values * signs)
        return frame

    def best(self, frame: pd.DataFrame) -> pd.Series | None:
        """The chosen policy among the Pareto trials (``None`` if no trial is feasible).

        One objective: the best value (lowest trial number on ties). Several: the Pareto trial
        nearest the ideal point after scaling each objective to ``[0, 1]`` over the front.
        """
        front = frame[frame["pareto"]].sort_values("number")
        if front.empty:
            return None
        signs = np.array([-1.0 if o.maximised else 1.0 for o in self.objectives])
        values = front[[o.label for o in self.objectives]].to_numpy(dtype=float) * signs
        span = values.max(axis=0) - values.min(axis=0)
        scaled = (values - values.min(axis=0)) / np.where(span > 0, span, 1.0)
        return front.iloc[int(np.argmin(np.sqrt((scaled**2).sum(axis=1))))]

    def write(self, session: Mapping[str, Any] | None = None) -> pd.Series | None:
        """Write the search's files into :attr:`out` (:func:`~recoursesim.policy.search_files.write_search`).

        Returns:
            The chosen trial's row of :meth:`trials_frame` (``None`` if no trial is feasible).
        """
        facts = SearchFacts(
            self.out,
            self.scenario,
            self.identity,
            [o.label for o in self.objectives],
            [c.label for c in self.constraints],
            self.n_seeds,
            [r.key for r in self.uncertainties],
            self.settings,
            self.batch,
            self.seed,
            self.params_of,
        )
        frame = self.trials_frame()
        best = self.best(frame)
        write_search(facts, frame, best, session)
        return best

    def params_of(self, number: int) -> dict[str, Any]:
        """The scenario overrides of trial ``number``."""
        trial = self.study_.trials[number]
        names = {c.key for c in self.space.choices}
        return {k: json.loads(v) if k in names else v for k, v in trial.params.items()}


def _per_seed(metric: MetricSpec, rows: list[pd.DataFrame]) -> list[np.ndarray]:
    metric.check_against(rows[0])
    return [metric.per_seed(r).to_numpy(dtype=float) for r in rows]
