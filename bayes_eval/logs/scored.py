"""Results ready to rank: logs of any format, optionally scored under a rubric schema.

:func:`load_scored` reads evaluation logs (and the prior runs ``R0``), applies a rubric
schema when one is named (Hariri et al., "Don't Pass@k", App. F), applies the chosen
treatment of graded scores (:mod:`bayes_eval.inputs`) and of an incomplete design
(:func:`bayes_eval.logs.design.select_questions`), and returns ``R``, the weights, ``R0`` and what
was read, the input of :func:`bayes_eval.ranking.leaderboard.leaderboard`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, cast

import numpy as np
import xarray as xr

from bayes_eval.inputs import check_memory, levels_bytes, shown
from bayes_eval.logs.design import QuestionMode, select_questions

if TYPE_CHECKING:
    from bayes_eval.logs.eval_log import EvalLog

__all__ = ["ScoredResults", "graded_treatment", "load_scored", "unused_weights"]


class ScoredResults(NamedTuple):
    """Scored results with their weights, prior runs, summaries and question clusters.

    Results ``R[model, question, trial]`` (NaN = failed or missing), rubric weights, prior
    runs ``R0`` (or None), the log's summary (:meth:`EvalLog.summary`), under a schema its
    categories, weights, thresholds and counts (else None), the question selection
    (:meth:`bayes_eval.logs.design.QuestionSelection.summary`), the treatment of graded scores
    (None for categories), whether ``R`` holds graded scores to count fractionally, and the
    cluster of every question (question -> label) when a cluster column was read.

    Attributes
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial`` (NaN = failed or missing): the
        categories, or graded scores when ``fractional``.
    weights : list of float or None
        The rubric weights ``w_0..w_C``; None for binary results.
    R0 : xarray.DataArray or None
        The prior runs on the kept questions.
    log : dict
        The log's summary (attempts, failed, missing, per model).
    schema : dict or None
        Under a rubric schema: its name, categories, weights, thresholds and counts.
    design : dict, optional
        The question selection's summary.
    graded : dict, optional
        The treatment of graded scores (``treatment``, ``levels``, ``max_shift``,
        ``distinct``); None for categories.
    fractional : bool, optional
        Whether ``R`` holds graded scores to count fractionally, default ``False``.
    clusters : dict, optional
        Question -> cluster label, when a cluster column was read.

    Examples
    --------
    >>> from bayes_eval.logs.scored import load_scored
    >>> scored = load_scored("dataset:taubench_airline_gpt4o")
    >>> type(scored).__name__, scored.weights, scored.schema, scored.fractional
    ('ScoredResults', None, None, False)
    >>> scored.log["scored"], scored.design["complete"]
    (200, True)
    """

    R: xr.DataArray
    weights: list[float] | None
    R0: xr.DataArray | None
    log: dict
    schema: dict | None
    design: dict | None = None
    graded: dict | None = None
    fractional: bool = False
    clusters: dict | None = None


def load_scored(
    files: str | Sequence[str],
    *,
    format: str | None = None,
    weights: Sequence[float] | None = None,
    prior_files: str | Sequence[str] | None = None,
    schema: str | None = None,
    schema_file: str | None = None,
    model: str | None = None,
    metric: str | None = None,
    filter: str | None = None,
    scorer: str | None = None,
    questions: QuestionMode = "error",
    score_levels: int | None = None,
    fractional: bool = False,
    cli_names: bool = False,
    cluster: str | None = None,
    offer_fractional: bool = True,
    task: str | None = None,
) -> ScoredResults:
    """Read logs (one format, auto-detected unless ``format`` is given) into results to rank.

    Parameters
    ----------
    files
        Log files or directories, or ``dataset:NAME`` (:mod:`bayes_eval.datasets`).
    format
        One of :data:`bayes_eval.logs.FORMATS <bayes_eval.logs.read.FORMATS>`; None detects it.
    weights
        Rubric weights ``w_0..w_C``; None takes the log's default weights (else binary).
    prior_files
        Prior runs ``R0`` in the same format (same models and questions); under a schema
        they are scored with the thresholds of ``files``.
    schema, schema_file
        A built-in rubric schema (:func:`bayes_eval.rubrics.catalog.get_schema`) or a TOML
        file (:func:`~bayes_eval.rubrics.spec.load_schema`); at most one.
    model, metric, filter, scorer
        Passed to the importer (:func:`bayes_eval.logs.read_eval_log`).
    questions : {"error", "common", "all"}
        An incomplete design (some model without a scored attempt on some question) is
        refused (``"error"``), reduced to the questions every model answered (``"common"``),
        or kept, each model on its own questions (``"all"``):
        :func:`bayes_eval.logs.design.select_questions`.
    score_levels : int, optional
        Graded scores in [0, 1] rounded to K evenly spaced levels, whose values are the
        weights (:func:`bayes_eval.inputs.score_levels`).
    fractional : bool
        Graded scores counted fractionally (:func:`bayes_eval.inputs.fractional_tally`).
        Graded scores need one of the two.
    cli_names : bool
        Messages name the command-line options (``--questions``) instead of the keywords.
    cluster : str, optional
        A column of a long table (CSV, Parquet) holding each question's group
        (:func:`bayes_eval.logs.long_table.read_csv_log`); the result's ``clusters`` maps
        every question to it; for lm-eval output ``"task"`` (each question's subtask) or
        ``"doc.FIELD"`` (a field of its document).
    offer_fractional : bool
        Whether the caller offers fractional counts: the message that refuses graded scores
        without a treatment names only the treatments offered.
    task : str, optional
        Read this task only (of the results and of the earlier runs), as
        :func:`bayes_eval.logs.read_eval_log` does.

    Raises
    ------
    ValueError
        For unreadable input, both ``schema`` and ``schema_file``, an incomplete design under
        ``questions="error"``, graded scores without a treatment, or a treatment that does not
        fit the scores.

    Returns
    -------
    ScoredResults
        ``R``, the weights, ``R0``, the log's summary, the schema's details, the question
        selection, the graded treatment and the clusters.

    Examples
    --------
    >>> from bayes_eval.logs.scored import load_scored
    >>> scored = load_scored("dataset:taubench_airline_gpt4o", questions="common")
    >>> dict(scored.R.sizes), scored.weights, scored.R0
    ({'model': 1, 'question': 50, 'trial': 4}, None, None)
    >>> scored.design["mode"], scored.design["kept"]
    ('common', 50)
    """
    from bayes_eval.logs import read_eval_log

    options = {"model": model, "metric": metric, "filter": filter, "scorer": scorer, "task": task}
    if schema and schema_file:
        raise ValueError("give a built-in schema or a schema file, not both.")
    if cluster is not None:
        _long_tables_only(files, format, "--cluster" if cli_names else "cluster")
    log = read_eval_log(
        files, format=format, **options, **({"cluster": cluster} if cluster else {})
    )
    prior = read_eval_log(prior_files, format=format, **options) if prior_files else None
    clusters = cast("dict | None", log.meta.get("clusters") if cluster is not None else None)
    w = _finite_weights(weights, cli_names)
    option = "--questions" if cli_names else "questions"
    if not (schema or schema_file):
        return _results_of_scores(
            log,
            prior,
            w,
            user_weights=weights is not None,
            questions=questions,
            score_levels=score_levels,
            fractional=fractional,
            cli_names=cli_names,
            offer_fractional=offer_fractional,
            clusters=clusters,
        )
    if score_levels is not None or fractional:
        raise ValueError(
            "a rubric schema makes the categories from the signals; score_levels and "
            "fractional apply to graded scores without a schema."
        )

    from bayes_eval.rubrics.catalog import get_schema
    from bayes_eval.rubrics.spec import load_schema

    if schema_file:
        rubric = load_schema(schema_file)
    else:
        assert schema  # one of the two was given
        rubric = get_schema(schema)
    cats = log.categorize(rubric, weights=w)
    R = cast(xr.DataArray, cats.R)  # a DataArray: the signals are a Dataset
    w = [float(x) for x in cats.weights]
    R0 = None
    if prior is not None:  # the prior runs are scored on the same scale (same thresholds)
        R0 = cast(xr.DataArray, prior.categorize(rubric, weights=w, thresholds=cats.thresholds).R)
    info = {
        "schema": rubric.name,
        "categories": list(rubric.labels),
        "weights": w,
        "thresholds": dict(cats.thresholds),
        "counts": [int(c) for c in cats.counts],
        "absent_optional_signals": list(cats.missing_signals),
    }
    _prior_models(R, R0, prior, cli_names=cli_names)
    sources = ", ".join(log.sources)
    sel = select_questions(R, questions, R0=R0, source=sources, option=option)
    return ScoredResults(sel.R, w, sel.R0, log.summary(), info, sel.summary(), clusters=clusters)


def _finite_weights(weights: Sequence[float] | None, cli_names: bool) -> list[float] | None:
    """The weights as floats; a weight that is not a finite number is refused."""
    w = None if weights is None else [float(x) for x in weights]
    if w is not None and not np.isfinite(w).all():
        bad = next(x for x in w if not np.isfinite(x))
        raise ValueError(
            f"{'--weights' if cli_names else 'weights'} has {bad}; expected finite numbers, "
            "one weight per category, e.g. 0,0.5,1."
        )
    return w


def _results_of_scores(
    log: EvalLog,
    prior: EvalLog | None,
    w: list[float] | None,
    *,
    user_weights: bool,
    questions: QuestionMode,
    score_levels: int | None,
    fractional: bool,
    cli_names: bool,
    offer_fractional: bool,
    clusters: dict | None,
) -> ScoredResults:
    """The results of the log's own scores (no schema): categories, or graded scores treated.

    ``w`` are the weights given, else the log's default weights for categories;
    ``user_weights`` says whether the user gave them (the log's own are not checked for use).
    """
    sources = ", ".join(log.sources)
    R = log.results(require_all_questions=False)
    R0 = prior.results(require_all_questions=False) if prior is not None else None
    if R0 is not None and _is_graded(R0) and not _is_graded(R):
        assert prior is not None
        raise ValueError(
            f"{', '.join(prior.sources)} ({'--prior-file' if cli_names else 'prior_files'}): "
            f"the scores are graded, but those of {sources} are categories; expected earlier "
            "runs scored the same way."
        )
    if w is None and "default_weights" in log.meta and not _is_graded(R):
        w = [float(x) for x in cast("Sequence[float]", log.meta["default_weights"])]
    R, w, R0, graded = graded_treatment(
        R,
        w,
        R0,
        score_levels=score_levels,
        fractional=fractional,
        source=sources,
        cli_names=cli_names,
        offer_fractional=offer_fractional,
    )
    if graded is None:
        _unweighted_categories(R, w, source=sources, cli_names=cli_names)
        if w is not None:  # a K-category rubric's counts and its prior's K x K Newton step
            check_memory(
                levels_bytes(R.shape, len(w)),
                f"{'--weights' if cli_names else 'weights'} with {len(w)} weights on "
                f"{R.sizes['model']} models x {R.sizes['question']} questions",
                "one weight per rubric category (0/1 results: 2 weights, or none)",
            )
        if user_weights:  # the log's own default weights are not the user's
            unused_weights(R, w, source=sources, option="--weights" if cli_names else "weights")
    _prior_models(R, R0, prior, cli_names=cli_names)
    option = "--questions" if cli_names else "questions"
    sel = select_questions(R, questions, R0=R0, source=sources, option=option)
    fractional = bool(graded and graded["treatment"] == "fractional")
    return ScoredResults(
        sel.R, w, sel.R0, log.summary(), None, sel.summary(), graded, fractional, clusters
    )


def _prior_models(
    R: xr.DataArray, R0: xr.DataArray | None, prior: EvalLog | None, *, cli_names: bool
) -> None:
    """Refuse earlier runs whose models are not those of the results.

    That is a model of ``R0`` that ``R`` lacks (its counts would be dropped without a word), or
    no model in common (the prior would be the bare one while the output says "+ earlier
    runs").
    """
    if prior is None or R0 is None or "model" not in R0.dims or "model" not in R.dims:
        return
    option = "--prior-file" if cli_names else "prior_files"
    where = ", ".join(prior.sources)
    ours = [str(m) for m in R["model"].values]
    extra = [str(m) for m in R0["model"].values if str(m) not in set(ours)]
    if extra:
        shared = len(R0["model"]) - len(extra)
        raise ValueError(
            f"{where} ({option}) has model(s) {extra[:5]} that the results do not have "
            f"({shared} in common); expected earlier runs of the same models, some of {ours[:8]}."
        )


def _long_tables_only(files: str | Sequence[str], format: str | None, option: str) -> None:
    """Refuse a cluster column for logs that have no columns.

    Every format but the long tables has none.
    """
    from bayes_eval.logs.read import detect_format

    for f in [files] if isinstance(files, str) else list(files):
        if str(f).startswith("dataset:"):
            raise ValueError(
                f"{option} names a column of a long table; {f} is a shipped dataset, which "
                "has no cluster column: export it as a CSV table with one."
            )
        fmt = format or detect_format(f)
        if fmt not in ("csv", "parquet", "lm-eval"):  # lm-eval: 'task' or 'doc.FIELD'
            raise ValueError(
                f"{option} names a column of a long table (csv, parquet); {f} is a {fmt} log, "
                "which has no columns: convert it to a long table with a cluster column."
            )


def unused_weights(
    R: xr.DataArray, w: Sequence[float] | None, *, source: str, option: str = "weights"
) -> None:
    """Warn when the results never use the top categories of ``w``.

    0/1 results scored with ``w = (0, 0.5, 1)`` count a correct answer as 0.5 (every score
    halved), which is seldom what was meant.

    Parameters
    ----------
    R : xarray.DataArray
        Results of integer categories (NaN = failed or missing).
    w : sequence of float or None
        The rubric weights ``w_0..w_C``; None: nothing to check.
    source : str
        The files read, named in the warning.
    option : str, optional
        How the warning names the weights, default ``"weights"`` (``"--weights"`` from the
        command line).

    Warns
    -----
    UserWarning
        When the largest category in ``R`` is below ``C``.

    Examples
    --------
    >>> import warnings
    >>> import xarray as xr
    >>> from bayes_eval.logs.scored import unused_weights
    >>> R = xr.DataArray([[[0.0, 1.0], [1.0, 1.0]]], dims=("model", "question", "trial"))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     unused_weights(R, [0, 0.5, 1], source="runs.csv")
    >>> print(caught[0].message)
    runs.csv: weights has 3 weights but the results use categories 0..1 only, scored 0, 0.5;
    category 2 never occurs. For 0/1 results give 2 weights (or none).
    """
    if w is None:
        return
    seen = R.values[~np.isnan(R.values)]
    top = int(seen.max(initial=0))
    if top < len(w) - 1:
        unused = (
            f"category {top + 1}" if top + 2 == len(w) else f"categories {top + 1}..{len(w) - 1}"
        )
        warnings.warn(
            f"{source}: {option} has {len(w)} weights but the results use categories 0..{top} "
            f"only, scored {', '.join(f'{x:g}' for x in w[: top + 1])}; {unused} never "
            f"{'occurs' if top + 2 == len(w) else 'occur'}. For 0/1 results give 2 weights (or "
            "none).",
            UserWarning,
            stacklevel=2,
        )


def _unweighted_categories(
    R: xr.DataArray, w: Sequence[float] | None, *, source: str, cli_names: bool = False
) -> None:
    """Refuse integer scores above 1 read without weights, naming the file and the option.

    Binary scoring uses ``w = (0, 1)``; a score of 2, or a 0-100 scale, needs one weight per
    category ``w_0..w_C`` (Hariri et al., "Don't Pass@k", Sec. 3: the rubric weights).

    Raises
    ------
    ValueError
        When ``w`` is None and some score is an integer above 1.
    """
    if w is not None:
        return
    seen = R.values[~np.isnan(R.values)]
    top = int(seen.max(initial=0))
    if top <= 1:
        return
    option = "--weights" if cli_names else "weights"
    scale = (
        " (a 0-100 scale? divide the scores by 100 for graded scores in [0, 1])"
        if top >= 10
        else ""
    )
    raise ValueError(
        f"{source}: a score is {top}{scale}, but with no {option} the scores must be 0/1; "
        f"expected 0/1 scores, or rubric categories 0..{top} with one weight each "
        f"({option} w0,..,w{top})."
    )


def _is_graded(R: xr.DataArray) -> bool:
    v = R.values
    seen = v[~np.isnan(v)]
    return bool((seen != np.round(seen)).any())


def graded_treatment(
    R: xr.DataArray,
    w: Sequence[float] | None,
    R0: xr.DataArray | None = None,
    *,
    score_levels: int | None = None,
    fractional: bool = False,
    source: str = "the results",
    cli_names: bool = False,
    offer_fractional: bool = True,
) -> tuple[xr.DataArray, list[float] | None, xr.DataArray | None, dict | None]:
    """Apply the chosen treatment of graded scores (:mod:`bayes_eval.inputs`).

    Returns ``(R, w, R0, info)``: categories and their weights for ``score_levels``, the
    scores unchanged (to be counted fractionally) for ``fractional``, and the input unchanged
    for integer categories (``info`` None). ``info`` says what was done: ``treatment``,
    ``levels``, ``max_shift`` (the largest rounding) and ``distinct`` (distinct score values).

    With ``cli_names`` messages name the command-line options (``--score-levels``); without
    ``offer_fractional`` they offer score levels only (a command without ``--fractional``).

    Parameters
    ----------
    R : xarray.DataArray
        Results with dims ``model``, ``question``, ``trial``: integer categories or graded
        scores in ``[0, 1]`` (NaN = failed or missing).
    w : sequence of float or None
        The rubric weights; must be None for graded scores.
    R0 : xarray.DataArray, optional
        Prior runs, treated as ``R`` is.
    score_levels : int, optional
        Round graded scores to K evenly spaced levels (:func:`bayes_eval.inputs.score_levels`).
    fractional : bool, optional
        Keep graded scores to count fractionally, default ``False``.
    source : str, optional
        How messages name ``R``, default ``"the results"``.
    cli_names : bool, optional
        Name the command-line options in messages, default ``False``.
    offer_fractional : bool, optional
        Offer fractional counts in the message that asks for a treatment, default ``True``.

    Returns
    -------
    R : xarray.DataArray
        The categories (level indices under ``score_levels``), or ``R`` unchanged.
    w : list of float or None
        The weights: the level values under ``score_levels``, None under ``fractional``, else
        ``w`` as given.
    R0 : xarray.DataArray or None
        The prior runs, treated as ``R``.
    info : dict or None
        What was done; None for integer categories.

    Raises
    ------
    ValueError
        Graded scores without a treatment (the message explains the choice), both
        treatments, a treatment for integer categories it does not fit, ``w`` with graded
        scores, fewer than 2 levels, or more levels than :data:`bayes_eval.inputs.MEMORY_LIMIT`
        allows (:func:`bayes_eval.inputs.levels_bytes`), checked before anything is allocated.

    Examples
    --------
    >>> import xarray as xr
    >>> from bayes_eval.logs.scored import graded_treatment
    >>> R = xr.DataArray([[[0.25, 1.0], [0.5, 0.0]]], dims=("model", "question", "trial"))
    >>> levels, w, R0, info = graded_treatment(R, None, score_levels=5)
    >>> levels.values.tolist(), w
    ([[[1.0, 4.0], [2.0, 0.0]]], [0.0, 0.25, 0.5, 0.75, 1.0])
    >>> info
    {'treatment': 'levels', 'levels': 5, 'max_shift': 0.0, 'distinct': 4}
    >>> graded_treatment(R, None, fractional=True)[3]
    {'treatment': 'fractional', 'distinct': 4}
    """
    from bayes_eval.inputs import score_levels as to_levels

    levels_name = "--score-levels" if cli_names else "score_levels"
    if score_levels is not None:
        _check_score_levels(score_levels, R, levels_name, offer_fractional)
    values = R.values
    seen = values[~np.isnan(values)]
    graded = bool((seen != np.round(seen)).any())
    if score_levels is not None and fractional:
        raise ValueError("score levels and fractional counts were both chosen; expected one.")
    if not graded:
        if score_levels is not None:
            raise ValueError(
                f"{source}: the scores are integer categories 0..{int(seen.max(initial=0))}, "
                "not graded scores; score levels apply to graded scores in [0, 1] only."
            )
        if fractional and seen.size and seen.max() > 1:
            raise ValueError(
                f"{source}: the scores are categories up to {int(seen.max())}; fractional "
                "counts apply to scores in [0, 1] (use weights for a rubric)."
            )
        return R, (None if w is None else list(w)), R0, None
    distinct = int(np.unique(seen).size)
    if score_levels is None and not fractional:
        example = shown(float(seen[seen != np.round(seen)][0]))
        raise _untreated(source, distinct, example, offer_fractional)
    if w is not None:
        raise ValueError(
            f"{source}: weights were given for graded scores; the weights are the level values "
            "(score levels) or (0, 1) (fractional counts): leave them out."
        )
    if fractional:
        return R, None, R0, {"treatment": "fractional", "distinct": distinct}
    assert score_levels is not None  # one of the two treatments was chosen
    levels = to_levels(values, score_levels)
    R = R.copy(data=levels.R)
    if R0 is not None:
        R0 = R0.copy(data=to_levels(R0.values, score_levels).R)
    info = {
        "treatment": "levels",
        "levels": int(score_levels),
        "max_shift": levels.max_shift,
        "distinct": distinct,
    }
    return R, [float(x) for x in levels.w], R0, info


def _check_score_levels(
    score_levels: object, R: xr.DataArray, levels_name: str, offer_fractional: bool
) -> None:
    """Refuse a number of levels that is not an integer K >= 2 or whose counts exceed memory."""
    from bayes_eval.inputs import check_memory, levels_bytes

    if isinstance(score_levels, bool) or not isinstance(score_levels, int | np.integer):
        raise ValueError(f"{levels_name} is {shown(score_levels)}; expected an integer >= 2.")
    if score_levels < 2:
        raise ValueError(
            f"{levels_name} is {score_levels}; expected an integer K >= 2 (K levels "
            "0, 1/(K-1), ..., 1: 2 levels are 0 and 1)."
        )
    check_memory(
        levels_bytes(R.shape, int(score_levels)),
        f"{levels_name} {score_levels} on {R.sizes.get('model', 1)} models x "
        f"{R.sizes.get('question', 1)} questions",
        "fewer levels (a 5-point rubric is --score-levels 5), or fractional counts"
        if offer_fractional
        else "fewer levels (a 5-point rubric is 5)",
    )


def _untreated(source: str, distinct: int, example: str, offer_fractional: bool) -> ValueError:
    """The error for graded scores read without a treatment, explaining the choice."""
    levels = (
        "score levels K (--score-levels K) round the scores to K evenly spaced levels "
        "whose values are the weights (exact when the scores lie on that grid)"
    )
    choice = (
        f"Choose a treatment: {levels}, or fractional counts (--fractional): a score s "
        "counts as s "
        "correct and 1 - s wrong answers (a quasi-likelihood: right mean, conservative "
        "spread)."
        if offer_fractional
        else "Choose score levels: --score-levels K rounds the scores to K evenly spaced "
        "levels whose values are the weights (exact when the scores lie on that grid)."
    )
    return ValueError(
        f"{source}: the scores are graded ({distinct} distinct values in [0, 1], e.g. "
        f"{example}), not categories; as {distinct} Dirichlet categories under a uniform "
        f"prior every question would get {distinct} pseudo-counts, swamping its real "
        f"answers. {choice}"
    )
