"""Read the compressed data files shipped in ``recoursesim/datasets/data`` and verify them."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

from recoursesim.errors import DataError

#: Directory holding the gzip-compressed data files.
DATA_DIR: Path = Path(__file__).resolve().parent / "data"

#: SHA-256 of each original (decompressed) file, as published with the data set copies.
SHA256: dict[str, str] = {
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    "compas-scores-two-years.csv": ("c451db85908b2f7fef1d83203bedf6b71ecda0d5af468d82ae62178f91d0cc7d"),
    "german.data": "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871",
    "values_maps.json": "73a48f120cdb8019fb9f0ad84078ef1ba109f1100bbcc6cbcf925d60e6adcd4e",
    "fico/totals.csv": "60ba4af53f9e61dedad3a5c4246390e666760e7552c98b08084dd3abf6b73f13",
    "fico/transrisk_cdf_by_race_ssa.csv": "04c9691aa4b9fad43cc9722bc35a7d3f3f02ae1d724d49ae9d3bbe153f5b4f67",
    "fico/transrisk_performance_by_race_ssa.csv": "77af654ac4173978c3cdb3a9186becb12ec35666d9e34e5b666a6a3972692ff9",
}


def read_verified(name: str) -> bytes:
    """Return the decompressed bytes of a bundled file after checking its SHA-256.

    The digest is computed on the decompressed bytes and compared with the digest of the
    original file (:data:`SHA256`).

    Args:
        name: The original file name, a key of :data:`SHA256` (e.g. ``"adult.data"``); the file read
            is ``name + ".gz"`` in :data:`DATA_DIR`.

    Returns:
        The file's bytes.

    Raises:
        DataError: If the file is missing, not valid gzip, or its checksum does not match.
    """
    path = DATA_DIR / f"{name}.gz"
    try:
        raw = gzip.decompress(path.read_bytes())
    except FileNotFoundError:
        raise DataError(
            name,
            f"bundled file {path} is missing",
            "reinstall recoursesim (the package data is incomplete)",
        ) from None
    except (OSError, EOFError) as error:
        raise DataError(name, f"bundled file {path} is not valid gzip ({error})", "reinstall recoursesim") from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256[name]:
        raise DataError(
            name,
            f"checksum mismatch for {path}: SHA-256 {digest[:12]}... != expected {SHA256[name][:12]}...",
            "the bundled file is corrupted or modified; reinstall recoursesim",
        )
    return raw
