"""Static fairness auditors of recourse; each also runs as a per-step observer.

Subpackages are imported on demand, e.g. ``from recoursesim.auditors.facts import FactsAuditor``.
"""

from __future__ import annotations

__all__: list[str] = []
__all__ += ["ccm", "effort"]  # CCM and equality-of-effort subpackages (imported on demand)
