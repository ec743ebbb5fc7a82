"""Assemble a :class:`Report` from a results directory, and write it (HTML or Markdown, plus PNG/SVG figures)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from recoursesim.errors import ConfigError
from recoursesim.output.atomic import write_atomic
from recoursesim.report.document import Report, to_html, to_markdown
from recoursesim.report.results import Results, load_results
from recoursesim.report.sections import SECTION_BUILDERS, ReportData, figures_section

#: Section ids, in order (the HTML anchors; tests check each is present and non-empty).
SECTION_IDS = (
    "summary",
    "scenario",
    "recourse-over-time",
    "disparities",
    "selection",
    "utility",
    "auditors",
    "durability",
    "boundary",
    "distributions",
    "outcomes",
    "figures",
)


def build_report(results: Results, progress: Callable[[str], None] | None = None) -> Report:
    """Compute every table and figure of the report from ``results``, section by section.

    ``progress`` is told, one line at a time, which section is being built.
    """
    say = progress or (lambda line: None)
    data = ReportData.from_results(results)
    sections = []
    for number, build in enumerate(SECTION_BUILDERS, start=1):
        name = build.__name__.removesuffix("_section").replace("_", " ")
        say(f"report: section {number}/{len(SECTION_BUILDERS)}: {name}")
        if (section := build(data)) is not None:
            sections.append(section)
    sections.append(figures_section(sections))
    n = data.n_seeds
    return Report(f"recoursesim report: {data.scenario.name} ({n} seed{'s' if n != 1 else ''})", sections)


def write_report(
    results_dir: str | Path,
    output: str | Path,
    fmt: str = "html",
    point: int | None = None,
    *,
    progress: Callable[[str], None] | None = None,
) -> tuple[Path, Path, Report]:
    """Read ``results_dir``, build the report and write it to ``output`` with its PNG/SVG figures.

    Nothing is written until the report is built; the figures go through a temporary directory
    and the document through a temporary file, each moved into place only when complete.

    Args:
        results_dir: A results directory (see :func:`~recoursesim.report.results.load_results`).
        output: The report file.
        fmt: ``"html"`` (one self-contained file) or ``"md"`` (Markdown linking the PNGs).
        point: For a sweep directory with several grid points, the one to report on.
        progress: Told what is being done, one line at a time (reading, each section, writing).

    Returns:
        ``(output, figures directory, report)``.

    Raises:
        ConfigError: A bad results directory, format or output path.
    """
    if fmt not in ("html", "md"):
        raise ConfigError("--format", f"unknown {fmt!r}", "use html or md")
    output = Path(output)
    if output.exists() and output.is_dir():
        raise ConfigError("--html", f"{output} is a directory", "give a file path such as report.html")
    if not output.resolve().parent.exists():
        raise ConfigError("--html", f"the directory of {output} does not exist", "create it or choose another path")
    figures_dir = output.with_name(f"{output.stem}_figures")
    if figures_dir.exists() and not figures_dir.is_dir():
        raise ConfigError("--html", f"{figures_dir} (for the figures) is a file", "move it or choose another path")
    say = progress or (lambda line: None)
    say(f"report: reading the runs in {results_dir}")
    report = build_report(load_results(results_dir, point), progress)
    say(f"report: writing {len(report.figures)} figures (PNG and SVG) and {output}")
    text = to_html(report) if fmt == "html" else to_markdown(report, figures_dir.name)
    tmp = Path(tempfile.mkdtemp(prefix=f".{figures_dir.name}.tmp-", dir=figures_dir.resolve().parent))
    try:
        for figure in report.figures:
            (tmp / f"{figure.name}.png").write_bytes(figure.png())
            (tmp / f"{figure.name}.svg").write_bytes(figure.svg())
        figures_dir.mkdir(exist_ok=True)
        for item in sorted(tmp.iterdir()):
            os.replace(item, figures_dir / item.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_atomic(output, text.encode("utf-8"))
    return output, figures_dir, report
