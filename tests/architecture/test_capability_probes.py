"""Every ``getattr``/``hasattr`` in recoursesim/ is listed here with the reason it is a probe and not a type.

An optional part of one of recoursesim's own component protocols is declared once, with its
default, on a class in the kind's ``base.py`` (``found_`` on ``ReportsFound``, which
``RecourseGenerator`` inherits; a trainer's ``order``; a choice policy's ``application_cost``), or
as a typed capability of populations in ``features/capabilities.py``; it is then read through that
class (``isinstance``), never probed by name. The probes that remain are:

- ``foreign``: duck typing of an object recoursesim does not define (a user's or scikit-learn's
  estimator, pandas/numpy objects, an optional library);
- ``by-name``: attribute access by a name held in a variable (parameters, dataclass fields, options);
- ``own``: probes of recoursesim's own components; none remain (:data:`KNOWN_OWN` is empty, and
  a new one fails the suite).

A new probe fails :func:`test_every_probe_is_listed` until it is listed, with its reason, in
``capability_probes.csv`` beside this file; a new probe of a name one of our base classes declares
fails :func:`test_no_probe_of_a_declared_name`, whatever its row says.
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


def probes_in_source(package: Path = PACKAGE) -> Counter[tuple[str, str]]:
    """Count the ``getattr``/``hasattr`` calls of every module, by module and attribute name."""
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted(package.rglob("*.py")):
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
                found[(path.relative_to(package).as_posix(), f"{node.func.id}:{attribute}")] += 1
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
    assert {entry[1] for entry in PROBES.values()} <= {"foreign", "by-name", "own"}
    assert all(entry[2] for entry in PROBES.values())


#: Probes of recoursesim's own components that remain: none (the component lifecycle gives every
#: kind base-class defaults and typed capabilities instead). A new one fails the suite.
KNOWN_OWN: frozenset[tuple[str, str]] = frozenset()

#: Probes of foreign objects for a name that one of our base classes shares: ``Component`` mirrors
#: scikit-learn's ``get_params``/``set_params`` and a population has a ``fit``, but these calls
#: ask a scikit-learn estimator (nested in a component, or the user's).
FOREIGN_NAMESAKES: frozenset[tuple[str, str]] = frozenset(
    {
        ("component.py", "hasattr:get_params"),
        ("component.py", "hasattr:set_params"),
        ("scoring/base.py", "getattr:steps"),  # a scikit-learn Pipeline's steps, not a run's (RunShape.steps)
        ("scoring/fitted.py", "getattr:n_features_in_"),  # the user's estimator (StatesWidth is our scorers')
        ("scoring/model_confine.py", "getattr:n_features_in_"),
        ("scoring/classifier.py", "getattr:steps"),
        ("scoring/tree_tables.py", "getattr:steps"),
        ("scoring/model_confine.py", "hasattr:fit"),
        ("scoring/model_confine.py", "hasattr:get_params"),
        ("training/refit.py", "hasattr:fit"),
        ("training/refit.py", "hasattr:get_params"),
    }
)


def declared_names(package: Path = PACKAGE) -> dict[str, list[str]]:
    """Attribute and method names declared on our base classes, each with the classes that declare it.

    The base classes are :class:`~recoursesim.component.Component` and every ``Protocol`` class
    in the package (each kind's protocol in its ``base.py``, the optional parts it inherits, the
    populations' capabilities).
    """
    declared: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", "") for base in node.bases}
            if "Protocol" not in bases and node.name != "Component":
                continue
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names = [item.target.id]
                elif isinstance(item, ast.FunctionDef):
                    names = [item.name]
                elif isinstance(item, ast.Assign):
                    names = [target.id for target in item.targets if isinstance(target, ast.Name)]
                else:
                    names = []
                for name in names:
                    if not name.startswith("__"):
                        declared.setdefault(name, []).append(f"{path.relative_to(package).as_posix()}:{node.name}")
    return declared


def probes_of_declared_names(
    found: Counter[tuple[str, str]], declared: dict[str, list[str]], exempt: frozenset[tuple[str, str]]
) -> dict[tuple[str, str], list[str]]:
    """The probes (not in ``exempt``) whose attribute one of our base classes declares, with those classes."""
    return {
        (module, probe): declared[probe.partition(":")[2]]
        for module, probe in found
        if probe.partition(":")[2] in declared and (module, probe) not in exempt
    }


def test_no_probe_of_a_declared_name() -> None:
    offending = probes_of_declared_names(probes_in_source(), declared_names(), KNOWN_OWN | FOREIGN_NAMESAKES)
    assert not offending, f"probes of names our base classes declare; read them through the class: {offending}"


def test_own_probes_only_shrink() -> None:
    own = {key for key, entry in PROBES.items() if entry[1] == "own"}
    assert own <= KNOWN_OWN, f"new probes of our own components; declare a default instead: {own - KNOWN_OWN}"
    gone = KNOWN_OWN - own
    assert not gone, f"own probes no longer listed as own; remove them from KNOWN_OWN: {gone}"


def test_the_declared_parts_are_found() -> None:
    declared = declared_names()
    for name, where in [
        ("found_", "recourse/base.py:ReportsFound"),
        ("actions_", "recourse/base.py:KeepsActions"),
        ("order", "refit_order.py:OrdersRefit"),
        ("order", "choice/base.py:FixesLenderOrder"),
        ("application_cost", "choice/base.py:ChargesApplications"),
        ("k", "selection/base.py:HasPlaces"),
        ("labelled_rows", "features/capabilities.py:OffersLabelledRows"),
        ("test_split", "features/capabilities.py:OffersTestSplit"),
        ("group", "features/capabilities.py:NamesGroupColumn"),
        ("get_params", "component.py:Component"),
    ]:
        assert where in declared.get(name, []), (name, where)


def test_a_planted_own_probe_fails(tmp_path: Path) -> None:
    """The check catches a probe of a declared name in a new module, and leaves a foreign one alone."""
    planted = tmp_path / "engine"
    planted.mkdir()
    (planted / "planted.py").write_text(
        "def step(trainer, generator, choice, estimator):\n"
        '    order = getattr(trainer, "order", "spec")\n'
        '    reports = hasattr(generator, "found_")\n'
        '    cost = getattr(choice, "application_cost", 0.0)\n'
        '    proba = hasattr(estimator, "predict_proba")\n'
        "    return order, reports, cost, proba\n",
        encoding="utf-8",
    )
    found = probes_in_source(tmp_path)
    assert sum(found.values()) == 4
    offending = probes_of_declared_names(found, declared_names(), KNOWN_OWN | FOREIGN_NAMESAKES)
    assert set(offending) == {
        ("engine/planted.py", "getattr:order"),
        ("engine/planted.py", "hasattr:found_"),
        ("engine/planted.py", "getattr:application_cost"),
    }
    assert "recourse/base.py:ReportsFound" in offending[("engine/planted.py", "hasattr:found_")]
    # An exemption is by module: the same probe in a module that is not listed is caught.
    assert ("engine/planted.py", "getattr:order") not in KNOWN_OWN
