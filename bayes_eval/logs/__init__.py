"""Evaluation logs from other tools, as one long table and as ``R[model, question, trial]``.

:class:`EvalLog` (in :mod:`.eval_log`) is the one type every reader returns;
:mod:`.read` holds the one registry of formats and :func:`read_eval_log`.
"""

from bayes_eval.logs.eval_log import BASE_COLUMNS, EvalLog, check_all_answered, make_log
from bayes_eval.logs.read import FORMATS, READERS, detect_format, read_eval_log

__all__ = [
    "BASE_COLUMNS",
    "FORMATS",
    "READERS",
    "EvalLog",
    "check_all_answered",
    "detect_format",
    "make_log",
    "read_eval_log",
]
