"""``python -m bayes_eval.cli``: the same as ``bayes-eval``."""

import sys

from bayes_eval.cli import run

sys.exit(run())
