"""Count the element operations numpy performs in a call, and time a plain numpy loop of as many.

How the counting works: the input arrays are viewed as `Counted`, an ndarray subclass whose
`__array_ufunc__` and `__array_function__` hooks see every numpy operation the code applies to
them or to arrays derived from them (operators such as `a * b` included), run it on plain arrays
and log its size:

- a ufunc call (`np.add`, `np.minimum`, `a > b`, ...): the elements of its output;
- a ufunc reduction (`np.add.reduce`, `np.maximum.reduce`) and `np.sum`, `np.min`, `np.argmin`,
  ...: the elements of its input;
- `np.copyto` and `ndarray.fill`: the elements written; indexing or assignment that copies
  (fancy indexing, `a[...] = b`): the elements copied;
- any other numpy function that returns a new array (`np.where`, `np.stack`, `np.argsort`, a
  contiguous copy): the elements of its result;
- views (`broadcast_to`, transposes, slices) and bare allocation (`np.empty`) count nothing.

While counting, `np.asarray`, `np.ascontiguousarray`, `np.empty`, `np.zeros`, `np.ones` and
`np.full` keep (or give) the subclass, so arrays the code makes for itself are counted too. The
reference (`reference_seconds`) is a Python loop doing, for each logged operation, one in-place
`np.add` over float64 arrays of that many elements, preallocated once: the same number of numpy
calls and the same element count, at the best rate numpy reaches, so the ratio of the two times
says how far the code is from numpy's own floor.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np

_REDUCTIONS = {"sum", "min", "max", "argmin", "argmax", "any", "all", "amin", "amax", "prod", "mean"}
_ALLOCATIONS = {"empty_like", "empty", "zeros_like", "ones_like", "full_like"}


class Counted(np.ndarray):
    """An ndarray whose numpy operations are logged to `Counted.log` as (name, elements)."""

    log: list | None = None

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kw):
        inputs = tuple(_plain(x) for x in inputs)
        if out is not None:
            kw["out"] = tuple(_plain(x) for x in out)
        result = getattr(ufunc, method)(*inputs, **kw)
        if method == "__call__":
            size = np.size(result[0] if isinstance(result, tuple) else result)
        else:  # reduce, accumulate, at: every input element is read
            size = max(np.size(x) for x in inputs if isinstance(x, np.ndarray))
        _log(f"{ufunc.__name__}.{method}", size)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        plain_args, plain_kwargs = _plain(args), _plain(kwargs)
        result = func(*plain_args, **plain_kwargs)
        name = func.__name__
        inputs = [x for x in _flat(plain_args) if isinstance(x, np.ndarray)]
        if name == "copyto":
            size = np.size(plain_args[0])
        elif name in _REDUCTIONS:
            size = max((x.size for x in inputs), default=0)
        elif isinstance(result, np.ndarray) and not any(np.shares_memory(result, x) for x in inputs):
            size = result.size
        else:
            size = 0  # a view
        if name not in _ALLOCATIONS:
            _log(name, size)
        return _wrap(result)

    def __getitem__(self, key):
        base = self.view(np.ndarray)
        result = base[_plain(key)]
        if isinstance(result, np.ndarray) and result.size and not np.shares_memory(result, base):
            _log("getitem", result.size)
        return _wrap(result)

    def __setitem__(self, key, value):
        base = self.view(np.ndarray)
        key = _plain(key)
        base[key] = _plain(value)
        _log("setitem", np.size(base[key]))

    def fill(self, value):
        self.view(np.ndarray).fill(value)
        _log("fill", self.size)


def _log(name: str, size) -> None:
    if Counted.log is not None and size:
        Counted.log.append((name, int(size)))


def _plain(x):
    if isinstance(x, Counted):
        return x.view(np.ndarray)
    if isinstance(x, tuple):
        return tuple(_plain(v) for v in x)
    if isinstance(x, list):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _flat(x):
    if isinstance(x, (tuple, list)):
        for v in x:
            yield from _flat(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _flat(v)
    else:
        yield x


def _wrap(x):
    if isinstance(x, np.ndarray) and not isinstance(x, Counted):
        return x.view(Counted)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    return x


def counted(a: np.ndarray) -> np.ndarray:
    """`a` as a counted view (same data, strides and shape)."""
    return np.asarray(a).view(Counted)


@contextlib.contextmanager
def counting():
    """Log the element operations done on `Counted` arrays within; yields the log."""
    log: list = []
    Counted.log = log
    saved = {k: getattr(np, k) for k in ("asarray", "ascontiguousarray", "empty", "zeros", "ones", "full")}

    def asarray(a, dtype=None, order=None, **kw):
        return np.asanyarray(a, dtype=dtype, order=order)

    def ascontiguousarray(a, dtype=None, **kw):
        a = np.asanyarray(a, dtype=dtype)
        if a.flags.c_contiguous:
            return a
        out = saved["empty"](a.shape, dtype=a.dtype).view(Counted)
        out[...] = a  # counted as a copy
        return out

    def maker(fn):
        return lambda *args, **kw: fn(*args, **kw).view(Counted)

    np.asarray, np.ascontiguousarray = asarray, ascontiguousarray
    for k in ("empty", "zeros", "ones", "full"):
        setattr(np, k, maker(saved[k]))
    try:
        yield log
    finally:
        for k, fn in saved.items():
            setattr(np, k, fn)
        Counted.log = None


def reference_seconds(sizes: list[int], repeat: int = 7) -> float:
    """Best time of a loop doing one in-place float64 `np.add` of each size in `sizes`."""
    top = max(sizes, default=1)
    x, y, z = np.random.default_rng(0).random(top) + 1.0, np.random.default_rng(1).random(top) + 1.0, np.empty(top)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for s in sizes:
            np.add(x[:s], y[:s], out=z[:s])
        best = min(best, time.perf_counter() - start)
    return best
