"""Cache keys of the Numba kernels behind the builders' PyTensor Ops.

PyTensor's Numba backend caches compiled Ops on disk under a key each Op's dispatcher returns;
a kernel whose source changed must get a new key, or the cache would serve the old code.
"""

from __future__ import annotations

import hashlib
import inspect

__all__ = ["kernel_version"]


def kernel_version(*funcs) -> int:
    """A version of the Numba-compiled ``funcs``: a hash of their Python source.

    Parameters
    ----------
    *funcs : numba.core.registry.CPUDispatcher
        Numba-compiled functions (each with a ``py_func``), in a fixed order.

    Returns
    -------
    int
        The first 48 bits of the SHA-256 of their concatenated source: a new number whenever
        any of them changes.

    Examples
    --------
    >>> import numba
    >>> from bayes_eval.models.kernel_version import kernel_version
    >>> @numba.njit
    ... def add_one(x):
    ...     return x + 1
    >>> version = kernel_version(add_one)
    >>> type(version).__name__, version == kernel_version(add_one)
    ('int', True)
    """
    text = "".join(inspect.getsource(f.py_func) for f in funcs)
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)
