"""Rubric schemata: per-attempt base signals -> categories 0..C -> weights.

Hariri et al. ("Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§3.4 and Appendix F) map every attempt to one of ``C + 1`` categories from base signals
(App. F.1), through rubric variables (Table 4) and a schema (Table 5); Bayes@N then scores the
categories with a weight vector ``w``. Category 0 is *invalid* and takes precedence;
categories ``1..C`` must partition the valid attempts.

This module is the one place to import them from; the parts live in

* :mod:`bayes_eval.rubrics.spec`: the base signals (:data:`SIGNALS`), Table 4
  (:data:`TABLE4_THRESHOLDS`, :data:`TABLE4_VARIABLES`, :data:`INVALID_RULE`), the
  :class:`Schema` type and user-defined schemata (:func:`schema_from_spec`,
  :func:`load_schema` for TOML files);
* :mod:`bayes_eval.rubrics.catalog`: the twelve schemata of Table 5 (:data:`SCHEMATA`, with
  the readings used where Table 5 is not a partition as printed), :func:`get_schema`,
  :func:`describe_schemata`;
* :mod:`bayes_eval.rubrics.categories`: :func:`categorize`, which resolves the thresholds,
  checks that the categories partition the valid attempts and returns the category array,
  the weights and the thresholds used (:class:`RubricCategories`), and
  :func:`rubric_thresholds`.
"""

from __future__ import annotations

__all__ = []
