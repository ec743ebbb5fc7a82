"""The real-data example in docs/real-data-runs.md runs as written."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[2] / "docs" / "real-data-runs.md"


def test_readme_dataframe_pipeline_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    code = next(b for b in blocks if "scorer_from_estimator(" in b)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    codes = namespace["codes"]
    scores = namespace["scorer"].score(codes[:20])
    expected = namespace["pipeline"].predict_proba(namespace["population"].schema.decode(codes[:20]))[:, 1]
    np.testing.assert_allclose(scores, expected)
