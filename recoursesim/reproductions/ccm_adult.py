"""CCM and ECCM by sex on Adult (5-fold CV), with a logistic or a boosted model, beside the published values.

The original study's Adult experiment: each of five stratified folds is counterfactualised once
with the other four as reference and training set; the ECCM counts of the test folds are summed
and the metrics derived from the sums. Two counterfactual worlds: "naive" flips only sex (the
published setting) and "greedy" lets every feature change by quantile mapping and binary flipping.

``--model gbm`` is the published kind of model (LightGBM): LightGBM's ``LGBMClassifier`` when the
optional package is installed (``pip install 'recoursesim[lightgbm]'``), otherwise scikit-learn's
``HistGradientBoostingClassifier``; ``--gbm-library`` forces one. Both run with their library
defaults and the run's seed, because the published hyper-parameters are not known.
``--model logistic`` is a standardised logistic regression; ``--model all`` runs LightGBM,
scikit-learn's booster and the logistic regression (it needs LightGBM).

The run's per-model, per-world, per-scope results are written as ``adult_ccm_report.csv`` (kept,
gzipped, in ``experiments/runs/ccm_adult.csv.gz``) and :func:`markdown_table` makes the docs'
tables from them, beside the published values (:data:`PUBLISHED_TABLE12`).

Usage:
    python experiments/ccm_adult.py --model all --out results/ccm_adult
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder

from recoursesim.auditors.ccm.crossval import cross_validated_ccm
from recoursesim.auditors.ccm.report import ccm_parity
from recoursesim.auditors.ccm.tabular import EncodedTable, encode_table, logistic_model
from recoursesim.cli._common import Parser, non_negative_int, positive_int
from recoursesim.cli.audit_ccm import format_report
from recoursesim.datasets import load_adult
from recoursesim.errors import ConfigError
from recoursesim.output import atomic_output_dir
from recoursesim.report.document import pipe_table

WORLDS: dict[str, list[str] | None] = {"naive": [], "greedy": None}

#: The rows of the published Adult table (the original study's Table 12), in its order; rates in %.
PAPER_TABLE_METRICS = ("ACC", "TPR", "TNR", "CMCC", "PSR", "NSR", "TNSR", "FPSR", "RMSCD", "JSCD")
#: The score metrics (not rates), and their decimals in the docs' tables (rates in % get one); JSCD is small here.
_SCORE_DIGITS = {"RMSCD": 3, "JSCD": 4}
_SCORE_METRICS = tuple(_SCORE_DIGITS)

#: The published values of the Adult experiment (Table 12, LightGBM model, naive world), as printed
#: there: metric -> (Total, Female→Male, Male→Female); rates in %.
PUBLISHED_TABLE12: dict[str, tuple[str, str, str]] = {
    "ACC": ("87.0", "93.3", "83.7"),
    "TPR": ("66.1", "58.6", "67.6"),
    "TNR": ("93.8", "98.0", "90.9"),
    "CMCC": ("90.5", "86.6", "90.7"),
    "PSR": ("2.2", "0.7", "3.2"),
    "NSR": ("6.7", "16.2", "5.1"),
    "TNSR": ("1.4", "0.4", "2.0"),
    "FPSR": ("14.7", "37.5", "11.4"),
    "RMSCD": ("0.054", "0.059", "0.052"),
    "JSCD": ("0.079", "0.130", "0.062"),
}

#: The report's scopes in the published table's order, and their short column labels.
SCOPES: dict[str, str] = {"Total": "Total", "Female→Male": "F→M", "Male→Female": "M→F"}

#: Model names of the kept runs (the ``model`` column) and how the tables name them.
MODEL_LABELS: dict[str, str] = {"lightgbm": "LightGBM", "sklearn": "scikit-learn", "logistic": "logistic"}


def gbm_library(requested: str) -> str:
    """Resolve ``auto`` to ``lightgbm`` when it is installed, else ``sklearn``; check an explicit choice."""
    installed = importlib.util.find_spec("lightgbm") is not None
    if requested == "auto":
        return "lightgbm" if installed else "sklearn"
    if requested == "lightgbm" and not installed:
        raise ConfigError(
            "--gbm-library", "lightgbm needs LightGBM, which is not installed", "pip install 'recoursesim[lightgbm]'"
        )
    return requested


def gbm_model(library: str, seed: int) -> Callable[[EncodedTable], Pipeline]:
    """A factory of unfitted boosted-tree pipelines reading the encoded features and the one-hot group.

    Args:
        library: ``"sklearn"`` (``HistGradientBoostingClassifier``) or ``"lightgbm"`` (``LGBMClassifier``).
        seed: The model's random state.

    Returns:
        A function of the encoded table, as :func:`cross_validated_ccm` takes it.
    """

    def build(table: EncodedTable) -> Pipeline:
        estimator: Any
        if library == "lightgbm":
            from lightgbm import LGBMClassifier

            estimator = LGBMClassifier(random_state=seed, verbose=-1)
        else:
            estimator = HistGradientBoostingClassifier(random_state=seed)
        encode = ColumnTransformer(
            [("sensitive", OneHotEncoder(handle_unknown="ignore"), [table.sensitive])],
            remainder="passthrough",
            verbose_feature_names_out=False,
        )
        return make_pipeline(encode, estimator)

    return build


def paper_table(report: pd.DataFrame) -> pd.DataFrame:
    """The report's Total and two directions in the published table's layout: rates in %, score metrics as they are."""
    table = report.set_index("scope")[list(PAPER_TABLE_METRICS)].T
    rates = ~table.index.isin(_SCORE_METRICS)
    table.loc[rates] = table.loc[rates] * 100
    return table.round(3)


def model_factory(model: str, seed: int) -> tuple[Callable[[EncodedTable], Any], str]:
    """The model factory of a model name of :data:`MODEL_LABELS`, and a description of it for the output."""
    if model == "logistic":
        return logistic_model, "logistic regression (standardised, max_iter=1000)"
    name = "LightGBM LGBMClassifier" if model == "lightgbm" else "scikit-learn HistGradientBoostingClassifier"
    return gbm_model(model, seed), f"{name} (library defaults, random_state={seed})"


def chosen_models(model: str, library: str) -> list[str]:
    """The models a run fits: ``--model all`` is every model of :data:`MODEL_LABELS` (LightGBM must be installed)."""
    if model == "all":
        gbm_library("lightgbm")
        return list(MODEL_LABELS)
    return ["logistic"] if model == "logistic" else [gbm_library(library)]


def run_model(table: EncodedTable, model: str, folds: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Cross-validated CCM of ``model`` in every world; print it; return the report and parity rows.

    Args:
        table: The encoded Adult table (group: sex).
        model: A model name of :data:`MODEL_LABELS`.
        folds: Number of stratified folds.
        seed: The folds' shuffle seed and the model's random state.

    Returns:
        The report (one row per world and scope, with ``world`` and ``model`` columns) and the parities.
    """
    factory, description = model_factory(model, seed)
    print(f"\n#### model: {description}")
    reports, parities = [], []
    for world, potential in WORLDS.items():
        start = time.perf_counter()
        report, _ = cross_validated_ccm(table, factory, n_splits=folds, seed=seed, potential_features=potential)
        print(f"\n##### {world} counterfactuals ({time.perf_counter() - start:.1f} s)")
        print(format_report(report))
        print("\nin the published table's layout (rates in %):")
        print(paper_table(report).to_string())
        report.insert(0, "world", world)
        report.insert(1, "model", model)
        parity = ccm_parity(report)
        parity.insert(0, "world", world)
        parity.insert(1, "model", model)
        reports.append(report)
        parities.append(parity)
    return pd.concat(reports, ignore_index=True), pd.concat(parities, ignore_index=True)


def main(argv: list[str] | None = None) -> int:
    """Run the Adult CCM experiment from the command line; return the exit status."""
    parser = Parser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=["logistic", "gbm", "all"], default="logistic")
    parser.add_argument("--gbm-library", choices=["auto", "sklearn", "lightgbm"], default="auto")
    parser.add_argument("--folds", type=positive_int, default=5)
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/ccm_adult"), help="output directory")
    args = parser.parse_args(argv)
    models = chosen_models(args.model, args.gbm_library)
    dataset = load_adult()
    table = encode_table(dataset.frame, dataset.feature_types, "sex", dataset.target, dataset.ordinal_orders)
    setting = f"{args.folds} stratified folds; seed {args.seed}"
    print(f"Adult/sex, {len(table.frame):,} rows; models: {', '.join(models)}; {setting}")
    with atomic_output_dir(args.out) as tmp:
        results = [run_model(table, model, args.folds, args.seed) for model in models]
        reports = pd.concat([report for report, _ in results], ignore_index=True)
        pd.concat([parity for _, parity in results]).to_csv(tmp / "adult_ccm_parity.csv", index=False)
        reports.to_csv(tmp / "adult_ccm_report.csv", index=False)
        markdown = markdown_table(reports, models)
        (tmp / "table.md").write_text(markdown + "\n", encoding="utf-8")
    print(f"\n{markdown}\n\nwrote adult_ccm_report.csv, adult_ccm_parity.csv and table.md to {args.out}")
    return 0


def _ours(metric: str, value: float) -> str:
    """Our value of ``metric`` as the docs' tables show it: rates in % with one decimal, score metrics as they are."""
    return f"{value:.{_SCORE_DIGITS[metric]}f}" if metric in _SCORE_METRICS else f"{100 * value:.1f}"


def markdown_table(rows: pd.DataFrame, models: list[str]) -> str:
    """The docs' table of ``models`` in the naive world: per metric and scope, each model's value and the published one.

    A cell reads ``<first model> / ... / published`` (the published values are LightGBM's,
    :data:`PUBLISHED_TABLE12`).

    Args:
        rows: The runs' report rows (``adult_ccm_report.csv``: ``world``, ``model``, ``scope`` and the metrics).
        models: The models shown, in order (names of :data:`MODEL_LABELS`).
    """
    naive = rows[rows["world"] == "naive"].set_index(["model", "scope"])
    names = " / ".join([*(MODEL_LABELS[model] for model in models), "published"])
    table = pd.DataFrame({"metric": list(PAPER_TABLE_METRICS)})
    for position, (scope, label) in enumerate(SCOPES.items()):
        cells = []
        for metric in PAPER_TABLE_METRICS:
            ours = [_ours(metric, naive.loc[(model, scope), metric]) for model in models]
            cells.append(" / ".join([*ours, PUBLISHED_TABLE12[metric][position]]))
        table[f"{label} ({names})"] = cells
    return pipe_table(table)
