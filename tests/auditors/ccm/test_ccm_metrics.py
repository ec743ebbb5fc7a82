import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recoursesim.auditors.ccm import (
    CCM_METRICS,
    ECCM_CELLS,
    ECCM_METRICS,
    ccm,
    ccm_from_eccm,
    ccm_metrics,
    eccm,
    eccm_metrics,
    performance_metrics,
)
from recoursesim.errors import DataError

# --- A.9.1 tiny ECCM -------------------------------------------------------------------------

Y = [1, 1, 1, 1, 0, 0, 0, 0, 1, 0]
P = [1, 1, 0, 0, 1, 1, 0, 0, 1, 0]
PCF = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]


def test_tiny_eccm_cells():
    assert eccm(Y, P, PCF) == dict(TCP=2, TSN=1, FSP=1, FCN=1, FCP=1, FSN=1, TSP=1, TCN=2)
    assert ccm(P, PCF) == dict(CP=3, SN=2, SP=2, CN=3)
    assert ccm_from_eccm(eccm(Y, P, PCF)) == ccm(P, PCF)


def test_tiny_ccm_metrics():
    m = ccm_metrics(ccm(P, PCF))
    expected = dict(CR=0.6, SR=0.4, PSR=0.4, NCR=0.6, NSR=0.4, PCR=0.6, PCP=0.6, PSDR=0.4, CMCC=0.2)
    for name, value in expected.items():
        assert m[name] == pytest.approx(value, abs=1e-12), name


def test_tiny_eccm_metrics():
    m = eccm_metrics(eccm(Y, P, PCF))
    expected = dict(TSNR=0.5, FSNR=0.5, TSPR=0.5, FSPR=0.5, TPSR=1 / 3, FPSR=0.5, TNSR=1 / 3, FNSR=0.5)
    for name, value in expected.items():
        assert m[name] == pytest.approx(value, abs=1e-12), name


# --- An asymmetric worked example: every cell a different count, so a swapped cell fails ---------

# (y, prediction, counterfactual prediction) -> how many samples; cells TCP..TCN = 1, 2, 3, 4, 5, 6, 7, 9.
ASYMMETRIC = {(1, 1, 1): 1, (1, 1, 0): 2, (1, 0, 1): 3, (1, 0, 0): 4, (0, 1, 1): 5, (0, 1, 0): 6, (0, 0, 1): 7}
ASYMMETRIC[(0, 0, 0)] = 9


def asymmetric_samples():
    rows = [triple for triple, count in ASYMMETRIC.items() for _ in range(count)]
    order = np.random.default_rng(3).permutation(len(rows))  # the counts must not depend on the order
    return tuple(list(column) for column in zip(*(rows[i] for i in order), strict=True))


def test_asymmetric_eccm_cells_and_ccm():
    y, p, pcf = asymmetric_samples()
    assert eccm(y, p, pcf) == dict(TCP=1, TSN=2, FSP=3, FCN=4, FCP=5, FSN=6, TSP=7, TCN=9)
    # CP = TCP + FCP, SN = TSN + FSN, SP = FSP + TSP, CN = FCN + TCN
    assert ccm(p, pcf) == dict(CP=6, SN=8, SP=10, CN=13)


def test_asymmetric_metrics_by_hand():
    y, p, pcf = asymmetric_samples()
    # n = 37; CMCC = (6*13 - 10*8) / sqrt((6+10)(6+8)(13+10)(13+8)) = -2 / sqrt(108192)
    expected_ccm = dict(
        CR=19 / 37,
        SR=18 / 37,
        PSR=10 / 23,
        NCR=13 / 23,
        NSR=8 / 14,
        PCR=6 / 14,
        PCP=6 / 16,
        PSDR=10 / 16,
        CMCC=-2 / math.sqrt(108192),
    )
    expected_eccm = dict(
        TSNR=2 / 8, FSNR=6 / 8, TSPR=7 / 10, FSPR=3 / 10, TPSR=2 / 3, FPSR=6 / 11, TNSR=7 / 16, FNSR=3 / 7
    )
    got_ccm = ccm_metrics(ccm(p, pcf))
    got_eccm = eccm_metrics(eccm(y, p, pcf))
    assert got_ccm == pytest.approx(expected_ccm, abs=1e-12)
    assert got_eccm == pytest.approx(expected_eccm, abs=1e-12)
    # every value differs from every other in its table, so no swap of two names can pass
    assert len({round(v, 12) for v in got_ccm.values()}) == len(got_ccm)
    assert len({round(v, 12) for v in got_eccm.values()}) == len(got_eccm)


# --- A.9.2 Heart Disease regression (Fig. 9 -> Tables 5 and 10): 48 values ------------------------

CELLS = ("TCP", "TSN", "FSP", "FCN", "FCP", "FSN", "TSP", "TCN")
COUNTS = {
    "ours": {"M": (208, 219, 1, 61, 27, 57, 2, 155), "F": (40, 0, 13, 2, 3, 0, 21, 71)},
    "gan": {"M": (331, 96, 0, 62, 18, 66, 0, 157), "F": (40, 0, 11, 4, 3, 0, 14, 78)},
}
# metric -> model -> (Total, F->M, M->F) in %
EXPECTED = {
    "CMCC": {"ours": (39.1, 61.7, 43.6), "gan": (61.0, 69.6, 62.7)},
    "SR": {"ours": (35.6, 22.7, 38.2), "gan": (21.3, 16.7, 22.2)},
    "PSR": {"ours": (11.3, 31.8, 1.4), "gan": (7.7, 23.4, 0.0)},
    "NSR": {"ours": (49.8, 0.0, 54.0), "gan": (29.2, 0.0, 31.7)},
    "TPSR": {"ours": (46.9, 0.0, 51.3), "gan": (20.6, 0.0, 22.5)},
    "FNSR": {"ours": (18.2, 86.7, 1.6), "gan": (14.3, 73.3, 0.0)},
    "TNSR": {"ours": (9.2, 22.8, 1.3), "gan": (5.6, 15.2, 0.0)},
    "FPSR": {"ours": (65.5, 0.0, 67.9), "gan": (75.9, 0.0, 78.6)},
}
CASES = [
    (metric, model, scope, value)
    for metric, by_model in EXPECTED.items()
    for model, values in by_model.items()
    for scope, value in zip(("Total", "F→M", "M→F"), values, strict=True)
]


def _scope_counts(model, scope):
    male = dict(zip(CELLS, COUNTS[model]["M"], strict=True))
    female = dict(zip(CELLS, COUNTS[model]["F"], strict=True))
    if scope == "Total":
        return {c: male[c] + female[c] for c in CELLS}
    return female if scope == "F→M" else male


def _metric(counts, name):
    return {**ccm_metrics(counts), **eccm_metrics(counts)}[name]


def test_heart_disease_has_48_values():
    assert len(CASES) == 48


@pytest.mark.parametrize(("metric", "model", "scope", "expected"), CASES)
def test_heart_disease_regression(metric, model, scope, expected):
    value = 100 * _metric(_scope_counts(model, scope), metric)
    assert value == pytest.approx(expected, abs=0.05 + 1e-9)


def test_heart_disease_tpr_tnr():
    # the paper's TPR and TNR of the original predictions (Table 5), from the ECCM cells
    for group, tpr, tnr in (("M→F", 87.3, 65.1), ("F→M", 72.7, 96.8)):
        m = performance_metrics(_scope_counts("ours", group))
        assert 100 * m["TPR"] == pytest.approx(tpr, abs=0.05)
        assert 100 * m["TNR"] == pytest.approx(tnr, abs=0.05)


def test_tiny_performance_metrics():
    # TP = TCP + TSN = 3, FN = FSP + FCN = 2, FP = FCP + FSN = 2, TN = TSP + TCN = 3
    m = performance_metrics(eccm(Y, P, PCF))
    assert m == pytest.approx({"ACC": 0.6, "TPR": 0.6, "TNR": 0.6}, abs=1e-12)
    skewed = dict(TCP=5, TSN=1, FSP=0, FCN=2, FCP=1, FSN=0, TSP=0, TCN=11)  # TP 6, FN 2, FP 1, TN 11
    assert performance_metrics(skewed) == pytest.approx({"ACC": 17 / 20, "TPR": 6 / 8, "TNR": 11 / 12})
    assert math.isnan(performance_metrics(dict.fromkeys(ECCM_CELLS, 0))["ACC"])


def test_gan_total_sr_unrounded():
    assert 100 * _metric(_scope_counts("gan", "Total"), "SR") == pytest.approx(187 / 880 * 100)


# --- A.9.3 degenerate group --------------------------------------------------------------------


def test_degenerate_group_nan_and_zero_division():
    counts = dict(CP=5, SN=0, SP=0, CN=0)
    m = ccm_metrics(counts)
    assert m["CR"] == 1 and m["NSR"] == 0 and m["PCP"] == 1
    assert math.isnan(m["PSR"]) and math.isnan(m["NCR"]) and math.isnan(m["CMCC"])
    assert ccm_metrics(counts, zero_division=0)["PSR"] == 0


def test_empty_eccm_is_all_nan():
    m = eccm_metrics(dict.fromkeys(ECCM_CELLS, 0))
    assert all(math.isnan(v) for v in m.values())


# --- properties -------------------------------------------------------------------------------

bits = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 1)), max_size=60)


@given(bits)
def test_cells_sum_and_rates_bounded(rows):
    y = np.array([r[0] for r in rows], dtype=int)
    p = np.array([r[1] for r in rows], dtype=int)
    c = np.array([r[2] for r in rows], dtype=int)
    e = eccm(y, p, c)
    assert sum(e.values()) == len(rows)
    assert ccm_from_eccm(e) == ccm(p, c)
    assert e["TCP"] + e["TSN"] == int(np.sum((y == 1) & (p == 1)))
    metrics = {**ccm_metrics(e), **eccm_metrics(e)}
    assert set(metrics) == set(CCM_METRICS) | set(ECCM_METRICS)
    for name, value in metrics.items():
        low = -1.0 if name == "CMCC" else 0.0
        assert math.isnan(value) or low - 1e-12 <= value <= 1 + 1e-12, name
    for a, b in (("CR", "SR"), ("PSR", "NCR"), ("NSR", "PCR"), ("PCP", "PSDR")):
        m = ccm_metrics(e)
        assert math.isnan(m[a]) == math.isnan(m[b])
        if not math.isnan(m[a]):
            assert m[a] + m[b] == pytest.approx(1.0)


@given(st.lists(st.integers(0, 1), min_size=1, max_size=40))
def test_identical_predictions_are_consistent(pred):
    m = ccm_metrics(ccm(pred, pred))
    assert m["SR"] == 0 and m["CR"] == 1


def test_bad_inputs():
    with pytest.raises(DataError):
        ccm([0, 1, 2], [0, 1, 1])
    with pytest.raises(DataError):
        ccm([0, 1], [0])
    with pytest.raises(DataError):
        eccm([1], [1, 0], [1, 0])
    with pytest.raises(DataError):
        ccm_metrics({"CP": 1, "SN": 2})
    with pytest.raises(DataError):
        ccm_metrics({"CP": -1, "SN": 0, "SP": 0, "CN": 0})
