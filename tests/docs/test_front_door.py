"""The README is a front door: short, every link resolves, and the details live in docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_readme_fits_in_fifteen_kilobytes() -> None:
    assert len(README.read_bytes()) <= 15_000


def test_readme_links_resolve() -> None:
    targets = [t for t in LINK.findall(README.read_text(encoding="utf-8")) if "://" not in t]
    assert targets, "the README links to the documentation"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing


def test_every_docs_page_is_in_the_site_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    assert [p for p in pages if p not in nav] == []


def test_architecture_page_draws_the_checked_layers() -> None:
    from tests.architecture.test_contracts import layers

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = page.split("## The layers", 1)[1].split("```mermaid", 1)[1].split("```", 1)[0]
    drawn = re.findall(r"^\s+(\w+)\[\"(\w+): ([^\"]*)\"\]$", drawing, flags=re.M)
    assert all(node == label for node, label, _ in drawn)
    # each layer is drawn with the modules the layers contract of pyproject.toml gives it, lowest first
    assert [[name.strip() for name in listed.split(",")] for _, _, listed in drawn] == layers()
    nodes = [node for node, _, _ in drawn]
    arrows = re.findall(r"^\s+(\w+) --> (\w+)$", drawing, flags=re.M)
    assert arrows == list(zip(nodes[1:], nodes[:-1], strict=True))
