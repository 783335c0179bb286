"""Option groups shared by the commands, each defined once as an argparse parent parser.

A command lists the groups it takes (``parents=[...]``); the factories take the defaults
that differ between commands (e.g. the number of NUTS draws). The value types (the one
parser of number lists :func:`numbers`, counts, output paths) live in
:mod:`bayes_eval.cli._types` and are re-exported here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from bayes_eval.cli._types import (
    fdr_level,
    nonnegative_int,
    numbers,
    positive_int,
    writable_file,
    writable_folder,
)
from bayes_eval.nuts import SAMPLERS, NutsSettings

if TYPE_CHECKING:
    from bayes_eval.logs.design import QuestionMode
    from bayes_eval.logs.scored import ScoredResults
    from bayes_eval.posteriors.priors import Prior

__all__ = [
    "CLAIMS_FDR",
    "QUESTION_MODES",
    "HelpFormatter",
    "claims_options",
    "cluster_labels",
    "cluster_option",
    "data_options",
    "deprecated",
    "given",
    "input_options",
    "load_results",
    "nuts_options",
    "output_options",
    "per_task",
    "prior_file_option",
    "prior_from",
    "prior_options",
    "refuse",
    "sampler_settings",
    "seed_options",
    "source_name",
    "tasks_of",
]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the layout of descriptions; the command list gets room for long names."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=24, width=100)

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if action.help is not argparse.SUPPRESS and isinstance(action, argparse._SubParsersAction):
            # argparse measures subcommands without their extra indent: count it
            names = [len(self._format_action_invocation(a)) for a in action._get_subactions()]
            longest = max(names, default=0) + self._current_indent + self._indent_increment
            self._action_max_length = max(self._action_max_length, longest)


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


def input_options(
    nargs: str | None = None, help: str = "results: a log file or directory, or dataset:NAME"
) -> argparse.ArgumentParser:
    """The results ``file`` (positional, ``nargs``) and ``--format``."""
    from bayes_eval.logs import FORMATS

    p = _parent()
    p.add_argument("file", nargs=nargs, metavar="FILE", help=help)
    p.add_argument(
        "--format",
        choices=list(FORMATS),
        metavar="FORMAT",
        help="log format, one of " + ", ".join(FORMATS) + " (default: detected from the file)",
    )
    return p


def data_options(*, questions: bool = True) -> argparse.ArgumentParser:
    """How results are read and treated, the same on every command that reads results.

    The options ``--weights``, ``--questions`` (the design mode), ``--score-levels``,
    ``--fractional``, the rubric schema (``--schema``, ``--schema-file``) and the importer's
    choices (``--model``, ``--metric``, ``--filter``, ``--scorer``). :func:`load_results`
    applies them.
    """
    p = _parent()
    g = p.add_argument_group("reading the results")
    g.add_argument(
        "--weights",
        type=numbers,
        metavar="W0,W1,..",
        help="rubric weights w_0..w_C, e.g. 0,0.5,1 (default: the log's, else binary 0,1)",
    )
    if questions:
        g.add_argument(
            "--questions",
            choices=list(QUESTION_MODES),
            help="when some model did not answer some question: refuse (error, the default), "
            "keep the questions every model answered (common), or keep all (all: each model "
            "on its own questions)",
        )
    g.add_argument(
        "--score-levels",
        type=positive_int,
        metavar="K",
        help="graded scores in [0, 1]: round to K evenly spaced levels, whose values are the "
        "weights (exact when the scores lie on that grid)",
    )
    g.add_argument(
        "--fractional",
        action="store_true",
        help="graded scores in [0, 1]: a score s counts as s correct and 1 - s wrong answers "
        "(a quasi-likelihood: right mean, conservative intervals)",
    )
    g.add_argument("--schema", help="built-in rubric schema (see `bayes-eval schemas`)")
    g.add_argument("--schema-file", metavar="FILE", help="user-defined rubric schema (TOML)")
    g.add_argument(
        "--task",
        metavar="NAME",
        help="read this task only (a task, group or subtask of lm-eval output, a value of a "
        "long table's task column); a log with several tasks is analysed task by task (rank, "
        "pairs) or refused with the list of its tasks: they are not one benchmark",
    )
    g.add_argument("--model", help="name of the LLM where the log does not give one")
    g.add_argument("--metric", help="lm-eval / HELM metric used as the 0/1 score")
    g.add_argument("--filter", help="lm-eval filter (default: the first in the file)")
    g.add_argument("--scorer", help="Inspect scorer giving the category (default: the first)")
    return p


#: ``--questions``: what to do with an incomplete design
QUESTION_MODES = ("error", "common", "all")


def load_results(
    args: argparse.Namespace,
    *,
    questions: str | None = None,
    offer_fractional: bool = True,
    task: str | None = None,
) -> ScoredResults:
    """The results of ``args.file``, read and treated as the data and prior options say.

    Read and treated as :func:`data_options` and :func:`prior_options` say
    (:func:`bayes_eval.logs.scored.load_scored`); ``questions`` overrides the default design
    mode ``"error"``; ``offer_fractional=False``: a command that cannot count graded scores
    fractionally offers score levels only; ``task`` (else ``--task``) reads that task only;
    results with several tasks and none chosen are refused, listing them (:func:`tasks_of`).
    """
    from bayes_eval.logs.scored import load_scored

    files = args.file
    mode = cast("QuestionMode", getattr(args, "questions", None) or questions or "error")
    task = task or getattr(args, "task", None)
    if task is None:
        several = tasks_of(args)
        if several:
            more = f", ... ({len(several)} tasks)" if len(several) > 12 else ""
            shown_ = ", ".join(several[:12]) + more
            raise ValueError(
                f"{source_name(args)} holds {len(several)} tasks ({shown_}), which are not one "
                "benchmark: choose one with --task NAME (rank and pairs analyse each task in "
                "turn)."
            )
    return load_scored(
        files,
        format=args.format,
        weights=args.weights,
        prior_files=getattr(args, "prior_file", None),
        schema=args.schema,
        schema_file=args.schema_file,
        model=args.model,
        metric=args.metric,
        filter=args.filter,
        scorer=args.scorer,
        questions=mode,
        score_levels=args.score_levels,
        fractional=args.fractional,
        cli_names=True,
        cluster=getattr(args, "cluster", None),
        offer_fractional=offer_fractional,
        task=task,
    )


#: the posterior expected false discovery rate of the claims when ``--fdr`` is not given
CLAIMS_FDR = 0.05


def claims_options() -> argparse.ArgumentParser:
    """The claim options ``--fdr Q`` and ``--top K``.

    ``--fdr Q``: the posterior expected false discovery rate of the claims "A better than B"
    (:func:`bayes_eval.ranking.claims.fdr_claims`); ``--top K``: P(in the top K) per model.
    """
    p = _parent()
    p.add_argument(
        "--fdr",
        type=fdr_level,
        metavar="Q",
        help="claim the largest set of orderings 'A better than B' whose posterior expected "
        "false discovery rate is at most Q (0.05)",
    )
    p.add_argument(
        "--top", type=positive_int, metavar="K", help="also P(in the top K) for every model"
    )
    return p


def cluster_option(help: str) -> argparse.ArgumentParser:
    """``--cluster COLUMN``: the column of a long table holding each question's group.

    The groups (passages, subjects, templates) are for the new-questions estimand;
    :func:`load_results` reads the column into ``clusters``.
    """
    p = _parent()
    p.add_argument("--cluster", metavar="COLUMN", help=help)
    return p


def tasks_of(args: argparse.Namespace) -> list[str]:
    """The tasks of the results to analyse one by one.

    ``--task`` alone when given, else the log's tasks when it holds several
    (:func:`bayes_eval.logs.read.log_tasks`, read with the options :func:`load_results` reads
    with, so the log is read once); empty for one task.
    """
    from bayes_eval.logs.read import log_tasks

    if getattr(args, "task", None):
        return [args.task]
    files = args.file if isinstance(args.file, list) else [args.file]
    if not files or files == [None]:
        return []
    options = {k: getattr(args, k, None) for k in ("model", "metric", "filter", "scorer")}
    if getattr(args, "cluster", None):
        options["cluster"] = args.cluster
    return log_tasks(files, format=args.format, **options)


def per_task(
    args: argparse.Namespace, one: Callable[[str | None, str | None], Any]
) -> tuple[list[str | None], list[Any]]:
    """``one(task, plot)`` for every task of :func:`tasks_of` (``[None]``: the results whole).

    A blank line goes between the tasks printed, and with several tasks each ``--plot FILE`` is
    named after its task (``forest.png`` -> ``forest_gsm8k.png``). Returns the tasks and what
    ``one`` returned for each.
    """
    import re
    from pathlib import Path

    from bayes_eval.cli._output import say

    tasks: list[str | None] = list(tasks_of(args)) or [None]
    docs = []
    for i, task in enumerate(tasks):
        if i and not args.json:
            say("")
        plot = args.plot
        if len(tasks) > 1 and plot is not None:
            path, safe = Path(plot), re.sub(r"[^\w.-]+", "_", str(task))
            plot = str(path.with_name(f"{path.stem}_{safe}{path.suffix}"))
        docs.append(one(task, plot))
    return tasks, docs


def cluster_labels(args: argparse.Namespace, scored: ScoredResults) -> list[str | None] | None:
    """The cluster of every question of ``scored.R`` (in its order).

    None without ``--cluster``.
    """
    if getattr(args, "cluster", None) is None:
        return None
    clusters = scored.clusters or {}
    return [clusters.get(str(q)) for q in scored.R["question"].values]


def source_name(args: argparse.Namespace) -> str:
    """How a header names the input: the file, or ``N files``."""
    files = args.file if isinstance(args.file, list) else [args.file]
    return files[0] if len(files) == 1 else f"{len(files)} files"


def prior_options() -> argparse.ArgumentParser:
    """The per-question prior of the closed form, the same on every command.

    The options ``--prior-kind`` (default ``empirical``, the CLI's one default), ``--pool``,
    the earlier runs ``--prior-file`` and their ``--prior-discount``. :func:`prior_from` builds
    the :class:`~bayes_eval.posteriors.priors.Prior` once.
    """
    from bayes_eval.posteriors.priors import PRIOR_KINDS

    p = _parent()
    g = p.add_argument_group("prior")
    g.add_argument(
        "--prior-kind",
        choices=[*PRIOR_KINDS[2:], *PRIOR_KINDS[:2]],
        help="per-question Dirichlet prior: learned from the questions and integrated over its "
        "uncertainty (empirical, the default of every command: calibrated on real benchmarks), "
        "learned and plugged in (empirical-plugin), the paper's uniform (as Hariri et al.), or "
        "Jeffreys",
    )
    g.add_argument(
        "--pool",
        choices=["board", "model", "benchmark"],
        help="learned prior: one per model, its concentration informed by the other models on "
        "the same questions (board, the default: identified even with one trial per question), "
        "one per model from its own results only (model), or one for all models (benchmark)",
    )
    g.add_argument(
        "--prior-file",
        metavar="FILE",
        help="earlier runs R0 in the same format (same models and questions): their counts "
        'join the prior (Hariri et al., "Don\'t Pass@k", eq. 6)',
    )
    g.add_argument(
        "--prior-discount",
        type=float,
        metavar="X",
        help="weight in (0, 1] of the earlier runs' counts (a power prior; default 1)",
    )
    deprecated(p, "--prior", "--prior-file", dest="prior_file")
    return p


def prior_file_option() -> argparse.ArgumentParser:
    """``--prior-file`` alone, for the commands whose statistical models have their own priors.

    Such as ``compare``: earlier runs R0, as in :func:`prior_options`.
    """
    p = _parent()
    p.add_argument(
        "--prior-file",
        metavar="FILE",
        help="earlier runs R0 in the same format (same models and questions)",
    )
    deprecated(p, "--prior", "--prior-file", dest="prior_file")
    return p


def prior_from(args: argparse.Namespace) -> Prior:
    """The prior that the options of :func:`prior_options` name, validated once.

    A :class:`~bayes_eval.posteriors.priors.Prior`; the earlier runs themselves join it when
    the results are read.
    """
    from bayes_eval.inputs import exact
    from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior

    kind = getattr(args, "prior_kind", None) or DEFAULT_PRIOR
    if kind in ("uniform", "jeffreys"):
        refuse(given(args, "pool"), f"with --prior-kind {kind} (no prior is learned)")
    if not getattr(args, "prior_file", None):
        refuse(given(args, "prior_discount"), "without --prior-file (it weighs earlier runs)")
    discount = getattr(args, "prior_discount", None)
    if discount is not None and not 0 < discount <= 1:
        raise ValueError(f"--prior-discount is {exact(discount)}; expected a weight in (0, 1].")
    return Prior.parse(
        kind, pool=getattr(args, "pool", None), discount=discount, source=args.prior_file
    )


def seed_options(help: str = "random seed (0)") -> argparse.ArgumentParser:
    """``--seed``: an integer >= 0 (as NumPy and PyMC take it), checked when parsed."""
    p = _parent()
    p.add_argument("--seed", type=nonnegative_int, default=0, help=help)
    return p


#: The one default NUTS sampler of every command (PyMC's: its compiled graphs are cached
#: across runs; nutpie recompiles each time but samples faster, ``--sampler nutpie``).
SAMPLER = "pymc"


def _target_accept(text: str) -> float:
    """An argparse type: a NUTS target acceptance rate, a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number in (0, 1); e.g. 0.95 (a higher rate takes smaller steps)."
        )
    return value


def nuts_options(
    draws: int | str = 1000, tune: int | str = 1000, chains: int = 4, sampler: str = SAMPLER
) -> argparse.ArgumentParser:
    """NUTS settings: the options of the sampler.

    ``--draws``, ``--tune``, ``--chains``, ``--seed``, ``--sampler``, ``--target-accept``,
    ``--no-progress``. Their defaults are applied by :func:`sampler_settings`, so that
    :func:`given` tells the options the user gave (a command may refuse them where nothing
    samples). A default given as text (``draws``, ``tune``,
    ``sampler``) is the model's own, which the command fills in itself.
    """
    p = _parent()
    g = p.add_argument_group("NUTS sampler")
    g.add_argument("--draws", type=positive_int, help=f"draws per chain ({draws})")
    g.add_argument("--tune", type=nonnegative_int, help=f"tuning steps per chain ({tune})")
    g.add_argument("--chains", type=positive_int, help=f"chains ({chains})")
    g.add_argument("--seed", type=nonnegative_int, help="random seed (0)")
    g.add_argument("--sampler", choices=list(SAMPLERS), help=f"NUTS implementation ({sampler})")
    g.add_argument(
        "--target-accept",
        type=_target_accept,
        metavar="RATE",
        help="NUTS target acceptance rate in (0, 1); raise it (e.g. 0.95, 0.99) when a fit "
        "diverges (default: the model's own, 0.8 for most)",
    )
    g.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(
        nuts_defaults={
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "seed": 0,
            "sampler": sampler,
            "target_accept": None,
        }
    )
    return p


#: The settings of :class:`~bayes_eval.nuts.NutsSettings` that have an option of their own.
_NUTS_FIELDS = ("draws", "tune", "chains", "seed", "sampler", "target_accept")
#: The options of :func:`nuts_options`, as ``args`` names.
NUTS = (*_NUTS_FIELDS, "no_progress")


def sampler_settings(args: argparse.Namespace, *, quiet: bool = False) -> NutsSettings:
    """The NUTS settings that :func:`nuts_options` collected, as one value.

    An option not given takes its default; a default given as text (the model's own, e.g.
    ``"1000; 16000 with --integrated"``) is left unset for the model to fill in. The progress
    bars show unless ``--no-progress`` or ``quiet`` (e.g. ``--json``).
    """
    values: dict[str, Any] = {}
    for key, default in args.nuts_defaults.items():
        own = isinstance(default, str) and default not in SAMPLERS  # described, not a value
        given = getattr(args, key)
        values[key] = given if given is not None else None if own else default
    return NutsSettings(**values, progress=not (quiet or args.no_progress))


def given(args: argparse.Namespace, *names: str) -> list[str]:
    """The options among ``names`` (``args`` names) that the command line gave.

    Those whose value is not their unset default (None, or False for a switch).
    """
    return [
        "--" + name.replace("_", "-")
        for name in names
        if getattr(args, name, None) is not None and getattr(args, name) is not False
    ]


def refuse(options: list[str], why: str) -> None:
    """Raise a one-line error when ``options`` (from :func:`given`) is not empty.

    They would do nothing, or be overridden, ``why``.
    """
    if options:
        verb = "does" if len(options) == 1 else "do"
        raise ValueError(f"{', '.join(options)} {verb} nothing {why}.")


def output_options(
    *,
    json: bool = True,
    plot: str | None = None,
    out: str | None = None,
    out_default: str | None = None,
    netcdf: str | None = None,
) -> argparse.ArgumentParser:
    """The output options ``--json``, ``--plot``, ``--out`` and ``--netcdf``, given their help.

    ``--json`` (machine-readable output), ``--plot FILE`` (a PNG), ``--out DIR`` (the output
    folder of a study) and ``--netcdf FILE`` (a DataTree or Dataset as NetCDF), each when given
    its help text. The paths are checked before the work: their folder must exist and be
    writable.
    """
    p = _parent()
    if json:
        p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    if plot is not None:
        p.add_argument("--plot", metavar="FILE", type=writable_file, help=plot)
    if out is not None:
        p.add_argument("--out", metavar="DIR", type=writable_folder, default=out_default, help=out)
    if netcdf is not None:
        p.add_argument("--netcdf", metavar="FILE", type=writable_file, help=netcdf)
        deprecated(p, "--out", "--netcdf", dest="netcdf", type=writable_file)
    return p


class _Deprecated(argparse.Action):
    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str,
        new: str,
        convert: Callable[[Any], dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        self.new, self.convert = new, convert
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"bayes-eval: warning: {option_string} is deprecated; use {self.new}", file=sys.stderr
        )
        if self.convert is None:
            setattr(namespace, self.dest, values)
        else:
            for key, value in self.convert(values).items():
                setattr(namespace, key, value)


def deprecated(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    old: str,
    new: str,
    *,
    dest: str,
    convert: Callable[[Any], dict[str, Any]] | None = None,
    type: Callable[[str], Any] | None = None,
) -> None:
    """A hidden alias ``old`` of ``new`` that warns on stderr.

    ``convert(value)`` returns the ``{dest: value}`` to set when one old option maps to several
    new ones.
    """
    parser.add_argument(
        old,
        dest=dest,
        new=new,
        convert=convert,
        action=_Deprecated,
        default=argparse.SUPPRESS,
        **cast(dict[str, Any], {} if type is None else {"type": type}),
    )
