import gzip
import shutil
import socket

import pandas as pd
import pytest

from recoursesim.datasets import Dataset, _files, load_adult, load_compas, load_german
from recoursesim.errors import ConfigError, DataError


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a loader tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def check_contract(data: Dataset) -> None:
    assert isinstance(data.frame, pd.DataFrame)
    assert data.target in data.frame
    assert set(data.frame[data.target].unique()) == {0, 1}
    assert set(data.feature_types) == set(data.frame.columns) - {data.target}
    assert set(data.feature_types.values()) <= {"numerical", "categorical", "ordinal", "binary"}
    for column, order in data.ordinal_orders.items():
        assert data.feature_types[column] == "ordinal"
        assert set(data.frame[column].dropna().unique()) <= set(order)
    for column in data.protected:
        assert column in data.feature_types
    assert data.citation


def test_adult_all_train_test():
    full, train, test = load_adult(), load_adult("train"), load_adult("test")
    for data in (full, train, test):
        check_contract(data)
    assert full.frame.shape == (48842, 15)
    assert len(train.frame) == 32561 and len(test.frame) == 16281
    # 11,687 of 48,842 earn >50K (7,841 in adult.data + 3,846 in adult.test).
    assert full.frame["income"].sum() == 11687
    assert train.frame["income"].sum() == 7841
    assert full.protected == ("sex", "race")
    assert set(full.frame["sex"].unique()) == {"Male", "Female"}
    # Missing values are NaN (no leading spaces, no "?"), and no row is dropped.
    assert full.frame["workclass"].isna().sum() == 2799
    assert not full.frame["workclass"].dropna().str.startswith(" ").any()
    assert "?" not in set(full.frame["occupation"].dropna())


def test_adult_unknown_split():
    with pytest.raises(ConfigError, match="split"):
        load_adult("validation")


def test_german():
    data = load_german()
    check_contract(data)
    assert data.frame.shape == (1000, 22)
    assert data.frame["credit"].sum() == 700
    assert data.protected == ("sex", "age")
    assert data.frame["sex"].value_counts().to_dict() == {"male": 690, "female": 310}
    assert data.frame["purpose"].iloc[0] == "radio/television"
    assert data.feature_types["present_employment"] == "ordinal"


def test_compas():
    data = load_compas()
    check_contract(data)
    assert data.frame.shape == (7214, 11)
    # two_year_recid == 1 for 3,251 people, so 3,963 have the favourable outcome.
    assert data.frame["no_recid"].sum() == 7214 - 3251
    assert data.protected == ("race", "sex")


def test_checksum_mismatch_is_caught(tmp_path, monkeypatch):
    for name in _files.SHA256:
        (tmp_path / name).parent.mkdir(exist_ok=True)  # the FICO tables sit in fico/
        shutil.copy(_files.DATA_DIR / f"{name}.gz", tmp_path / f"{name}.gz")
    raw = gzip.decompress((tmp_path / "german.data.gz").read_bytes())
    (tmp_path / "german.data.gz").write_bytes(gzip.compress(raw.replace(b"A11", b"A12", 1)))
    monkeypatch.setattr(_files, "DATA_DIR", tmp_path)
    with pytest.raises(DataError, match="checksum mismatch"):
        load_german()
    load_compas()  # untouched files still load


def test_missing_and_corrupt_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "DATA_DIR", tmp_path)
    with pytest.raises(DataError, match="missing"):
        load_compas()
    (tmp_path / "compas-scores-two-years.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(DataError, match="gzip"):
        load_compas()
