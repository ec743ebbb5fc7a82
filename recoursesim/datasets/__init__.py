"""Bundled real data sets (Adult, German credit, COMPAS; the FICO score tables), loaded offline with checksum checks.

Every loader reads a gzip-compressed copy shipped inside the package, verifies the SHA-256 of
the decompressed bytes against the original file's digest, and returns a :class:`Dataset`.
Provenance and licences: ``recoursesim/datasets/data/README.md``.
"""

from __future__ import annotations

from recoursesim.datasets.adult import load_adult
from recoursesim.datasets.base import Dataset
from recoursesim.datasets.compas import load_compas
from recoursesim.datasets.fico import FicoTables, load_fico
from recoursesim.datasets.german import load_german

#: Loaders by data set name.
LOADERS = {"adult": load_adult, "german": load_german, "compas": load_compas}

__all__ = ["LOADERS", "Dataset", "FicoTables", "load_adult", "load_compas", "load_fico", "load_german"]
