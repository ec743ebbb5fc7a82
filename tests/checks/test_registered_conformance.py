"""Every conformance check against every registered component, each pair its own test id."""

from __future__ import annotations

import pytest

from recoursesim.checks import registered_cases
from recoursesim.component_index import registered_classes

CASES = registered_cases()
#: DiCE's cases need the optional dice-ml package: they carry the ``dice`` marker.
PARAMS = [pytest.param(case, id=case.id, marks=[pytest.mark.dice] if case.name == "dice" else []) for case in CASES]


@pytest.mark.parametrize("case", PARAMS)
def test_registered_component_conforms(case):
    case.run()


def test_every_kind_with_checks_is_covered():
    kinds = {case.kind for case in CASES}
    assert {"selector", "trainer"} <= kinds
    for kind in kinds:
        covered = {case.name for case in CASES if case.kind == kind}
        assert covered == set(registered_classes(kind))
