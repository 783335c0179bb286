"""Comparing and ranking models.

- :mod:`~bayes_eval.ranking.ranks`: z-scores, the ranking confidence, competition and
  CI-aware ranks, rank intervals, P(A > B) of two results (Hariri et al., "Don't Pass@k",
  §2.5 and §2.7.1).
- :mod:`~bayes_eval.ranking.leaderboard`: the rank table of a board and the functions behind
  ``bayes-eval rank`` and ``bayes-eval plan``.
- :mod:`~bayes_eval.ranking.paired`: paired comparisons on shared questions (the estimand
  *new questions*), beside the independent posteriors (*these questions*).
- :mod:`~bayes_eval.ranking.sample_size`: trials that separate two models, with assurance
  (Appendix D).
- :mod:`~bayes_eval.ranking.convergence`: convergence@n, rank agreement and stability of
  rankings as trials grow (§3.3), the plain reference path; beside it
  :mod:`~bayes_eval.ranking.convergence_draws` (which trials each replicate sees),
  :mod:`~bayes_eval.ranking.convergence_agreement` (Kendall's tau-b and exact match against a
  gold ranking) and :mod:`~bayes_eval.ranking.convergence_packed` (the bit-packed fast path,
  tested equal to the reference).
- :mod:`~bayes_eval.ranking.paired_exact` and :mod:`~bayes_eval.ranking.paired_matrices`: the
  exact Dirichlet linear forms and the new-questions matrices behind
  :mod:`~bayes_eval.ranking.paired`.
- :mod:`~bayes_eval.ranking.claims`, :mod:`~bayes_eval.ranking.claims_plan`,
  :mod:`~bayes_eval.ranking.population`: claims at a controlled posterior expected FDR, their
  plan, and the leaderboard of the new-questions estimand.
"""
