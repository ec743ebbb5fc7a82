"""FICO TransRisk score tables by race: score distributions, repayment rates and group sizes.

The Federal Reserve's 2007 report to Congress on credit scoring published, for a sample of
TransUnion credit files whose race came from Social Security Administration records (174,047
people in the four groups), the distribution of the TransRisk score per race and the share of
each score that went on to default. Three tables are bundled (see ``data/README.md``):

- ``transrisk_cdf_by_race_ssa.csv``: per score, the percentage of the group at or below it;
- ``transrisk_performance_by_race_ssa.csv``: per score, the percentage of the group that
  **defaulted** (the repayment probability is ``1 - value / 100``);
- ``totals.csv``: the number of people of each group in the sample.

Scores are given as percentiles (0–100, in steps of 0.5 with a few gaps, 198 points).
:func:`to_fico_score` converts them to the familiar 300–850 scale with the piecewise-linear map
of :data:`FICO_SCALE` (each 50-point band of the 300–850 scale holds the share of the population
listed, so percentile ``p`` maps linearly within its band).

:func:`load_fico` reads the bundled tables (checksums verified) or a folder of tables in the same
format, and refuses anything that is not a CDF, a repayment rate outside [0, 100], a group
missing from one of the tables, naming the table, the column and the fix.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from recoursesim.datasets._files import read_verified
from recoursesim.errors import DataError

#: The three tables, by role.
CDF_FILE = "transrisk_cdf_by_race_ssa.csv"
PERFORMANCE_FILE = "transrisk_performance_by_race_ssa.csv"
TOTALS_FILE = "totals.csv"

#: Column names in the published tables -> the group names used in recoursesim.
GROUP_NAMES: dict[str, str] = {
    "Non- Hispanic white": "White",
    "Black": "Black",
    "Hispanic": "Hispanic",
    "Asian": "Asian",
}

#: The percentile -> 300–850 conversion: the lower edge of each 50-point band and the percentage
#: of the population whose score falls in that band (the last entry closes the scale at 850).
FICO_SCALE: tuple[tuple[float, float], ...] = (
    (300, 2.1),
    (350, 4.2),
    (400, 5.4),
    (450, 6.5),
    (500, 7.9),
    (550, 9.6),
    (600, 12.0),
    (650, 13.8),
    (700, 17.0),
    (750, 15.8),
    (800, 5.7),
    (850, 0.0),
)

CITATION = (
    "Board of Governors of the Federal Reserve System (2007). Report to the Congress on Credit Scoring "
    "and Its Effects on the Availability and Affordability of Credit (TransRisk score tables, SSA sample)."
)

#: Tolerance on the last CDF value (the tables print two decimals).
_CDF_END_TOLERANCE = 1e-6


def to_fico_score(percentile: np.ndarray) -> np.ndarray:
    """Convert TransRisk percentiles (0–100) to the 300–850 FICO scale, piecewise linearly (:data:`FICO_SCALE`)."""
    edges = np.array([edge for edge, _ in FICO_SCALE])
    shares = np.array([share for _, share in FICO_SCALE])
    cumulative = np.concatenate([[0.0], np.cumsum(shares[:-1])])
    return np.interp(np.asarray(percentile, dtype=float), cumulative, edges)


def nearest_repay(table_score: np.ndarray, table_repay: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The repayment probability at the table score nearest to each ``score`` (ties to the lower score).

    A score that has moved off the tables' grid (by a loan's outcome or by effort) repays at the
    rate of the nearest score the tables list, as in Liu et al.'s code.
    """
    score = np.asarray(score, dtype=float)
    right = np.clip(np.searchsorted(table_score, score), 1, table_score.size - 1)
    nearer_left = score - table_score[right - 1] <= table_score[right] - score
    return table_repay[np.where(nearer_left, right - 1, right)]


@dataclass(frozen=True)
class FicoTables:
    """The score distribution, repayment probability and size of each group, on a shared score grid.

    Attributes:
        percentile: ``(m,)`` increasing scores as percentiles (0–100).
        cdf: Group -> ``(m,)`` fraction of the group at or below each score (ends at 1).
        repay: Group -> ``(m,)`` probability that a borrower with that score repays.
        totals: Group -> number of people in the sample.
        citation: How to cite the tables.
    """

    percentile: np.ndarray
    cdf: dict[str, np.ndarray]
    repay: dict[str, np.ndarray]
    totals: dict[str, int]
    citation: str = CITATION

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups, in table order."""
        return tuple(self.cdf)

    @property
    def score(self) -> np.ndarray:
        """The score grid on the 300–850 FICO scale."""
        return to_fico_score(self.percentile)

    def pmf(self, group: str) -> np.ndarray:
        """The share of ``group`` at each score (the differences of its CDF; sums to 1)."""
        return np.diff(self.cdf[group], prepend=0.0)

    def select(self, groups: Sequence[str]) -> FicoTables:
        """The tables restricted to ``groups`` (in that order).

        Raises:
            DataError: A group that is not in the tables, or the same group twice.
        """
        groups = list(groups)
        for group in groups:
            if group not in self.cdf:
                raise DataError("groups", f"{group!r} is not in the FICO tables", f"use some of {list(self.groups)}")
        if len(set(groups)) != len(groups) or not groups:
            raise DataError("groups", f"must name distinct groups, got {groups}", "list each group once")
        return FicoTables(
            percentile=self.percentile,
            cdf={g: self.cdf[g] for g in groups},
            repay={g: self.repay[g] for g in groups},
            totals={g: self.totals[g] for g in groups},
            citation=self.citation,
        )


def _read_table(name: str, data_dir: Path | None) -> pd.DataFrame:
    """One table as a frame: bundled (checksum verified) when ``data_dir`` is None, else ``data_dir / name``."""
    if data_dir is None:
        text = read_verified(f"fico/{name}").decode("utf-8")
    else:
        path = Path(data_dir) / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise DataError(name, f"{path} does not exist", f"put {name} in {data_dir}") from None
        except (OSError, UnicodeDecodeError) as error:
            raise DataError(name, f"cannot read {path} ({error})", "give a readable UTF-8 CSV file") from None
    try:
        frame = pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise DataError(name, f"is not a CSV table ({error})", "give a header line and one row per score") from None
    return frame.rename(columns={column: GROUP_NAMES.get(column, column) for column in frame.columns})


def _numbers(name: str, frame: pd.DataFrame, column: str) -> np.ndarray:
    """The column as finite floats, or a :class:`DataError` naming it."""
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        row = int(np.flatnonzero(~np.isfinite(values))[0])
        raise DataError(f"{name}: {column}", f"row {row + 1} is not a finite number", "write a number in every cell")
    return values


def _score_grid(name: str, frame: pd.DataFrame) -> np.ndarray:
    """The ``Score`` column: strictly increasing percentiles within [0, 100]."""
    if frame.columns.size == 0 or frame.columns[0] != "Score":
        raise DataError(name, "the first column is not 'Score'", "start the header with Score, then the groups")
    score = _numbers(name, frame, "Score")
    if score.size < 2 or np.any(np.diff(score) <= 0) or score[0] < 0 or score[-1] > 100:
        raise DataError(
            f"{name}: Score", "is not an increasing list of percentiles within [0, 100]", "sort the rows by score"
        )
    return score


def _check_cdf(column: str, cdf: np.ndarray, score: np.ndarray) -> None:
    """A CDF in percent: within [0, 100], never decreasing, ending at 100."""
    field = f"{CDF_FILE}: {column}"
    if np.any(cdf < 0) or np.any(cdf > 100 + _CDF_END_TOLERANCE):
        raise DataError(field, "has a value outside [0, 100]", "give cumulative percentages between 0 and 100")
    falls = np.flatnonzero(np.diff(cdf) < 0)
    if falls.size:
        at = score[falls[0] + 1]
        raise DataError(field, f"is not a CDF: it decreases at score {at:g}", "give percentages that never decrease")
    if abs(cdf[-1] - 100) > _CDF_END_TOLERANCE:
        raise DataError(field, f"is not a CDF: it ends at {cdf[-1]:g}, not 100", "make the top score's row 100")


def _check_performance(column: str, default: np.ndarray) -> None:
    """Default percentages within [0, 100]."""
    if np.any(default < 0) or np.any(default > 100):
        raise DataError(
            f"{PERFORMANCE_FILE}: {column}",
            "has a default rate outside [0, 100]",
            "give the percentage of the group at each score that defaulted, between 0 and 100",
        )


def _totals(frame: pd.DataFrame, groups: Sequence[str]) -> dict[str, int]:
    """Group sizes from ``totals.csv``'s first row; each a positive whole number."""
    sizes: dict[str, int] = {}
    for group in groups:
        if group not in frame.columns:
            raise DataError(f"{TOTALS_FILE}: {group}", "is missing", f"add a column {group} with the group's size")
        value = pd.to_numeric(frame[group], errors="coerce").to_numpy(dtype=float)
        if value.size < 1 or not np.isfinite(value[0]) or value[0] <= 0 or value[0] != int(value[0]):
            raise DataError(f"{TOTALS_FILE}: {group}", "is not a positive whole number", "give the group's head count")
        sizes[group] = int(value[0])
    return sizes


def load_fico(data_dir: Path | str | None = None, groups: Sequence[str] | None = None) -> FicoTables:
    """Load the FICO TransRisk tables: the bundled copies, or three CSV files in ``data_dir``.

    Args:
        data_dir: A folder holding ``transrisk_cdf_by_race_ssa.csv``,
            ``transrisk_performance_by_race_ssa.csv`` and ``totals.csv`` in the published format;
            ``None`` reads the bundled copies (SHA-256 verified).
        groups: The groups to keep, in order (default: all four, White, Black, Hispanic, Asian).

    Returns:
        The :class:`FicoTables` (CDFs and repayment probabilities as fractions).

    Raises:
        DataError: An unreadable table, a CDF that decreases or does not end at 100, a default
            rate outside [0, 100], tables on different score grids, or a group missing from a table.
    """
    folder = None if data_dir is None else Path(data_dir)
    cdf_frame = _read_table(CDF_FILE, folder)
    performance_frame = _read_table(PERFORMANCE_FILE, folder)
    score = _score_grid(CDF_FILE, cdf_frame)
    if not np.array_equal(_score_grid(PERFORMANCE_FILE, performance_frame), score):
        raise DataError(PERFORMANCE_FILE, f"lists other scores than {CDF_FILE}", "give both tables the same Score rows")
    names = [column for column in cdf_frame.columns[1:]]
    cdf: dict[str, np.ndarray] = {}
    repay: dict[str, np.ndarray] = {}
    for group in names:
        if group not in performance_frame.columns:
            raise DataError(f"{PERFORMANCE_FILE}: {group}", "is missing", f"add the column {group} to it")
        values = _numbers(CDF_FILE, cdf_frame, group)
        _check_cdf(group, values, score)
        default = _numbers(PERFORMANCE_FILE, performance_frame, group)
        _check_performance(group, default)
        cdf[group] = values / 100.0
        repay[group] = (100.0 - default) / 100.0
    tables = FicoTables(percentile=score, cdf=cdf, repay=repay, totals=_totals(_read_table(TOTALS_FILE, folder), names))
    return tables if groups is None else tables.select(groups)
