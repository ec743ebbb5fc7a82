"""``recoursesim audit facts``: FACTS subgroup recourse-fairness audit of a model on a data set."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from recoursesim.cli._common import add_force_argument, positive_int
from recoursesim.datasets.user import read_table
from recoursesim.errors import ConfigError, DataError
from recoursesim.output import add_out_arguments, atomic_output_dir, check_out, command_record


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``facts`` sub-command."""
    parser = subparsers.add_parser(
        "facts",
        help="FACTS: rank subgroups by unfairness of recourse (Kavouras et al., 2023)",
        description=(
            "Audit a model with FACTS. By default the paper's setup: the bundled data set with its "
            "Appendix B preprocessing, a 70/30 stratified split (random_state 131313), a logistic "
            "regression on scaled numeric and one-hot categorical features, FACTS on the test set."
        ),
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--dataset", default=None, help="bundled data set: adult, compas or german (default adult)")
    source.add_argument("--csv", type=Path, default=None, help="audit your own CSV file instead (needs --target)")
    parser.add_argument(
        "--target", default=None, help="binary target column of --csv (0/1 or false/true: 1 = favourable)"
    )
    parser.add_argument(
        "--favourable", default=None, metavar="VALUE", help="the favourable --target value (needed unless it is 0/1)"
    )
    parser.add_argument("--protected", required=True, help="protected attribute column, e.g. sex or race")
    parser.add_argument(
        "--support",
        type=_number,
        default=None,
        help="support fraction in (0, 1] of each protected group's affected rows (default 0.01, with --min-count 10)",
    )
    parser.add_argument(
        "--min-count",
        type=positive_int,
        default=None,
        help=(
            "rows a subgroup needs in each protected group (and an action among the unaffected); "
            "default 10 unless --support is given, then 1 (the fraction alone, the paper's rule)"
        ),
    )
    parser.add_argument(
        "--miner", choices=["bitset", "mlxtend"], default="bitset", help="frequent-itemset miner (same itemsets)"
    )
    add_force_argument(parser, "audit")
    parser.add_argument("--top", type=positive_int, default=10, help="rows shown per metric (default 10)")
    parser.add_argument("--metric", default=None, help="show one metric (name or key), e.g. equal_effectiveness")
    parser.add_argument(
        "--model", default="logistic", help="model to audit: logistic, random_forest, gradient_boosting"
    )
    parser.add_argument(
        "--phi", type=_number, nargs="+", default=[0.3, 0.7], help="effectiveness levels (default 0.3 0.7)"
    )
    parser.add_argument("--budget", type=_number, nargs="+", default=None, help="cost budgets (default: paper's rule)")
    parser.add_argument(
        "--actions",
        choices=["same_features", "subsets"],
        default="same_features",
        help=(
            "candidate actions of a subgroup: same_features (the paper's rule: actions over exactly the "
            "subgroup's features) or subsets (also actions over a subset of them; finds more options)"
        ),
    )
    add_out_arguments(parser, "write ranking.parquet, summary.json, report.md here")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the audit; print the summary and top subgroups; write outputs when ``--out`` is given."""
    from recoursesim.auditors.facts import FactsAuditor, comparative_counterfactual, paper_setup, presets
    from recoursesim.auditors.facts.auditor import FactsWarning

    started = time.perf_counter()
    if args.out is not None:
        check_out(args.out, overwrite=args.overwrite, command=command_record("audit facts", args))

    if args.support is not None and not 0 < args.support <= 1:
        raise ConfigError("--support", f"must be in (0, 1], got {args.support}", "use a fraction such as 0.01")
    if args.csv is not None:
        if args.target is None:
            raise ConfigError("--target", "is required with --csv", "name the binary target column")
        data = presets.from_frame(read_table(args.csv, "--csv"), args.target, favourable=args.favourable)
    else:
        data = presets.preset(args.dataset or "adult")
    if args.protected not in data.features:
        raise DataError("--protected", f"column {args.protected!r} is not in the data", f"use one of {data.features}")
    setup = paper_setup(data, model=args.model)
    auditor = FactsAuditor(
        min_support=args.support,
        min_count=args.min_count,
        miner=args.miner,
        force=args.force,
        actions=args.actions,
        phis=tuple(args.phi),
        budgets=None if args.budget is None else tuple(args.budget),
        config=data.config,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FactsWarning)  # printed below, one line each
        auditor.fit(setup.X_test, setup.model, args.protected, echo=_note)
    for message in auditor.warnings_:
        print(f"warning: {message}", file=sys.stderr)
    ranking = auditor.ranking(args.metric)
    summary = {"dataset": data.name, "protected": args.protected, "model": args.model, **auditor.summary_}
    summary["audit_seconds"] = round(auditor.timings_["total"], 3)  # the mining and scoring alone
    summary["command_seconds"] = round(time.perf_counter() - started, 3)  # with the data, the model, the audit
    _print_summary(summary)
    report = []
    for key, part in ranking.groupby("key", observed=True, sort=False):
        shown = part.head(args.top)
        print(f"\n== {key}: {int((part['score'] > 0).sum())} unfair of {len(part)} subgroups")
        print(_table(shown))
        for sid in shown["subgroup_id"].head(3):
            report.append(
                f"### {key}, subgroup {sid}\n\n" + comparative_counterfactual(auditor, int(sid), str(key)).to_markdown()
            )
    if args.out is not None:
        with atomic_output_dir(args.out, overwrite=args.overwrite, command=command_record("audit facts", args)) as tmp:
            auditor.ranking_.to_parquet(tmp / "ranking.parquet", index=False)
            (tmp / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n")
            (tmp / "report.md").write_text("# FACTS report\n\n" + "\n\n".join(report) + "\n")
        print(f"\nwrote {args.out}/ranking.parquet, summary.json, report.md")
    return 0


def _note(line: str) -> None:
    """Show a note before mining in a terminal (the summary repeats it; piped stderr keeps errors one line)."""
    if sys.stderr.isatty():
        print(line, file=sys.stderr, flush=True)


def _print_summary(summary: dict) -> None:
    for key, value in summary.items():
        text = str(value)
        print(text if text.startswith(f"{key}: ") else f"{key}: {text}")  # some values name themselves


#: The columns of a printed ranking: rank (or "fair"), the metric's score, the group the subgroup's
#: recourse is unfair against, the subgroup.
_HEADER = f"{'rank':>5}  {'score':>8}  {'against':<12}  subgroup"


def _table(part: pd.DataFrame) -> str:
    lines = []
    for row in part.itertuples(index=False):
        rank = "fair" if pd.isna(row.rank) else str(int(row.rank))
        score = "inf" if math.isinf(row.score) else f"{row.score:.4g}"
        against = "-" if pd.isna(row.bias_against) else str(row.bias_against)
        lines.append(f"{rank:>5}  {score:>8}  {against:<12}  {row.subgroup}")
    return "\n".join([_HEADER, *lines]) if lines else "(no subgroups)"
