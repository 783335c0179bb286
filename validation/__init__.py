"""Validation studies for bayes_eval (installed as ``bayes_eval.validation``).

This subpackage will hold the runnable studies that judge the estimators: convergence of
rankings to a gold standard (Kendall tau_b, convergence@n by column- and row-wise bootstrap),
the biased-coin simulations of the Bayes@N paper, calibration and coverage of credible
intervals, prior-elicitation experiments and sample-size planning studies. Each study is
run by command (``bayes-eval validate NAME``) with progress bars, and writes NetCDF and PNG.
"""
