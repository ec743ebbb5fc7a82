"""A small user CSV (income, years, sex, approved) and the scenario that runs it, for tests of user data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: A scenario on a user CSV; ``{path}`` is the CSV, ``{population}``, ``{scorer}`` and ``{recourse}``
#: are extra lines for those tables (empty by default, see :func:`user_scenario_text`).
USER_SCENARIO = """
[run]
steps = 2
[population]
name = "dataset"
path = "{path}"
target = "approved"
group = "sex"
initial = 30
entrants = 5
{population}
[population.feature_types]
income = "numeric"
years = "integer"
sex = "categorical"
[scorer]
name = "model"
model = "logistic"
{scorer}
[selection]
name = "top_k"
k = 5
[recourse]
name = "search"
action_set = {{ immutable = ["sex"] }}
{recourse}
[behaviour]
name = "bounded_effort"
"""


def people(n: int = 60, nan_row: int | None = None) -> pd.DataFrame:
    """``n`` people drawn with seed 0; with ``nan_row``, that row's income is missing."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "income": rng.normal(30, 5, n).round(1),
            "years": rng.integers(0, 10, n),
            "sex": rng.choice(["f", "m"], n),
            "approved": rng.integers(0, 2, n),
        }
    )
    if nan_row is not None:
        frame.loc[nan_row, "income"] = np.nan
    return frame


def user_scenario_text(data: Path, **parts: str) -> str:
    """The scenario text on the CSV at ``data``, with extra ``population``/``scorer``/``recourse`` lines."""
    return USER_SCENARIO.format(path=data, **{k: parts.get(k, "") for k in ("population", "scorer", "recourse")})
