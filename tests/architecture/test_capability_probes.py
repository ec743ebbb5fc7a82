"""Every ``getattr``/``hasattr`` in recoursesim/ is listed here with the reason it is a probe and not a type.

A capability of one of recoursesim's own components is said by a typed protocol
(``isinstance(population, DescribedBySchema)``) or a base-class attribute of
:class:`recoursesim.component.Component`, not by probing for an attribute name. What remains is:

- ``foreign``: duck typing of an object recoursesim does not define (a user's or scikit-learn's
  estimator, a plug-in component, pandas/numpy objects, an optional library);
- ``by-name``: attribute access by a name held in a variable (parameters, dataclass fields, options).

None is a probe of recoursesim's own components (the last ones became ``WrapsFittedModel``,
``schema_of``, a class attribute and scikit-learn's fitted-state check):
:func:`test_every_reason_is_classified` refuses the class ``own``.

A new probe fails :func:`test_every_probe_is_listed` until it is listed, with its reason, in
``capability_probes.csv`` beside this file.
"""

from __future__ import annotations

import ast
import csv
from collections import Counter
from pathlib import Path

import recoursesim

PACKAGE = Path(recoursesim.__file__).resolve().parent

#: The table of probes: one row per module and ``getattr:attribute`` (``<dynamic>`` for a name held
#: in a variable), with the number of calls, the class and the reason.
TABLE = Path(__file__).with_name("capability_probes.csv")


def _read_probes() -> dict[tuple[str, str], tuple[int, str, str]]:
    """``(module, "getattr:attribute")`` -> (number of calls, class, reason), from :data:`TABLE`."""
    with TABLE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    probes = {(row["module"], row["probe"]): (int(row["calls"]), row["class"], row["reason"]) for row in rows}
    assert len(probes) == len(rows), "a (module, probe) pair is listed twice"
    return probes


PROBES = _read_probes()


def probes_in_source() -> Counter[tuple[str, str]]:
    """Count the ``getattr``/``hasattr`` calls of every module, by module and attribute name."""
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
            ):
                if len(node.args) < 2:
                    continue
                name = node.args[1]
                attribute = name.value if isinstance(name, ast.Constant) else "<dynamic>"
                found[(path.relative_to(PACKAGE).as_posix(), f"{node.func.id}:{attribute}")] += 1
    return found


def test_every_probe_is_listed() -> None:
    found = probes_in_source()
    unlisted = {key: n for key, n in found.items() if PROBES.get(key, (0,))[0] < n}
    assert not unlisted, f"new getattr/hasattr probes; use a protocol or list them with a reason: {unlisted}"


def test_no_listed_probe_is_stale() -> None:
    found = probes_in_source()
    stale = {key: entry[0] for key, entry in PROBES.items() if found.get(key, 0) < entry[0]}
    assert not stale, f"listed probes no longer in the source; lower or remove their entries: {stale}"


def test_every_reason_is_classified() -> None:
    assert {entry[1] for entry in PROBES.values()} <= {"foreign", "by-name"}
    assert all(entry[2] for entry in PROBES.values())
