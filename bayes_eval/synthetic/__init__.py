"""Synthetic results with known truth.

- :mod:`~bayes_eval.synthetic.biased_coin`: the biased-coin mimics of Hariri et al., "Don't
  Pass@k" (§2.7, Fig. 2).
- :mod:`~bayes_eval.synthetic.leaderboard`: incomplete, graded leaderboards (growing
  question sets, models on a subset, gaps, repeats) with their true scores.
"""
