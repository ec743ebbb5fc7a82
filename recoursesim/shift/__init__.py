"""What recourse does to the world over time: domain shift, model shift and selection-boundary shift.

Each observer here runs per step like the auditors (``[[observers]] name = "domain_shift"`` and so
on); docs/shift.md defines every metric.
"""

from recoursesim.shift.mmd import MMDResult, median_bandwidth, mmd2_unbiased, mmd_test

__all__ = ["MMDResult", "median_bandwidth", "mmd2_unbiased", "mmd_test"]
