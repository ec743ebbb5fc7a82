"""docs/policy.md's robust-choice example: its own code, run here, prints the table the page shows."""

import contextlib
import io
import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.ema, pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")]

PAGE = (Path(__file__).resolve().parents[2] / "docs" / "policy.md").read_text(encoding="utf-8")


def test_the_robustness_table_is_what_the_code_prints(tmp_path, monkeypatch):
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", PAGE, re.S) if "robustness(table" in b]
    (shown,) = re.findall(r"<!-- made by the code above: robustness -->\n```text\n(.*?)```", PAGE, re.S)
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(code, "docs/policy.md", "exec"), {})
    assert printed.getvalue() == shown
