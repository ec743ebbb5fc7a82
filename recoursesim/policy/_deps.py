"""Lazy imports of the optional ``policy`` extra (SALib, Optuna, Gymnasium) and ``ema`` extra (EMA Workbench)."""

from __future__ import annotations

import importlib
import warnings
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
