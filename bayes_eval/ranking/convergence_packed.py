r"""The fast path of :func:`bayes_eval.ranking.convergence.stability`: bit-packed integer tables.

It exists for speed: 10^5 replicates of Hariri et al.'s 11 models x 30 questions x 80 trials
for the whole Pass family in seconds, not minutes (``benchmarks/bench_convergence.py``; issue
28). It gives the numbers of the plain reference path in :mod:`bayes_eval.ranking.convergence`
(float tables of :func:`~bayes_eval.ranking.convergence.score_table`, scores rounded to
``TIE_DIGITS``): the same taus, exact matches, convergence@n and worst replicates
(``tests/ranking/test_convergence_kernels.py`` compares the two on random boards).

How. Each Pass family estimate (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large
Language Model Evaluation", App. H eqs. 21-24),
:math:`T[s, c] = \sum_j A_j \binom{c}{j}\binom{s-c}{k-j} / \binom{s}{k}`, is an integer over
a per-step scale when the credits :math:`A_j` are small fractions (``_integer_table``), so
sums over the questions are exact in any order and equal scores tie exactly, with no rounding.
Several methods' integer tables are packed into the bit fields of one 63-bit word
(``_packed_tables``; the sum of a word over the questions is the sum of each field while no
field outgrows its bits), up to four words are read by one look-up, and on long runs the
questions are looked up two by two, in tables of the sum of two questions' values indexed by the
pair of counts (``_pair_tables``, ``_pair_codes``). The running counts are kept step by
step over trial blocks drawn with the reference path's random draws (``_trial_blocks``).
When a method's table is not exact (credits that are not small fractions, or sums past 2^52),
``_packed_tables`` returns None and :func:`~bayes_eval.ranking.convergence.stability` takes
the reference path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import NamedTuple, Protocol

import numpy as np
from numpy.typing import NDArray

from bayes_eval.ranking.convergence_agreement import _agreement, _BlockResults, _Gold
from bayes_eval.ranking.convergence_draws import _column_draw, _prefix_counts

#: Private engines only: the public names live in the modules that use them.
__all__: list[str] = []


class _MethodLike(Protocol):
    """What the packed tables read of a :class:`~bayes_eval.ranking.convergence.Method`."""

    @property
    def kind(self) -> str:
        """The kind of metric (``"bayes"``, ``"pass_at_k"``, ...)."""
        ...

    @property
    def k(self) -> int:
        """Attempts of a Pass family metric (0 for Bayes@N)."""
        ...

    @property
    def credit(self) -> NDArray[np.float64]:
        """Credit for j = 0..k successes among k attempts."""
        ...


def _integer_table(method: _MethodLike, n_max: int) -> tuple[NDArray[np.int64], NDArray] | None:
    r"""``score_table`` as integers over a per-step scale, or None when not exact.

    With credits :math:`A_j = A'_j / D` (integers :math:`A'_j \ge 0`),
    :math:`T[s, c] = \sum_j A'_j \binom{c}{j}\binom{s-c}{k-j} / (D \binom{s}{k})`: the
    numerator is an integer (``table``, 0 where ``s < k`` or ``c > s``) and the
    denominator is ``scale[s]`` (NaN where ``s < k``). Bayes@N is ``table[s, c] = c`` with
    scale 1. Sums of such integers over the questions are exact in any order, so equal
    scores are equal and ties need no rounding.
    """
    s = np.arange(n_max + 1)
    ss, cc = np.meshgrid(s, s, indexing="ij")
    valid = cc <= ss
    if method.kind == "bayes":
        return np.where(valid, cc, 0).astype(np.int64), np.ones(n_max + 1)
    k = method.k
    credit = method.credit
    fracs = [Fraction(float(a)).limit_denominator(1000) for a in credit]
    den = math.lcm(*(f.denominator for f in fracs))
    a_int = np.array([int(f * den) for f in fracs], dtype=np.int64)
    if (a_int < 0).any() or not np.allclose(a_int / den, credit, rtol=0, atol=1e-12):
        return None
    if math.comb(n_max, k) * int(a_int.sum()) >= 2**52:
        return None  # the sums would not be exact as floats
    if math.comb(n_max, min(k, n_max // 2)) >= 2**62:
        return None  # an intermediate binomial would overflow
    pascal = np.zeros((n_max + 1, k + 1), dtype=np.int64)  # C(n, j), exact
    pascal[:, 0] = 1
    for j in range(1, k + 1):  # Pascal's rule, one column at a time
        pascal[1:, j] = np.cumsum(pascal[:-1, j - 1])
    fails = np.where(valid, ss - cc, 0)
    table = np.zeros(ss.shape, dtype=np.int64)
    for i in np.flatnonzero(a_int):  # the credited numbers of successes among k attempts
        table += a_int[i] * pascal[cc, i] * pascal[fails, k - i]
    table[~valid | (ss < k)] = 0
    scale = np.where(s >= k, den * pascal[s, k].astype(float), np.nan)
    return table, scale


class _Packed(NamedTuple):
    """Integer score tables of several methods packed into 63-bit words.

    ``words[w]`` is an ``(N + 1, N + 1)`` table; method ``i`` holds ``bits[i]`` bits of word
    ``word[i]`` from bit ``shift[i]`` on, and ``scale[i]`` turns its sums into scores.
    ``groups`` holds the same words side by side, up to four to a group (``words[w]`` is
    ``groups[w // 4][..., w % 4]``), each group padded with zero words to 1, 2 or 4 words:
    a row of 8, 16 or 32 bytes per count, which ``numpy.take`` copies by its fixed-size
    fast path, so one look-up per count serves up to four words.
    """

    words: list[NDArray[np.int64]]
    word: list[int]
    shift: list[int]
    bits: list[int]
    scale: list[NDArray]
    groups: list[NDArray[np.int64]]


#: Words per look-up group: 4 int64 words are a 32-byte row, the widest that ``numpy.take``
#: copies with a fixed-size move rather than ``memmove``.
_GROUP = 4


def _packed_tables(methods: Sequence[_MethodLike], n_max: int, n_questions: int) -> _Packed | None:
    """Pack the integer tables of ``methods`` (:func:`_integer_table`) into words.

    One table look-up per (replicate, model, step, question) then serves several methods: the
    sum over the questions of a word is the sum of each field, as long as no field's sum (at
    most ``n_questions`` times its largest entry) outgrows its bits. None if a table is not
    exact.
    """
    tables = [t for t in (_integer_table(m, n_max) for m in methods) if t is not None]
    if len(tables) < len(methods):
        return None
    bits = [(int(t.max()) * n_questions).bit_length() for t, _ in tables]
    if max(bits) > 52:  # a sum must also be exact as a float
        return None
    words: list[NDArray[np.int64]] = []
    used: list[int] = []
    word, shift = [0] * len(methods), [0] * len(methods)
    for i in sorted(range(len(methods)), key=lambda i: -bits[i]):  # first fit, widest first
        w = next((j for j, u in enumerate(used) if u + bits[i] <= 63), len(words))
        if w == len(words):
            words.append(np.zeros(tables[i][0].shape, dtype=np.int64))
            used.append(0)
        words[w] += tables[i][0] << used[w]
        word[i], shift[i] = w, used[w]
        used[w] += bits[i]
    groups = []
    for start in range(0, len(words), _GROUP):
        part = words[start : start + _GROUP]
        width = 1 << (len(part) - 1).bit_length()  # 1, 2 or 4 words
        group = np.zeros((*part[0].shape, width), dtype=np.int64)
        for j, table in enumerate(part):
            group[..., j] = table
        groups.append(group)
    return _Packed(words, word, shift, bits, [scale for _, scale in tables], groups)


#: Largest size of the pair tables (:func:`_pair_tables`), bytes: 17 MB at 80 trials.
_PAIR_BYTES = 32 * 2**20
#: Pair tables are built when the look-ups of a run (replicates x models x questions x
#: steps) are at least this many times their entries (2.1 million at 80 trials): they break
#: even near 4 look-ups per entry (``benchmarks/README.md``).
_PAIR_PAYBACK = 6


def _pair_tables(packed: _Packed, n_max: int, lookups: int) -> list[NDArray[np.int64]] | None:
    """The look-up groups of ``packed`` for two questions at once.

    The table is ``table[s, c1 * (N + 1) + c2] = group[s, c1] + group[s, c2]``, shape
    ``(N + 1, (N + 1)^2, words)``; None when it would outgrow ``_PAIR_BYTES`` or a run of
    ``lookups`` would not repay it (``_PAIR_PAYBACK``). One look-up and one row of the sum over
    questions per pair halve the work per step; the words are added modulo 2^64, so the sums
    over the questions are the exact ones whenever those fit (:func:`_packed_tables`).
    """
    stride = n_max + 1
    entries = sum(stride**3 * group.shape[-1] for group in packed.groups)
    if entries * 8 > _PAIR_BYTES or lookups < _PAIR_PAYBACK * entries:
        return None
    return [
        (group[:, :, None, :] + group[:, None, :, :]).reshape(stride, stride**2, -1)
        for group in packed.groups
    ]


def _trial_blocks(
    arr: NDArray,
    *,
    scheme: str,
    replicates: int,
    replace: bool,
    chunk: int,
    seed: int | np.random.Generator,
    models: NDArray[np.intp] | None = None,
    pair_stride: int = 0,
) -> Iterator[NDArray[np.integer]]:
    """The replicates of ``prefix_counts`` (the same random draws), trial by trial.

    ``out[s - 1, alpha, l, r]`` is the result (0/1) of the s-th trial of model l on
    question alpha in replicate r, shape ``(N, M, L, b)`` (steps first: the running counts
    of a step are one contiguous slab). ``models`` (an order of the models) lists the
    models along ``l`` in that order; each model keeps its own draws. With
    ``pair_stride``, the questions come two by two (:func:`_pair_codes`): shape
    ``(N, ceil(M / 2), L, b)``.
    """
    if scheme != "column":
        for block in _prefix_counts(
            arr, scheme=scheme, replicates=replicates, replace=replace, chunk=chunk, seed=seed
        ):
            if models is not None:
                block = block[:, models]
            trials: NDArray[np.integer] = (
                np.diff(block, axis=2, prepend=0).astype(np.int8).transpose(2, 3, 1, 0)
            )
            if pair_stride:
                trials = _pair_codes(trials, pair_stride, axis=1)
            yield np.ascontiguousarray(trials)
        return
    if arr.ndim != 3:
        raise ValueError(f"R has shape {arr.shape}; expected (L, M, N) binary results.")
    rng = np.random.default_rng(seed)
    n_models, n_q, n = arr.shape
    # (M, L * N): question rows, each model's trials side by side
    xq: NDArray[np.integer] = np.ascontiguousarray(arr.transpose(1, 0, 2), dtype=np.int8).reshape(
        n_q, -1
    )
    if pair_stride:
        xq = _pair_codes(xq, pair_stride, axis=0)
    first = (np.arange(n_models, dtype=np.intp) * n)[None, :, None]
    for start in range(0, replicates, chunk):
        b = min(chunk, replicates - start)
        idx = _column_draw(rng, b, n_models, n, replace) + first  # (b, L, N)
        if models is not None:
            idx = idx[:, models]
        yield np.take(xq, idx.transpose(2, 1, 0), axis=1).transpose(1, 0, 2, 3)


def _pair_codes(x: NDArray, stride: int, axis: int) -> NDArray[np.integer]:
    """Two questions' results (0/1) in one number: ``x[2i] * stride + x[2i + 1]`` along ``axis``.

    A question that never succeeds is appended when their number is odd; the codes are int8
    when it holds them. Summed over trials, a code is ``c_{2i} * stride + c_{2i + 1}``: the row
    of the pair's counts in a :func:`_pair_tables` table.
    """
    x = np.moveaxis(x, axis, 0)
    if x.shape[0] % 2:
        x = np.concatenate([x, np.zeros_like(x[:1])])
    dtype = np.int8 if stride + 1 <= np.iinfo(np.int8).max else np.int16
    codes = x[0::2].astype(dtype) * np.asarray(stride, dtype=dtype) + x[1::2].astype(dtype)
    return np.ascontiguousarray(np.moveaxis(codes, 0, axis))


def _packed_block(
    trials: NDArray[np.integer],
    parsed: Sequence[_MethodLike],
    gold: _Gold,
    packed: _Packed,
    tables: list[NDArray[np.int64]],
    padded: int,
) -> _BlockResults:
    """One block of :func:`_packed_blocks` from its trials ``(N, M, L, b)``.

    The trials may instead be pair codes ``(N, ceil(M / 2), L, b)`` with the pair ``tables``;
    the models are in gold order (``gold.order``). ``padded`` questions that never succeed
    were added (an odd M in pairs): their table values at count 0 are taken off again (zero
    for Bayes@N and the Pass family, whose credit for no success is 0, but not assumed).
    """
    n_max, _, n_models, b = trials.shape
    counts = np.zeros(trials.shape[1:], dtype=np.intp)  # counts, or the pairs' table rows
    looked = [np.empty((*trials.shape[1:], table.shape[-1]), np.int64) for table in tables]
    sums = [np.empty((n_max, n_models, b, table.shape[-1]), np.int64) for table in tables]
    for s in range(n_max):  # a loop over the steps; each one is vectorised
        counts += trials[s]
        for table, rows, out in zip(tables, looked, sums, strict=True):
            np.take(table[s + 1], counts, axis=0, out=rows, mode="clip")  # c <= s: in range
            np.add.reduce(rows, axis=0, out=out[s])
    if padded:
        for group, out in zip(packed.groups, sums, strict=True):
            out -= padded * group[1:, 0, None, None, :]  # modulo 2^64, like the sums: exact
    tau = np.full((len(parsed), b, n_max), np.nan)
    match = np.zeros((len(parsed), b, n_max), dtype=bool)
    scores_of: list[Callable[[int], NDArray]] = []
    for i, m in enumerate(parsed):
        w, shift, bits = packed.word[i], packed.shift[i], packed.bits[i]
        first = max(m.k - 1, 0)  # fewer than k trials: no ranking
        # (L, N - first, b): each ranking's models side by side, as the agreement reads them
        field = sums[w // _GROUP][first:, :, :, w % _GROUP].transpose(1, 0, 2)
        # int32 where the field fits: the comparisons of the agreement read half the bytes
        x = np.empty(field.shape, dtype=np.int32 if bits < 32 else np.int64)
        top = all(packed.word[j] != w or packed.shift[j] < shift for j in range(len(parsed)))
        if shift and top:
            np.right_shift(field, shift, out=x, casting="unsafe")  # < 2^bits: no truncation
        elif not shift:
            np.bitwise_and(field, (1 << bits) - 1, out=x, casting="unsafe")
        else:  # the low 32 bits of the shifted word hold the whole field
            np.right_shift(field, shift, out=x, casting="unsafe")
            x &= (1 << bits) - 1
        agree = _agreement(x.reshape(n_models, -1), gold)  # (L, (N - first) b)
        tau[i, :, first:] = agree[0].reshape(n_max - first, b).T
        match[i, :, first:] = agree[1].reshape(n_max - first, b).T
        scale = packed.scale[i][1:, None]

        def scores(j: int, x: NDArray = x, first: int = first, scale: NDArray = scale) -> NDArray:
            out = np.full((n_max, n_models), np.nan)
            out[first:, gold.order] = x[:, :, j].T / scale[first:]
            return out

        scores_of.append(scores)
    return tau, match, scores_of


def _packed_blocks(
    arr: NDArray, parsed: Sequence[_MethodLike], gold: _Gold, packed: _Packed, draws: dict
) -> Iterator[_BlockResults]:
    """As ``_float_blocks`` of :mod:`~bayes_eval.ranking.convergence`, from packed integer tables.

    Step by step, the running counts of the questions taken two by two (one slab per step, the
    models in gold order) look up one row of up to four words per pair (:func:`_pair_tables`;
    one question at a time, ``_Packed.groups``, when the pair tables would be too large), and
    one sum over the pairs per group serves every method of its words; scores are exact
    integers over a per-step scale, so their ranking needs no rounding, and they are compared
    as integers.
    """
    n_max, n_q, n_models = arr.shape[-1], arr.shape[-2], arr.shape[-3]
    pairs = _pair_tables(packed, n_max, draws["replicates"] * n_models * n_q * n_max)
    if pairs is None:
        tables, stride, padded = packed.groups, 0, 0
    else:
        tables, stride, padded = pairs, n_max + 1, n_q % 2
    for trials in _trial_blocks(arr, models=gold.order, pair_stride=stride, **draws):
        yield _packed_block(trials, parsed, gold, packed, tables, padded)
