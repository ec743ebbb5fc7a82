"""The floor of a paper-scale run: the same essential work as a bell2024 run, as a bare numpy loop.

Not a benchmark script (the name starts with ``_``): ``engine.py`` times recoursesim against it.

One run of :func:`floor_run` does what a bell2024 baseline run with all its outputs needs and
nothing else: fit the min-max scaler on 10,000 draws; draw the initial agents and each step's
entrants (bimodal features, folded-normal effort); then, for each step, score (linear), select
the top ``k`` (a partition), keep the step's columns, compute the reference recommendation (two
pinning passes) and the logit-step move, and its cost. At the end it concatenates the columns
(the ledger), derives every agent's outcome (one sort), the per-step and per-group counts, ETR
and TTR (bincounts), the pooled summary, and the recommendations' validity at every later step
(the durability table). No pandas, no objects per agent, no checks.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit


def _draw(n: int, q: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    half = n // 2
    n_high = int(0.05 * n)
    x0 = np.concatenate(
        [
            rng.normal(1.5, 0.2, n_high),
            rng.normal(0.0, 0.2, half - n_high),
            rng.normal(1.5, 0.2, n_high),
            rng.normal(-0.2 * q, 0.2, half - n_high),
        ]
    )
    x1 = rng.normal(0.0, 0.2, n)
    return np.column_stack([x0, x1]), np.repeat(np.array([0, 1], dtype=np.int16), half)


def floor_run(seed: int, n: int = 1000, k: int = 100, entrants: int = 100, steps: int = 20, q: float = 2.0) -> dict:
    """One bell2024-sized run as a bare numpy loop; returns the pooled rETR/dTTR-like figures."""
    rng = np.random.default_rng(seed)
    raw, _ = _draw(10_000, q, rng)
    low, span = raw.min(axis=0), raw.max(axis=0) - raw.min(axis=0)
    capacity = n + entrants * steps
    features = np.empty((capacity, 2))
    group = np.empty(capacity, dtype=np.int16)
    effort = np.empty(capacity)
    entry = np.empty(capacity, dtype=np.int32)
    raw, group[:n] = _draw(n, q, rng)
    features[:n] = (raw - low) / span
    effort[:n] = 0.025 * np.abs(rng.normal(0.0, 1.0, n))
    entry[:n] = 0
    count = n
    active = np.arange(n)
    w, norm2 = np.array([0.5, 0.5]), 0.5
    columns: dict[str, list[np.ndarray]] = {k: [] for k in ("step", "id", "x", "score", "thr", "sel", "rec", "cost")}
    for t in range(steps + 1):
        x = features[active]
        score = x @ w
        cut = np.partition(score, score.size - k)[score.size - k]
        selected = score >= cut
        waiting = ~selected
        xw, sw = x[waiting], score[waiting]
        point = xw + ((cut - 0.5 - sw) / norm2)[:, None] * w
        for _ in range(2):  # pin out-of-box coordinates, re-solve on the free one
            out = (point < -0.1) | (point > 1.1)
            if not out.any():
                break
            free = ~out
            point = np.clip(point, -0.1, 1.1)
            gap = cut - 0.5 - point @ w
            point += np.where(free, (gap / np.maximum((free * w * w).sum(axis=1), 1e-300))[:, None] * w, 0.0)
        rec = np.clip(point, -0.1, 1.1)
        c = 0.1 + 0.8 * sw
        r = 0.1 + 0.8 * (rec @ w)
        tau = np.clip(c + np.abs(rng.normal(0.0, 1.0, sw.size)) * effort[active[waiting]], 0.0, 0.999)
        ok = (c > 0) & (c < 1) & (r > 0) & (r < 1) & (tau > 0)
        direction = rec - xw
        length = np.sqrt((direction * direction).sum(axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (logit(np.where(ok, tau, 0.5)) - logit(np.where(ok, c, 0.5))) / (
                logit(np.where(ok, r, 0.5)) - logit(np.where(ok, c, 0.5))
            )
            moving = ok & (length > 0) & np.isfinite(d)
            moved = np.where(moving[:, None], np.clip(xw + d[:, None] * direction / length[:, None], -0.1, 1.1), xw)
        cost = np.zeros(score.size)
        cost[waiting] = np.sqrt(((moved - xw) ** 2).sum(axis=1))
        features[active[waiting]] = moved
        values = (np.full(score.size, t), active, x, score, np.full(score.size, cut), selected, rec, cost)
        for key, value in zip(columns, values, strict=True):
            columns[key].append(value)
        active = active[waiting]
        if t < steps:
            raw, group[count : count + entrants] = _draw(entrants, q, rng)
            features[count : count + entrants] = (raw - low) / span
            effort[count : count + entrants] = 0.025 * np.abs(rng.normal(0.0, 1.0, entrants))
            entry[count : count + entrants] = t + 1
            active = np.concatenate([active, np.arange(count, count + entrants)])
            count += entrants
    ledger = {key: np.concatenate(parts) for key, parts in columns.items()}
    return _outputs(ledger, group[:count], entry[:count], steps, w)


def _outputs(ledger: dict[str, np.ndarray], group: np.ndarray, entry: np.ndarray, steps: int, w: np.ndarray) -> dict:
    """Per-agent outcomes, per-step metrics, the pooled summary and the recommendations' validity."""
    ids, step, selected, score = ledger["id"], ledger["step"], ledger["sel"], ledger["score"]
    order = np.lexsort((step, ids))
    agents, first_pos, counts = np.unique(ids[order], return_index=True, return_counts=True)
    first, last = order[first_pos], order[first_pos + counts - 1]
    n_negative = np.bincount(ids, weights=~selected, minlength=agents.size)
    won = selected[last] & (n_negative > 0)
    gain = score[last] - score[first]
    ttr = step[last] - step[first]  # a success after a negative outcome: the first step was negative
    g = group[agents].astype(np.int64)
    cells = (steps + 1) * 2
    key = step * 2 + group[ids]
    per_step = {
        "n_scored": np.bincount(key, minlength=cells),
        "n_selected": np.bincount(key[selected], minlength=cells),
        "n_recourse": np.bincount((step[last] * 2 + g)[won], minlength=cells),
        "effort": np.bincount((step[last] * 2 + g)[won], weights=gain[won], minlength=cells),
        "ttr": np.bincount((step[last] * 2 + g)[won], weights=ttr[won], minlength=cells),
    }
    etr = np.bincount(g[won], weights=gain[won], minlength=2) / np.bincount(g[won], minlength=2)
    ttrs = np.bincount(g[won], weights=ttr[won], minlength=2) / np.bincount(g[won], minlength=2)
    waiting = ~selected
    rec = ledger["rec"]
    rec_step, rec_group = step[waiting], group[ids[waiting]]
    cut_by_step = ledger["thr"][np.searchsorted(step, np.arange(steps + 1))]
    valid = (rec @ w)[:, None] >= cut_by_step[None, :] - 1e-9
    later = rec_step[:, None] + np.arange(6)[None, :]
    judged = later <= steps
    validity = np.where(judged, valid[np.arange(rec_step.size)[:, None], np.minimum(later, steps)], False)
    failed = judged[:, 1:] & ~validity[:, 1:]
    duration = np.where(failed.any(axis=1), np.argmax(failed, axis=1) + 1, judged[:, 1:].sum(axis=1))
    return {
        "retr": float(etr[1] / etr[0]),
        "dttr": float(ttrs[1] - ttrs[0]),
        "per_step_cells": int(per_step["n_scored"].size),
        "valid_1": float(validity[:, 1].mean()),
        "median_duration": float(np.median(duration)),
        "rec_groups": int(np.bincount(rec_group).size),
        "entry_max": int(entry.max()),
    }
