"""MkDocs hook: render the Sphinx cross-reference roles used in docstrings as links.

The docstrings write references the Sphinx way (``:class:`~recoursesim.ledger.Ledger```), which
mkdocstrings shows literally. This hook turns each rendered role into an *optional* autorefs
reference: a link when the target is documented on the site, plain code otherwise. A leading
``~`` shows only the last component of the path, as in Sphinx.
"""

from __future__ import annotations

import html
import re
from typing import Any

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):<code>(?P<target>[^<]+)</code>")


def _reference(match: re.Match[str]) -> str:
    target = html.unescape(match["target"]).strip()
    short = target.startswith("~")
    identifier = target.lstrip("~").rstrip("()")
    title = identifier.rsplit(".", 1)[-1] if short else identifier
    return f'<autoref optional identifier="{html.escape(identifier)}"><code>{html.escape(title)}</code></autoref>'


def on_page_content(html_text: str, **kwargs: Any) -> str:
    """Replace rendered Sphinx roles by optional cross-references (resolved later by autorefs)."""
    return ROLE.sub(_reference, html_text)
