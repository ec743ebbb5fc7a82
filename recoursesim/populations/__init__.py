"""Population generators: who enters the system, with which features and effort."""

from recoursesim.populations.base import Cohort, FoldedNormal, PopulationGenerator, allocate
from recoursesim.populations.bell2024 import EFFORT_CONDITIONS, Bell2024Population
from recoursesim.populations.dataset import DatasetPopulation
from recoursesim.populations.fico import FicoPopulation
from recoursesim.populations.mixture import MixturePopulation, NormalMixture

__all__ = [
    "EFFORT_CONDITIONS",
    "Bell2024Population",
    "Cohort",
    "DatasetPopulation",
    "FicoPopulation",
    "FoldedNormal",
    "MixturePopulation",
    "NormalMixture",
    "PopulationGenerator",
    "allocate",
]
