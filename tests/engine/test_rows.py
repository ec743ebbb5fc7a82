"""put_rows: a masked row assignment, the same as numpy's ``array[mask] = values``."""

import numpy as np
import pytest

from recoursesim._rows import put_rows


def test_put_rows_by_hand():
    array = np.full((4, 2), np.nan)
    put_rows(array, np.array([False, True, False, True]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    expected = [[np.nan, np.nan], [1.0, 2.0], [np.nan, np.nan], [3.0, 4.0]]
    np.testing.assert_array_equal(array, expected)


def test_put_rows_equals_numpys_masked_assignment():
    rng = np.random.default_rng(0)
    for n, d in [(0, 2), (1, 1), (50, 3), (1000, 2)]:
        mask = rng.random(n) < 0.7
        values = rng.normal(size=(int(mask.sum()), d))
        ours, reference = np.zeros((n, d)), np.zeros((n, d))
        put_rows(ours, mask, values)
        reference[mask] = values
        assert ours.tobytes() == reference.tobytes()


def test_put_rows_leaves_other_shapes_to_numpy():
    mask = np.array([True, False, True])
    array = np.zeros((3, 2))
    put_rows(array, mask, np.array([5.0, 6.0]))  # one row broadcast to every selected row, as numpy does
    np.testing.assert_array_equal(array, [[5.0, 6.0], [0.0, 0.0], [5.0, 6.0]])
    transposed = np.zeros((2, 3)).T  # not C-contiguous: numpy's own assignment
    put_rows(transposed, mask, np.ones((2, 2)))
    np.testing.assert_array_equal(transposed, [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError):
        put_rows(np.zeros((3, 2)), mask, np.ones((3, 2)))
