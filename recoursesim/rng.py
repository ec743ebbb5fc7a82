"""Seeding: one run seed, independent named random streams per component.

A run is a pure function of (scenario, seed). Every random draw comes from a
:class:`numpy.random.Generator` built from a child of ``numpy.random.SeedSequence(seed)``.
Streams are keyed by position in :data:`STREAMS`; new streams are only ever appended, so
adding a component never changes the draws of the existing ones.
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
