"""Hand-written skops files for the model-file trust tests: nodes, exploits, and a genuine model with one planted.

A skops file is a zip holding ``schema.json`` (a tree of nodes, each naming ``__module__`` and
``__class__`` and the ``__loader__`` that rebuilds it) beside the arrays it refers to. These
helpers write such trees directly, as an attacker would, without calling :func:`skops.io.dump`.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import skops
from skops.io._protocol import PROTOCOL


def node(loader: str, name: str, **fields: Any) -> dict[str, Any]:
    """A node naming ``name`` (``"module.Name"``), rebuilt by ``loader``."""
    module, _, cls = name.rpartition(".")
    return {"__class__": cls, "__module__": module, "__loader__": loader, **fields}


def json_value(value: Any) -> dict[str, Any]:
    """A plain JSON value (a string, a number, a list of them)."""
    return {"__class__": "str", "__module__": "builtins", "__loader__": "JsonNode", "content": json.dumps(value)}


def tuple_of(*items: dict[str, Any]) -> dict[str, Any]:
    """A tuple of nodes."""
    return node("TupleNode", "builtins.tuple", content=list(items))


def dict_node(mapping: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A dictionary with string keys over nodes."""
    key_types = node("ListNode", "builtins.list", content=[node("TypeNode", "builtins.str") for _ in mapping])
    return node("DictNode", "builtins.dict", key_types=key_types, content=mapping)


def write(path: Path, root: dict[str, Any], files: dict[str, bytes] | None = None) -> Path:
    """Write a skops file whose schema is ``root`` (plus any array files it refers to)."""
    schema = {**root, "protocol": PROTOCOL, "_skops_version": skops.__version__}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("schema.json", json.dumps(schema))
        for name, data in (files or {}).items():
            archive.writestr(name, data)
    return path


#: A scikit-learn test helper that writes the Python source it is given to a file and runs it.
RUN_SOURCE = "sklearn.utils._testing.assert_run_python_script_without_output"
#: ``os.makedirs`` as scikit-learn's dataset module imports it.
MAKEDIRS = "sklearn.datasets._base.makedirs"


def source_exploit(marker: Path) -> dict[str, Any]:
    """A node that calls :data:`RUN_SOURCE` with Python source creating ``marker`` (it returns ``None``)."""
    source = f"open({str(marker)!r}, 'w').close()"
    return node("ConstructorFromReduceNode", RUN_SOURCE, content=tuple_of(json_value(source)))


def makedirs_exploit(marker: Path) -> dict[str, Any]:
    """A dictionary whose key type is :data:`MAKEDIRS`: building the key creates the folder ``marker``."""
    key_types = node("ListNode", "builtins.list", content=[node("TypeNode", MAKEDIRS)])
    return node("DictNode", "builtins.dict", key_types=key_types, content={str(marker): json_value(1)})


def plant(model_file: Path, out: Path, planted: dict[str, Any], attribute: str = "_notes") -> Path:
    """Copy a genuine skops file of a fitted estimator with ``planted`` as the value of a new attribute.

    The model works as before: a run with it ends normally, and only what the planted node did
    while the file was loaded shows that anything happened.
    """
    with zipfile.ZipFile(model_file) as archive:
        schema = json.loads(archive.read("schema.json"))
        files = {name: archive.read(name) for name in archive.namelist() if name != "schema.json"}
    attributes = schema["content"]
    attributes["content"][attribute] = planted
    attributes["key_types"]["content"].append(node("TypeNode", "builtins.str"))
    return write(out, {k: v for k, v in schema.items() if k not in ("protocol", "_skops_version")}, files)
