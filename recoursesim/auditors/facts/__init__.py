"""FACTS: Fairness-aware Counterfactuals for Subgroups (Kavouras et al., 2023).

Audit a binary classifier for subgroup recourse fairness: mine subgroups of the affected
(negatively predicted) individuals of each protected group, mine actions on the unaffected, score
every definition of the paper's Section 2.3 (micro and macro), rank subgroups and explain them
with Comparative Subgroup Counterfactuals.

Example:
    >>> from recoursesim.auditors.facts import FactsAuditor, presets  # doctest: +SKIP
    >>> data = presets.adult()  # doctest: +SKIP
"""

from __future__ import annotations

from recoursesim.auditors.facts import presets
from recoursesim.auditors.facts.auditor import METRICS, FactsAuditor, FactsWarning, MetricVariant
from recoursesim.auditors.facts.config import FactsConfig
from recoursesim.auditors.facts.models import AUDITED_MODELS, FrameEncoder, audit_pipeline
from recoursesim.auditors.facts.observer import FactsObserver
from recoursesim.auditors.facts.report import ComparativeCounterfactual, comparative_counterfactual
from recoursesim.auditors.facts.setup import PaperSetup, paper_setup

__all__ = [
    "AUDITED_MODELS",
    "METRICS",
    "ComparativeCounterfactual",
    "FactsAuditor",
    "FactsConfig",
    "FactsObserver",
    "FactsWarning",
    "FrameEncoder",
    "MetricVariant",
    "PaperSetup",
    "audit_pipeline",
    "comparative_counterfactual",
    "paper_setup",
    "presets",
]
