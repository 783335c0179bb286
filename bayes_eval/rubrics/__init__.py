"""Rubrics: weighted categories from graded scores.

Hariri et al. ("Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§3.4 and Appendix F) map every attempt to one of ``C + 1`` categories from base signals
(App. F.1), through rubric variables (Table 4) and a schema (Table 5); Bayes@N then scores the
categories with a weight vector ``w``. Category 0 is *invalid* and takes precedence;
categories ``1..C`` must partition the valid attempts. Each name is imported from the module
that defines it:

* :mod:`bayes_eval.rubrics.spec`: the base signals (:data:`~.spec.SIGNALS`), Table 4
  (:data:`~.spec.TABLE4_THRESHOLDS`, :data:`~.spec.TABLE4_VARIABLES`,
  :data:`~.spec.INVALID_RULE`), the :class:`~.spec.Schema` type and user-defined schemata
  (:func:`~.spec.schema_from_spec`, :func:`~.spec.load_schema` for TOML files);
* :mod:`bayes_eval.rubrics.catalog`: the twelve schemata of Table 5 (:data:`~.catalog.SCHEMATA`,
  with the readings used where Table 5 is not a partition as printed),
  :func:`~.catalog.get_schema`, :func:`~.catalog.describe_schemata`;
* :mod:`bayes_eval.rubrics.categories`: :func:`~.categories.categorize`, which resolves the
  thresholds, checks that the categories partition the valid attempts and returns the
  category array, the weights and the thresholds used (:class:`~.categories.RubricCategories`),
  and :func:`~.categories.rubric_thresholds`;
* :mod:`bayes_eval.rubrics.expression`: the small Boolean language of rubric variables and
  categories (:func:`~.expression.parse_expression`);
* :mod:`bayes_eval.rubrics.comparison`: ranks under several schemata
  (:func:`~.comparison.compare_schemata`, :func:`~.comparison.plot_schema_ranks`).
"""
