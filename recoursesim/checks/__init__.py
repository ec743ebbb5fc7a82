"""Conformance suites for plug-ins, in the spirit of scikit-learn's estimator checks.

Every component shipped with recoursesim passes these, and a user's plug-in should too::

    from recoursesim.checks import check_selector, check_trainer
    check_selector(MySelector(k=10))
    check_trainer(lambda: MyTrainer())

There is one module per component kind (``recoursesim.checks.selector``, ``.trainer``, ...); each
defines ``CHECKS``, a tuple of individual checks ``check(factory, seed)``, and a ``check_<kind>``
function running all of them. :func:`registered_cases` applies every check to every registered
component (one case per pair, for a parametrised test). Each check raises ``AssertionError`` with
a message naming the failed property.
"""

from recoursesim.checks._registered import EXAMPLE_PARAMS, Case, registered_cases
from recoursesim.checks.behaviour import check_behaviour
from recoursesim.checks.choice import check_choice
from recoursesim.checks.observer import check_observer
from recoursesim.checks.outcome import check_outcome
from recoursesim.checks.population import check_population
from recoursesim.checks.recourse import check_recourse
from recoursesim.checks.scorer import check_scorer
from recoursesim.checks.selector import check_selector
from recoursesim.checks.trainer import check_trainer

__all__ = [
    "EXAMPLE_PARAMS",
    "Case",
    "check_behaviour",
    "check_choice",
    "check_observer",
    "check_outcome",
    "check_population",
    "check_recourse",
    "check_scorer",
    "check_selector",
    "check_trainer",
    "registered_cases",
]
