"""Named presets: complete scenario defaults that a scenario file's own keys override."""

from __future__ import annotations

import copy
from typing import Any

#: The paper-compatible setting of Bell et al. (2024), Table 1 baseline (simulation.md §8):
#: T = 20, 1000 initial agents, k = 100, 100 entrants per step, ranker 0.5/0.5, the reference
#: generator, recommendation and behaviour, and the reference code's score-gain ETR.
BELL2024: dict[str, Any] = {
    "run": {"steps": 20, "seed": 0},
    "population": {"name": "bell2024", "initial": 1000, "entrants": 100, "q": 0.0, "effort": "equal"},
    "scorer": {"name": "linear", "weights": [0.5, 0.5], "intercept": 0.0},
    "selection": {"name": "top_k", "k": 100},
    "recourse": {"name": "offset_target", "offset": 0.5, "lower": -0.1, "upper": 1.1, "max_passes": 2},
    "behaviour": {"name": "logit_step"},
    "metrics": {"effort": "score_gain", "reference_group": "advantaged"},
}

PRESETS: dict[str, dict[str, Any]] = {"bell2024": BELL2024}


def apply_preset(preset: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """Return ``spec`` laid over ``preset``.

    Sections merge key by key, except that a section whose ``name`` differs from the preset's
    replaces the preset's section entirely (its parameters belong to another component).
    """
    merged = copy.deepcopy(preset)
    for key, value in spec.items():
        base = merged.get(key)
        if (
            isinstance(value, dict)
            and isinstance(base, dict)
            and value.get("name", base.get("name")) == base.get("name")
        ):
            merged[key] = {**base, **copy.deepcopy(value)}
        else:
            merged[key] = copy.deepcopy(value)
    return merged
