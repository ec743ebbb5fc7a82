"""Seeding: one run seed, independent named random streams per component.

A run is a pure function of (scenario, seed). Every random draw comes from a
:class:`numpy.random.Generator` built from a child of ``numpy.random.SeedSequence(seed)``.
Streams are keyed by position in :data:`STREAMS`; new streams are only ever appended, so
adding a component never changes the draws of the existing ones.

A study (a sensitivity analysis, a policy search) runs its simulations on the seeds a sweep spawns:
seed ``i`` of every point is ``SeedSequence(root_seed).spawn(n)[i]``, whose spawn key is ``(i,)``.
The study's other draws (the bootstrap of the confidence intervals) come from named streams too,
the children of ``SeedSequence(root_seed, spawn_key=(STUDY_KEY,))`` in the order of
:data:`STUDY_STREAMS`. No sweep reaches that spawn key (it holds far fewer runs), so no study
stream coincides with a run's seed, and a study's outputs are a pure function of its inputs and
its root seed.
"""

from __future__ import annotations

import numpy as np

#: Names of the per-run streams, in spawn order. Append only.
STREAMS: tuple[str, ...] = (
    "population",  # initial population and the bell2024 scaler sample
    "entrants",  # agents that join after each step
    "behaviour",  # effort draws while acting
    "selection",  # selectors that randomise (none of the built-in ones do)
    "training",  # retraining / augmentation sampling and estimator seeds
    "observers",  # auditors run as per-step observers
    "mesa",  # seeds the Mesa model's own rng/random (AgentSet shuffles)
    "outcome",  # whether each granted loan is repaid (models with an outcome component)
    "choice",  # where applicants apply in a market of several lenders (choice policies that randomise)
)


def run_streams(seed: int | np.random.SeedSequence) -> dict[str, np.random.Generator]:
    """Spawn the named random streams of one run.

    Args:
        seed: The run seed (a non-negative integer) or a ``SeedSequence`` (as spawned by a sweep).

    Returns:
        A mapping from each name in :data:`STREAMS` to an independent generator.
    """
    if isinstance(seed, np.random.SeedSequence):
        # A fresh copy: spawning advances a SeedSequence, and the caller's must not change.
        root = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size)
    else:
        root = np.random.SeedSequence(seed)
    children = root.spawn(len(STREAMS))
    return {name: np.random.default_rng(child) for name, child in zip(STREAMS, children, strict=True)}


def integer_seed(rng: np.random.Generator) -> int:
    """Draw an integer seed for a library that wants one (scikit-learn's ``random_state``)."""
    return int(rng.integers(0, 2**31 - 1))


#: Spawn key of a study's streams under its root seed; far above any sweep's seed index.
STUDY_KEY = 2**32 - 1
#: Names of a study's streams, in spawn order. Append only: a new stream never changes the others.
STUDY_STREAMS: tuple[str, ...] = ("bootstrap",)  # SALib's resampling of the sensitivity indices


def study_seed(root_seed: int, name: str) -> int:
    """The integer seed of the study stream ``name`` under ``root_seed``, for a library that wants one.

    Never 0: SALib's Sobol analysis takes a seed of 0 for none and then resamples unseeded.

    Args:
        root_seed: The study's root seed (a non-negative integer, ``--root-seed``).
        name: One of :data:`STUDY_STREAMS`.

    Returns:
        A seed in ``[1, 2**31 - 1)``, the same for the same arguments.

    Raises:
        ValueError: ``name`` is not a study stream.
    """
    if name not in STUDY_STREAMS:
        raise ValueError(f"{name!r} is not a study stream ({', '.join(STUDY_STREAMS)})")
    children = np.random.SeedSequence(root_seed, spawn_key=(STUDY_KEY,)).spawn(len(STUDY_STREAMS))
    return integer_seed(np.random.default_rng(children[STUDY_STREAMS.index(name)])) or 1
