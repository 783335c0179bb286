"""``python -m bayes_eval.cli``: the same as ``bayes-eval``."""

import sys

from bayes_eval.cli import main

sys.exit(main())
