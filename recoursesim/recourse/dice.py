"""Adapter for DiCE (``dice-ml``): its diverse counterfactuals as recommendations (optional extra)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from scipy.special import expit

from recoursesim._validate import check_choice, check_int
from recoursesim.errors import ConfigError
from recoursesim.features import FeatureSchema
from recoursesim.recourse.mixed import CHECK_REFERENCE, MixedRecourse, link_of, observed_rows, to_margin
from recoursesim.registry import register
from recoursesim.scoring.base import Scorer

_OUTCOME = "_accepted"


def to_dice(schema: FeatureSchema, codes: np.ndarray) -> pd.DataFrame:
    """Code-space rows as DiCE wants them: data-set values, categories as plain strings."""
    frame = schema.decode(codes)
    for name, kind in zip(schema.names, schema.kinds, strict=True):
        if kind in ("ordinal", "categorical"):
            frame[name] = frame[name].astype(str)
    return frame


def from_dice(schema: FeatureSchema, frame: pd.DataFrame) -> pd.DataFrame:
    """DiCE's rows back in data-set values (unknown categories become missing)."""
    out = frame[list(schema.names)].copy()
    for feature in schema.features:
        if feature.kind in ("ordinal", "categorical"):
            out[feature.name] = out[feature.name].astype(str).map({str(c): c for c in feature.categories})
    return out


class _CutOffModel:
    """What DiCE sees: a classifier on data-set values whose class 1 means "at or above the agent's cut-off".

    Its probability of class 1 is ``expit(margin(score) - margin(cut-off))``, so DiCE's fixed 0.5
    decision threshold is the agent's own cut-off.
    """

    def __init__(self, schema: FeatureSchema, scorer: Scorer, link: str, cut_off: float) -> None:
        self.schema, self.scorer, self.link, self.cut_off = schema, scorer, link, cut_off
        self.classes_ = np.array([0, 1])

    def predict_proba(self, frame: pd.DataFrame) -> np.ndarray:
        codes = self.schema.encode(from_dice(self.schema, frame))
        margin = to_margin(np.asarray(self.scorer.score(codes), dtype=float), self.link)
        p = expit(margin - to_margin(np.asarray([self.cut_off]), self.link)[0])
        return np.column_stack([1 - p, p])

    def predict(self, frame: pd.DataFrame) -> np.ndarray:
        return (self.predict_proba(frame)[:, 1] >= 0.5).astype(int)


@register("recourse", "dice")
@dataclass(eq=False, repr=False)
class DiceRecourse(MixedRecourse):
    """DiCE's counterfactuals, made legal under the action set; the cheapest accepted one is recommended.

    For each agent below the cut-off, DiCE (Mothilal, Sharma and Tan, 2020; the ``dice-ml``
    package) is asked for ``counterfactuals`` diverse counterfactuals with its ``method``
    (``random``, ``genetic`` or ``kdtree``), varying only the features the action set lets
    change, within the observed ranges. Each counterfactual is legalised by the action set
    (monotone and per-agent limits DiCE cannot express), scored by the model, and the cheapest one
    the model accepts is recommended; an agent with none gets ``found_`` False.

    DiCE works one agent at a time on DataFrames, so this is far slower than ``search`` (see
    ``docs/recourse.md`` for a measured figure). Install with ``pip install recoursesim[dice]``.

    Args:
        action_set: Constraints (see :class:`~recoursesim.recourse.mixed.MixedRecourse`).
        cost_weights: Feature -> cost multiplier.
        method: DiCE's method: ``"random"``, ``"genetic"`` or ``"kdtree"``.
        counterfactuals: Counterfactuals DiCE generates per agent.
        seed: DiCE's random seed.
        reference: ``(m, d)`` observed rows in code space that DiCE learns ranges and categories
            from (``kdtree`` also searches them); default: the population's training split.
    """

    check_params: ClassVar[dict[str, Any]] = {"reference": CHECK_REFERENCE}

    method: str = "random"
    counterfactuals: int = 4
    seed: int = 0
    reference: Any = None

    def __post_init__(self) -> None:
        if importlib.util.find_spec("dice_ml") is None:
            raise ConfigError(
                "recourse.name", "'dice' needs the optional package dice-ml", "pip install 'recoursesim[dice]'"
            )
        super().__post_init__()
        check_choice("method", self.method, ["random", "genetic", "kdtree"])
        check_int("counterfactuals", self.counterfactuals, minimum=1)
        check_int("seed", self.seed, minimum=0)

    def _reference_frame(self) -> pd.DataFrame:
        rows = observed_rows(self.reference, self.population_, "dice", "learn ranges from")
        frame = to_dice(self.schema_, np.asarray(rows, dtype=float))
        frame[_OUTCOME] = np.arange(len(frame)) % 2  # DiCE needs a two-class outcome column; unused
        return frame

    def _search(self, features: np.ndarray, threshold: np.ndarray, scorer: Scorer) -> tuple[np.ndarray, np.ndarray]:
        import dice_ml

        reference = self._reference_frame()
        continuous = [
            n for n, k in zip(self.schema_.names, self.schema_.kinds, strict=True) if k in ("numeric", "integer")
        ]
        data = dice_ml.Data(dataframe=reference, continuous_features=continuous, outcome_name=_OUTCOME)
        vary = [name for name, free in zip(self.schema_.names, self.mutable, strict=True) if free]
        base = np.asarray(scorer.score(features), dtype=float)
        link = link_of(base, threshold)
        best = features.copy()
        found = np.zeros(features.shape[0], dtype=bool)
        if not vary:
            return best, found
        query = to_dice(self.schema_, features)
        for i in range(features.shape[0]):  # DiCE explains one query at a time
            model = dice_ml.Model(model=_CutOffModel(self.schema_, scorer, link, threshold[i]), backend="sklearn")
            explainer = dice_ml.Dice(data, model, method=self.method)
            candidates = self._counterfactuals(explainer, query.iloc[[i]], vary)
            if candidates is None:
                continue
            start = np.repeat(features[i : i + 1], len(candidates), axis=0)
            moved = self.actions_.legalise(start, candidates)
            ok = np.asarray(scorer.score(moved), dtype=float) >= threshold[i]
            if ok.any():
                cost = np.where(ok, self.cost(moved - start), np.inf)
                best[i], found[i] = moved[int(np.argmin(cost))], True
        return best, found

    def _counterfactuals(self, explainer: Any, query: pd.DataFrame, vary: list[str]) -> np.ndarray | None:
        """DiCE's counterfactuals for one agent, in code space (``None`` when it finds none)."""
        kwargs: dict[str, Any] = {"desired_class": 1, "features_to_vary": vary, "verbose": False}
        if self.method == "random":
            kwargs["random_seed"] = self.seed
        try:
            quiet = (contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()))
            with quiet[0], quiet[1], warnings.catch_warnings():  # DiCE prints progress and pandas warnings
                warnings.simplefilter("ignore")
                result = explainer.generate_counterfactuals(query, total_CFs=self.counterfactuals, **kwargs)
        except Exception as error:  # DiCE raises its own exception types when nothing is found
            if "counterfactual" in str(error).lower():
                return None
            raise
        frame = result.cf_examples_list[0].final_cfs_df
        if frame is None or len(frame) == 0:
            return None
        return self.schema_.encode(from_dice(self.schema_, frame).dropna())
