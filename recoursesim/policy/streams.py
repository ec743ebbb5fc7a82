"""The random streams of a study that are not a run's: one named stream each, from the root seed.

A study (a sensitivity analysis, a policy search) runs its simulations on the seeds a sweep spawns:
seed ``i`` of every point is ``SeedSequence(root_seed).spawn(n)[i]``, whose spawn key is ``(i,)``.
The study's other draws (the bootstrap of the confidence intervals) come from named streams, the
children of ``SeedSequence(root_seed, spawn_key=(STUDY_KEY,))`` in the order of
:data:`STUDY_STREAMS`, as :func:`recoursesim.rng.run_streams` spawns a run's. No sweep reaches
that spawn key (it holds far fewer runs), so no stream coincides with a run's seed, and a study's
outputs are a pure function of its inputs and its root seed.
"""

from __future__ import annotations

import numpy as np

from recoursesim.rng import integer_seed

#: Spawn key of the study's streams under the root seed; far above any sweep's seed index.
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
