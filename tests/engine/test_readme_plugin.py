"""The plug-in example in docs/plugins.md runs as written."""

import re
from pathlib import Path

from recoursesim.registry import _REGISTRY
from recoursesim.scenario import Scenario

README = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def test_readme_plugin_example_registers_and_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    code = next(b for b in blocks if "@register(" in b)
    _REGISTRY["selector"].pop("newcomers_first", None)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    spec = Scenario.bundled("default").spec | {"selection": {"name": "newcomers_first", "k": 20}}
    model = Scenario.from_dict(spec).build_model(0).run(until=2)
    ledger = model.ledger
    assert (ledger.groupby("step")["selected"].sum() == 20).all()
    # at step 1 all 20 newcomers win, whatever their scores
    step1 = ledger[ledger["step"] == 1]
    assert step1.loc[step1["entry_step"] == 1, "selected"].all()
    _REGISTRY["selector"].pop("newcomers_first", None)
