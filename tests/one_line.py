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
