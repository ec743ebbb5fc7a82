"""Every conformance check against every registered component, each pair its own test id."""

from __future__ import annotations

import pytest

from recoursesim import registry
from recoursesim.checks import registered_cases

CASES = registered_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_registered_component_conforms(case):
    case.run()


def test_every_kind_with_checks_is_covered():
    kinds = {case.kind for case in CASES}
    assert {"selector", "trainer"} <= kinds
    for kind in kinds:
        covered = {case.name for case in CASES if case.kind == kind}
        primaries = {getattr(registry.lookup(kind, name), "registered_name", name) for name in registry.names(kind)}
        assert covered == primaries
