"""The exit statuses of ``bayes-eval``, one place for every command (and its README table).

0 on success; :data:`CHECK_FAILED` when a check that a command reports failed (its help says
which, e.g. ``crosscheck`` outside its tolerance); :data:`BAD_INPUT` for bad input, after one
line on stderr; :data:`INTERRUPTED` after Ctrl-C, after one line ``bayes-eval: interrupted``.
"""

from __future__ import annotations

__all__ = ["BAD_INPUT", "CHECK_FAILED", "INTERRUPTED"]

#: A check the command reports failed (the numbers are printed; the check did not hold).
CHECK_FAILED = 1

#: Bad input: a file, option or value the command cannot use (one line on stderr).
BAD_INPUT = 2

#: Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130
