"""The documentation site's structure: every page is in the nav and every relative link resolves.

``mkdocs build --strict`` (in ``.ci/run``) checks the same and more; these checks are cheap enough
for the default suite, so a page added without a nav entry fails here first.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NAV_PAGE = re.compile(r":\s*([\w./-]+\.md)\s*$", re.M)
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def _nav_pages() -> set[str]:
    text = (ROOT / "mkdocs.yml").read_text()
    return set(NAV_PAGE.findall(text.split("\nnav:", 1)[1]))


def test_every_docs_page_is_in_the_nav_and_every_nav_entry_exists():
    pages = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    nav = _nav_pages()
    assert pages - nav == set(), "add these pages to the nav in mkdocs.yml"
    assert nav - pages == set(), "these nav entries have no page in docs/"


def test_relative_links_between_docs_pages_resolve():
    broken = []
    for page in DOCS.rglob("*.md"):
        for target, _anchor in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto
            if not (page.parent / target).resolve().is_file() or DOCS not in (page.parent / target).resolve().parents:
                broken.append(f"{page.relative_to(DOCS)} -> {target}")
    assert broken == [], "links must point at pages inside docs/"
