"""Cache keys of the Numba kernels behind the builders' PyTensor Ops.

PyTensor's Numba backend caches compiled Ops on disk under a key each Op's dispatcher returns;
a kernel whose source changed must get a new key, or the cache would serve the old code.
"""

from __future__ import annotations

import hashlib
import inspect

__all__ = ["kernel_version"]


def kernel_version(*funcs) -> int:
    """A version of the Numba-compiled ``funcs``: a hash of their Python source."""
    text = "".join(inspect.getsource(f.py_func) for f in funcs)
    return int(hashlib.sha256(text.encode()).hexdigest()[:12], 16)
