"""Run and sweep identity: canonical JSON and the hashes derived from it.

A run's identity depends only on what determines its result (the resolved scenario, the grid
parameters, the root seed and the seed index), never on when or where it runs, so a resumed or
distributed sweep recognises finished runs by name.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Hex digits kept from the SHA-256 digest in run and sweep identifiers.
ID_LENGTH = 16


def canonical_json(value: Any) -> str:
    """Serialise ``value`` as compact JSON with sorted keys (the same value, the same text).

    NumPy scalars and arrays become plain numbers and lists; non-finite floats are rejected
    because JSON cannot represent them unambiguously.

    Args:
        value: Nested dicts, lists, strings, numbers, booleans, ``None`` and NumPy values.

    Returns:
        The canonical JSON text.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False, default=_plain)


def digest(*parts: Any) -> str:
    """A short SHA-256 hex digest of the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical_json(list(parts)).encode("utf-8")).hexdigest()[:ID_LENGTH]


def point_key(scenario_spec: Mapping[str, Any], params: Mapping[str, Any]) -> str:
    """Identity of a grid point: a hash of its resolved scenario and its parameters."""
    return digest("point", dict(scenario_spec), dict(params))


def run_id(point: str, root_seed: int, seed_index: int) -> str:
    """Identity of one run: a hash of (grid point, root seed, seed index).

    The point's key (:func:`point_key`) already hashes the resolved scenario and the parameters,
    so the run's identity depends on nothing but what determines its result.

    Args:
        point: The grid point's key.
        root_seed: The sweep's root entropy.
        seed_index: Which ``SeedSequence(root_seed).spawn`` child the run uses.

    Returns:
        A 16-character hex identifier.
    """
    return digest("run", point, int(root_seed), int(seed_index))


def _plain(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        if not math.isfinite(float(value)):
            raise ValueError(f"non-finite value {value!r} cannot be part of an identity")
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot serialise {type(value).__name__} into an identity")
