"""The equality-of-effort reproductions' docs tables, made from hand-checkable kept rows."""

import pandas as pd

from recoursesim.reproductions import eoe_german, eoe_synthetic


def test_synthetic_table_gives_the_mean_and_t_interval_across_seeds_beside_the_published_values():
    # two seeds per cell: values a, b give mean (a+b)/2, sd |a-b|/sqrt(2), half width t(0.975, 1) 12.706 * |a-b|/2
    cells = {
        (1.0, "protected", 0.2): (1.1, 1.3),
        (1.0, "protected", 1.0): (1.3, 1.5),
        (2.0, "protected", 0.2): (1.4, 1.6),
        (2.0, "protected", 1.0): (1.9, 2.1),
        (2.0, "protected", 0.5): (9.0, 9.0),  # not a tabled q
        (2.0, "unprotected", 0.2): (9.0, 9.0),  # not a chosen centre group
    }
    rows = pd.DataFrame(
        [
            {"alpha": alpha, "seed": seed, "centres": centres, "q": q, "mean": value}
            for (alpha, centres, q), values in cells.items()
            for seed, value in enumerate(values)
        ]
    )
    lines = eoe_synthetic.markdown_table(rows, ["protected"]).splitlines()
    assert lines[0] == "| α | centres | ACR(0.2), ours | ACR(0.2), published | ACR(1), ours | ACR(1), published |"
    assert lines[2:] == [
        "| 1 | protected | 1.200 [-0.071, 2.471] | – | 1.400 [0.129, 2.671] | – |",
        "| 2 | protected | 1.500 [0.229, 2.771] | ≈ 1.5 | 2.000 [0.729, 3.271] | ≈ 2 |",
    ]


def test_german_table_puts_both_variants_beside_the_published_value():
    def row(variant, centres, q, acr, low, high, n):
        return {
            "variant": variant,
            "centres": centres,
            "q": q,
            "ACR": acr,
            "ci_low": low,
            "ci_high": high,
            "n_centres": n,
        }

    sex, no_sex = eoe_german.VARIANTS
    rows = pd.DataFrame(
        [
            row(sex, "unprotected", 0.2, 0.5, 0.4, 0.6, 10),
            row(sex, "unprotected", 1.0, 0.75, 0.75, 0.75 + 1e-12, 10),  # a point interval up to rounding
            row(no_sex, "unprotected", 0.2, 0.9, 0.85, 0.95, 12),
            row(no_sex, "unprotected", 1.0, 1.25, 1.2, 1.3, 12),
            row(sex, "protected", 0.2, 9.0, 8.0, 10.0, 3),  # not a chosen centre group
        ]
    )
    lines = eoe_german.markdown_table(rows, ["unprotected"]).splitlines()
    assert lines[0] == "| centres | q | n (reads sex / no sex) | ours (model reads sex) | ours (no sex) | published |"
    assert lines[2:] == [
        "| unprotected | 0.2 | 10 / 12 | 0.50 [0.40, 0.60] | 0.90 [0.85, 0.95] | < 0.8 |",
        "| unprotected | 1 | 10 / 12 | 0.75 | 1.25 [1.20, 1.30] | ≈ 0.77 |",
    ]
