"""Time-resolved fairness reports: one self-contained HTML (or Markdown) file from a results directory.

```python
from recoursesim.report import write_report

write_report("results/bell2024-baseline", "report.html")  # plus report_figures/*.png, *.svg
```

Modules: :mod:`~recoursesim.report.results` (reading and checking run directories),
:mod:`~recoursesim.report.aggregate` (means and CIs across seeds), :mod:`~recoursesim.report.figures`,
:mod:`~recoursesim.report.summary` (the plain-language summary), :mod:`~recoursesim.report.document`
(sections and rendering), :mod:`~recoursesim.report.sections` (one builder per section) and
:mod:`~recoursesim.report.build` (assembling and writing).
"""

from recoursesim.report.build import SECTION_IDS, build_report, write_report
from recoursesim.report.results import Results, SeedRun, load_results

__all__ = ["SECTION_IDS", "Results", "SeedRun", "build_report", "load_results", "write_report"]
