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

A new probe fails :func:`test_every_probe_is_listed` until it is listed here with its reason.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import recoursesim

PACKAGE = Path(recoursesim.__file__).resolve().parent

#: ``(module, "getattr:attribute")`` -> (number of calls, class, reason).
PROBES: dict[tuple[str, str], tuple[int, str, str]] = {
    ("agent_table.py", "getattr:<dynamic>"): (1, "by-name", "grows each per-agent column array, named in a loop"),
    ("auditors/ccm/report.py", "hasattr:predict_proba"): (1, "foreign", "the user's model may score or only classify"),
    ("auditors/effort/observer.py", "getattr:group"): (
        1,
        "foreign",
        "a plug-in population may not say its group column",
    ),
    ("auditors/facts/apriori.py", "hasattr:bitwise_count"): (1, "foreign", "numpy >= 2.0 feature test"),
    ("auditors/facts/inputs.py", "hasattr:predict"): (1, "foreign", "checks the user's model is a classifier"),
    ("auditors/facts/linear.py", "hasattr:coef_"): (1, "foreign", "a linear scikit-learn model exposes its terms"),
    ("checks/_common.py", "getattr:<dynamic>"): (3, "by-name", "compares dataclass fields and constructor parameters"),
    ("checks/_common.py", "hasattr:<dynamic>"): (1, "by-name", "constructor parameters the object keeps"),
    ("checks/_common.py", "hasattr:__dataclass_fields__"): (1, "foreign", "any dataclass, compared field by field"),
    ("checks/_registered.py", "getattr:check_params"): (
        1,
        "foreign",
        "a plug-in may declare parameters for the checks",
    ),
    ("checks/behaviour.py", "getattr:<dynamic>"): (2, "by-name", "snapshots the context's fields before and after act"),
    ("checks/population.py", "getattr:<dynamic>"): (
        1,
        "by-name",
        "feature_names / group_names of a plug-in population",
    ),
    ("checks/recourse.py", "getattr:actions_"): (1, "foreign", "the conformance check runs on plug-in generators"),
    ("checks/recourse.py", "getattr:found_"): (1, "foreign", "the conformance check runs on plug-in generators"),
    ("checks/recourse.py", "hasattr:is_valid"): (1, "foreign", "a plug-in generator's action set may not check moves"),
    ("checks/scorer.py", "getattr:linear_form"): (1, "foreign", "the conformance check runs on plug-in scorers"),
    ("checks/scorer.py", "getattr:n_features_in_"): (1, "foreign", "the conformance check runs on plug-in scorers"),
    ("checks/scorer.py", "getattr:prepare"): (1, "foreign", "the conformance check runs on plug-in scorers"),
    ("checks/selector.py", "getattr:k"): (1, "foreign", "the conformance check runs on plug-in selectors"),
    ("checks/trainer.py", "getattr:<dynamic>"): (2, "by-name", "snapshots the training context's fields"),
    ("checks/trainer.py", "getattr:score"): (2, "foreign", "a plug-in trainer must return a scorer"),
    ("checks/trainer.py", "hasattr:start"): (1, "foreign", "the conformance check runs on plug-in trainers"),
    ("cli/__init__.py", "getattr:debug"): (1, "foreign", "argparse namespaces of commands without --debug"),
    ("cli/audit_ccm.py", "getattr:<dynamic>"): (1, "by-name", "argparse options read by name"),
    ("cli/audit_effort.py", "getattr:<dynamic>"): (2, "by-name", "argparse options read by name"),
    ("component.py", "getattr:<dynamic>"): (1, "by-name", "get_params reads each constructor parameter"),
    ("component.py", "hasattr:get_params"): (2, "foreign", "nested estimators (scikit-learn convention)"),
    ("component.py", "hasattr:set_params"): (1, "foreign", "nested estimators (scikit-learn convention)"),
    ("component_index.py", "getattr:__name__"): (1, "foreign", "a plug-in's annotation may be any object"),
    ("component_index.py", "getattr:registered_name"): (2, "foreign", "a plug-in class may be registered by hand"),
    ("groundtruth/observer.py", "getattr:<dynamic>"): (1, "by-name", "grows each tracked per-agent array"),
    ("groundtruth/outcome.py", "getattr:codes"): (1, "foreign", "a plug-in population's documented labelled rows"),
    ("groundtruth/outcome.py", "getattr:labelled_rows"): (
        1,
        "foreign",
        "a plug-in population's documented labelled rows",
    ),
    ("groundtruth/outcome.py", "getattr:labels"): (1, "foreign", "a plug-in population's documented labelled rows"),
    ("ledger.py", "getattr:<dynamic>"): (1, "by-name", "the step record's columns, named in a loop"),
    ("mesa_native/scenario.py", "getattr:<dynamic>"): (1, "by-name", "the Mesa model's parameters, named in a list"),
    ("model.py", "getattr:found_"): (1, "foreign", "plug-in generators may not report found_"),
    ("model.py", "getattr:prepare"): (1, "foreign", "plug-in scorers may not need preparing"),
    ("model.py", "hasattr:start"): (1, "foreign", "plug-in trainers may not start"),
    ("populations/bell2024.py", "hasattr:min_"): (1, "by-name", "is-fitted check (scikit-learn manner)"),
    ("populations/binding.py", "getattr:<dynamic>"): (1, "by-name", "constructor parameters of a hand-built component"),
    ("populations/binding.py", "getattr:action_defaults"): (
        1,
        "foreign",
        "a component built by hand may keep no defaults",
    ),
    ("populations/binding.py", "getattr:get_params"): (1, "foreign", "a plug-in component may not be a Component"),
    ("populations/binding.py", "hasattr:<dynamic>"): (1, "by-name", "constructor parameters of a hand-built component"),
    ("populations/dataset.py", "hasattr:pool_rows_"): (1, "by-name", "is-fitted check (scikit-learn manner)"),
    ("populations/dataset.py", "hasattr:train_rows_"): (1, "by-name", "is-fitted check (scikit-learn manner)"),
    ("recourse/exact_linear.py", "getattr:form_cache_"): (
        1,
        "by-name",
        "cache created on first use (pickles without it)",
    ),
    ("recourse/horizon.py", "getattr:actions_"): (1, "foreign", "the wrapped generator may be a plug-in"),
    ("recourse/horizon.py", "hasattr:found_"): (1, "foreign", "the wrapped generator may be a plug-in"),
    ("recourse/horizon.py", "hasattr:is_valid"): (
        1,
        "foreign",
        "the wrapped generator's action set may be a plug-in's",
    ),
    ("recourse/margin.py", "getattr:found_"): (1, "foreign", "the wrapped generator may be a plug-in"),
    ("recourse/worst_case.py", "getattr:estimator"): (1, "foreign", "a plug-in scorer may wrap no estimator"),
    ("recourse/worst_case.py", "getattr:output_"): (1, "foreign", "a plug-in scorer may not say its output"),
    ("refit_order.py", "getattr:order"): (1, "foreign", "a plug-in trainer may not ask for an order"),
    ("registry.py", "getattr:<dynamic>"): (2, "by-name", "an import path's attributes; a kind's protocol method"),
    ("report/figures.py", "hasattr:cat"): (1, "foreign", "pandas categorical column or not"),
    ("report/results.py", "getattr:<dynamic>"): (1, "by-name", "a run's tables named in a loop"),
    ("scenario/assemble.py", "getattr:n_features_in_"): (1, "foreign", "a plug-in scorer may not state its width"),
    ("scenario/tables.py", "hasattr:item"): (1, "foreign", "numpy scalars in a table written back to TOML"),
    ("scoring/base.py", "getattr:estimator"): (1, "foreign", "a plug-in scorer may wrap no estimator"),
    ("scoring/base.py", "getattr:steps"): (1, "foreign", "scikit-learn Pipeline"),
    ("scoring/classifier.py", "getattr:classes_"): (2, "foreign", "scikit-learn classifier's classes"),
    ("scoring/classifier.py", "getattr:coef_"): (3, "foreign", "a linear scikit-learn model's terms"),
    ("scoring/classifier.py", "getattr:feature_names_in_"): (1, "foreign", "scikit-learn: fitted on a DataFrame"),
    ("scoring/classifier.py", "getattr:intercept_"): (3, "foreign", "a linear scikit-learn model's terms"),
    ("scoring/classifier.py", "getattr:probability_link_"): (2, "foreign", "a user's model may state its link"),
    ("scoring/classifier.py", "getattr:steps"): (1, "foreign", "scikit-learn Pipeline"),
    ("scoring/classifier.py", "hasattr:<dynamic>"): (1, "foreign", "the estimator's scoring method, named by output"),
    ("scoring/classifier.py", "hasattr:decision_function"): (1, "foreign", "scikit-learn estimator's methods"),
    ("scoring/classifier.py", "hasattr:predict_proba"): (1, "foreign", "scikit-learn estimator's methods"),
    ("scoring/fitted.py", "getattr:classes_"): (1, "foreign", "the user's fitted model"),
    ("scoring/fitted.py", "getattr:codes"): (1, "foreign", "a plug-in population's rows, if it has them"),
    ("scoring/fitted.py", "getattr:favourable_"): (
        1,
        "foreign",
        "a plug-in population may not name its favourable label",
    ),
    ("scoring/fitted.py", "getattr:feature_names"): (1, "foreign", "the population given may be a plug-in's"),
    ("scoring/fitted.py", "getattr:feature_names_in_"): (1, "foreign", "the user's fitted model"),
    ("scoring/fitted.py", "getattr:n_features_in_"): (1, "foreign", "the user's fitted model"),
    ("scoring/fitted.py", "getattr:target_"): (1, "foreign", "a plug-in population may not name its target"),
    ("scoring/fitted.py", "hasattr:decision_function"): (1, "foreign", "the user's fitted model"),
    ("scoring/fitted.py", "hasattr:predict_proba"): (1, "foreign", "the user's fitted model"),
    ("scoring/tree_tables.py", "getattr:steps"): (1, "foreign", "scikit-learn Pipeline"),
    ("scoring/tree_tables.py", "getattr:_predictors"): (1, "foreign", "scikit-learn's private tree predictors"),
    ("scoring/tabular.py", "getattr:<dynamic>"): (1, "by-name", "the estimator's scoring method, named by output"),
    ("scoring/tabular.py", "getattr:_validate_params"): (1, "foreign", "scikit-learn >= 1.2 parameter check"),
    ("scoring/tabular.py", "hasattr:decision_function"): (1, "foreign", "scikit-learn estimator's methods"),
    ("shift/model_shift.py", "getattr:output_"): (1, "foreign", "a plug-in scorer may not say its output"),
    ("shift/model_shift.py", "getattr:test_split"): (1, "foreign", "a plug-in population's documented held-out rows"),
    ("shift/model_shift.py", "hasattr:<dynamic>"): (1, "foreign", "the dataset population's pool rows, codes, labels"),
    ("training/refit.py", "hasattr:decision_function"): (1, "foreign", "the user's estimator"),
    ("training/refit.py", "hasattr:fit"): (1, "foreign", "the user's estimator"),
    ("training/refit.py", "hasattr:get_params"): (2, "foreign", "the user's estimator"),
    ("training/refit.py", "hasattr:predict_proba"): (2, "foreign", "the user's estimator"),
}


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
