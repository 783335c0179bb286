"""The CLI's contract for bad input, as the tests check it: one line on stderr, in our words."""

from __future__ import annotations


def one_line_error(capsys) -> str:
    """The single ``bayes-eval: error: ...`` line a refused command printed (no traceback)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bayes-eval: error: "), err
    return lines[0]


def small_board(models=("a", "b"), questions=6, trials=2, seed=0):
    """A long table of binary results (``model, question, trial, score``) of a few models,
    coin flips with the seed's generator: the smallest file a command accepts."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    rows = [
        (m, f"q{q}", t, int(rng.uniform() < 0.5))
        for m in models
        for q in range(questions)
        for t in range(trials)
    ]
    return pd.DataFrame(rows, columns=["model", "question", "trial", "score"])
