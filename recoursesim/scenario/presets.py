"""Named presets: complete scenario defaults that a scenario file's own keys override."""

from __future__ import annotations

from typing import Any

from recoursesim.scenario.merge import merge_scenarios

#: The paper-compatible setting of Bell et al. (2024), Table 1 baseline (docs/model.md, "The bell2024 preset"):
#: T = 20, 1000 initial agents, k = 100, 100 entrants per step, ranker 0.5/0.5, the reference
#: generator, recommendation and behaviour, and the reference code's score-gain ETR.
BELL2024: dict[str, Any] = {
    "run": {"steps": 20, "seed": 0},
    # high_fraction = k / (2 · initial): 50 high performers per group among the 1000 initial agents.
    "population": {
        "name": "bell2024",
        "initial": 1000,
        "entrants": 100,
        "q": 0.0,
        "effort": "equal",
        "high_fraction": 0.05,
    },
    "scorer": {"name": "linear", "weights": [0.5, 0.5], "intercept": 0.0},
    "selection": {"name": "top_k", "k": 100},
    "recourse": {"name": "offset_target", "offset": 0.5, "lower": -0.1, "upper": 1.1, "max_passes": 2},
    "behaviour": {"name": "logit_step"},
    "metrics": {"effort": "score_gain", "reference_group": "advantaged"},
}


_CNS = {"name": "cns", "k": 100, "quota": "equal", "threshold": "max"}
_BOUNDED_PROJECTION = {"name": "linear", "action_set": {"lower": [-0.1, -0.1], "upper": [1.1, 1.1]}}

#: The paper's mitigation columns, as the authors' code ran them (docs/reproduction.md).
_BELL2024_STRATEGIES: dict[str, dict[str, Any]] = {
    # CNS: k/2 places per group; recommendations aim at the higher of the groups' cut-offs.
    "bell2024-cns": {"selection": _CNS},
    # CDA: a logistic regression first fitted on 1[f(x) > 0.5]; from the second step on, refitted right
    # after the outcomes on the population plus counterfactuals of the negatives (kept even when the
    # action set's bounds stop them short of the cut-off); the step's threshold is restated under the
    # refitted model, and agents move toward its recommendations, which land at probability s_t.
    "bell2024-cda": {
        "training": {"name": "cda", "initial_threshold": 0.5, "order": "refit_then_restate", "drop_short": False},
        "recourse": _BOUNDED_PROJECTION,
    },
    # CNS + CDA: the same order; the recourse puts counterfactuals at log-odds s_t - 0.5 (the ranker's
    # offset applied to the logistic margin, i.e. the preset's offset_target recourse).
    "bell2024-cns-cda": {
        "selection": _CNS,
        "training": {"name": "cda", "initial_threshold": 0.5, "order": "refit_then_restate", "drop_short": False},
    },
    # Gupta et al.'s group recourse regularisation as published, logistic variant, lambda = 0.1 (our
    # choice: at lambda = 1 the penalty dominates and the model ranks on the noise feature).
    "bell2024-gupta": {
        "training": {"name": "gupta", "model": "logistic", "lam": 0.1, "initial_threshold": 0.5},
        "recourse": _BOUNDED_PROJECTION,
    },
}

#: Every named preset: ``bell2024`` (the baseline) and one per mitigation column of the paper.
PRESETS: dict[str, dict[str, Any]] = {
    "bell2024": BELL2024,
    **{name: merge_scenarios(BELL2024, overrides) for name, overrides in _BELL2024_STRATEGIES.items()},
}
