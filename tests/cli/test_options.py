"""The options of every command are the audited ones: an option that does nothing for a
command is not offered, so none can come back silently; options that would be ignored or
overridden in a particular use are refused with one line rather than dropped."""

from __future__ import annotations

import argparse

import pytest

from bayes_eval.cli import main, parser

NUTS = {"--draws", "--tune", "--chains", "--seed", "--sampler", "--target-accept", "--no-progress"}
STAGES = {"--examples", "--batch", "--granularity"}

#: command -> (positionals, options --help lists). Change this table only with the audit:
#: every option here changes what the command computes or prints.
DATA = {"--format", "--weights", "--questions", "--score-levels", "--fractional", "--schema"}
DATA |= {"--schema-file", "--model", "--metric", "--filter", "--scorer", "--task"}
PRIOR = {"--prior-kind", "--pool", "--prior-file", "--prior-discount"}

AUDITED = {
    "rank": (
        ["file"],
        DATA
        | PRIOR
        | {"--json", "--plot", "--confidence", "--interval", "--estimator", "--interaction"}
        | {"--estimand", "--cluster", "--task", "--paper-ranks", "--fdr", "--top"}
        | NUTS,
    ),
    "pairs": (
        ["file"],
        DATA | PRIOR | {"--json", "--plot", "--cluster", "--fdr", "--top", "--seed"},
    ),
    "report": (
        ["file"],
        DATA
        | PRIOR
        | {"--html", "--json", "--confidence", "--interval", "--cluster", "--task"}
        | {"--fdr", "--top"},
    ),
    "schemas": (["file"], PRIOR | {"--format", "--json", "--plot", "--only", "--confidence"}),
    "plan": (
        ["file", "model_a", "model_b"],
        DATA
        | PRIOR
        | {"--seed", "--json", "--confidence", "--assurance", "--simulations"}
        | {"--max-trials", "--fdr", "--top", "--estimand", "--max-questions", "--preposterior"},
    ),
    "crosscheck": (
        ["file"],
        DATA | PRIOR | {"--json", "--netcdf", "--plot", "--mc-draws"} | NUTS,
    ),
    "compare": (
        ["file"],
        DATA | {"--prior-file", "--json", "--plot", "--estimators", "--unit", "--ppc"} | NUTS,
    ),
    "priors": (
        ["file"],
        DATA
        | PRIOR
        | {"--json", "--plot", "--netcdf", "--alpha0-grid", "--a0-grid"}
        | {"--depth-grid", "--kappa-grid"}
        | NUTS,
    ),
    "validate biased-coin": (
        [],
        {"--json", "--out", "--independent", "--methods", "--n-max", "--n-questions"}
        | {"--replicates", "--seed"},
    ),
    "validate prior-benefit": (
        [],
        {"--json", "--out", "--depths", "--n-max", "--n-questions", "--replicates", "--seed"},
    ),
    "validate crossed": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--N", "--seed"}
        | {"--interaction-sds", "--ability-sd", "--difficulty-sd", "--confidence", "--draws"}
        | {"--tune", "--chains", "--block", "--max-cells"},
    ),
    "validate hyperprior": (
        [],
        {"--json", "--out", "--sources", "--replicates", "--board-replicates", "--N", "--M"}
        | {"--confidence", "--seed"},
    ),
    "validate distinguishability": ([], {"--json", "--out", "--n-max", "--replicates", "--seed"}),
    "validate pairs": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--N", "--seed"}
        | {"--ability-sd", "--difficulty-sd", "--interaction-sd", "--prior-kind", "--bins"}
        | {"--rates"},
    ),
    "validate claims": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--N", "--seed"}
        | {"--scenarios", "--spread-sd", "--close-sd", "--difficulty-sd", "--interaction-sd"}
        | {"--fdr", "--confidence", "--draws", "--permutations", "--bins", "--estimand"},
    ),
    "validate plan": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--N", "--seed"}
        | {"--ability-sd", "--difficulty-sd", "--interaction-sd", "--assurance"}
        | {"--confidence", "--simulations", "--max-trials", "--target", "--top", "--fdr"}
        | {"--rates", "--ability-from-prior", "--max-questions", "--pair", "--preposterior"}
        | {"--refit-check"},
    ),
    "validate clusters": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--clusters"}
        | {"--cluster-sd", "--question-sd", "--ability-sd", "--interaction-sd", "--trials"}
        | {"--cluster-interaction-sd", "--confidence", "--draws", "--bins", "--seed"},
    ),
    "validate board": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--N", "--rates"}
        | {"--ability-sd", "--difficulty-sd", "--interaction-sd", "--confidence", "--seed"},
    ),
    "validate graded": (
        [],
        {"--json", "--out", "--replicates", "--n-models", "--n-questions", "--inflation"}
        | {"--precision", "--difficulty-sd", "--interaction-sd", "--trials", "--confidence"}
        | {"--seed", "--rates"},
    ),
    "validate convergence": (
        ["file"],
        {"--json", "--out", "--format", "--confidence", "--methods", "--replace"}
        | {"--replicates", "--seed", "--subset-count", "--subset-size"},
    ),
    "validate coverage": (
        [],
        {"--json", "--out", "--config", "--M", "--N", "--C", "--scenarios", "--replicates"}
        | {"--exact-replicates", "--exact-categorical", "--no-exact-categorical"}
        | {"--bootstrap-resamples", "--empirical-exact-replicates", "--confidence", "--alpha0"}
        | {"--anchors", "--nuts-cells", "--nuts-replicates", "--nuts-draws", "--seed"}
        | {"--scheduler"}
        | {"--workers", "--max-cells"},
    ),
    "validate elicit": (
        ["file"],
        {"--json", "--out", "--format", "--lo", "--hi", "--prob", "--level", "--categories"}
        | {"--weights", "--n-questions", "--concentration", "--simulations", "--seed", "--method"}
        | {"--score-levels"},
    ),
    "validate sbc": (
        [],
        {"--json", "--out", "--estimator", "--simulations", "--n-questions", "--trials"}
        | {"--n-models", "--draws", "--tune", "--chains", "--thin", "--posterior-alpha0"}
        | {"--block", "--seed", "--scheduler", "--workers", "--max-cells"},
    ),
    "validate judges": (
        [],
        {"--json", "--out", "--mtbench", "--summeval", "--no-integrated", "--draws", "--tune"}
        | {"--chains", "--seed"},
    ),
    "validate judges-synthetic": (
        [],
        {"--json", "--out", "--replicates", "--n-questions", "--candidates", "--judges"}
        | {"--levels", "--self-preference", "--beta-max", "--draws", "--tune", "--chains"}
        | {"--seed"},
    ),
    "adaptive roots": (
        [],
        STAGES | {"--json", "--cost", "--v0", "--tau2", "--horizon", "--grid"},
    ),
    "adaptive simulate": (
        [],
        STAGES
        | {"--json", "--out", "--seed", "--dataset", "--arms", "--meta", "--subject"}
        | {"--matrix", "--costs", "--belief-mean", "--belief-var", "--budget", "--budget-kind"}
        | {"--cost-scale", "--replicates", "--lrf"},
    ),
    "judges": (
        ["file"],
        NUTS
        | {"--json", "--plot", "--netcdf", "--dim", "--truth", "--levels", "--abstain", "--omega"}
        | {"--beta-max", "--integrated", "--keep-same-family", "--baselines", "--sensitivity"},
    ),
    "datasets": (["name"], {"--json", "--export"}),
    "demo": ([], {"--json", "--plot", "--seed", "--trials", "--n-questions"}),
}

#: Hidden aliases that warn and map to a listed option.
DEPRECATED = {
    "rank": {"--prior"},
    "pairs": {"--prior"},
    "report": {"--prior"},
    "plan": {"--prior", "--draws"},
    "schemas": {"--prior"},
    "crosscheck": {"--prior", "--out"},
    "compare": {"--prior"},
    "priors": {"--prior", "--out", "--alpha0", "--a0", "--depth", "--kappa"},
    "judges": {"--out"},
    "demo": {"--questions"},
    "validate coverage": {"--exact-reps", "--empirical-exact-reps", "--nuts-reps"},
    "validate elicit": {"--questions", "--draws"},
    "validate sbc": {"--questions"},
    "validate judges-synthetic": {"--questions"},
    "adaptive simulate": {"--prior", "--prior-mean", "--prior-var", "--seeds", "--data-seed"},
}


def _commands(p: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), p
        return
    for name, sub in subs[0].choices.items():
        yield from _commands(sub, (*path, name))


COMMANDS = dict(_commands(parser()))


def test_every_command_is_audited():
    assert set(COMMANDS) == set(AUDITED)


@pytest.mark.parametrize("command", sorted(AUDITED))
def test_options_are_the_audited_ones(command):
    p = COMMANDS[command]
    shown = [a for a in p._actions if a.help is not argparse.SUPPRESS]
    positionals = [a.dest for a in shown if not a.option_strings]
    options = {s for a in shown for s in a.option_strings if s.startswith("--")} - {"--help"}
    hidden = {s for a in p._actions if a.help is argparse.SUPPRESS for s in a.option_strings}
    assert (positionals, options) == AUDITED[command]
    assert hidden == DEPRECATED.get(command, set())


AIME = "dataset:phi4_aime25"
MTBENCH = "dataset:mtbench_judges"
MATRIX = ["adaptive", "simulate", "--dataset", "matrix", "--matrix", "m.npy"]

# (id, argv, a phrase): options that would do nothing in this use are refused, before any work
REFUSED = [
    ("rank-pool-uniform", ["rank", AIME, "--prior-kind", "uniform", "--pool", "model"], "--pool"),
    ("rank-nuts-closed-form", ["rank", AIME, "--tune", "200"], "--tune does nothing"),
    (
        "rank-top-crossed",
        ["rank", AIME, "--estimator", "crossed", "--top", "2"],
        "--top does nothing with --estimator crossed",
    ),
    (
        "rank-top-new-questions",
        ["rank", AIME, "--estimand", "new-questions", "--top", "2"],
        "--top does nothing with --estimand new-questions",
    ),
    (
        "rank-interaction-closed-form",
        ["rank", AIME, "--interaction"],
        "--interaction does nothing with --estimator closed-form",
    ),
    (
        "rank-cluster-these-questions",
        ["rank", AIME, "--cluster", "subject"],
        "--cluster does nothing with --estimand these-questions",
    ),
    (
        "rank-new-questions-interval",
        ["rank", AIME, "--estimand", "new-questions", "--interval", "exact", "--tune", "5"],
        "--interval, --tune do nothing with --estimand new-questions",
    ),
    (
        "rank-prior-crossed",
        ["rank", AIME, "--estimator", "crossed", "--prior-kind", "uniform"],
        "--prior-kind does nothing with --estimator crossed",
    ),
    (
        "rank-levels-categories",
        ["rank", AIME, "--score-levels", "5"],
        "not graded scores; score levels apply to graded scores",
    ),
    ("schemas-only-no-file", ["schemas", "--only", "hsd"], "--only does nothing without FILE"),
    ("schemas-plot-no-file", ["schemas", "--plot", "x.png"], "--plot does nothing without FILE"),
    ("priors-nuts-no-kappa", ["priors", AIME, "--chains", "2", "--seed", "1"], "--chains, --seed"),
    ("priors-a0-no-prior-file", ["priors", AIME, "--a0-grid", "0,1"], "without --prior-file"),
    (
        "priors-depth-no-prior-file",
        ["priors", AIME, "--depth-grid", "1"],
        "--depth-grid does nothing",
    ),
    ("judges-sensitivity-omega", ["judges", MTBENCH, "--sensitivity", "--omega", "1"], "--omega"),
    ("judges-sensitivity-plot", ["judges", MTBENCH, "--sensitivity", "--plot", "x.png"], "--plot"),
    ("judges-integrated-beta", ["judges", MTBENCH, "--integrated", "--beta-max", "1"], "--beta"),
    ("judges-dim-count-table", ["judges", MTBENCH, "--dim", "coherence"], "--dim does not apply"),
    ("judges-abstain-count-table", ["judges", MTBENCH, "--abstain"], "--abstain does not"),
    (
        "judges-truth-summeval",
        ["judges", "dataset:summeval_judges", "--truth", "t.csv"],
        "--truth does not apply (its truth is the expert mean)",
    ),
    ("roots-examples-horizon", ["adaptive", "roots", "--examples", "9", "--horizon", "3"], "--ho"),
    ("roots-batch-no-examples", ["adaptive", "roots", "--batch", "2"], "without --examples"),
    ("matrix-seed", [*MATRIX, "--seed", "1"], "--dataset matrix does not use --seed"),
    ("matrix-examples", [*MATRIX, "--examples", "5"], "does not use --examples"),
    ("gsm8k-subject", ["adaptive", "simulate", "--dataset", "gsm8k", "--subject", "x"], "--subj"),
    (
        "mmlu-prior-mean",
        ["adaptive", "simulate", "--subject", "x", "--belief-mean", "0.3"],
        "--belief-m",
    ),
]


@pytest.mark.parametrize(("argv", "phrase"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_options_that_would_do_nothing_are_refused(argv, phrase, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bayes-eval: error: "), err
    assert phrase in lines[0]
