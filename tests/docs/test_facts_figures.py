"""docs/facts.md's figures on the bundled data are what the audits give now (re-run here, about 12 s of CPU)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recoursesim.reproductions import facts_figures
from recoursesim.reproductions.facts_figures import Case, Figures, markdown_table, subsets_sentence

PAGE = Path(__file__).resolve().parents[2] / "docs" / "facts.md"
MARKER = re.compile(r"<!-- made by: python -m recoursesim.reproductions.facts_figures -->\n((?:\|.*\n)+)")


def test_table_and_sentence_by_hand() -> None:
    case = Case("german", "German credit", "sex", 0.2)
    figures = Figures(
        case, {"female": 31, "male": 1046}, 1144, 341, 396, 0, (1.0, 4.5, 21.149999), "valid_action_costs"
    )
    assert markdown_table([figures]).splitlines()[2] == (
        "| German credit, sex, 20% | 1,077 (31 female / 1,046 male) | 1,144 | 341 | 396 "
        "| 1, 4.5, 21.15 (fallback rule, with a warning) |"
    )
    other = Figures(Case("adult", "Adult", "sex", 0.1), {"a": 1, "b": 2}, 3, 2, 2390, 5656, (), "none")
    assert subsets_sentence([figures, other]) == (
        'With `actions="subsets"` the same runs have 396 (German credit, 20%) and 2,390 (Adult, 10%) '
        "distinct pairs after merging 0 and 5,656 repeats."
    )


@pytest.fixture(scope="module")
def figures() -> tuple[list[Figures], list[Figures]]:
    return facts_figures.all_figures()


def test_the_docs_table_is_the_audits(figures: tuple[list[Figures], list[Figures]]) -> None:
    (block,) = MARKER.findall(PAGE.read_text(encoding="utf-8"))
    assert markdown_table(figures[0]).splitlines() == block.strip("\n").splitlines()


def test_the_docs_sentences_are_the_audits(figures: tuple[list[Figures], list[Figures]]) -> None:
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    paper, subsets = figures
    assert all(f.merged_pairs == 0 for f in paper) and "(0 merged on all five)" in text
    assert subsets_sentence(subsets) in text
