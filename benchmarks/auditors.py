"""Time the CCM and equality-of-effort auditors.

effort_seconds: equality of effort on the paper's synthetic data, n = 1000 — fit the logistic
regression and SCM, price every minimal recourse, and compute ACR(q) for q in {0.1, ..., 1} for
protected and unprotected centres.

ccm_seconds: CCM/ECCM with counterfactual generation on the Adult test split (16,281 rows) —
greedy plausible counterfactuals (reference set: the train split), scoring of originals and
counterfactuals with a logistic regression fitted beforehand (fit time reported separately),
and the full report (Total and both directions, all metrics, RMSCD/KL/JS).

Usage: python benchmarks/auditors.py --json PATH [--repeats 3] [--quick]

``--quick``: one repeat.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from recoursesim.auditors.ccm import audit, generate_counterfactuals
from recoursesim.auditors.ccm.tabular import encode_table, logistic_model
from recoursesim.auditors.effort import DEFAULT_QS, make_effort_synthetic, synthetic_auditor
from recoursesim.datasets import load_adult


def time_effort(seed: int = 0) -> float:
    start = time.perf_counter()
    auditor = synthetic_auditor(make_effort_synthetic(1000, 2.0, seed))
    auditor.curve(DEFAULT_QS, "protected")
    auditor.curve(DEFAULT_QS, "unprotected")
    return time.perf_counter() - start


def prepare_ccm():
    train, test = load_adult("train"), load_adult("test")
    table = encode_table(train.frame, train.feature_types, "sex", train.target, train.ordinal_orders)
    start = time.perf_counter()
    model = logistic_model(table).fit(table.frame[["sex", *table.features]], table.frame[train.target])
    fit_seconds = time.perf_counter() - start
    return train, test, table, model, fit_seconds


def time_ccm(train, test, table, model) -> float:
    start = time.perf_counter()
    test_table = encode_table(test.frame, test.feature_types, "sex", test.target, test.ordinal_orders)
    # align one-hot blocks with the training encoding (categories absent from test become 0)
    samples = test_table.frame.reindex(columns=table.frame.columns, fill_value=0)
    cf = generate_counterfactuals(table.frame, samples, "sex", test.target, **table.generator_kwargs())
    audit(model, samples, cf, ["sex", *table.features], test.target)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="one repeat")
    args = parser.parse_args()
    if args.quick:
        args.repeats = 1
    effort = min(time_effort(seed) for seed in range(args.repeats))
    prepared = prepare_ccm()
    ccm = min(time_ccm(*prepared[:4]) for _ in range(args.repeats))
    result = {
        "effort_seconds": round(effort, 4),
        "ccm_seconds": round(ccm, 4),
        "ccm_model_fit_seconds": round(prepared[4], 4),
        "repeats": args.repeats,
        "load_average": list(os.getloadavg()),
        "cpu_count": os.cpu_count(),
    }
    args.json.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
