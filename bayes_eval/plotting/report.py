"""A leaderboard report to share: one self-contained HTML page (``bayes-eval report``).

The page holds the leaderboard table of :func:`bayes_eval.ranking.leaderboard.leaderboard`
(Bayes@N with credible intervals and CI-aware ranks; Hariri et al., "Don't Pass@k: A
Bayesian Framework for Large Language Model Evaluation"), its forest plot, the heat maps of
P(row better than column) of :func:`bayes_eval.ranking.paired.leaderboard_pairs` for both
estimands, the diagnostics of the fit (the prior's label, nodes and fitted parameters, the
board model's scales, notes and warnings) and a summary of the data. The figures are PNGs
embedded as ``data:`` URIs and the style sheet is in the page: it loads nothing from
anywhere, has no script, and reads the same offline, in a mail or attached to an issue. Every
text is HTML-escaped. The numbers are those ``bayes-eval rank`` and ``bayes-eval pairs`` print
for the same data and prior (one computation each), each table cell of a number also carrying
the full-precision value in a ``data-value`` attribute.
"""

from __future__ import annotations

import base64
import html
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple, cast

import numpy as np
import xarray as xr
from numpy.typing import ArrayLike

from bayes_eval.inputs import exact, percent
from bayes_eval.posteriors.posterior import NEW_QUESTIONS, THESE_QUESTIONS
from bayes_eval.posteriors.priors import DEFAULT_PRIOR, Prior, PriorSpec
from bayes_eval.ranking.leaderboard import Leaderboard, leaderboard
from bayes_eval.ranking.paired import PairedComparison, leaderboard_pairs, table_prior

__all__ = [
    "PNG_SIGNATURE",
    "SECTIONS",
    "Report",
    "heat_table",
    "leaderboard_report",
    "page_notes",
    "report_figures",
    "report_page",
]

#: The first eight bytes of every PNG file.
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: The sections of the page, by ``id``, in order.
SECTIONS = ("leaderboard", "claims", "forest", "pairs", "diagnostics", "data")

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 72em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; }
p.named { background: #f3f6fa; border-left: 4px solid #4a78b0; padding: 0.4em 0.8em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: right;
         overflow-wrap: anywhere; max-width: 40em; }
th { background: #f5f5f5; }
td.text, th.text { text-align: left; }
td.dim { color: #666; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
ul.notes li { margin-bottom: 0.3em; }
div.heat { overflow: auto; max-width: 100%; }
table.heat { font-size: 12px; }
table.heat td { padding: 0.2em 0.35em; min-width: 2.6em; text-align: center; }
table.heat th { padding: 0.2em 0.35em; font-weight: normal; }
table.heat th.row { text-align: left; white-space: nowrap; max-width: 22em; overflow: hidden;
                    text-overflow: ellipsis; }
p.provenance { font-size: 0.85em; color: #444; }
footer { margin-top: 3em; font-size: 0.8em; color: #777; }
"""


class Report(NamedTuple):
    """What :func:`leaderboard_report` returns: the page and what its numbers come from.

    The page, the leaderboard and pairwise comparisons its numbers come from, and the notes
    and warnings it lists.

    Attributes
    ----------
    html : str
        The self-contained HTML page (:func:`report_page`).
    board : bayes_eval.ranking.leaderboard.Leaderboard
        The leaderboard the page shows.
    pairs : bayes_eval.ranking.paired.PairedComparison
        The pairwise comparisons the page shows.
    notes : tuple of str
        The notes and warnings listed on the page (:func:`page_notes`).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> from bayes_eval.plotting.report import leaderboard_report
    >>> report = leaderboard_report(R, prior="uniform", title="toy")
    >>> report.html.startswith("<!DOCTYPE html>"), report.notes
    (True, ())
    >>> report.board.table["model"].values.tolist()
    ['a', 'b']
    """

    html: str
    board: Leaderboard
    pairs: PairedComparison
    notes: tuple[str, ...] = ()


def page_notes(board: Leaderboard, notes: Sequence[str] = ()) -> tuple[str, ...]:
    """The notes a page lists under its diagnostics.

    The posterior's own note when a learned prior's concentration is not identified, then
    ``notes``, each once.

    Parameters
    ----------
    board : bayes_eval.ranking.leaderboard.Leaderboard
        The leaderboard of the page.
    notes : sequence of str, optional
        Further notes and warnings; default none.

    Returns
    -------
    tuple of str
        The notes, without repeats, in order.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> from bayes_eval.ranking.leaderboard import leaderboard
    >>> from bayes_eval.plotting.report import page_notes
    >>> page_notes(leaderboard(R, prior="uniform"), ["few questions", "few questions"])
    ('few questions',)
    """
    note = board.posterior.concentration_note() if board.posterior is not None else None
    return tuple(dict.fromkeys([*([note] if note else []), *notes]))


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(x: float | None, digits: int = 4) -> str:
    """A table cell of a number: ``digits`` decimals shown, the full value in ``data-value``."""
    if x is None or not np.isfinite(x):
        return "<td>-</td>"
    return f'<td data-value="{float(x)!r}">{float(x):.{digits}f}</td>'


def _cell(value: object, css: str | None = None) -> str:
    cls = f' class="{css}"' if css else ""
    return f"<td{cls}>{_e(value)}</td>"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], *, css_id: str = "") -> str:
    """A table of already-rendered ``<td>`` cells under escaped headers (the first, text)."""
    ident = f' id="{css_id}"' if css_id else ""
    ths = "".join(
        f'<th class="text">{_e(h)}</th>' if i == 0 else f"<th>{_e(h)}</th>"
        for i, h in enumerate(head)
    )
    body = "\n".join("<tr>" + "".join(r) + "</tr>" for r in rows)
    return f"<table{ident}>\n<thead><tr>{ths}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def _pairs(rows: Mapping[str, object] | Sequence[tuple[str, object]]) -> str:
    """A two-column table ``name | value`` (values escaped text)."""
    items = rows.items() if isinstance(rows, Mapping) else rows
    body = [[_cell(k, "text"), _cell(v, "text")] for k, v in items]
    return _table(["", "value"], body)


def _image(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">'


def _prior_names(board: Leaderboard, pairs: PairedComparison) -> dict[str, str]:
    attrs = board.table.attrs
    return {
        "prior": str(attrs["prior"]),
        "estimand": str(attrs.get("estimand", THESE_QUESTIONS)),
        "prob_better": str(attrs.get("prob_better", attrs["prior"])),
        "paired_prior": str(pairs.prior),
    }


def report_figures(
    board: Leaderboard, pairs: PairedComparison, *, title: str = "leaderboard"
) -> dict[str, bytes]:
    """The page's figure as PNG bytes.

    ``forest`` (:func:`bayes_eval.plotting.forest.forest_plot` of the rank table, as
    ``bayes-eval rank --plot`` draws it), drawn headless (matplotlib's Agg). The pairwise
    probabilities are HTML tables on the page (legible at any size, every number selectable),
    not a picture.

    Parameters
    ----------
    board : bayes_eval.ranking.leaderboard.Leaderboard
        The leaderboard whose rank table is drawn.
    pairs : bayes_eval.ranking.paired.PairedComparison
        The pairwise comparisons (shown as tables, not drawn).
    title : str, optional
        What the page is about, in the figure's title; default ``"leaderboard"``.

    Returns
    -------
    dict of str to bytes
        ``{"forest": PNG bytes}``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> from bayes_eval.ranking.leaderboard import leaderboard
    >>> from bayes_eval.ranking.paired import leaderboard_pairs
    >>> from bayes_eval.plotting.report import PNG_SIGNATURE, report_figures
    >>> figures = report_figures(leaderboard(R, prior="uniform"),
    ...                          leaderboard_pairs(R, prior="uniform"), title="toy")
    >>> list(figures), figures["forest"].startswith(PNG_SIGNATURE)
    (['forest'], True)
    """
    from bayes_eval.plotting.forest import forest_plot

    with tempfile.TemporaryDirectory(prefix="bayes_eval_report_") as tmp:
        forest = forest_plot(
            board.table, Path(tmp) / "forest.png", title=f"Bayes@N leaderboard: {title}"
        )
        return {"forest": forest.read_bytes()}


#: Longest model name shown in full in a heat map's rows (the full name is its tooltip).
_HEAT_NAME = 40


def _heat_colour(p: float) -> str:
    """A cell's background for P in [0, 1]: white at 1/2, blue toward 1, red toward 0.

    Its text stays dark: the lightness never drops below 55%.
    """
    t = min(abs(p - 0.5) * 2.0, 1.0)
    hue = 215 if p >= 0.5 else 5
    return f"hsl({hue}, 70%, {100 - 45 * t:.0f}%)"


def heat_table(models: Sequence[str], matrix: ArrayLike, *, css_id: str = "") -> str:
    """``P(row better than column)`` as an HTML heat map.

    One row per model (its number and name), columns numbered as the rows, each cell its
    probability to 2 decimals (the full value in ``data-value``) on a colour from red (0)
    through white (1/2) to blue (1); no probability: a dash.

    Parameters
    ----------
    models : sequence of str
        Names of the models, in the order of the rows and columns.
    matrix : array_like of float, shape (L, L)
        ``P(row better than column)``; NaN (and the diagonal) shown as a dash.
    css_id : str, optional
        ``id`` of the table element; default none.

    Returns
    -------
    str
        The HTML of the table, in a ``<div class="heat">``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayes_eval.plotting.report import heat_table
    >>> html = heat_table(["a", "b"], np.array([[np.nan, 0.25], [0.75, np.nan]]), css_id="p")
    >>> html.count("<tr>"), html.count("<td>-</td>"), 'data-value="0.75"' in html
    (3, 2, True)
    """
    m = np.asarray(matrix, dtype=float)
    ident = f' id="{css_id}"' if css_id else ""
    head = '<th class="row">model</th>' + "".join(f"<th>{i + 1}</th>" for i in range(len(models)))
    rows = []
    for i, name in enumerate(models):
        shown_ = name if len(name) <= _HEAT_NAME else name[: _HEAT_NAME - 1] + "\u2026"
        cells = [f'<th class="row" title="{_e(name)}">{i + 1}. {_e(shown_)}</th>']
        for j in range(len(models)):
            p = m[i, j]
            if i == j or not np.isfinite(p):
                cells.append("<td>-</td>")
            else:
                cells.append(
                    f'<td data-value="{float(p)!r}" style="background:{_heat_colour(p)}">'
                    f"{p:.2f}</td>"
                )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    body = "\n".join(rows)
    return (
        f'<div class="heat"><table class="heat"{ident}>\n<thead><tr>{head}</tr></thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table></div>"
    )


def _leaderboard_section(board: Leaderboard, names: dict[str, str]) -> str:
    attrs = board.table.attrs
    conf = float(attrs.get("confidence", 0.95))
    pct = f"{percent(conf)}"
    first = board.models[0] if board.models else {}
    show_questions = "questions" in first and len({r["questions"] for r in board.models}) > 1
    head = ["model", "mu", "sigma", f"{pct} CI lo", f"{pct} CI hi", "rank range", "P(> next)"]
    claims = "p_best" in first
    top = attrs.get("top") if claims else None
    if claims:
        head += ["P(best)", "E[rank]", f"joint {pct} ranks"]
        head += [f"P(top {top})"] if top is not None else []
    if show_questions:
        head.append("questions")
    rows = []
    for r in board.models:
        cells = [_cell(r["model"], "text"), _num(r["mu"]), _num(r["sigma"])]
        cells += [_num(r["lo"]), _num(r["hi"])]
        lo_r, hi_r = r["rank_range"]
        cells.append(_cell(f"{lo_r}" if lo_r == hi_r else f"{lo_r}-{hi_r}"))
        cells.append(_num(r.get("prob_next"), 3))
        if claims:
            cells += [_num(r["p_best"], 3), _num(r["expected_rank"], 2)]
            cells.append(_cell("{}-{}".format(*r["rank_joint"])))
            if top is not None:
                cells.append(_num(r["p_top"], 3))
        if show_questions:
            cells.append(_cell(r["questions"]))
        rows.append(cells)
    return "\n".join(
        [
            '<section id="leaderboard">',
            "<h2>Leaderboard</h2>",
            f'<p class="named">prior: <span class="prior">{_e(names["prior"])}</span>; '
            f'estimand: <span class="estimand">{_e(names["estimand"])}</span> (each model\'s '
            f"mean score over the benchmark's own questions); {_e(pct)} credible intervals: "
            f"{_e(_interval_words(board))}</p>",
            _table(head, rows, css_id="leaderboard-table"),
            f"<p>mu: Bayes@N, the posterior mean of the model's score; sigma: its posterior sd "
            f"(Hariri et al., &ldquo;Don't Pass@k&rdquo;). rank range: every rank the pairwise "
            f"statements P(better) &ge; {exact(conf)} leave open (no chaining); P(&gt; next): the "
            f"posterior probability that the model beats the next one listed."
            + (
                " P(best), E[rank] and the joint ranks (rank intervals that hold for all models "
                f"at once with probability {exact(conf)}) come from joint draws of the same "
                "posterior."
                if claims
                else ""
            )
            + "</p>",
            "</section>",
        ]
    )


def _claims_section(board: Leaderboard, names: dict[str, str]) -> str:
    """The claims the board makes as a set.

    The orderings at the posterior expected FDR, with each claim's probability, and the tie
    groups they leave.
    """
    from bayes_eval.ranking.leaderboard import claims_records, tie_groups

    table = board.table
    if "claim_better" not in table:
        body = ["<p>One model: no claims to make.</p>"]
    else:
        attrs = table.attrs
        records = claims_records(table)
        rows = [
            [_cell(c["better"], "text"), _cell(c["worse"], "text"), _num(c["prob"], 4)]
            for c in records
        ]
        groups = "; ".join("{" + ", ".join(g) + "}" for g in tie_groups(table))
        body = [
            f'<p class="named">estimand: <span class="estimand">{_e(names["estimand"])}</span>; '
            f"{len(records)} orderings claimed at posterior expected false discovery rate "
            f"{float(attrs['claims_fdr']):.4f} (at most q = {float(attrs['fdr']):g})</p>",
            _table(["better", "worse", "P(better > worse)"], rows, css_id="claims-table")
            if rows
            else "<p>No ordering is claimed.</p>",
            "<p>The claims are the largest set of orderings whose posterior expected false "
            "discovery rate, the mean of 1 - P over the set, is at most q (M&uuml;ller, "
            "Parmigiani and Rice, &ldquo;FDR and Bayesian multiple comparisons rules&rdquo;): "
            "one claim's own P can be far below 0.95 when the others are near-certain. "
            f"Tie groups (models the claims leave unordered), best first: {_e(groups)}.</p>",
        ]
    return "\n".join(['<section id="claims">', "<h2>Claims</h2>", *body, "</section>"])


def _interval_words(board: Leaderboard) -> str:
    """Which law the leaderboard's intervals came from, in words."""
    asked = str(board.table.attrs.get("interval", "auto"))
    if asked != "auto":
        return {"normal": "normal, mu -/+ z sigma (clipped to the support)"}.get(asked, asked)
    kinds = set(board.table["interval_kind"].values) if "interval_kind" in board.table else set()
    if kinds == {"joint"}:
        return "the joint posterior's marginal (a mixture of Betas on the support)"
    words = {
        "exact": "exact",
        "beta": "the Beta with the posterior's mean and sd",
        "normal": "normal",
    }
    return (
        "within 6 sd of an end of the support "
        + " or ".join(words[k] for k in ("exact", "beta") if k in kinds)
        + ", normal elsewhere"
        if kinds - {"normal"}
        else "normal (far from the ends of the support)"
    )


def _figure_section(ident: str, heading: str, png: bytes, alt: str, text: str) -> str:
    return "\n".join(
        [
            f'<section id="{ident}">',
            f"<h2>{_e(heading)}</h2>",
            f"<p>{_e(text)}</p>",
            f"<figure>{_image(png, alt)}</figure>",
            "</section>",
        ]
    )


def _pairs_section(pairs: PairedComparison, names: dict[str, str]) -> str:
    assert pairs.these_questions is not None  # leaderboard_pairs computes it always
    rows = []
    for r in pairs.adjacent():
        cells = [_cell(r["model"], "text"), _cell(r["next"], "text"), _cell(r["shared"])]
        cells += [
            _num(cast("float | None", r.get("these_questions")), 3),
            _num(cast("float | None", r["paired"]), 3),
        ]
        rows.append(cells)
    head = ["model", "next below", "shared questions", "P these questions", "P new questions"]
    return "\n".join(
        [
            '<section id="pairs">',
            "<h2>Pairwise comparisons</h2>",
            f'<p class="named">{_e(THESE_QUESTIONS)}: P from the {_e(names["prob_better"])} '
            f"(prior {_e(names['prior'])}); {_e(NEW_QUESTIONS)} (paired on the shared "
            f"questions): prior {_e(names['paired_prior'])} ({_e(pairs.method['paired'])}); "
            f"{_e(pairs.cluster_treatment)}</p>",
            f"<h3>P(row better than column), {_e(THESE_QUESTIONS)}</h3>",
            heat_table(
                list(pairs.models),
                pairs.these_questions,
                css_id="heat-these",
            ),
            f"<h3>P(row better than column), {_e(NEW_QUESTIONS)} (paired)</h3>",
            heat_table(list(pairs.models), pairs.paired, css_id="heat-new"),
            "<h3>Each model against the next below</h3>",
            _table(head, rows, css_id="pairs-table"),
            "<p>Models ordered by their posterior mean (as the leaderboard); P: the posterior "
            "probability that the model beats the next. these questions: the benchmark's own "
            "questions; new questions: new questions from the same source.</p>",
            "</section>",
        ]
    )


def _diagnostics_section(board: Leaderboard, names: dict[str, str], notes: Sequence[str]) -> str:
    post = board.posterior
    table = board.table
    items: list[tuple[str, object]] = [("prior", names["prior"])]
    blocks: list[str] = []
    if post is not None:
        spec = post.prior.to_dict()
        items += [(f"prior {k}", v) for k, v in spec.items() if k != "label" and v is not None]
        items.append(("quadrature nodes J", post.n_nodes))
        if post.n_nodes > 1:
            items.append(("nodes shared by the models", "yes" if post.shared_nodes else "no"))
    items.append(("P(better) computed from", names["prob_better"]))
    result = post.joint if post is not None else None
    if result is not None:
        kappa = f"{result.dispersion:.3g}" + (
            "" if result.dispersion_identified else " (one trial per cell: its hyperprior)"
        )
        items += [
            ("board model: question-difficulty sd s (logit, mode)", f"{result.difficulty_sd:.3g}"),
            ("board model: ability sd (logit, mode)", f"{result.ability_sd:.3g}"),
            ("board model: Beta dispersion kappa (mode)", kappa),
        ]
    conf = float(table.attrs.get("confidence", 0.95))
    items.append(("rank range: credible when P(better) at least", f"{exact(conf)}"))
    if "prior_alpha" in table:
        order = [r["model"] for r in board.models]
        sel = table.sel(model=order)
        alpha = np.atleast_2d(sel["prior_alpha"].values)
        kappas = np.atleast_1d(sel["prior_kappa"].values)
        conv = np.atleast_1d(sel["prior_converged"].values)
        hyper = None
        if post is not None and post.fitted.kappa_prior is not None:
            kp = np.asarray(post.fitted.kappa_prior, dtype=float)
            if kp.shape[0] == 1:
                hyper = np.broadcast_to(kp, (len(order), 2))
            else:
                index = [list(map(str, post.models or order)).index(m) for m in order]
                hyper = kp[index]
        head = ["model", "prior a (mode)", "concentration sum(a)"]
        if hyper is not None:
            head += ["hyperprior median of sum(a)", "its log-sd"]
        head.append("fit converged")
        rows = []
        for i, m in enumerate(order):
            cells = [
                _cell(m, "text"),
                _cell("(" + ", ".join(f"{a:.3g}" for a in alpha[i]) + ")"),
                _num(float(kappas[i]), 3),
            ]
            if hyper is not None:
                cells += [_num(float(hyper[i, 0]), 3), _num(float(hyper[i, 1]), 3)]
            cells.append(_cell("yes" if bool(conv[i]) else "NO"))
            rows.append(cells)
        blocks += [
            "<h3>The prior of each model</h3>",
            _table(head, rows, css_id="prior-table"),
            "<p>prior a: the Dirichlet parameters (a_0, ..., a_C) of each question's prior, one "
            "per score level from the lowest (a learned prior: at its fitted mode); larger sums "
            "pull the per-question rates harder toward the prior mean.</p>",
        ]
    listed = "".join(f"<li>{_e(n)}</li>" for n in page_notes(board, notes)) or "<li>none</li>"
    return "\n".join(
        [
            '<section id="diagnostics">',
            "<h2>Diagnostics</h2>",
            _pairs(items),
            *blocks,
            "<h3>Notes and warnings</h3>",
            f'<ul class="notes">{listed}</ul>',
            "</section>",
        ]
    )


def _data_section(
    board: Leaderboard,
    summary: Mapping[str, object] | None,
    per_model: Sequence[Mapping[str, object]],
) -> str:
    items: dict[str, object] = dict(summary or {})
    items.setdefault("models", len(board.models))
    items.setdefault("questions", board.questions)
    items.setdefault("trials per question (at most)", board.max_trials)
    items.setdefault("trials without a score (masked)", board.missing_trials)
    if board.posterior is not None:
        items.setdefault("weights", ", ".join(f"{w:g}" for w in board.posterior.w))
    parts = ['<section id="data">', "<h2>Data</h2>", _pairs(items)]
    if per_model:
        columns = list(dict.fromkeys(k for row in per_model for k in row))
        rows = [
            [_cell(row.get(c, "-"), "text" if i == 0 else None) for i, c in enumerate(columns)]
            for row in per_model
        ]
        parts += ["<h3>Per model</h3>", _table(columns, rows, css_id="data-table")]
    parts.append("</section>")
    return "\n".join(parts)


def report_page(
    board: Leaderboard,
    pairs: PairedComparison,
    *,
    title: str = "leaderboard",
    summary: Mapping[str, object] | None = None,
    per_model: Sequence[Mapping[str, object]] = (),
    notes: Sequence[str] = (),
    figures: Mapping[str, bytes] | None = None,
    provenance: Mapping[str, str] | None = None,
) -> str:
    """The HTML page of a closed-form leaderboard and its pairwise comparisons.

    Parameters
    ----------
    board : Leaderboard
        :func:`bayes_eval.ranking.leaderboard.leaderboard` (the closed form: it has a
        posterior).
    pairs : PairedComparison
        :func:`bayes_eval.ranking.paired.leaderboard_pairs` of the same data and prior.
    title : str
        What the page is about (e.g. the file read), in its heading and figure titles.
    summary : mapping of str to object, optional
        The data summary's rows ``name -> value`` (e.g. format, attempts, design); the
        leaderboard's own counts (models, questions, trials, masked trials, weights) are
        added where not given.
    per_model : sequence of mappings, optional
        One row per model (the keys are the columns), e.g. attempts, failed, missing.
    notes : sequence of str
        Notes and warnings about the data or the fit, listed under the diagnostics.
    figures : mapping of str to bytes, optional
        PNG bytes of ``forest`` (default: :func:`report_figures`).
    provenance : mapping of str to str, optional
        How to reproduce the page, shown under its heading and in its footer: e.g.
        ``version`` (of bayes_eval; default the installed one), ``date`` (default now, UTC),
        ``command`` (the command line) and ``input sha256`` (of the files read,
        :func:`bayes_eval.logs.read.input_digest`).

    Returns
    -------
    str
        A complete HTML5 document: no script, no external reference (figures as ``data:``
        URIs), every text escaped.

    Raises
    ------
    ValueError
        If ``board`` is not a closed-form leaderboard, or ``figures["forest"]`` is not PNG
        bytes.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> from bayes_eval.ranking.leaderboard import leaderboard
    >>> from bayes_eval.ranking.paired import leaderboard_pairs
    >>> from bayes_eval.plotting.report import report_page
    >>> page = report_page(leaderboard(R, prior="uniform"), leaderboard_pairs(R, prior="uniform"),
    ...                    title="toy", provenance={"command": "bayes-eval report toy.nc"})
    >>> page.startswith("<!DOCTYPE html>"), "<title>Bayes@N report: toy</title>" in page
    (True, True)
    >>> [s for s in ("leaderboard", "forest", "pairs", "diagnostics") if f'id="{s}"' in page]
    ['leaderboard', 'forest', 'pairs', 'diagnostics']
    """
    if board.posterior is None or board.estimator != "closed-form":
        raise ValueError(
            "the report needs a closed-form leaderboard (with its posterior); got the "
            f"{board.estimator!r} estimator."
        )
    names = _prior_names(board, pairs)
    figs = dict(figures) if figures is not None else report_figures(board, pairs, title=title)
    if not figs.get("forest", b"").startswith(PNG_SIGNATURE):
        raise ValueError("figure 'forest' is not PNG bytes; expected the forest plot's PNG.")
    made = _provenance(provenance)
    made_text = "; ".join(f"{k}: {v}" for k, v in made.items())
    conf = float(board.table.attrs.get("confidence", 0.95))
    forest_text = (
        f"Bayes@N with its {percent(conf)} credible interval per model, best on top; right "
        "margin: each model's rank range (every rank the pairwise statements leave open); "
        "shaded: the tie groups the claims leave (more than one model)."
    )
    body = [
        f"<h1>Bayes@N report: {_e(title)}</h1>",
        f'<p class="named">prior: {_e(names["prior"])}; estimand: {_e(names["estimand"])}; '
        f"{len(board.models)} models, {board.questions} questions, up to {board.max_trials} "
        "trials</p>",
        f'<p class="provenance" id="provenance">{_e(made_text)}</p>',
        _leaderboard_section(board, names),
        _claims_section(board, names),
        _figure_section("forest", "Forest plot", figs["forest"], "forest plot", forest_text),
        _pairs_section(pairs, names),
        _diagnostics_section(board, names, notes),
        _data_section(board, summary, per_model),
        f"<footer>Written by bayes-eval {_e(made.get('version', ''))} on "
        f"{_e(made.get('date', ''))}: Bayes@N and rank ranges after Hariri et al., "
        "&ldquo;Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation&rdquo;. "
        f"To reproduce: {_e(made.get('command', 'the command line is not recorded'))}"
        "</footer>",
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>Bayes@N report: {_e(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            *body,
            "</body>",
            "</html>",
            "",
        ]
    )


def _provenance(given: Mapping[str, str] | None) -> dict[str, str]:
    """``given`` with the version of bayes_eval and the date (UTC) filled in when absent."""
    out = {str(k): str(v) for k, v in (given or {}).items()}
    if "version" not in out:
        from importlib.metadata import PackageNotFoundError, version

        try:
            out = {"version": f"bayes_eval {version('bayes_eval')}", **out}
        except PackageNotFoundError:  # pragma: no cover - a tree that is not installed
            out = {"version": "bayes_eval (version unknown)", **out}
    if "date" not in out:
        from datetime import UTC, datetime

        out["date"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return out


def leaderboard_report(
    R: xr.DataArray,
    w: Sequence[float] | None = None,
    R0: xr.DataArray | None = None,
    *,
    prior: PriorSpec | Prior = DEFAULT_PRIOR,
    confidence: float = 0.95,
    interval: str = "auto",
    answered_only: bool = False,
    fractional: bool = False,
    cluster: ArrayLike | Mapping[object, object] | None = None,
    fdr: float = 0.05,
    top: int | None = None,
    title: str = "leaderboard",
    summary: Mapping[str, object] | None = None,
    per_model: Sequence[Mapping[str, object]] = (),
    notes: Sequence[str] = (),
    provenance: Mapping[str, str] | None = None,
) -> Report:
    """Rank the models of ``R[model, question, trial]`` and compare every pair.

    Both are laid out as one self-contained HTML page (:func:`report_page`).


    The leaderboard is :func:`bayes_eval.ranking.leaderboard.leaderboard` (Bayes@N, the
    posterior mean of each model's score over these questions, with its credible interval
    and the CI-aware ranks of Hariri et al., "Don't Pass@k", §2.7.1) and the comparisons
    :func:`bayes_eval.ranking.paired.leaderboard_pairs` (``P(row better than column)`` on
    these questions and, paired, on new questions; the joint table's prior follows
    ``prior`` as ``bayes-eval pairs`` chooses it), with the same arguments ``bayes-eval
    rank`` and ``bayes-eval pairs`` pass: the page shows their numbers. Warnings raised while
    computing are listed on the page under the diagnostics, and raised again for the caller.

    Parameters
    ----------
    R, w, R0
        Results (NaN: no trial), rubric weights and earlier runs, as for
        :func:`~bayes_eval.ranking.leaderboard.leaderboard`.
    prior, confidence, interval, answered_only, fractional
        As for :func:`~bayes_eval.ranking.leaderboard.leaderboard`.
    cluster
        Question clusters of the new-questions comparison
        (:func:`~bayes_eval.ranking.paired.leaderboard_pairs`).
    fdr, top
        The claims' posterior expected FDR and the k of P(in the top k)
        (``table_of``).
    title, summary, per_model, notes, provenance
        As for :func:`report_page`.

    Returns
    -------
    Report
        The page (``html``), the leaderboard and comparisons it shows, and the notes it
        lists (:func:`page_notes`).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> R = xr.DataArray(np.array([[[0, 1, 1], [1, 1, 0]], [[1, 1, 1], [0, 1, 1]]]),
    ...                  dims=("model", "question", "trial"), coords={"model": ["a", "b"]})
    >>> from bayes_eval.plotting.report import leaderboard_report
    >>> report = leaderboard_report(R, prior="uniform", title="toy")
    >>> "<h1>Bayes@N report: toy</h1>" in report.html
    True
    >>> [record["model"] for record in report.board.models]  # best first
    ['b', 'a']
    """
    n_models = R.sizes.get("model", 1) if isinstance(R, xr.DataArray) else 1
    if n_models < 2:
        raise ValueError(
            f"the results have {n_models} model; a report ranks and compares two or more."
        )
    spec = Prior.parse(prior)
    with warnings.catch_warnings(record=True) as caught:
        board = leaderboard(
            R,
            w,
            R0,
            confidence=confidence,
            interval=interval,
            prior=spec,
            answered_only=answered_only,
            fractional=fractional,
            fdr=fdr,
            top=top,
        )
        pairs = leaderboard_pairs(
            R,
            w,
            R0,
            fractional=fractional,
            prior=spec,
            pair_prior=table_prior(spec.kind),
            answered_only=answered_only,
            cluster=cluster,
            fdr=fdr,
            top=top,
        )
    listed = [*notes, *(" ".join(str(c.message).split()) for c in caught)]
    page = report_page(
        board,
        pairs,
        title=title,
        summary=summary,
        per_model=per_model,
        notes=listed,
        provenance=provenance,
    )
    for c in caught:
        warnings.warn_explicit(c.message, c.category, c.filename, c.lineno)
    return Report(html=page, board=board, pairs=pairs, notes=page_notes(board, listed))
