"""The element-operation counter behind `make bench`'s engine-vs-numpy figure counts what it says."""

import numpy as np

from bench.op_count import counted, counting


def test_operators_reductions_copies_count_their_elements_and_views_count_nothing():
    a = counted(np.arange(12.0).reshape(3, 4))
    b = counted(np.ones(4))
    with counting() as log:
        c = a * b + 1.0  # two ufunc calls of 12 elements
        s = np.add.reduce(c, axis=0)  # reads 12
        v = np.broadcast_to(b, (3, 4)).T  # views: nothing
        w = np.where(c > 5, c, 0.0)  # a comparison of 12, a new array of 12
        out = np.empty(4)  # allocation: nothing
        np.copyto(out, s)  # 4 written
        out.fill(0.0)  # 4 written
    assert [size for _, size in log] == [12, 12, 12, 12, 12, 4, 4]
    assert v.shape == (4, 3) and float(w.sum()) == float(np.where(c > 5, c, 0).sum())


def test_counting_leaves_numpy_as_it_was():
    before = np.asarray, np.empty
    with counting():
        assert type(np.empty(3)).__name__ == "Counted"
    assert (np.asarray, np.empty) == before
    assert type(np.empty(3)) is np.ndarray
