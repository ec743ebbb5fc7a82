"""check_observer catches broken observers (and passes a minimal correct one)."""

import itertools

import numpy as np
import pandas as pd
import pytest

from recoursesim.checks import check_observer
from recoursesim.component import Component
from recoursesim.errors import ConfigError


class MeanScore(Component):
    """A correct minimal observer: the mean score of the waiting agents."""

    def __init__(self, every: int = 1, name: str = "mean_score") -> None:
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ConfigError("every", f"must be a positive integer, got {every!r}", "use 1")
        self.every = every
        self.name = name

    def observe(self, snapshot):
        return {"mean_score": float(np.mean(snapshot.scorer.score(snapshot.features)))}


_counter = itertools.count()


class Drifting(MeanScore):
    def observe(self, snapshot):
        return {"call": float(next(_counter))}  # global state: differs between identical runs


class Unchecked(MeanScore):
    def __init__(self, every: int = 1, name: str = "unchecked") -> None:
        self.every = every
        self.name = name


class AllNaN(MeanScore):
    def observe(self, snapshot):
        return pd.DataFrame({"metric": ["m"], "value": [float("nan")]})


def test_a_correct_observer_passes():
    check_observer(MeanScore)


@pytest.mark.parametrize(
    ("cls", "message"),
    [
        (Drifting, "not deterministic"),
        (Unchecked, r"every=0\) must raise ConfigError"),
        (AllNaN, "every value is NaN"),
    ],
)
def test_broken_observers_fail_naming_the_property(cls, message):
    with pytest.raises(AssertionError, match=message):
        check_observer(cls)
