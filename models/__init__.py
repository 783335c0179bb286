"""PyMC models matching the closed-form Bayes@N posterior (installed as ``bayes_eval.models``).

This subpackage will hold the model builders that take evaluation data and return a
``pm.Model`` with named coords (``model``, ``question``, ``category``): the matching
Dirichlet-multinomial model used to cross-check the closed form by NUTS, hierarchical
per-question priors, informative and power priors built from earlier runs ``R0``, and the
LLM-as-judge model on the simplex. PyMC and ArviZ are imported only here and in
``bayes_eval.validation``, never by ``import bayes_eval``.
"""
