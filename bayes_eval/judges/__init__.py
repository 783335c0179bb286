"""LLM-as-judge data, frequentist baselines and the simplex geometry.

The PyMC model is :mod:`bayes_eval.models.judges`.
"""
