"""Clip intervals (``lower <= upper``) are checked in one place, with one-line errors naming the bound."""

from __future__ import annotations

import pytest

from recoursesim._validate import check_interval
from recoursesim.behaviour.logit_step import LogitStepBehaviour
from recoursesim.errors import ConfigError
from recoursesim.recourse.offset_target import OffsetTargetRecourse


def test_check_interval_by_hand() -> None:
    assert check_interval(0, 1) == (0.0, 1.0) and check_interval(-0.5, -0.5) == (-0.5, -0.5)
    with pytest.raises(ConfigError, match=r"^upper: is below lower; fix: make upper >= lower$"):
        check_interval(1.0, 0.0)
    with pytest.raises(ConfigError, match=r"^high: is below low"):
        check_interval(2, 1, ("low", "high"))
    with pytest.raises(ConfigError, match=r"^lower: must be a number"):
        check_interval("a", 1.0)


@pytest.mark.parametrize("component", [LogitStepBehaviour, OffsetTargetRecourse])
def test_components_refuse_an_empty_clip_interval(component: type) -> None:
    with pytest.raises(ConfigError, match=r"^upper: is below lower"):
        component(lower=0.5, upper=0.2)
    built = component(lower=0.2, upper=0.5)
    assert (built.lower, built.upper, built._lower, built._upper) == (0.2, 0.5, 0.2, 0.5)
