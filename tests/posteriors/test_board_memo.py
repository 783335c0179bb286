"""The memo of board fits: least recently used out, a stored None told from a missing board."""

from __future__ import annotations

import numpy as np

from bayes_eval.posteriors import joint


def test_the_memo_keeps_the_last_boards_and_tells_none_from_missing():
    memo = joint._BoardMemo(2)
    assert memo.get(("a",)) == (False, None)
    memo.put(("a",), None)  # a board the model does not apply to
    memo.put(("b",), 2)
    assert memo.get(("a",)) == (True, None)  # found, and now the most recently used
    memo.put(("c",), 3)  # drops ("b",), the least recently used
    assert memo.get(("b",)) == (False, None)
    assert memo.get(("c",)) == (True, 3) and len(memo) == 2
    memo.clear()
    assert len(memo) == 0 and memo.get(("c",)) == (False, None)


def test_a_repeated_board_is_fitted_once():
    rng = np.random.default_rng(3)
    p = rng.beta(2, 2, size=(1, 25)) * np.array([[0.6], [0.8], [1.0]])
    successes = rng.binomial(4, p)
    counts = np.stack([4 - successes, successes], axis=-1)
    joint._MEMO.clear()
    first = joint.joint_posterior(counts)
    assert first is not None and len(joint._MEMO) == 1
    assert joint.joint_posterior(counts.copy()) is first  # the same object, not a refit
