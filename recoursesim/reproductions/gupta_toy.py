"""Gupta et al. (2019) group recourse regularisation on the hand-typed 14-point toy of docs/mitigations.md.

Usage:
    python experiments/gupta_toy.py

Fits the regularised SVM with the exact dual solver and the smoothed primal for lambda in
{0, 0.5, 1, 5}, and prints w, b, the recourse difference RD and the gap to the exact rational
solution (acceptance: 1e-6 exact, 1e-3 smoothed).
"""

from __future__ import annotations

import numpy as np

from recoursesim.cli._common import Parser
from recoursesim.training import GroupRecourseSVM

X = np.array(
    [
        (2, 1.5), (3, 1), (2.5, 2.5), (1, 2.5), (0, 3), (1.5, 3), (0.5, 0),
        (1, -0.5), (0, 0.5), (0.5, -1), (-2, 0.5), (-3, 0), (-2.5, 1), (-1.5, -0.5),
    ],
    dtype=float,
)  # fmt: skip
Y = np.array([1] * 6 + [0] * 8)
G = np.array([1, 1, 1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1])
EXPECTED = {
    0.0: ((0.6, 0.8), -1.4),
    0.5: ((4 / 9, 8 / 9), -11 / 9),
    1.0: ((1 / 3, 1.0), -7 / 6),
    5.0: ((4 / 15, 22 / 15), -26 / 15),
}
TOLERANCE = {"dual": 1e-6, "smoothed": 1e-3}


def main(argv: list[str] | None = None) -> int:
    """Fit the toy for every lambda and solver, print the errors; return 1 if any exceeds its limit.

    The script takes no options; anything given is refused (a typo is not silently ignored).
    """
    Parser(description=__doc__).parse_args(argv)
    print(f"{'lambda':>6} {'solver':8} {'w':>22} {'b':>9} {'RD':>9} {'max |error|':>12}  ok")
    failures = 0
    for lam, (w, b) in EXPECTED.items():
        for solver, tolerance in TOLERANCE.items():
            model = GroupRecourseSVM(lam=lam, solver=solver).fit(X, Y, G)
            error = max(np.abs(model.coef_[0] - w).max(), abs(model.intercept_[0] - b))
            ok = error <= tolerance
            failures += not ok
            coef = f"({model.coef_[0][0]:.6f}, {model.coef_[0][1]:.6f})"
            print(
                f"{lam:6.1f} {solver:8} {coef:>22} {model.intercept_[0]:9.6f} "
                f"{model.recourse_difference_:9.6f} {error:12.2e}  {'yes' if ok else 'NO'}"
            )
    return 1 if failures else 0
