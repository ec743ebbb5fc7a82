"""Lazy imports of the optional ``policy`` extra (SALib, Optuna, Gymnasium)."""

from __future__ import annotations

import importlib
from types import ModuleType

from recoursesim.errors import ConfigError

#: Import name -> (distribution name, what recoursesim uses it for).
POLICY_PACKAGES = {
    "SALib": ("SALib", "global sensitivity analysis (recoursesim sensitivity)"),
    "optuna": ("optuna", "policy search (recoursesim optimise)"),
    "sqlalchemy": ("optuna", "the policy search's study file (recoursesim optimise)"),
    "gymnasium": ("gymnasium", "the reinforcement-learning environment (recoursesim.gym)"),
}

#: How to install them.
POLICY_INSTALL = "pip install 'recoursesim[policy]'"


def require(module: str) -> ModuleType:
    """Import ``module`` (a dotted name inside one of :data:`POLICY_PACKAGES`).

    Raises:
        ConfigError: The package is not installed, with the install command.
    """
    top = module.split(".")[0]
    try:
        return importlib.import_module(module)
    except ImportError:
        distribution, purpose = POLICY_PACKAGES[top]
        raise ConfigError(top, f"{distribution} is not installed (needed for {purpose})", POLICY_INSTALL) from None
