"""The bundled FICO tables: checksums, the percentile conversion, and one clear error per kind of bad table."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from recoursesim.datasets import load_fico
from recoursesim.datasets._files import DATA_DIR
from recoursesim.datasets.fico import CDF_FILE, PERFORMANCE_FILE, TOTALS_FILE, to_fico_score
from recoursesim.errors import DataError


def test_the_bundled_tables_load_with_the_published_totals() -> None:
    tables = load_fico()
    assert tables.groups == ("White", "Black", "Hispanic", "Asian")
    assert tables.totals == {"White": 133165, "Black": 18274, "Hispanic": 14702, "Asian": 7906}
    assert tables.percentile.size == 198
    for group in tables.groups:
        assert tables.cdf[group][-1] == 1.0
        assert tables.pmf(group).sum() == pytest.approx(1.0)
    # first row of the performance table: 99.67% of Black applicants at percentile 0 defaulted
    assert tables.repay["Black"][0] == pytest.approx(0.0033)
    assert load_fico(groups=["Black", "White"]).groups == ("Black", "White")


def test_percentiles_map_piecewise_linearly_onto_300_to_850() -> None:
    # band edges: 0 -> 300, 2.1 -> 350, 6.3 -> 400, 94.3 -> 800, 100 -> 850; halfway through a band is halfway
    np.testing.assert_allclose(to_fico_score(np.array([0, 2.1, 6.3, 94.3, 100, 1.05])), [300, 350, 400, 800, 850, 325])


def test_an_unknown_group_is_refused() -> None:
    with pytest.raises(DataError, match="'Martian' is not in the FICO tables; fix: use some of"):
        load_fico(groups=["Martian"])


def _copy(tmp_path: Path) -> Path:
    import gzip

    for name in (CDF_FILE, PERFORMANCE_FILE, TOTALS_FILE):
        (tmp_path / name).write_bytes(gzip.decompress((DATA_DIR / "fico" / f"{name}.gz").read_bytes()))
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_a_copy_of_the_tables_loads_like_the_bundled_ones(tmp_path) -> None:
    copy, bundled = load_fico(_copy(tmp_path)), load_fico()
    np.testing.assert_array_equal(copy.cdf["Black"], bundled.cdf["Black"])


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        (
            CDF_FILE,
            "1.5,1.43,6.47",
            "1.5,1.43,1.47",
            "cdf_by_race_ssa.csv: Black: is not a CDF: it decreases",
        ),
        (CDF_FILE, "100,100.00,", "100,99.99,", "White: is not a CDF: it ends at 99.99, not 100"),
        (PERFORMANCE_FILE, "0,98.54,99.67", "0,98.54,101.5", "performance_by_race_ssa.csv: Black: has a default rate"),
        (PERFORMANCE_FILE, "Black,", "Blk,", "performance_by_race_ssa.csv: Black: is missing"),
        (TOTALS_FILE, "18274", "-5", "totals.csv: Black: is not a positive whole number"),
        (CDF_FILE, "0.5,0.26", "0.5,nan", "cdf_by_race_ssa.csv: White: row 2 is not a finite number"),
    ],
)
def test_a_bad_table_is_refused_naming_the_table_and_column(tmp_path, name, old, new, message) -> None:
    folder = _copy(tmp_path)
    _edit(folder / name, old, new)
    with pytest.raises(DataError, match="fix: ") as caught:
        load_fico(folder)
    assert message in str(caught.value)


def test_a_missing_table_is_refused(tmp_path) -> None:
    folder = _copy(tmp_path)
    (folder / TOTALS_FILE).unlink()
    with pytest.raises(DataError, match=r"totals\.csv: .* does not exist; fix: put totals\.csv in"):
        load_fico(folder)


def test_a_corrupted_bundled_file_fails_its_checksum(tmp_path, monkeypatch) -> None:
    import gzip

    from recoursesim.datasets import _files

    shutil.copytree(DATA_DIR / "fico", tmp_path / "fico")
    (tmp_path / "fico" / f"{TOTALS_FILE}.gz").write_bytes(gzip.compress(b"Kind,Black\nSSA,1\n"))
    monkeypatch.setattr(_files, "DATA_DIR", tmp_path)
    with pytest.raises(DataError, match="checksum mismatch"):
        load_fico()
