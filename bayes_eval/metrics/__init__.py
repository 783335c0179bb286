"""The metrics under the names of the peer package scorio.

Each is a thin wrapper over the posterior (:mod:`bayes_eval.posteriors.posterior`).

- :mod:`~bayes_eval.metrics.bayes`: Bayes@N (``bayes``, ``bayes_ci``), Hariri et al.,
  "Don't Pass@k", Algorithm 1 and Appendix A.
- :mod:`~bayes_eval.metrics.avg`: avg@N (``avg``, ``avg_ci``), Appendix B.
- :mod:`~bayes_eval.metrics.passk`: the Pass@k family, unbiased point estimates and
  posteriors of the latent metrics, Appendix H.

The public names are top-level: ``from bayes_eval import bayes_ci``.
"""
