"""Reproductions of published results: each paper's experiment logic, importable by scripts and tests.

* :mod:`~recoursesim.reproductions.bell2024`: Bell et al. (2024) Table 1 (paper values, the sweep,
  the comparison); :mod:`~recoursesim.reproductions.bell2024_table1` is its command line.
* :mod:`~recoursesim.reproductions.gupta_toy`: Gupta et al. (2019)'s group recourse SVM on a
  hand-checkable toy.
* :mod:`~recoursesim.reproductions.eoe_synthetic`, :mod:`~recoursesim.reproductions.eoe_german`:
  equality of effort (Raimondi et al.).
* :mod:`~recoursesim.reproductions.ccm_adult`: the counterfactual confusion matrix on Adult.
* :mod:`~recoursesim.reproductions.real_data`: recourse dynamics on the bundled real-data scenarios.
* :mod:`~recoursesim.reproductions.facts_adult`: FACTS on Adult (Kavouras et al.'s Table 1 style).

The scripts in the repository's ``experiments/`` folder are thin: they parse arguments and call these modules.
"""
