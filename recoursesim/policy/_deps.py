"""Lazy imports of the optional ``policy`` extra (SALib, Optuna, Gymnasium) and ``ema`` extra (EMA Workbench)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
import warnings
from pathlib import Path
from types import ModuleType

from recoursesim.errors import ConfigError

#: Import name -> (distribution name, what recoursesim uses it for).
POLICY_PACKAGES = {
    "SALib": ("SALib", "global sensitivity analysis (recoursesim sensitivity)"),
    "optuna": ("optuna", "policy search (recoursesim optimise)"),
    "sqlalchemy": ("optuna", "the policy search's study file (recoursesim optimise)"),
    "gymnasium": ("gymnasium", "the reinforcement-learning environment (recoursesim.gym)"),
    "ema_workbench": ("ema-workbench", "scenario discovery and the EMA Workbench model (recoursesim discover)"),
}

#: How to install them.
POLICY_INSTALL = "pip install 'recoursesim[policy]'"
#: How to install the EMA Workbench.
EMA_INSTALL = "pip install 'recoursesim[ema]'"


def require(module: str) -> ModuleType:
    """Import ``module`` (a dotted name inside one of :data:`POLICY_PACKAGES`).

    Raises:
        ConfigError: The package is not installed, with the install command.
    """
    top = module.split(".")[0]
    try:
        with warnings.catch_warnings():
            # The EMA Workbench warns on import that its optional ipyparallel evaluator is missing.
            warnings.filterwarnings("ignore", message="ipyparallel not installed", category=UserWarning)
            return importlib.import_module(module)
    except ImportError:
        distribution, purpose = POLICY_PACKAGES[top]
        install = EMA_INSTALL if top == "ema_workbench" else POLICY_INSTALL
        raise ConfigError(top, f"{distribution} is not installed (needed for {purpose})", install) from None


#: The EMA Workbench's PRIM module, and the packages whose ``__init__`` it does not need.
PRIM_MODULE = "ema_workbench.analysis.prim"
_PRIM_PARENTS = ("ema_workbench", "ema_workbench.em_framework", "ema_workbench.analysis")


def require_prim() -> ModuleType:
    """Import the EMA Workbench's PRIM module without the rest of the workbench.

    ``import ema_workbench.analysis.prim`` runs the package's ``__init__`` first, which imports
    its evaluators, samplers, statsmodels and the other analyses (more than PRIM and its plotting
    libraries take together). Here the three parent packages are stood in for while PRIM loads,
    with their real folders as their paths; then every workbench module loaded so is taken out
    of ``sys.modules`` again (this PRIM is kept here), so a later ``import ema_workbench`` is
    the whole, ordinary package. If the workbench is already imported, or PRIM needs more than
    those modules (another version), PRIM is imported the ordinary way.

    Raises:
        ConfigError: The ema extra is not installed, with the install command.
    """
    global _prim
    if _prim is not None:  # the same PRIM for the whole process
        return _prim
    if "ema_workbench" in sys.modules:
        return require(PRIM_MODULE)
    spec = importlib.util.find_spec("ema_workbench")
    if spec is None or not spec.submodule_search_locations:
        return require(PRIM_MODULE)
    root = next(iter(spec.submodule_search_locations))
    before = set(sys.modules)
    for name in _PRIM_PARENTS:
        stand_in = types.ModuleType(name)
        stand_in.__path__ = [str(Path(root, *name.split(".")[1:]))]
        sys.modules[name] = stand_in
    try:
        _prim = importlib.import_module(PRIM_MODULE)
    except (ImportError, AttributeError):  # it needs more of the package
        _prim = None
    finally:
        for name in set(sys.modules) - before:
            if name.split(".")[0] == "ema_workbench":
                del sys.modules[name]
    return require(PRIM_MODULE) if _prim is None else _prim


_prim: ModuleType | None = None
