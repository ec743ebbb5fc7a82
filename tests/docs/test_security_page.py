"""docs/security.md: the model-file allow-list it prints is the one the code enforces."""

from __future__ import annotations

from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def test_the_allow_list_on_the_security_page_is_the_codes() -> None:
    pytest.importorskip("skops")
    from recoursesim.scoring.model_trust import allowed_types

    text = PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- allow-list:start -->", 1)[1].split("<!-- allow-list:end -->", 1)[0]
    listed = [line for line in block.strip().removeprefix("```text").removesuffix("```").splitlines() if line]
    expected = sorted(allowed_types())
    assert listed == expected, (
        "docs/security.md lists another allow-list than recoursesim.scoring.model_trust.allowed_types() "
        f"(missing: {sorted(set(expected) - set(listed))[:5]}, extra: {sorted(set(listed) - set(expected))[:5]}); "
        "paste print('\\n'.join(sorted(allowed_types()))) between the allow-list markers"
    )
    assert (
        "sklearn.pipeline.Pipeline" in listed
        and "sklearn.utils._testing.assert_run_python_script_without_output" not in listed
    )


def test_the_allow_list_does_not_depend_on_what_was_imported_before() -> None:
    """scikit-learn lists its experimental estimators only after their enable flag is imported."""
    import subprocess
    import sys

    script = (
        "import sklearn.experimental.enable_halving_search_cv, sklearn.experimental.enable_iterative_imputer\n"
        "from recoursesim.scoring.model_trust import allowed_types\n"
        "print('\\n'.join(sorted(allowed_types())))"
    )
    after = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    from recoursesim.scoring.model_trust import allowed_types

    assert after.split() == sorted(allowed_types())
