"""One flag, one meaning: every option of every command is listed here with its one meaning,
and wherever it appears it parses the same way (same type, same action).

A new option must be given its meaning here; an option name reused by another command means
what it means here (its help text may say more for that command). Hidden aliases of earlier
spellings are not listed: they warn and map to a listed option (tests/cli/test_options.py).
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from bayes_eval.cli import parser

#: option -> its one meaning across the command line
MEANINGS = {
    # reading results (the same data treatment on every command that reads results)
    "--format": "log format of the results (default: detected)",
    "--weights": "rubric weights w_0..w_C",
    "--questions": "design mode for questions some model did not answer: error, common, all",
    "--score-levels": "graded scores: round to K evenly spaced levels",
    "--fractional": "graded scores: count a score s as s correct and 1 - s wrong",
    "--schema": "built-in rubric schema",
    "--schema-file": "rubric schema from a TOML file",
    "--model": "name of the LLM where the log gives none",
    "--metric": "lm-eval / HELM metric used as the score",
    "--filter": "lm-eval filter",
    "--scorer": "Inspect scorer",
    # the prior (the same on every command that has one)
    "--prior-kind": "per-question prior: empirical (default), empirical-plugin, uniform, jeffreys",
    "--pool": "learned prior per model or for the benchmark",
    "--prior-file": "earlier runs R0 of the same questions",
    "--prior-discount": "weight of the earlier runs' counts (power prior)",
    # what is computed and how it is summarised
    "--confidence": "credibility or ranking-confidence level",
    "--interval": "the law of the credible intervals: auto (default), normal or exact",
    "--paper-ranks": "also the paper's chaining CI-aware rank (Hariri et al., 2.7.1)",
    "--fdr": "posterior expected false discovery rate of the claims 'A better than B'",
    "--top": "the K of the top-K set: P(in the top K) per model, or the set a plan is for",
    "--estimator": "the statistical model (choices depend on the command)",
    "--estimand": "these questions or new questions from the same source",
    "--cluster": "long-table column holding each question's cluster (new questions)",
    "--task": "the one task of a log to read (lm-eval task, group or subtask)",
    "--estimators": "statistical models to compare",
    "--assurance": "target probability of reaching a separation or a claim",
    "--target": "what a study of plans plans for: a pair, the top-k set or a pair's new questions",
    "--max-trials": "largest number of trials per question considered",
    "--max-questions": "largest number of questions considered",
    "--pair": "which two models a study's pair plans are for: the top two or two fixed before",
    "--unit": "what leave-one-out leaves out",
    "--ppc": "posterior predictive checks",
    "--only": "schemata to use",
    # counts and sizes
    "--n-questions": "number of questions M",
    "--trials": "number of trials N per question",
    "--simulations": "number of simulations",
    "--preposterior": "the law of the future boards a plan is computed under",
    "--refit-check": "refitted boards per plan of the refit law's assurance (validate plan)",
    "--replicates": "number of replicates (resampled or simulated data sets)",
    "--draws": "posterior draws (per chain for NUTS)",
    "--mc-draws": "exact posterior draws per model",
    "--tune": "NUTS tuning steps per chain",
    "--chains": "NUTS chains",
    "--thin": "keep every THIN-th NUTS draw",
    "--sampler": "NUTS implementation (pymc by default everywhere)",
    "--target-accept": "NUTS target acceptance rate (default: the model's own)",
    "--no-progress": "no progress bars",
    "--seed": "random seed",
    "--n-models": "number of LLMs simulated",
    "--n-max": "largest number of trials N studied",
    "--independent": "fresh results matrices (biased-coin panel a)",
    "--block": "simulations per cell",
    "--subset-size": "size of random model subsets",
    "--subset-count": "number of random model subsets",
    "--methods": "ranking metrics studied",
    "--replace": "resample trials with replacement",
    "--depths": "prior depths D studied",
    "--spread-sd": "sd of the logit abilities of the spread boards (validate claims)",
    "--close-sd": "sd of the logit abilities of the close boards (validate claims)",
    "--permutations": "sign flips of a permutation test",
    # output
    "--json": "print JSON instead of tables",
    "--plot": "write a figure (PNG)",
    "--out": "output folder",
    "--netcdf": "save a DataTree or Dataset as NetCDF",
    "--html": "write a self-contained HTML report",
    "--export": "write a shipped dataset as a long table",
    "--version": "print the installed version (the program only)",
    # prior sensitivity grids
    "--alpha0-grid": "Dirichlet alpha0 values",
    "--a0-grid": "power-prior weights",
    "--depth-grid": "prior depths",
    "--kappa-grid": "medians of the kappa prior",
    # coverage study
    "--config": "TOML grid of the study",
    "--M": "questions per benchmark (grid)",
    "--N": "trials per question (grid)",
    "--C": "rubric categories minus one (grid)",
    "--scenarios": "true-rate scenarios",
    "--exact-replicates": "replicates with the exact interval",
    "--empirical-exact-replicates": "replicates with the exact learned-prior interval",
    "--nuts-replicates": "replicates per NUTS cell",
    "--no-exact-categorical": "no exact intervals for rubrics",
    "--bootstrap-resamples": "bootstrap resamples of the frequentist interval",
    "--alpha0": "Dirichlet alpha0 of the dirichlet scenario (the truth)",
    "--anchors": "real evaluations of the anchored scenario",
    "--nuts-cells": "cells also fitted by NUTS",
    # pairs calibration study
    "--ability-sd": "sd of the simulated LLMs' logit abilities",
    "--ability-from-prior": "draw each simulated board's ability sd from the board model's hyperprior",
    "--difficulty-sd": "sd of the simulated questions' logit difficulties",
    "--interaction-sd": "sd of the simulated LLM x question logit interaction",
    "--rates": "where a study's true rates come from (simulated or a real board's)",
    "--interaction-sds": "grid of sds of the simulated LLM x question logit interaction",
    "--interaction": "the crossed model with an LLM x question interaction (random effect)",
    "--sources": "shipped datasets a study learns from",
    "--board-replicates": "number of simulated boards per cell of a study's board table",
    "--clusters": "numbers of simulated question clusters G",
    "--cluster-sd": "sd of the simulated clusters' shared logit difficulty",
    "--question-sd": "sd of the simulated questions' logit difficulty within a cluster",
    "--cluster-interaction-sd": "sd of the simulated LLM x cluster logit interaction",
    # graded study
    "--inflation": "shares of all-or-nothing grades on the simulated graded boards",
    "--precision": "Beta precision of the simulated graded boards' other grades",
    "--bins": "bins of the reliability diagram",
    "--nuts-draws": "NUTS draws per fit in the coverage study",
    "--posterior-alpha0": "the prior of the posterior in exact SBC",
    "--scheduler": "address of a Dask scheduler",
    "--workers": "local Dask workers",
    "--max-cells": "stop after this many new cells",
    # elicitation
    "--lo": "lower end of a stated accuracy interval",
    "--hi": "upper end of a stated accuracy interval",
    "--prob": "probability of the stated interval",
    "--method": "how the stated interval is fitted",
    "--level": "the statement is about the benchmark or every question",
    "--categories": "per-category intervals of a rubric",
    "--concentration": "spread of accuracies across questions",
    # judges
    "--mtbench": "MT-Bench count table",
    "--summeval": "SummEval table",
    "--no-integrated": "do not fit the integrated judges model",
    "--integrated": "hyperpriors on the judges model's strengths",
    "--dim": "SummEval dimension",
    "--truth": "ground-truth scores of the candidates",
    "--levels": "true score levels of the judges model",
    "--abstain": "binary scores -1/0/1 with abstention",
    "--omega": "random-effect strength",
    "--beta-max": "DAG prior strength",
    "--keep-same-family": "keep self-judging",
    "--baselines": "also the frequentist baselines",
    "--sensitivity": "the judges paper's sensitivity grid",
    "--candidates": "number of candidates simulated",
    "--judges": "number of judges simulated",
    "--self-preference": "strength of simulated self-preference",
    # adaptive evaluation
    "--examples": "examples per arm",
    "--batch": "examples per pull",
    "--granularity": "stage of a Gittins decision",
    "--cost": "stage cost",
    "--v0": "prior variance of an arm (Gittins root schedule)",
    "--tau2": "observation noise variance",
    "--horizon": "horizon of the root schedule",
    "--grid": "grid of the dynamic program",
    "--dataset": "response matrix to simulate on",
    "--arms": "arm metadata",
    "--meta": "subject metadata",
    "--subject": "MMLU subject",
    "--matrix": "your response matrix",
    "--costs": "per-arm costs",
    "--belief-mean": "Gittins-S prior belief of an arm's accuracy: mean",
    "--belief-var": "Gittins-S prior belief of an arm's accuracy: variance",
    "--budget": "fraction of cells or of cost",
    "--budget-kind": "what the budget counts",
    "--cost-scale": "price to score units",
    "--lrf": "also UCB-E-LRF",
}


def _options():
    """(command, option, action) of every visible option of every command."""

    def walk(p: argparse.ArgumentParser, path: tuple[str, ...]):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for name, sub in a.choices.items():
                    yield from walk(sub, (*path, name))
            elif a.option_strings and a.help is not argparse.SUPPRESS:
                yield " ".join(path), max(a.option_strings, key=len), a

    return list(walk(parser(), ()))


OPTIONS = [(c, o, a) for c, o, a in _options() if o != "--help"]


def test_every_option_has_its_one_meaning_listed():
    missing = sorted({o for _, o, _ in OPTIONS} - set(MEANINGS))
    assert not missing, f"options without a meaning in MEANINGS: {missing}"


def test_every_listed_meaning_is_used():
    used = {o for _, o, _ in OPTIONS}
    stale = sorted(set(MEANINGS) - used)
    assert not stale, f"MEANINGS lists options no command has: {stale}"


def _kind(action: argparse.Action) -> tuple:
    typ = getattr(action.type, "__name__", None) if action.type else "str"
    choices = None
    if action.choices is not None and action.dest not in ("estimator", "format"):
        choices = tuple(action.choices)
    return type(action).__name__, typ, action.nargs, choices


def test_an_option_parses_the_same_way_everywhere():
    kinds = defaultdict(dict)
    for command, option, action in OPTIONS:
        kinds[option].setdefault(_kind(action), []).append(command)
    bad = {o: k for o, k in kinds.items() if len(k) > 1}
    assert not bad, "options that parse differently across commands:\n" + "\n".join(
        f"{o}: {k}" for o, k in bad.items()
    )


def test_questions_is_the_design_mode_and_counts_are_n_questions():
    for command, option, action in OPTIONS:
        if option == "--questions":
            assert tuple(action.choices) == ("error", "common", "all"), command
        if option == "--n-questions":
            assert action.type.__name__ == "positive_int", command
