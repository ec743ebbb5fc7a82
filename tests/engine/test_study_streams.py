"""The study's named streams: fixed by the root seed, apart from one another and from the runs' seeds."""

import numpy as np
import pytest

from recoursesim.resources import MAX_SWEEP_RUNS
from recoursesim.rng import STUDY_KEY, STUDY_STREAMS, study_seed


def test_a_stream_is_a_function_of_the_root_seed():
    assert study_seed(0, "bootstrap") == study_seed(0, "bootstrap")
    assert study_seed(0, "bootstrap") != study_seed(1, "bootstrap")
    assert all(study_seed(root, "bootstrap") >= 1 for root in range(50))  # 0 would mean "unseeded" to SALib


def test_the_value_by_hand():
    child = np.random.SeedSequence(7, spawn_key=(STUDY_KEY,)).spawn(len(STUDY_STREAMS))[0]
    assert study_seed(7, "bootstrap") == int(np.random.default_rng(child).integers(0, 2**31 - 1))


def test_no_sweep_seed_reaches_the_study_key():
    assert STUDY_KEY > MAX_SWEEP_RUNS


def test_an_unknown_stream_is_refused():
    with pytest.raises(ValueError, match="'nope' is not a study stream"):
        study_seed(0, "nope")
