r"""Bayes@N as an Inspect AI metric: ``inspect eval task.py --epochs 8`` reports it beside accuracy.

Needs the ``inspect`` extra (``pip install "bayes_eval[inspect]"``, the ``inspect-ai``
package); ``import bayes_eval`` never imports this module. Use it in a task:

.. code-block:: python

    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import accuracy, match, stderr
    from inspect_ai.solver import generate

    from bayes_eval.logs.inspect_metric import bayes_at_n


    @task
    def arithmetic():
        return Task(
            dataset=[Sample(input=f"What is {a} + {a}? Answer with the number only.",
                            target=str(2 * a)) for a in range(7, 47, 4)],
            solver=generate(),
            scorer=match(),
            metrics=[accuracy(), stderr(), bayes_at_n()],
        )

then ``inspect eval task.py --model openai/gpt-4o --epochs 8``. The scorer's results show
``bayes@N``, ``bayes_sd``, ``bayes_lo`` and ``bayes_hi`` (group ``bayes_at_n``) beside
``accuracy``; the log keeps the metric's arguments, among them ``prior_label`` and
``estimand``. ``Task(metrics=...)`` replaces the scorer's own metrics, hence ``accuracy()`` and
``stderr()`` in the list; a scorer of your own can list ``bayes_at_n()`` in
``@scorer(metrics=[...])`` instead. With the package installed the metric is also registered
with Inspect under ``bayes_eval/bayes_at_n`` (entry point group ``inspect_ai``), e.g. to add
it to an existing log: ``inspect score LOG --scorer match --metric bayes_eval/bayes_at_n
--action overwrite`` (this scores again; Inspect then also scores samples that had errors).

**Epochs.** Inspect reduces the epochs of a sample to one score (``mean`` by default) before
its metrics see them; Bayes@N needs every epoch, so this metric is declared
``@metric(scores="unreduced")``: Inspect hands it one score per sample and epoch whatever
``--epochs-reducer`` says (and with ``--no-epochs-reducer``). No score reducer is needed.

**What it reports** (Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language
Model Evaluation", §2.2-2.5): questions are the samples, trials the epochs, and
``bayes@N`` is the posterior mean :math:`\mu = E[\bar\pi \mid R]` of the weighted score
:math:`\bar\pi = \frac1M \sum_\alpha w \cdot \pi_\alpha` on *these questions* (the samples
that were run, not a population of new ones), ``bayes_sd`` its posterior sd and
``[bayes_lo, bayes_hi]`` its central credible interval at ``confidence`` (by default the
posterior's own law, as every command prints it: exact near 0 or 1, normal elsewhere; or
``interval="normal"``, :math:`\mu \mp z\sigma` clipped into [0, 1]). The prior is
``"empirical"`` by default, the learned per-question prior the command line uses (one run of
one model: learned from its own questions, integrated over its uncertainty); ``prior=
"uniform"`` is the paper's Dirichlet(1, ..., 1). Binary scores (C/I, 0/1, booleans) are two
categories with weights (0, 1); C/P/I or values on a grid of halves, thirds or quarters are
categories weighted by their value (C/P/I: 0, 0.5, 1, Inspect's ``value_to_float``); other
values in [0, 1] are graded (fractional counts): :mod:`bayes_eval.logs.inspect_scores`. The
numbers equal :func:`bayes_eval.bayes_ci` (``bounds="support"``) on the log read back with
:func:`bayes_eval.logs.read_eval_log` under the same prior and weights (tested to 1e-12 on a
real Inspect run), and ``bayes-eval rank LOG`` prints the same mean and sd.
"""

from collections.abc import Callable
from typing import cast

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from bayes_eval.inputs import check_confidence, shown
from bayes_eval.logs.inspect_scores import ESTIMAND, epoch_bayes_ci
from bayes_eval.metrics.bayes import prior_of
from bayes_eval.posteriors.posterior import Interval, check_interval
from bayes_eval.posteriors.priors import Pool, PriorSpec

__all__ = ["METRIC_KEYS", "bayes_at_n"]

#: The values the metric reports: mean, sd and the interval's ends.
METRIC_KEYS = ("bayes@N", "bayes_sd", "bayes_lo", "bayes_hi")


def _check_levels(levels: int | None) -> int | None:
    if levels is not None and (isinstance(levels, bool) or not isinstance(levels, int)):
        raise ValueError(f"levels is {shown(levels)}; expected None or an integer K >= 2.")
    if levels is not None and levels < 2:
        raise ValueError(f"levels is {levels}; expected None or an integer K >= 2.")
    return levels


def bayes_at_n(
    prior: PriorSpec = "empirical",
    pool: Pool | None = None,
    confidence: float = 0.95,
    interval: Interval = "auto",
    levels: int | None = None,
    to_float: Callable[[Value], float] | None = None,
) -> Metric:
    r"""Bayes@N with its credible interval over the epochs, as an Inspect metric.

    Parameters
    ----------
    prior : str, float or list of float
        ``"empirical"`` (default: learned, integrated), ``"empirical-plugin"``,
        ``"uniform"``, ``"jeffreys"``, a positive number or C + 1 of them
        (:meth:`bayes_eval.Prior.parse`).
    pool : {"board", "model", "benchmark"}, optional
        For a learned prior; one run holds one model, so all three learn from its questions.
    confidence : float
        Credibility level of the interval, in ``(0, 1)``.
    interval : {"auto", "normal", "exact"}
        :func:`bayes_eval.bayes_ci`'s interval (default ``"auto"``: the posterior's own law,
        never outside [0, 1]; ``"exact"`` takes seconds for three or more categories under the
        learned prior).
    levels : int, optional
        Round the values to K evenly spaced levels; default: the categories found
        (module docstring).
    to_float : callable, optional
        Score value -> number in [0, 1], e.g. ``value_to_float(correct="yes")``; default the
        letters C/P/I/N, booleans and numbers (anything else is an error).

    Returns
    -------
    Metric
        Reports ``{"bayes@N": mu, "bayes_sd": sigma, "bayes_lo": lo, "bayes_hi": hi}``.

    Raises
    ------
    ValueError
        At once for a bad prior, confidence, interval or levels; when the metric runs, for a
        score value it cannot read (a word, a list, a dict, a number outside [0, 1]) or a
        score without a sample id.

    Examples
    --------
    Inspect calls the metric with one score per sample and epoch; here three samples, three
    epochs each:

    >>> from inspect_ai.scorer import SampleScore, Score
    >>> from bayes_eval.logs.inspect_metric import bayes_at_n
    >>> epochs = {1: ["C", "C", "I"], 2: ["I", "I", "C"], 3: ["C", "C", "C"]}
    >>> scores = [SampleScore(score=Score(value=v), sample_id=i)
    ...           for i, values in epochs.items() for v in values]
    >>> result = bayes_at_n(prior="uniform")(scores)
    >>> {key: round(value, 4) for key, value in result.items()}
    {'bayes@N': 0.6, 'bayes_sd': 0.1089, 'bayes_lo': 0.3811, 'bayes_hi': 0.8056}
    """
    spec = prior_of(prior, pool=pool)
    return _bayes_at_n(
        prior=prior,
        pool=pool,
        confidence=check_confidence(confidence),
        interval=cast(Interval, check_interval(interval)),
        levels=_check_levels(levels),
        to_float=to_float,
        prior_label=spec.label,
        estimand=ESTIMAND,
    )


@metric(name="bayes_at_n", scores="unreduced")
def _bayes_at_n(
    prior: PriorSpec = "empirical",
    pool: Pool | None = None,
    confidence: float = 0.95,
    interval: Interval = "auto",
    levels: int | None = None,
    to_float: Callable[[Value], float] | None = None,
    prior_label: str | None = None,
    estimand: str = ESTIMAND,
) -> Metric:
    """The registered metric (``bayes_eval/bayes_at_n``).

    It takes :func:`bayes_at_n`'s arguments and the two it records in the log, ``prior_label``
    (checked against ``prior``) and ``estimand`` (always "these questions").
    """
    spec = prior_of(prior, pool=pool)
    if prior_label is not None and prior_label != spec.label:
        raise ValueError(
            f"prior_label is {shown(prior_label)} but prior={shown(prior)} is "
            f"{spec.label!r}; leave prior_label out."
        )
    if estimand != ESTIMAND:
        raise ValueError(f"estimand is {shown(estimand)}; Bayes@N's is {ESTIMAND!r}.")
    check_confidence(confidence)
    check_interval(interval)
    _check_levels(levels)

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            return dict.fromkeys(METRIC_KEYS, float("nan"))
        ids = [s.sample_id for s in scores]
        if any(i is None for i in ids):
            raise ValueError(
                "a score has no sample id; bayes_at_n needs the sample of every epoch's score."
            )
        result = epoch_bayes_ci(
            ids,
            [s.score.value for s in scores],
            prior=spec,
            confidence=confidence,
            interval=interval,
            levels=levels,
            to_float=to_float,
        )
        return dict(zip(METRIC_KEYS, (float(x) for x in result), strict=True))

    return compute
