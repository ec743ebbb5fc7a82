import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from recoursesim.checks import check_trainer
from recoursesim.component import RunContext
from recoursesim.errors import ConfigError
from recoursesim.recourse import LinearRecourse
from recoursesim.scoring import ClassifierScorer, LinearScorer
from recoursesim.training import CounterfactualAugmentationTrainer, RefitTrainer, TrainingContext


def context(features, selected, recommendation, scorer, threshold, seed=0):
    return TrainingContext(
        step=0,
        features=features,
        group=np.zeros(len(selected), dtype=np.int16),
        scores=scorer.score(features),
        selected=np.asarray(selected, dtype=bool),
        threshold=threshold,
        recommendation=recommendation,
        scorer=scorer,
        rng=np.random.default_rng(seed),
    )


@pytest.mark.parametrize("ir, rows, added", [(1.0, 10, 3), (0.2, 7, 0), (2.0, 12, 5)])
def test_counts_spec_vector(ir, rows, added):
    # docs/mitigations.md, CDA count example: y = [1,1,0,0,0,0,0]; n_cf = int(ir*5 - 2): 3, -1 (none), 8 (all 5)
    scorer = LinearScorer([1.0, 0.0])
    features = np.array([[0.9, 0], [0.8, 0], [0.1, 0], [0.2, 0], [0.3, 0], [0.4, 0], [0.5, 0]])
    selected = [1, 1, 0, 0, 0, 0, 0]
    rec = np.full(features.shape, np.nan)
    rec[2:] = np.column_stack([np.full(5, 0.8), np.zeros(5)])  # every CF reaches the cut-off 0.8
    trainer = CounterfactualAugmentationTrainer(imbalance_ratio=ir)
    X, y, info = trainer.training_data(context(features, selected, rec, scorer, 0.8))
    assert X.shape[0] == rows and info["n_counterfactuals"] == added
    assert y[:7].tolist() == selected and (y[7:] == 1).all()


def test_counterfactuals_short_of_the_cutoff_are_dropped():
    scorer = LinearScorer([1.0, 0.0])
    features = np.array([[0.9, 0], [0.1, 0], [0.2, 0], [0.3, 0]])
    rec = np.array([[np.nan, np.nan], [0.9, 0], [0.5, 0], [0.9, 0]])  # the second CF falls short of 0.9
    _, _, info = CounterfactualAugmentationTrainer(imbalance_ratio=2.0).training_data(
        context(features, [1, 0, 0, 0], rec, scorer, 0.9)
    )
    assert info["n_dropped"] == 1 and info["n_counterfactuals"] == 2


def test_robustness_spec_vector():
    # docs/mitigations.md, CDA robustness check: CDA keeps batch-0 counterfactuals valid after retraining
    plain, cda = [], []
    for seed in range(10):
        rng = np.random.default_rng(seed)

        def batch(n=500, rng=rng):
            X = rng.normal(size=(n, 2))
            return X, (X.sum(axis=1) + rng.normal(0, 0.5, n) > 0.5)

        X0, y0 = batch()
        m0 = ClassifierScorer(LogisticRegression().fit(X0, y0))
        recourse = LinearRecourse().bind(RunContext(feature_names=("a", "b")))
        neg0 = m0.score(X0) < 0.5
        cf0 = recourse.recommend(X0[neg0], m0.score(X0[neg0]), 0.5, m0)
        X1, y1 = batch()
        rec1 = np.full(X1.shape, np.nan)
        rec1[~y1] = recourse.recommend(X1[~y1], m0.score(X1[~y1]), 0.5, m0)
        ctx = context(X1, y1, rec1, m0, 0.5, seed)
        plain_model = RefitTrainer().update(ctx)
        cda_model = CounterfactualAugmentationTrainer(imbalance_ratio=1.0).update(ctx)
        plain.append(np.mean(plain_model.score(cf0) >= 0.5))
        cda.append(np.mean(cda_model.score(cf0) >= 0.5))
    assert np.mean(cda) > 0.95
    assert np.mean(cda) > np.mean(plain) + 0.2


def test_first_fit_on_the_initial_population_and_one_class_error():
    trainer = CounterfactualAugmentationTrainer(initial_threshold=0.5)
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(300, 2))
    scorer = trainer.start(X, np.zeros(300), LinearScorer([0.5, 0.5]), rng)
    assert scorer.linear_form().link == "logistic"
    agree = (scorer.score(X) > 0.5) == (X.sum(axis=1) / 2 > 0.5)
    assert agree.mean() > 0.95
    with pytest.raises(ConfigError, match="initial_threshold"):
        CounterfactualAugmentationTrainer(initial_threshold=5.0).start(X, np.zeros(300), LinearScorer([0.5, 0.5]), rng)


@pytest.mark.parametrize(
    "factory",
    [RefitTrainer, CounterfactualAugmentationTrainer, lambda: RefitTrainer(estimator="linear_svc", output="decision")],
)
def test_trainer_conformance(factory):
    check_trainer(factory)


def test_unknown_estimator():
    with pytest.raises(ConfigError, match=r"^estimator: unknown estimator"):
        RefitTrainer(estimator="deep_net")
