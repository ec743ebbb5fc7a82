"""CCM and ECCM by sex on Adult (Pinto et al., App. F.2.1; 5-fold CV), with a logistic or a boosted model.

Each of five stratified folds is counterfactualised once with the other four as reference and
training set; the ECCM counts of the test folds are summed and the metrics derived from the
sums (paper §2.5). Two counterfactual worlds: "naive" flips only sex (the paper's Adult
setting) and "greedy" lets every feature change by quantile mapping and binary flipping.

``--model gbm`` is the paper's kind of model (it used LightGBM): LightGBM's ``LGBMClassifier``
when the optional package is installed (``pip install 'recoursesim[lightgbm]'``), otherwise
scikit-learn's ``HistGradientBoostingClassifier``; ``--gbm-library`` forces one. Both run with
their library defaults and the run's seed, because the paper does not publish its
hyper-parameters. ``--model logistic`` is a standardised logistic regression.

Usage:
    python experiments/ccm_adult.py --model gbm --out results/ccm_adult
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
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
from recoursesim.cli._output import atomic_output_dir
from recoursesim.cli.audit_ccm import format_report
from recoursesim.datasets import load_adult

WORLDS: dict[str, list[str] | None] = {"naive": [], "greedy": None}

#: The rows of the paper's Adult table (App. F.2.1, Table 12), in its order; rates in %.
PAPER_TABLE_METRICS = ("ACC", "TPR", "TNR", "CMCC", "PSR", "NSR", "TNSR", "FPSR", "RMSCD", "JSCD")
_SCORE_METRICS = ("RMSCD", "JSCD")


def gbm_library(requested: str) -> str:
    """Resolve ``auto`` to ``lightgbm`` when it is installed, else ``sklearn``; check an explicit choice."""
    installed = importlib.util.find_spec("lightgbm") is not None
    if requested == "auto":
        return "lightgbm" if installed else "sklearn"
    if requested == "lightgbm" and not installed:
        raise SystemExit("error: --gbm-library lightgbm needs LightGBM; fix: pip install 'recoursesim[lightgbm]'")
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
    """The report's Total and two directions in the paper's layout: rates in %, score metrics as they are."""
    table = report.set_index("scope")[list(PAPER_TABLE_METRICS)].T
    rates = ~table.index.isin(_SCORE_METRICS)
    table.loc[rates] = table.loc[rates] * 100
    return table.round(3)


def _model_factory(args: argparse.Namespace) -> tuple[Callable[[EncodedTable], Any], str]:
    if args.model == "logistic":
        return logistic_model, "logistic regression (standardised, max_iter=1000)"
    library = gbm_library(args.gbm_library)
    name = "LightGBM LGBMClassifier" if library == "lightgbm" else "scikit-learn HistGradientBoostingClassifier"
    return gbm_model(library, args.seed), f"{name} (library defaults, random_state={args.seed})"


def main(argv: list[str] | None = None) -> int:
    """Run the Adult CCM experiment from the command line; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=["logistic", "gbm"], default="logistic")
    parser.add_argument("--gbm-library", choices=["auto", "sklearn", "lightgbm"], default="auto")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("results/ccm_adult"), help="output directory")
    args = parser.parse_args(argv)
    factory, description = _model_factory(args)
    dataset = load_adult()
    table = encode_table(dataset.frame, dataset.feature_types, "sex", dataset.target, dataset.ordinal_orders)
    print(
        f"Adult/sex, {len(table.frame):,} rows; model: {description}; {args.folds} stratified folds; seed {args.seed}"
    )
    reports, parities = [], []
    for world, potential in WORLDS.items():
        start = time.perf_counter()
        report, _ = cross_validated_ccm(
            table, factory, n_splits=args.folds, seed=args.seed, potential_features=potential
        )
        print(f"\n##### {world} counterfactuals ({time.perf_counter() - start:.1f} s)")
        print(format_report(report))
        print("\nas in the paper's table (rates in %):")
        print(paper_table(report).to_string())
        report.insert(0, "world", world)
        report.insert(1, "model", args.model)
        parity = ccm_parity(report)
        parity.insert(0, "world", world)
        reports.append(report)
        parities.append(parity)
    with atomic_output_dir(args.out) as tmp:
        pd.concat(reports).to_csv(tmp / "adult_ccm_report.csv", index=False)
        pd.concat(parities).to_csv(tmp / "adult_ccm_parity.csv", index=False)
    print(f"\nwrote adult_ccm_report.csv and adult_ccm_parity.csv to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
