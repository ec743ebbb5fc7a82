"""Property: loading any skops file runs no code, spawns nothing, imports nothing new and writes nothing.

Hypothesis writes skops files whose nodes (every kind skops has, and one it does not) name
classes and functions drawn from scikit-learn, NumPy, SciPy, the standard library's dangerous
corners (``builtins``, ``operator``, ``functools``, ``os``, ``subprocess``, ``importlib`` ...), with
arguments that would create a marker file, run Python source or import a module. While
:func:`~recoursesim.scoring.load_model_file` runs, an audit hook (:func:`sys.addaudithook`)
records every event that would mean the file ran: code executed or compiled, a process spawned,
a module imported that was not imported before, a file opened for writing, a file or folder
created, removed or renamed. Either the file loads as an allow-listed object or it is refused in
one line; in both cases the hook has recorded nothing.

Audit hooks cannot be removed, so the hook is installed once per process and records only while
the flag :data:`_WATCHING` is set, which :func:`_watched_load` sets around the load alone.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import skops.io as sio
import skops_files as sf
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from recoursesim.errors import ConfigError
from recoursesim.scoring import load_model_file
from recoursesim.scoring.model_trust import allowed_types

#: Audit events that mean code ran, a process started, or the file system changed.
_FORBIDDEN = frozenset(
    {
        "exec", "compile", "import", "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
        "os.fork", "os.forkpty", "pty.spawn", "os.mkdir", "os.remove", "os.rmdir", "os.rename", "os.symlink",
        "os.link", "os.chmod", "os.truncate", "os.kill", "os.putenv", "os.unsetenv", "shutil.rmtree",
        "shutil.copyfile", "shutil.move", "socket.connect", "socket.bind", "urllib.Request", "webbrowser.open",
        "ctypes.dlopen", "ctypes.call_function", "pickle.find_class", "marshal.loads",
    }
)  # fmt: skip
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

_WATCHING = False
_EVENTS: list[str] = []


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _WATCHING:
        return
    if event in _FORBIDDEN:
        _EVENTS.append(f"{event} {str(args)[:120]}")
    elif event == "open":
        path, mode, flags = (*args, None, None)[:3]
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & _WRITE_FLAGS
        )
        if writes:
            _EVENTS.append(f"open for writing {path!r} {mode!r}")


if not getattr(sys, "_recoursesim_model_file_hook", False):
    sys.addaudithook(_hook)
    sys._recoursesim_model_file_hook = True  # type: ignore[attr-defined]


def _watched_load(path: Path) -> tuple[Any, str | None, list[str]]:
    """Load ``path`` with the hook recording: (object or None, the refusal or None, events)."""
    global _WATCHING
    _EVENTS.clear()
    loaded, refusal = None, None
    _WATCHING = True
    try:
        loaded = load_model_file(path)
    except ConfigError as error:
        refusal = str(error)
    finally:
        _WATCHING = False
    return loaded, refusal, list(_EVENTS)


#: Classes on the allow-list and names that are not: scikit-learn functions that run code or touch files,
#: NumPy and SciPy loaders, and the standard library's ways to run code.
NAMES = [
    "sklearn.pipeline.Pipeline", "sklearn.linear_model._logistic.LogisticRegression", "numpy.ndarray",
    "numpy.float64", "builtins.dict", "builtins.list", "builtins.str", "collections.OrderedDict",
    "numpy.random.mtrand.RandomState", "sklearn.preprocessing._function_transformer.FunctionTransformer",
    "scipy.sparse._csr.csr_matrix",
    sf.RUN_SOURCE, sf.MAKEDIRS, "sklearn.utils.discovery.import_module", "sklearn.datasets._lfw.remove",
    "sklearn.utils._testing.assert_run_python_script_without_output", "sklearn.externals._arff.dumps",
    "numpy.load", "numpy.save", "numpy.fromfile", "numpy.savetxt", "numpy.absolute", "scipy.io.loadmat",
    "scipy.special.expit", "builtins.eval", "builtins.exec", "builtins.compile", "builtins.open",
    "builtins.__import__", "builtins.getattr", "builtins.type", "builtins.object", "operator.methodcaller",
    "operator.attrgetter", "functools.partial", "functools.reduce", "os.system", "os.makedirs", "os.remove",
    "subprocess.Popen", "subprocess.run", "importlib.import_module", "runpy.run_path", "pickle.loads",
    "antigravity.fly", "shutil.rmtree",
]  # fmt: skip
#: The names a rule trusting every ``sklearn.`` name let through that act on their argument (drawn half the time).
SKLEARN_FUNCTIONS = [
    sf.RUN_SOURCE,
    sf.MAKEDIRS,
    "sklearn.utils.discovery.import_module",
    "sklearn.datasets._lfw.remove",
]
#: The node kinds that call the name they hold with the file's data (drawn half the time).
CALLING = ["ConstructorFromReduceNode", "DictNode", "TypeNode", "NdArrayNode", "LossNode", "ObjectNode"]
LOADERS = sorted(
    {"ConstructorFromReduceNode", "ObjectNode", "DictNode", "ListNode", "SetNode", "TupleNode", "TypeNode"}
    | {"FunctionNode", "MethodNode", "PartialNode", "OperatorFuncNode", "NdArrayNode", "LossNode", "TreeNode"}
    | {"RandomStateNode", "DefaultDictNode", "SliceNode", "CachedNode", "UnheardOfNode"}
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory, user_model) -> Path:
    """A folder for the files, where a marker appears if anything ran; every allowed module imported."""
    folder = tmp_path_factory.mktemp("hostile-models")
    allowed_types()
    sio.dump(user_model, folder / "genuine.skops")
    load_model_file(folder / "genuine.skops")  # scikit-learn's modules a genuine load needs are imported now
    return folder


def _strings(folder: Path) -> st.SearchStrategy[Any]:
    marker = folder / "PWNED"
    texts = [str(marker), f"open({str(marker)!r}, 'w').close()", f"touch {marker}", "this", "os"]
    return st.one_of(st.sampled_from(texts), st.integers(-2, 3))


def _node(folder: Path) -> st.SearchStrategy[dict[str, Any]]:
    leaves = _strings(folder).map(sf.json_value)
    return st.recursive(leaves, lambda children: _nodes_over(children, folder), max_leaves=6)


def _nodes_over(children: st.SearchStrategy[dict[str, Any]], folder: Path) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        _make_node,
        st.one_of(st.sampled_from(CALLING), st.sampled_from(LOADERS)),
        st.one_of(st.sampled_from(SKLEARN_FUNCTIONS), st.sampled_from(NAMES)),
        st.lists(children, max_size=2),
        st.one_of(st.sampled_from(SKLEARN_FUNCTIONS), st.sampled_from(NAMES)),
        _strings(folder),
    )


def _make_node(loader: str, name: str, children: list[dict[str, Any]], other: str, text: Any) -> dict[str, Any]:
    """A node of kind ``loader`` naming ``name`` over ``children``, in the fields that kind reads."""
    args = sf.tuple_of(*children)
    first = children[0] if children else sf.json_value(text)
    fields: dict[str, Any] = {
        "ConstructorFromReduceNode": {"content": args},
        "ObjectNode": {"content": sf.dict_node({"state": first})},
        "DictNode": {
            "key_types": sf.node("ListNode", "builtins.list", content=[sf.node("TypeNode", other)]),
            "content": {str(text): first},
        },
        "ListNode": {"content": children},
        "SetNode": {"content": children},
        "TupleNode": {"content": children},
        "MethodNode": {"content": {"func": str(text), "obj": sf.node("ObjectNode", name)}},
        "PartialNode": {
            "content": {"func": first, "args": args, "kwds": sf.dict_node({}), "namespace": sf.dict_node({})}
        },
        "OperatorFuncNode": {"attrs": args},
        "NdArrayNode": {"type": "json", "content": children, "shape": sf.json_value([len(children)])},
        "LossNode": {"__reduce__": {"args": args}, "content": sf.dict_node({})},
        "TreeNode": {"__reduce__": {"args": args}, "content": sf.dict_node({})},
        "RandomStateNode": {"content": sf.dict_node({"state": first})},
        "DefaultDictNode": {"content": {"main": sf.dict_node({}), "default_factory": first}},
        "SliceNode": {"content": {"start": 0, "stop": text, "step": None}},
        "CachedNode": {"__id__": 1},
    }.get(loader, {})
    return sf.node(loader, name, **fields)


def _check(folder: Path, root: dict[str, Any]) -> None:
    path = sf.write(folder / "hostile.skops", root)
    with contextlib.chdir(folder):  # a relative path the file names lands here
        loaded, refusal, events = _watched_load(path)
    assert events == [], f"loading ran something: {events}"
    assert sorted(p.name for p in folder.iterdir()) == ["genuine.skops", "hostile.skops"]
    if refusal is not None:
        assert "\n" not in refusal and refusal.startswith("scorer.model_file: ")
    elif loaded is not None:  # an instance of an allowed class, or the class itself (a type node naming it)
        kind = loaded if isinstance(loaded, type) else type(loaded)
        assert f"{kind.__module__}.{kind.__qualname__}" in allowed_types()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@example(data=None)
def test_no_skops_file_runs_anything_while_it_is_loaded(folder, data) -> None:
    marker = folder / "PWNED"
    if data is None:  # the two exploits found by hand, every time
        for exploit in (sf.source_exploit(marker), sf.makedirs_exploit(marker)):
            _check(folder, exploit)
        return
    _check(folder, data.draw(_node(folder)))
