"""``recoursesim audit effort``: equality of effort via algorithmic recourse (ACR, RD, ACR(q))."""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
from sklearn.pipeline import Pipeline

from recoursesim.auditors.effort.audit import CENTRE_GROUPS, DEFAULT_QS, EqualityOfEffortAuditor
from recoursesim.auditors.effort.distance import check_qs
from recoursesim.auditors.effort.german import GERMAN_DAG, GERMAN_VARIABLES
from recoursesim.auditors.effort.ratio import effort_decision
from recoursesim.auditors.effort.setup import fit_logistic_audit
from recoursesim.cli._common import add_force_argument, options_named, require_columns
from recoursesim.cli.audit_ccm import write_table
from recoursesim.datasets import load_german
from recoursesim.datasets.user import read_table
from recoursesim.errors import ConfigError, DataError
from recoursesim.output import add_out_arguments, atomic_output_dir, check_out, command_record


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``effort`` sub-command."""
    parser = subparsers.add_parser(
        "effort",
        help="equality of effort: average cost ratio (ACR) and recourse discrepancy (RD)",
        description=(
            "Fit a logistic regression and a linear additive SCM, price each individual's minimal "
            "intervention, and compare the groups' average costs system-wide and in quantile "
            "neighbourhoods (Raimondi et al.). --dataset german uses the paper's setup."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", choices=["german"], help="the paper's German credit setup")
    source.add_argument("--csv", type=Path, metavar="PATH", help="a CSV file (give the options below)")
    parser.add_argument("--sensitive", metavar="COL", help="sensitive attribute (--csv; german: sex)")
    parser.add_argument("--protected", metavar="VALUE", help="protected value (german: female)")
    parser.add_argument("--target", metavar="COL", help="0/1 target of --csv (1 = favourable)")
    parser.add_argument("--variables", nargs="*", default=[], metavar="COL", help="numeric SCM variables (--csv)")
    parser.add_argument("--dag", nargs="*", default=[], metavar="CHILD=P1,P2", help="causal edges (--csv)")
    parser.add_argument("--actionable", nargs="*", default=[], metavar="COL", help="actionable variables (--csv)")
    parser.add_argument("--increase", nargs="*", default=[], metavar="COL", help="variables that may only increase")
    parser.add_argument("--decrease", nargs="*", default=[], metavar="COL", help="variables that may only decrease")
    parser.add_argument("--model-without-sensitive", action="store_true", help="the model does not read the group")
    parser.add_argument(
        "--intervention",
        choices=["antichain", "subsets"],
        default=None,
        help="non-antichain actionable sets: fail (antichain) or enumerate subsets (german default)",
    )
    parser.add_argument("--qs", nargs="*", type=float, default=list(DEFAULT_QS), help="neighbourhood quantiles")
    parser.add_argument("--tau", type=float, default=1.2, help="ACR limit of the decision rule")
    parser.add_argument("--eps", type=float, default=0.1, help="RD tolerance of the decision rule")
    parser.add_argument("--rule", choices=["one_sided", "band"], default="one_sided", help="decision rule")
    parser.add_argument("--format", choices=["csv", "parquet"], default="csv", help="table format")
    add_force_argument(parser, "audit")
    add_out_arguments(parser, "output directory (default effort-audit)", default=Path("effort-audit"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the audit; print and write ``effort_system``, ``effort_curve`` and ``acr_curve.png``."""
    check_out(args.out, overwrite=args.overwrite, command=command_record("audit effort", args))
    with options_named({"q": "--qs"}):
        check_qs(args.qs)
    auditor, _ = _fit(args)
    auditor.force = args.force  # a parameter of the auditor (set_params style): refuse before the distances
    system_rows = []
    for group in CENTRE_GROUPS:
        result = auditor.system(group)
        decision = effort_decision(result["ACR"], result["RD"], args.tau, args.eps, args.rule)
        system_rows.append({"centres": group, **result, "decision": decision})
    system = pd.DataFrame(system_rows)
    curves = []
    for group in CENTRE_GROUPS:
        if (auditor.unfavourable_ & (auditor.protected_ if group == "protected" else ~auditor.protected_)).any():
            curve = auditor.curve(args.qs, group)
            curve.insert(0, "centres", group)
            curves.append(curve)
    if not curves:
        raise DataError("model", "predicts no unfavourable outcome", "there is no recourse to audit")
    curve = pd.concat(curves, ignore_index=True)
    named = protected_group(args)
    print(f"protected group: {named} (centres: 'protected' = its members decided unfavourably, 'unprotected' = others)")
    print("system level (own group vs the rest):")
    print(_printable(system))
    print("ACR(q), mean and 95% CI over unfavourable centres:")
    print(_printable(curve[["centres", "q", "mean", "ci_low", "ci_high", "n_defined", "n_centres"]]))
    with atomic_output_dir(args.out, overwrite=args.overwrite, command=command_record("audit effort", args)) as tmp:
        write_table(system, tmp / f"effort_system.{args.format}")
        write_table(curve, tmp / f"effort_curve.{args.format}")
        plot_acr_curves(curve, tmp / "acr_curve.png", title=f"Equality of effort, protected group {named}")
    print(f"wrote effort_system, effort_curve ({args.format}) and acr_curve.png to {args.out}")
    return 0


def _fit(args: argparse.Namespace) -> tuple[EqualityOfEffortAuditor, Pipeline]:
    direction = {**dict.fromkeys(args.increase, "increase"), **dict.fromkeys(args.decrease, "decrease")}
    if args.dataset == "german":
        dataset = load_german()
        return fit_logistic_audit(
            dataset.frame,
            sensitive=args.sensitive or GERMAN_GROUP[0],
            protected_value=args.protected or GERMAN_GROUP[1],
            target=dataset.target,
            variables=GERMAN_VARIABLES,
            dag=GERMAN_DAG,
            actionable=["age", "credit_amount"],
            direction={"age": "increase", **direction},
            model_uses_sensitive=not args.model_without_sensitive,
            intervention=args.intervention or "subsets",
        )
    for option in ("sensitive", "protected", "target"):
        if not getattr(args, option):
            raise ConfigError(f"--{option}", "is required with --csv", f"pass --{option}")
    if not args.variables or not args.actionable:
        raise ConfigError(
            "--variables",
            "--variables and --actionable are required with --csv",
            "add --variables COL ... (numeric SCM variables) and --actionable COL ... (those a person can change)",
        )
    frame = read_table(args.csv, "--csv")
    for option in ("target", "sensitive", "variables", "actionable", "increase", "decrease"):
        value = getattr(args, option)
        require_columns(frame, f"--{option}", value if isinstance(value, list) else [value])
    column = frame[args.sensitive]  # require_columns found it
    protected = type(column.iloc[0])(args.protected) if pd.api.types.is_numeric_dtype(column) else args.protected
    return fit_logistic_audit(
        frame,
        sensitive=args.sensitive,
        protected_value=protected,
        target=args.target,
        variables=args.variables,
        dag=_parse_dag(args.dag),
        actionable=args.actionable,
        direction=direction,
        model_uses_sensitive=not args.model_without_sensitive,
        intervention=args.intervention or "antichain",
    )


def _parse_dag(items: list[str]) -> dict[str, list[str]]:
    dag: dict[str, list[str]] = {}
    for item in items:
        child, sep, parents = item.partition("=")
        if not sep or not child:
            raise ConfigError("--dag", f"{item!r} is not CHILD=P1,P2", "write e.g. credit=age,sex")
        dag[child] = [p for p in parents.split(",") if p]
    return dag


#: Columns of the effort tables that count rows or centres (printed as integers).
COUNT_COLUMNS = ("n_own", "n_other", "size", "n_defined", "n_centres")


#: The German credit audit's sensitive column and protected group when none is given.
GERMAN_GROUP = ("sex", "female")


def protected_group(args: argparse.Namespace) -> str:
    """The protected group as the user names it, ``column = value`` (``sex = female``)."""
    default = GERMAN_GROUP if args.dataset == "german" else (None, None)
    return f"{args.sensitive or default[0]} = {args.protected or default[1]}"


def _printable(table: pd.DataFrame) -> str:
    """``table`` as text: counts as integers, other numbers with 3 decimals."""
    table = table.copy()
    for column in COUNT_COLUMNS:
        if column in table and table[column].notna().all():
            table[column] = table[column].round().astype("int64")
    return table.to_string(index=False, float_format=lambda v: f"{v:.3f}")


def plot_acr_curves(
    curve: pd.DataFrame, path: Path, title: str = "Equality of effort: ACR(q) per centre group"
) -> None:
    """Plot ACR(q) with its 95% CI band per centre group (matplotlib, no pyplot state), titled ``title``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.subplots()
    for group, part in curve.groupby("centres", sort=False):
        ax.plot(part["q"], part["mean"], marker="o", label=f"{group} centres")
        ax.fill_between(part["q"], part["ci_low"], part["ci_high"], alpha=0.25)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("neighbourhood quantile q")
    ax.set_ylabel("average cost ratio ACR(q)")
    ax.set_title(title, fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
