"""Validation studies for bayes_eval (installed as ``bayes_eval.validation``).

Every study is an entry of one registry, :mod:`bayes_eval.validation.registry`: a name, a
config dataclass (one field per option, with its default and help;
:mod:`.study_configs`) and a run function that writes NetCDF and a PNG plot and returns a
:class:`~bayes_eval.validation.registry.StudyResult` (the ``xarray.Dataset``, a JSON-ready
summary, the files written). ``bayes-eval validate NAME`` and the notebooks reach every study
the same way (``registry.run_study(NAME, OUT, **options)``).

The studies: ``biased-coin`` (tau_b versus the number of trials on biased-coin mimics,
:mod:`.biased_coin_study`), ``prior-benefit`` (earlier runs as a prior, :mod:`.prior_benefit`),
``distinguishability`` (trials needed to separate two close models,
:mod:`.distinguishability`), ``convergence`` (convergence of rankings to a gold standard:
Kendall tau_b and convergence@n of your results file by column- and row-wise bootstrap,
:mod:`.convergence_study`), ``coverage`` (calibration and coverage of interval methods over a
grid of cells on Dask, resumable, :mod:`.coverage`), ``elicit`` (prior elicitation,
:mod:`.elicit_study` on :mod:`.elicitation`), ``judges`` and ``judges-synthetic`` (the LLM
judges model against baselines, :mod:`.judges_study`) and ``sbc`` (simulation-based
calibration of the closed form and the PyMC models, resumable on Dask, :mod:`.sbc_study` on
:mod:`.sbc`).
"""
