"""Calibration: fit a scenario's parameters to observed per-step, per-group aggregates (ABC-SMC).

:func:`panel_statistics` summarises a run's ledger as a panel (applicants, approvals, re-applicants,
mean score per step and group); :func:`read_panel` reads and checks an observed one; :func:`calibrate`
runs ABC-SMC (pyabc, the ``calibrate`` extra, imported only when a calibration runs) and returns the
posterior, its estimates and the posterior predictive check. See the Calibration page of the docs.
"""

from recoursesim.calibration.calibrate import calibrate, panel_simulator
from recoursesim.calibration.panel import PANEL_STATISTICS, panel_statistics, read_panel
from recoursesim.calibration.posterior import read_posterior
from recoursesim.calibration.result import CALIBRATION_FILES, CalibrationResult
from recoursesim.calibration.simulator import PanelSimulator, flatten

__all__ = [
    "CALIBRATION_FILES",
    "PANEL_STATISTICS",
    "CalibrationResult",
    "PanelSimulator",
    "calibrate",
    "flatten",
    "panel_simulator",
    "panel_statistics",
    "read_panel",
    "read_posterior",
]
