"""Guided batch sizes of the Dask executor: large first, single runs last, every item exactly once."""

from hypothesis import given
from hypothesis import strategies as st

from recoursesim.sweep.executors import Counted, guided_batch_size


def _schedule(total: int, workers: int, largest: int) -> list[int]:
    sizes, remaining = [], total
    while remaining:
        size = min(remaining, guided_batch_size(remaining, workers, largest))
        sizes.append(size)
        remaining -= size
    return sizes


def test_hand_computed_schedule():
    # 40 items, 2 workers (divide by 8), at most 8: ceil(40/8)=5, ceil(35/8)=5, ceil(30/8)=4, ceil(26/8)=4,
    # ceil(22/8)=3, ceil(19/8)=3, then 2 from 16 down to 9 left, then single items for the last 8.
    assert _schedule(40, 2, 8) == [5, 5, 4, 4, 3, 3, 2, 2, 2, 2] + [1] * 8
    assert _schedule(200, 2, 8)[:3] == [8, 8, 8]


@given(st.integers(0, 2000), st.integers(1, 16), st.integers(1, 32))
def test_schedule_covers_every_item_and_ends_in_single_runs(total, workers, largest):
    sizes = _schedule(total, workers, largest)
    assert sum(sizes) == total
    assert all(1 <= s <= largest for s in sizes)
    assert sizes == sorted(sizes, reverse=True)
    if total >= 4 * workers:
        assert sizes[-1] == 1


def test_counted_is_lazy_and_sized():
    consumed = []

    def items():
        for i in range(3):
            consumed.append(i)
            yield i

    counted = Counted(items(), 3)
    assert len(counted) == 3 and consumed == []
    assert list(counted) == [0, 1, 2]
