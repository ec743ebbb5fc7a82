"""The files a policy search writes: its trials, the Pareto front and its figure, runnable policies, notes.

Each is written atomically and recorded in the directory's record of what recoursesim wrote
(:mod:`recoursesim.output.record`) as soon as it is complete, so ``--overwrite`` may later replace the
whole search and ``--resume`` refuses, before any trial, a file the user changed or added.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from recoursesim import output
from recoursesim.ledger import write_parquet
from recoursesim.output import replacing
from recoursesim.scenario import Scenario

#: The study's database (Optuna's SQLite storage), in the search's directory.
STUDY_FILE = "study.db"

#: Files a policy search writes into its directory, and what each holds.
OPTIMISE_FILES = {
    STUDY_FILE: "the Optuna study (SQLite); --resume continues it",
    "runs/": "one sweep directory per batch of trials (one Parquet shard per run)",
    "trials.parquet": "one row per trial: parameters, objectives with standard errors, constraints, Pareto flag",
    "pareto.parquet": "the Pareto-optimal feasible trials",
    "pareto.png": "objectives of every trial, the Pareto front with ±1 SE (one objective: the search history)",
    "best-policy.toml": "the chosen policy as a runnable scenario file",
    "front/": "every Pareto-optimal policy as a runnable scenario file",
    "optimise.json": "the search options, the chosen trial and timing",
}
#: The files :meth:`PolicySearch.write` writes again at the end of every session.
REWRITTEN = (
    "trials.parquet",
    "pareto.parquet",
    "pareto.png",
    "best-policy.toml",
    "front/trial-*.toml",
    "optimise.json",
)


@dataclass(frozen=True)
class SearchFacts:
    """What a policy search's files say about it: the figure's title, the policies' comments, ``optimise.json``.

    Attributes:
        out: The search's directory.
        scenario: The base scenario.
        identity: The search's identity (its options' digest).
        objectives: The objectives' labels.
        constraints: The constraints' labels.
        n_seeds: Seeds per trial.
        uncertainties: The uncertain fields (empty: none).
        settings: The settings of the uncertainties each trial runs over.
        batch: Trials asked and run together.
        seed: The root seed.
        params_of: Trial number -> its scenario overrides.
    """

    out: Path
    scenario: Scenario
    identity: str
    objectives: list[str]
    constraints: list[str]
    n_seeds: int
    uncertainties: list[str]
    settings: list[dict[str, Any]]
    batch: int
    seed: int
    params_of: Callable[[int], dict[str, Any]]


def write_search(
    search: SearchFacts,
    frame: pd.DataFrame,
    best: pd.Series | None,
    session: Mapping[str, Any] | None = None,
) -> None:
    """Write the trials, the front, its figure, the chosen policies and the notes into ``search.out``.

    Each file (:data:`OPTIMISE_FILES`) is written atomically and recorded as recoursesim's
    (:mod:`recoursesim.output.record`) as soon as it is complete. The policy files an earlier write
    left (``front/``, ``best-policy.toml``) are removed first, so only the current front is there.

    Args:
        search: What the files say about the search.
        frame: One row per trial (``PolicySearch.trials_frame``).
        best: The chosen trial's row of ``frame`` (``None`` if no trial is feasible).
        session: What the caller adds to ``optimise.json``, e.g. the trials asked for and the timing.

    Raises:
        ConfigError: one of those files is there but recoursesim did not write it, or it was
            changed since (nothing is written; the trials are kept in the study).
    """
    from recoursesim.policy.figures import pareto_figure

    earlier = output.check_own_files(search.out, REWRITTEN, folders=("front",))
    front = frame[frame["pareto"]]
    for table, name in ((frame, "trials.parquet"), (front, "pareto.parquet")):
        write_parquet(table, search.out / name)
        output.record_file(search.out, search.out / name)
    labels = search.objectives
    complete = frame[frame["state"] == "COMPLETE"]
    scenarios = f" × {len(search.settings)} scenarios" if search.uncertainties else ""
    seeds = f"{search.n_seeds} seed{'s' * (search.n_seeds != 1)}"
    title = f"{search.scenario.name}: {len(complete)} trials{scenarios} × {seeds}; " + (
        f"{labels[0]} per trial" if len(labels) == 1 else f"Pareto front of {labels[0]} and {labels[1]}"
    )
    with replacing(search.out / "pareto.png") as tmp:
        pareto_figure(complete, labels, title=title).savefig(tmp, dpi=110, format="png")
    output.record_file(search.out, search.out / "pareto.png")
    (search.out / "front").mkdir(exist_ok=True)
    for path in earlier:
        if path.suffix == ".toml":
            path.unlink()
    for number in front["number"].astype(int):
        _write_policy(search, f"front/trial-{number}.toml", number, "Pareto-optimal policy")
    if best is not None:
        number = int(best["number"])
        values = ", ".join(
            f"{label} = {best[label]:.4g}" + (f" ± {se:.2g} (SE)" if pd.notna(se := best[f"{label}_se"]) else "")
            for label in labels
        )
        _write_policy(search, "best-policy.toml", number, "Chosen policy", values)
    notes = {
        "scenario": search.scenario.name,
        "search": search.identity,
        "objectives": labels,
        "constraints": search.constraints,
        **(session or {}),
        "seeds": search.n_seeds,
        **({"uncertainties": search.uncertainties, "scenarios": search.settings} if scenarios else {}),
        "batch": search.batch,
        "root_seed": search.seed,
        "best_trial": None if best is None else int(best["number"]),
        "files": OPTIMISE_FILES,
    }
    output.write_recorded(search.out, search.out / "optimise.json", (json.dumps(notes, indent=2) + "\n").encode())


def _write_policy(search: SearchFacts, name: str, number: int, what: str, values: str = "") -> None:
    """Write trial ``number``'s policy as a runnable scenario file ``name`` in the search's directory."""
    note = f"{what}: trial {number} of policy search {search.identity} of scenario {search.scenario.name!r}"
    toml = policy_toml(search.scenario, search.params_of(number), f"{note}\n{values}".rstrip(), trial=number)
    output.write_recorded(search.out, search.out / name, toml.encode("utf-8"))


def policy_toml(scenario: Scenario, params: dict[str, Any], note: str, *, trial: int | None = None) -> str:
    """The scenario with ``params`` applied, as a runnable TOML file (``note`` as a leading comment).

    The policy is another scenario than the one searched: its ``name`` is the searched one's with
    ``-trial-<N>`` added (``-policy`` without a trial number), so running it writes its own
    results folder, and its ``description`` says which parameters the search set.
    """
    comment = "".join(f"# {line}".rstrip() + "\n" for line in note.splitlines())
    settings = ", ".join(f"{key} = {_plain(value)}" for key, value in sorted(params.items()))
    own = {
        "name": f"{scenario.name}-{'policy' if trial is None else f'trial-{trial}'}",
        "description": f"{scenario.name} with the policy search's {settings or 'defaults'}"
        + ("" if trial is None else f" (trial {trial})"),
    }
    return comment + scenario.with_overrides({**params, **own}).to_toml()


def _plain(value: Any) -> str:
    """A parameter's value as a scenario file writes it (strings quoted)."""
    return json.dumps(value) if isinstance(value, str | dict | list) else str(value)
