"""The posterior of a score, its priors and its exact laws.

See Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation",
§2.2-2.5 and Appendix A.

- :mod:`~bayes_eval.posteriors.priors`: :class:`Prior`, the per-question prior as a value
  (uniform, Jeffreys, a fixed Dirichlet, or learned from the questions; earlier runs and
  their discount), and the learned prior's fit and quadrature.
- :mod:`~bayes_eval.posteriors.posterior`: :func:`posterior` and :class:`Posterior`, the one
  object every estimator and command asks (mean, sd, intervals, P(better), draws, the Pass
  family, a DataTree), and the estimands.
- :mod:`~bayes_eval.posteriors.exact`: the exact law of pi-bar (lattice, tails, Imhof).
- :mod:`~bayes_eval.posteriors.latent_pass`: the exact law of a latent Pass family metric.
- :mod:`~bayes_eval.posteriors.intervals`: normal intervals, clipping, mixture quantiles.
- :mod:`~bayes_eval.posteriors.board` and :mod:`~bayes_eval.posteriors.joint`: the board prior
  and the board model.

Beside them, the engines (ARCHITECTURE.md, "Inside the two largest concerns"): ``prepare``,
``moment_sums``, ``comparisons``, ``model_laws``, ``draws``, ``selection``, ``pass_family``,
``identification`` and ``export`` behind the posterior; ``prior_statistics``,
``prior_likelihood`` and ``prior_fit`` behind the learned prior; ``imhof``, ``lattice``,
``refinements`` and ``mixture`` behind the exact laws.

Import from the modules (``from bayes_eval.posteriors.priors import Prior``); the most used
names are also top-level (``bayes_eval.posterior``, ``bayes_eval.Prior``).
"""
