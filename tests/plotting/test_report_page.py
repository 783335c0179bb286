"""The report page of :mod:`bayes_eval.plotting.report` from the library: names are text, never
markup; figures must be PNGs; the crossed model's board is refused; notes and warnings are
listed on the page (the command line's page is checked in tests/cli/test_report.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayes_eval import xr as bxr
from bayes_eval.logs.read import input_digest
from bayes_eval.plotting import report as rp
from bayes_eval.posteriors.priors import Prior
from bayes_eval.ranking.leaderboard import leaderboard
from bayes_eval.ranking.paired import leaderboard_pairs

#: stand-ins for the figures where the test is about the page, not the drawing
FAKE = {"forest": rp.PNG_SIGNATURE + b"forest", "pairs": rp.PNG_SIGNATURE + b"pairs"}
ODD = ["<b>bold</b>", 'say "hi" & go', "plain"]


def _results(trials: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = np.array([0.8, 0.5, 0.2])[:, None, None]
    R = (rng.random((3, 12, trials)) < p).astype(float)
    return bxr.results_array(R, models=ODD)


def _fit(R, **kw):
    return leaderboard(R, prior="uniform", **kw), leaderboard_pairs(R, prior="uniform")


def test_names_and_notes_are_text_never_markup():
    board, pairs = _fit(_results())
    page = rp.report_page(board, pairs, title="<i>t</i>", notes=["a < b & c"], figures=FAKE)
    assert "<b>" not in page and "<i>" not in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "&lt;i&gt;t&lt;/i&gt;" in page
    assert "say &quot;hi&quot; &amp; go" in page and "a &lt; b &amp; c" in page
    assert page.count('src="data:image/png;base64,') == 1  # the forest plot; pairs are tables
    for ident in rp.SECTIONS:
        assert page.count(f'<section id="{ident}">') == 1


def test_the_figures_must_be_pngs_and_the_board_closed_form():
    board, pairs = _fit(_results())
    with pytest.raises(ValueError, match=r"figure 'forest' is not PNG bytes"):
        rp.report_page(board, pairs, figures={"forest": b"GIF89a"})
    crossed = board._replace(estimator="crossed", posterior=None)
    with pytest.raises(ValueError, match="closed-form leaderboard"):
        rp.report_page(crossed, pairs, figures=FAKE)


def test_an_unidentified_concentration_is_noted():
    # one trial per question, each model's prior learned from its own results alone: the
    # concentration rests on the hyperprior (Posterior.concentration_note)
    R, own = _results(trials=1), Prior.parse("empirical", pool="model")
    board, pairs = leaderboard(R, prior=own), leaderboard_pairs(R, prior=own)
    note = board.posterior.concentration_note()
    assert note is not None
    page = rp.report_page(board, pairs, notes=["given"], figures=FAKE)
    assert rp.page_notes(board, ["given", note]) == (note, "given")  # each once, its own first
    listed = page.split('<ul class="notes">')[1].split("</ul>")[0]
    assert listed.count("<li>") == 2 and "not identified" in listed


def test_warnings_while_computing_are_listed_and_raised_again(monkeypatch):
    real = rp.leaderboard

    def warning_board(*args, **kwargs):
        warnings.warn("something to know about these data", UserWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(rp, "leaderboard", warning_board)
    monkeypatch.setattr(rp, "report_figures", lambda board, pairs, title: FAKE)
    with pytest.warns(UserWarning, match="something to know"):
        out = rp.leaderboard_report(_results(), prior="uniform", notes=["from the caller"])
    assert out.notes == ("from the caller", "something to know about these data")
    assert "<li>something to know about these data</li>" in out.html
    # the page shows the numbers of the leaderboard it returns
    assert f'data-value="{out.board.models[0]["mu"]!r}"' in out.html


def test_the_heat_maps_are_legible_tables_and_the_page_says_how_to_reproduce_it(tmp_path):
    # every probability of the pairs matrices is a table cell (the number to 2 decimals, its
    # full value in data-value), the text at least 9 px at any width; the page names the
    # version, the date, the command and the inputs' digest
    board, pairs = _fit(_results())
    page = rp.report_page(
        board, pairs, figures=FAKE, provenance={"command": "bayes-eval report x.csv"}
    )
    assert 'table class="heat" id="heat-these"' in page and 'id="heat-new"' in page
    assert "table.heat { font-size: 12px; }" in page
    L = len(pairs.models)
    these = pairs.these_questions
    cells = page.split('id="heat-these"')[1].split("</table>")[0].count("data-value=")
    assert cells == int(np.isfinite(these).sum()) == L * (L - 1)
    for key in ("version: bayes_eval", "date: ", "command: bayes-eval report x.csv"):
        assert key in page
    long = rp.heat_table(["m" * 3000, "b"], np.array([[np.nan, 0.7], [0.3, np.nan]]))
    assert "m" * 39 + "\u2026" in long and len(long) < 8000  # the full name only as a tooltip
    f = tmp_path / "a.csv"
    f.write_text("model,question,score\na,1,1\n")
    one = input_digest([str(f)])
    f.write_text("model,question,score\na,1,0\n")
    assert input_digest([str(f)]) != one and len(one) == 64
    assert input_digest(["dataset:matharena_aime25_i"]) == input_digest(
        ["dataset:matharena_aime25_i"]
    )
