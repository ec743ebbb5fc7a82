"""A report as sections of text, tables and figures, and its rendering to one HTML file or Markdown."""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from recoursesim.output.folder import GENERATOR_COMMENT, GENERATOR_TAG


@dataclass
class ReportFigure:
    """A figure of the report.

    Attributes:
        name: File stem (``etr_ttr_over_time`` → ``etr_ttr_over_time.png`` and ``.svg``).
        figure: The matplotlib figure.
        caption: What it shows, in one sentence.
    """

    name: str
    figure: Figure
    caption: str
    _png: bytes | None = field(default=None, repr=False)

    def png(self) -> bytes:
        """The figure as PNG bytes (rendered once)."""
        if self._png is None:
            buffer = io.BytesIO()
            self.figure.savefig(buffer, format="png", dpi=100)
            self._png = buffer.getvalue()
        return self._png

    def svg(self) -> bytes:
        """The figure as SVG bytes (no timestamps: the same figure gives the same bytes)."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="svg", metadata={"Date": None})
        return buffer.getvalue()


@dataclass
class Section:
    """One section: an id (the HTML anchor), a title, paragraphs, optional tables and figures."""

    id: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[pd.DataFrame] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)


@dataclass
class Report:
    """A whole report."""

    title: str
    sections: list[Section]

    @property
    def figures(self) -> list[ReportFigure]:
        """Every figure, in order."""
        return [f for s in self.sections for f in s.figures]


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } figure { margin: 1em 0; } figcaption { font-size: 0.9em; color: #555; }
img { max-width: 100%; } pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
"""


def _table_html(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, na_rep="n/a", float_format=lambda v: f"{v:.3f}", escape=True)


def _paragraph_html(text: str) -> str:
    if text.startswith("```") and text.endswith("```"):
        return f"<pre>{html.escape(text.strip('`').strip())}</pre>"
    return f"<p>{html.escape(text)}</p>"


def to_html(report: Report) -> str:
    """Render one self-contained HTML page: figures embedded as base64 PNG, no external files."""
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="en"><head><meta charset="utf-8">{GENERATOR_TAG}',
        f"<title>{html.escape(report.title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(report.title)}</h1>",
        "<nav><ul>"
        + "".join(f'<li><a href="#{s.id}">{html.escape(s.title)}</a></li>' for s in report.sections)
        + "</ul></nav>",
    ]
    for section in report.sections:
        parts.append(f'<section id="{section.id}"><h2>{html.escape(section.title)}</h2>')
        parts.extend(_paragraph_html(p) for p in section.paragraphs)
        parts.extend(_table_html(t) for t in section.tables)
        for figure in section.figures:
            data = base64.b64encode(figure.png()).decode("ascii")
            parts.append(
                f'<figure id="fig-{figure.name}"><img alt="{html.escape(figure.caption)}" '
                f'src="data:image/png;base64,{data}"><figcaption>{html.escape(figure.caption)} '
                f"({figure.name}.png)</figcaption></figure>"
            )
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def to_markdown(report: Report, figures_dir: str) -> str:
    """Render Markdown; figures are linked as ``figures_dir/<name>.png`` (written next to the file)."""
    parts = [GENERATOR_COMMENT, f"# {report.title}", ""]
    for section in report.sections:
        parts += [f"## {section.title}", ""]
        for paragraph in section.paragraphs:
            parts += [paragraph, ""]
        for table in section.tables:
            parts += [pipe_table(table), ""]
        for figure in section.figures:
            parts += [f"![{figure.caption}]({figures_dir}/{figure.name}.png)", "", f"*{figure.caption}*", ""]
    return "\n".join(parts)


def pipe_table(table: pd.DataFrame) -> str:
    """A Markdown pipe table of ``table`` (floats with three decimals, NaN as ``n/a``, anything else as text)."""
    header = "| " + " | ".join(str(c) for c in table.columns) + " |"
    rule = "|" + "---|" * len(table.columns)
    rows = [
        "| " + " | ".join(("n/a" if v != v else f"{v:.3f}") if isinstance(v, float) else str(v) for v in row) + " |"
        for row in table.itertuples(index=False)
    ]
    return "\n".join([header, rule, *rows])
