"""Each plot the CLI writes is rendered and its labels, titles and annotations read back, and
tables never cut a name (issue 27: output people can read)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from bayes_eval.plotting.figure import pyplot


@pytest.fixture
def kept(monkeypatch):
    """The figures the plot functions would close, kept open for inspection."""
    plt = pyplot()
    plt.close("all")
    monkeypatch.setattr(plt, "close", lambda *a, **k: None)
    yield plt
    monkeypatch.undo()
    plt.close("all")


def _texts(fig) -> list[str]:
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.texts]
        out += [t.get_text() for t in ax.get_yticklabels() + ax.get_xticklabels()]
    return out


def _board():
    from bayes_eval import xr as bxr

    rng = np.random.default_rng(0)
    R = (rng.random((3, 8, 2)) < np.array([0.8, 0.5, 0.2])[:, None, None]).astype(float)
    return bxr.results_array(R, models=["strong", "middle", "weak"])


def test_forest_plot_names_its_estimator(kept, tmp_path):
    from bayes_eval.plotting.forest import forest_plot
    from bayes_eval.ranking.leaderboard import rank_table

    table = rank_table(_board(), prior="uniform")
    forest_plot(table, tmp_path / "f.png")
    fig = kept.figure(kept.get_fignums()[-1])
    assert fig.axes[0].get_xlabel() == "Bayes@N posterior mean of pi-bar with 95% credible interval"
    ticks = fig.axes[0].get_yticklabels()  # best at the top
    assert sorted(ticks, key=lambda t: -t.get_position()[1])[0].get_text() == "strong"
    table.attrs["estimator"] = "crossed"
    forest_plot(table, tmp_path / "g.png")
    fig = kept.figure(kept.get_fignums()[-1])
    assert fig.axes[0].get_xlabel().startswith("crossed model posterior mean")


def test_pairs_heat_map_numbers_are_readable_on_every_cell(kept, tmp_path):
    from bayes_eval.plotting.pairs import pairs_plot, text_colour

    m = np.array([[np.nan, 0.95, 0.5], [0.05, np.nan, 0.7], [0.5, 0.3, np.nan]])
    pairs_plot(["a", "b", "c"], {"these questions": m}, tmp_path / "p.png", title="board")
    fig = kept.figure(kept.get_fignums()[-1])
    ax = fig.axes[0]
    assert ax.get_title() == "P(row better than column): these questions"
    colours = {t.get_text(): t.get_color() for t in ax.texts}
    assert colours["0.95"] == "white" and colours["0.05"] == "white"  # dark ends of RdBu_r
    assert colours["0.50"] == "black" and colours["0.70"] == "black"
    assert text_colour(0.81) == "white" and text_colour(0.79) == "black"
    assert "board" in _texts(fig)


@pytest.mark.slow
def test_sbc_panels_state_the_studys_own_test(kept, tmp_path):
    from bayes_eval.validation.sbc import plot_sbc, sbc_dataset

    rng = np.random.default_rng(1)
    ds = sbc_dataset(
        rng.integers(0, 100, (200, 2)), ["pi_bar", "rank"], n_draws=99, estimator="x", seed=1
    )
    plot_sbc(ds, tmp_path / "s.png")
    texts = _texts(kept.figure(kept.get_fignums()[-1]))
    stated = [t for t in texts if t.startswith("chi-square p = ")]
    assert len(stated) == 2
    level = ds.attrs["threshold_per_variable"]
    for t, p in zip(stated, ds["p_value"].values, strict=True):
        assert f"{p:.3g}" in t and f"{level:.3g} (Bonferroni)" in t
    # arviz-plots' own p-value (another test at another level) is not printed
    assert not [t for t in texts if t.startswith("p = ") or t.startswith("p-value")]


def test_compared_forest_reads_best_first_with_an_axis_label(kept, tmp_path):
    from bayes_eval.plotting.arviz import plot_forest
    from bayes_eval.xr import posterior_tree

    R = _board()
    R = R.sel(model=["weak", "strong", "middle"])  # stored out of order
    fits = {
        "closed form": posterior_tree(R, prior="uniform", seed=1),
        "again": posterior_tree(R, prior="uniform", seed=2),
    }
    plot_forest(fits, tmp_path / "c.png", title="pi-bar")
    fig = kept.figure(kept.get_fignums()[-1])
    texts = _texts(fig)
    names = [t for t in texts if t in ("strong", "middle", "weak")]
    assert names[:3] == ["strong", "middle", "weak"]
    assert "pi_bar: posterior mean, 50% and 95% intervals" in texts


def test_tables_fold_long_names_instead_of_cutting_them(monkeypatch):
    from rich.console import Console

    from bayes_eval.cli import _output

    buffer = io.StringIO()
    monkeypatch.setattr(_output, "_console", lambda: Console(file=buffer, width=40, no_color=True))
    long = "openai/gpt-4o-2024-08-06-with-a-long-suffix"
    _output.table(["model", "mu", "sigma"], [[long, "0.7961", "0.0324"], ["b", "0.5", "0.1"]])
    out = buffer.getvalue()
    assert "…" not in out
    assert long in "".join(line.split()[0] if line.split() else "" for line in out.splitlines())
    assert all(len(line) <= 40 for line in out.splitlines())


def test_summaries_print_nested_sections_as_tables_not_json(capsys):
    from bayes_eval.cli._output import summary

    summary(
        {
            "seconds": 1.5,
            "settings": {"replicates": 10, "methods": ["a", "b"]},
            "results": {"bayes": {"coverage": {"N=1": 0.95, "N=4": 0.94}, "width": 0.1}},
        }
    )
    out = capsys.readouterr().out
    assert "{" not in out and "}" not in out  # no JSON blob in a table
    assert "results" in out and "coverage" in out and "0.95" in out


@pytest.mark.slow
def test_rank_explains_every_column(capsys):
    import re

    from bayes_eval.cli import main

    explained = {"model", "mu", "sigma", "95% CI"}  # named in the header line and the docs
    for argv, columns in (
        # a board: the joint posterior, the per-model closed form beside it, the paper's rank
        (["--paper-ranks"], {"rank range", "P(> next)", "CI-aware rank (chains)"}),
        # each model's own learned prior: its Dirichlet parameters
        (["--pool", "model"], {"rank range", "P(> next)", "prior a"}),
    ):
        assert main(["rank", "dataset:matharena_aime25_i", *argv]) == 0
        lines = capsys.readouterr().out.splitlines()
        header = next(x for x in lines if x.startswith("model"))
        shown = set(re.split(r"\s{2,}", header.strip()))
        assert columns <= shown
        legend = "\n".join(lines[lines.index(header) + 2 :])
        for column in shown - explained:
            assert f"{column}:" in legend, column
    assert "prior a: the Dirichlet parameters" in legend


@pytest.mark.slow
def test_coverage_plot_ticks_the_study_m_and_keeps_the_legend_off_the_lines(kept, tmp_path):
    import xarray as xr

    from bayes_eval.validation.coverage import plot

    rng = np.random.default_rng(2)
    dims = ("scenario", "interval", "M", "N")
    shape = (2, 3, 4, 2)
    ds = xr.Dataset(
        {
            "coverage": (dims, rng.uniform(0.85, 1.0, shape)),
            "width": (dims, rng.uniform(0.05, 0.5, shape)),
        },
        coords={
            "scenario": ["anchored", "uniform"],
            "interval": ["bayes normal", "bayes exact", "wilson"],
            "M": [5, 15, 30, 100],
            "N": [1, 4],
        },
    )
    plot(ds, tmp_path / "coverage.png")
    fig = kept.figure(kept.get_fignums()[-1])
    for ax in fig.axes[:2]:
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert labels == ["5", "15", "30", "100"]
        assert ax.get_legend() is None  # one legend for the figure, below the panels
        assert ax.get_title().startswith(("anchored\n", "uniform\n"))
    width = fig.axes[-1]  # log axis: no minor labels to collide
    fig.canvas.draw()
    assert not [t.get_text() for t in width.get_xticklabels(minor=True) if t.get_text()]
    assert len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(ds["interval"].values)


def test_biased_coin_summary_rows_are_labelled_by_panel_and_n():
    from bayes_eval.validation.biased_coin_study import run, summary

    ds = run(independent=4, bootstrap=4, n_max=4, methods=["bayes", "pass_at_k:2"], progress=False)
    rows = summary(ds)["tau_mean"]
    assert list(rows)[:3] == ["independent, n = 1", "independent, n = 2", "independent, n = 4"]
    assert rows["column, n = 1"]["pass_at_k:2"] is None  # k = 2 needs two trials
    assert set(rows["row, n = 4"]) == {"bayes", "pass_at_k:2"}


def test_ternary_plot_names_candidates_in_a_legend_not_at_the_points(kept, tmp_path):
    from bayes_eval.judges.simplex import plot_simplex

    rng = np.random.default_rng(0)
    theta = rng.dirichlet(np.ones(3) * 3, (2, 3))
    gamma = rng.dirichlet(np.ones(3) * 3, (2, 6))
    names = [f"cand-{i}" for i in range(6)]
    plot_simplex(theta, gamma, tmp_path / "t.png", candidates=names, judges=["a", "b"])
    ax = kept.figure(kept.get_fignums()[-1]).axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["high", "low", "middle"]
    legends = [c for c in ax.get_children() if type(c).__name__ == "Legend"]
    labels = {t.get_text() for leg in legends for t in leg.get_texts()}
    assert set(names) <= labels and {"judge a", "judge b"} <= labels


def test_judges_prints_diagnostics_in_words_not_a_dict():
    from bayes_eval.cli.judges import _words

    text = _words({"max_rhat": 1.0042, "min_ess_bulk": 812.0, "divergences": 0, "converged": True})
    assert text == "max r-hat 1.004, min bulk ESS 812, divergences 0, converged yes"
    assert "{" not in _words({"spearman": 0.91, "coverage": 0.95})
    # the fit's DataTree stores converged as 0/1
    assert _words({"divergences": 0, "converged": 0}) == "divergences 0, converged no"
