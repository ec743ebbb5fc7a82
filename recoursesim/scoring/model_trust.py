"""Which types a skops model file may make recoursesim build: an allow-list of exact classes.

A skops file is a zip holding ``schema.json``: a tree of nodes, each naming a Python object by
module and name (``"__module__"``, ``"__class__"``) and the kind of node that rebuilds it
(``"__loader__"``). Several kinds *call* the object they name with arguments taken from the file:
``ConstructorFromReduceNode`` calls it with the file's arguments, ``ObjectNode`` calls its
``__new__`` and ``__setstate__``, ``NdArrayNode``, ``ListNode``, ``LossNode`` and ``TypeNode``
(a dictionary's key types) call it on the file's data, and ``FunctionNode``, ``MethodNode``,
``PartialNode`` and ``OperatorFuncNode`` hand a callable to the model, which calls it later. So
a name is safe only if it is a class whose construction restores data; a function named there
(scikit-learn has functions that run Python source they are given, or create and delete files)
is code.

recoursesim reads ``schema.json`` itself, before skops builds anything, and loads the file only
if every name in it is on :func:`allowed_types` (scikit-learn's estimators and the helper classes
their fitted state holds, skops' default list of plain types, NumPy's data types, random states
and SciPy's sparse matrices: classes only) or in the list of types the person running trusted
(``--trust TYPE``, ``trusted=[...]``). Nothing the file names is imported or constructed to
decide: the allow-list is built from the installed scikit-learn, NumPy, SciPy and skops alone.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from recoursesim.errors import ConfigError

#: Node kinds whose name is a callable the model holds (a function or a method), never a class instance.
CALLABLE_NODES = frozenset({"FunctionNode", "MethodNode", "PartialNode", "OperatorFuncNode"})

#: Node kinds that build one fixed type whatever name they state: the type they build is what is checked.
FIXED_TYPES = {
    "PartialNode": "functools.partial",
    "DefaultDictNode": "collections.defaultdict",
    "BytesNode": "builtins.bytes",
    "BytearrayNode": "builtins.bytearray",
    "MaskedArrayNode": "numpy.ma.MaskedArray",
}

#: Node kinds whose name is not used to build anything: JSON values, and references to a node met before.
DATA_NODES = frozenset({"JsonNode", "CachedNode"})

#: Every node kind the allow-list is written for; a file with any other kind is refused.
KNOWN_NODES = CALLABLE_NODES | DATA_NODES | {
    "BytearrayNode", "BytesNode", "ConstructorFromReduceNode", "DTypeNode", "DefaultDictNode", "DictNode",
    "ListNode", "LossNode", "MaskedArrayNode", "NdArrayNode", "ObjectNode", "RandomGeneratorNode",
    "RandomStateNode", "SetNode", "SliceNode", "SparseMatrixNode", "TreeNode", "TupleNode", "TypeNode",
}  # fmt: skip

#: scikit-learn's tree structures: compiled code reads their node arrays (see docs/security.md).
TREE_TYPES = (
    "sklearn.tree._tree.Tree",
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
)

#: Plain Python types a fitted model's state holds.
BUILTIN_TYPES = (
    "builtins.bool", "builtins.bytearray", "builtins.bytes", "builtins.complex", "builtins.dict",
    "builtins.float", "builtins.frozenset", "builtins.int", "builtins.list", "builtins.set", "builtins.slice",
    "builtins.str", "builtins.tuple", "collections.OrderedDict", "collections.defaultdict",
)  # fmt: skip

#: Types skops' default list holds that recoursesim refuses: ``map`` is a lazy iterator, not data; no
#: fitted scikit-learn model holds one, and the confine checks cannot look inside it without running it.
REFUSED_DEFAULTS = frozenset({"builtins.map"})

#: A seed sequence's fields, its pool size (numpy's only one) and the most words its entropy or spawn key holds.
SEED_SEQUENCE_FIELDS = ("entropy", "spawn_key", "pool_size", "n_children_spawned")
SEED_POOL_SIZE = 4
MAX_SEED_WORDS = 1024
INTEGER_SCALARS = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})

#: Largest ``schema.json`` read, uncompressed as the zip declares it (a forest of 200 trees writes about 3 MB).
MAX_SCHEMA_BYTES = 256 * 2**20

#: Largest model file, all members uncompressed as the zip declares them (Python reads no member past it).
MAX_MODEL_BYTES = 4 * 2**30

#: Largest compression ratio of a member over 1 MiB: skops stores members uncompressed, and
#: deflated JSON or arrays of real models shrink far less; a zip bomb shrinks about 1000 times.
MAX_COMPRESSION_RATIO = 100

#: Modules of scikit-learn's experimental estimators. ``all_estimators`` lists their classes only once
#: the matching ``sklearn.experimental.enable_*`` module has been imported by anyone in the process, so
#: they are left out, and the allow-list is the same whatever was imported before.
EXPERIMENTAL_MODULES = frozenset({"sklearn.model_selection._search_successive_halving", "sklearn.impute._iterative"})

#: Most names listed in a refusal (the rest are counted).
SHOWN = 5


@cache
def allowed_types() -> frozenset[str]:
    """The classes a skops model file may name without being trusted, as ``module.Class``.

    scikit-learn's estimators (:func:`sklearn.utils.all_estimators`), the helper classes their
    fitted state holds (losses, links, binning, tree structures), skops' default list of plain
    types, NumPy's scalar types, arrays, dtypes and random states, SciPy's sparse matrices and
    arrays, and the plain Python containers. Every entry is checked to be a class.
    """
    import numpy as np
    import scipy.sparse
    from sklearn.utils import all_estimators

    candidates: set[str] = set(BUILTIN_TYPES) | set(TREE_TYPES)
    candidates |= {_name(cls) for _, cls in all_estimators() if cls.__module__ not in EXPERIMENTAL_MODULES}
    candidates |= {_name(np.dtype(code).type) for code in np.typecodes["All"]}
    candidates |= _skops_defaults()
    numpy_classes = [np.ndarray, np.dtype, np.ma.MaskedArray, np.random.RandomState, np.random.Generator]
    numpy_classes += [np.random.SeedSequence]
    numpy_classes += [getattr(np.random, n) for n in dir(np.random) if _is_bit_generator(getattr(np.random, n))]
    candidates |= {_name(cls) for cls in numpy_classes}
    for attribute in dir(scipy.sparse):
        found = getattr(scipy.sparse, attribute)
        if isinstance(found, type) and issubclass(found, scipy.sparse.spmatrix | scipy.sparse.sparray):
            candidates.add(_name(found))
    candidates -= REFUSED_DEFAULTS
    return frozenset(name for name in candidates if isinstance(_resolve(name), type))


def _skops_defaults() -> set[str]:
    """The default list of skops: its plain types and the scikit-learn helper classes it loads without asking.

    skops keeps the list in private modules; if a skops version moves them, the allow-list is
    shorter (files holding those classes then need ``--trust``), never longer.
    """
    try:
        from skops.io import _sklearn, _trusted_types
    except ImportError:
        return set()
    names = {_name(cls) for cls in getattr(_sklearn, "ALLOWED_LOSSES", ())}
    lists = ("SKLEARN_INTERNAL_TYPE_NAMES", "PRIMITIVE_TYPE_NAMES", "CONTAINER_TYPE_NAMES", "NUMPY_DTYPE_TYPE_NAMES")
    for listed in (*lists, "NUMPY_RANDOM_BIT_GENERATOR_TYPE_NAMES"):
        names |= set(getattr(_trusted_types, listed, ()))
    return names


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_bit_generator(value: Any) -> bool:
    import numpy as np

    return isinstance(value, type) and issubclass(value, np.random.BitGenerator) and value is not np.random.BitGenerator


def _resolve(name: str) -> Any:
    """The object a name from :func:`allowed_types`' candidates is (modules of installed scientific packages)."""
    import importlib

    module, _, attribute = name.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute, None)
    except ImportError:
        return None


def names_in_file(path: Path) -> dict[str, str]:
    """Every type a skops file names, with the kind of node that names it, read without building anything.

    Returns:
        ``{name: node kind}``; a method is named ``module.Class.method``.

    Raises:
        ConfigError: not a skops file, a protocol this skops does not write, or a node kind
            recoursesim does not know.
    """
    from skops.io._protocol import PROTOCOL

    try:
        with zipfile.ZipFile(path) as archive:
            _check_sizes(path, archive)
            schema = json.loads(archive.read("schema.json"))
    except ConfigError:
        raise
    except (OSError, KeyError, ValueError, RecursionError, zipfile.BadZipFile) as error:
        raise ConfigError(
            "model_file",
            f"{path.name} is not a readable skops file ({type(error).__name__})",
            "save it with skops.io.dump",
        ) from None
    protocol = schema.get("protocol") if isinstance(schema, dict) else None
    if protocol != PROTOCOL or isinstance(protocol, bool):
        raise ConfigError(
            "model_file",
            f"{path.name} was written with skops protocol {protocol!r}, not {PROTOCOL}",
            "load it with skops and save it again with this skops version (skops.io.dump)",
        )
    found: dict[str, str] = {}
    for node in _nodes(schema):
        kind = node.get("__loader__")
        if kind not in KNOWN_NODES:
            raise ConfigError(
                "model_file", f"{path.name} holds a node of unknown kind {kind!r}", "save it with skops.io.dump"
            )
        if kind in DATA_NODES:
            continue
        name = _built_name(node, kind)
        if kind in CALLABLE_NODES:
            found[name] = kind  # a callable by kind, even if the same name is also a class elsewhere
        else:
            found.setdefault(name, kind)
        if kind == "RandomGeneratorNode":
            found[f"numpy.random.{_bit_generator(node)}"] = kind
            _check_seed_sequence(node, path)
    return found


def _built_name(node: dict[str, Any], kind: str) -> str:
    """The name of what skops builds from a node: its stated class, or the one type its kind builds."""
    if kind in FIXED_TYPES:
        return FIXED_TYPES[kind]
    if kind == "OperatorFuncNode":  # skops builds operator.<class> whatever module the node states
        return f"operator.{node.get('__class__')}"
    name = f"{node.get('__module__')}.{node.get('__class__')}"
    if kind == "MethodNode":  # the object is a node of its own; the callable is the method
        content = node.get("content")
        return f"{name}.{content.get('func') if isinstance(content, dict) else None}"
    return name


def _check_sizes(path: Path, archive: zipfile.ZipFile) -> None:
    """Refuse a zip whose declared sizes or compression ratio exceed the limits, before reading a member."""
    members = archive.infolist()
    schema = next((m for m in members if m.filename == "schema.json"), None)
    total = sum(m.file_size for m in members)
    squeezed = [m for m in members if m.file_size > 2**20 and m.file_size > MAX_COMPRESSION_RATIO * m.compress_size]
    if schema is not None and schema.file_size > MAX_SCHEMA_BYTES:
        problem = f"its schema.json inflates to {schema.file_size} bytes (limit {MAX_SCHEMA_BYTES})"
    elif total > MAX_MODEL_BYTES:
        problem = f"its members inflate to {total} bytes (limit {MAX_MODEL_BYTES})"
    elif squeezed:
        ratio = squeezed[0].file_size // max(squeezed[0].compress_size, 1)
        problem = f"its member {squeezed[0].filename!r} is compressed {ratio} times (limit {MAX_COMPRESSION_RATIO})"
    else:
        return
    raise ConfigError(
        "model_file", f"{path.name} is not a model file recoursesim reads: {problem}", "save it with skops.io.dump"
    )


def _nodes(schema: Any) -> Iterator[dict[str, Any]]:
    """Every node of a schema, depth first, wherever it sits (contents, arguments, key types, ...)."""
    stack = [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "__loader__" in item:
                yield item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _bit_generator(node: dict[str, Any]) -> str:
    """The bit generator a ``numpy.random.Generator`` node names in its data (skops calls it by that name)."""
    try:
        stored = node["content"]["bit_generator"]["content"]["bit_generator"]["content"]
        name = json.loads(stored)
    except (KeyError, TypeError, ValueError):
        name = None
    return name if isinstance(name, str) else "<unreadable>"


def _check_seed_sequence(node: dict[str, Any], path: Path) -> None:
    """Refuse a generator's seed-sequence state unlike numpy's, before numpy builds it.

    numpy mixes the entropy and spawn key into a pool of ``pool_size`` words in time that grows
    with ``pool_size`` squared; numpy always writes a pool of 4 words (``pool_size = 60000``
    takes minutes). Entropy and spawn key are integers or short lists of them.
    """
    content = node.get("content")
    seed = content.get("seed_seq") if isinstance(content, dict) else None
    fields = seed.get("content") if isinstance(seed, dict) and seed.get("__loader__") == "DictNode" else None
    problem = None
    if not isinstance(fields, dict) or not set(fields) <= set(SEED_SEQUENCE_FIELDS):
        problem = f"is not numpy's state (fields {', '.join(SEED_SEQUENCE_FIELDS)})"
    elif _json_of(fields.get("pool_size")) != SEED_POOL_SIZE:
        problem = f"has pool_size {_json_of(fields.get('pool_size'))!r}, not numpy's {SEED_POOL_SIZE}"
    elif not all(_small_integers(fields.get(name)) for name in ("entropy", "spawn_key")):
        problem = f"has an entropy or spawn_key that is not an integer or a list of at most {MAX_SEED_WORDS} integers"
    if problem is not None:
        raise ConfigError(
            "model_file", f"{path.name}: a random generator's seed sequence {problem}", "save it with skops.io.dump"
        )


def _json_of(node: Any) -> Any:
    """The value of a JSON node, or ``None`` when ``node`` is not one (or does not parse)."""
    if not isinstance(node, dict) or node.get("__loader__") != "JsonNode" or not isinstance(node.get("content"), str):
        return None
    try:
        return json.loads(node["content"])
    except ValueError:
        return None


def _small_integers(node: Any) -> bool:
    """An integer (or null), or a list or tuple of at most :data:`MAX_SEED_WORDS` integers, as JSON nodes."""
    if isinstance(node, dict) and node.get("__loader__") in ("ListNode", "TupleNode"):
        items = node.get("content")
        return isinstance(items, list) and len(items) <= MAX_SEED_WORDS and all(map(_integer_node, items))
    return node is None or _integer_node(node) or (_json_of(node) is None and node.get("content") == "null")


def _integer_node(node: Any) -> bool:
    """A JSON integer, or a NumPy integer scalar (numpy writes its default entropy as a ``uint64``)."""
    if isinstance(node, dict) and node.get("__loader__") == "NdArrayNode" and node.get("type") == "numpy":
        return node.get("__module__") == "numpy" and node.get("__class__") in INTEGER_SCALARS
    value = _json_of(node)
    return isinstance(value, int) and not isinstance(value, bool)


def refused_types(found: dict[str, str], trusted: Iterable[str] = ()) -> list[str]:
    """The names of ``found`` that are neither allowed classes nor trusted, each with what it is.

    A callable (a function, method, partial or operator node) is refused unless trusted, whatever
    name it states: the allow-list holds classes to build, not callables to hand to a model.
    """
    granted = set(trusted)
    allowed = allowed_types() | granted
    refused = []
    for name, kind in sorted(found.items()):
        if name in (granted if kind in CALLABLE_NODES else allowed):
            continue
        what = "a function or method" if kind in CALLABLE_NODES else "not an allowed class"
        shown = name if name.isprintable() and len(name) <= 200 else repr(name[:200])
        refused.append(f"{shown} ({what})")
    return refused


def check_model_file(path: Path, trusted: Iterable[str] = (), field: str = "model_file") -> list[str]:
    """Refuse a skops file that names anything not allowed or trusted; return the names it holds.

    Raises:
        ConfigError: one line naming the types (at most :data:`SHOWN` of them) and ``--trust``.
    """
    try:
        found = names_in_file(path)
    except ConfigError as error:
        raise ConfigError(field, error.problem, error.fix) from None
    refused = refused_types(found, trusted)
    if refused:
        listed = ", ".join(refused[:SHOWN]) + (f" and {len(refused) - SHOWN} more" if len(refused) > SHOWN else "")
        first = refused[0].partition(" ")[0]
        raise ConfigError(
            field,
            f"{path.name} names types recoursesim does not load without your trust: {listed}",
            f"load it only if you trust its author and these types: --trust {first} (repeat per type; "
            f'Python: trusted=["{first}", ...]); see the security page',
        )
    return sorted(found)
