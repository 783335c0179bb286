"""``bayes-eval report``: the page is parsed back (stdlib ``html.parser``) and each part checked
against the commands that compute the same numbers: the leaderboard against ``rank --json``,
the pairs table against ``pairs --json`` (the same data and prior: the same answer, to the
last bit, since the page keeps every number's full value in ``data-value``), the figures
decoded as PNGs, and nothing in the page that loads from anywhere."""

from __future__ import annotations

import base64
import contextlib
import io
import itertools
import json
import struct
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bayes_eval.cli import main
from bayes_eval.plotting.report import PNG_SIGNATURE, SECTIONS
from bayes_eval.posteriors.posterior import NEW_QUESTIONS, THESE_QUESTIONS

BOARD = "dataset:matharena_aime25_i"  # 16 models x 15 questions x 4 trials
#: six of its models (the leaders, a tie, the last two): a long table as every command reads
SIX = ["o3-mini (high)", "o1 (medium)", "DeepSeek-R1", "o3-mini (low)", "gpt-4o"]
SIX.append("claude-3.5-sonnet")


class Page(HTMLParser):
    """The parts of a report: per section (by ``id``) its text, its tables (rows of cells:
    ``(text, data-value or None)``) and its images' ``src``; every tag and every
    ``src``/``href`` of the document."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: dict[str, dict] = {}
        self.order: list[str] = []
        self.tags: set[str] = set()
        self.links: list[str] = []
        self.title = ""
        self._section: dict | None = None
        self._cell: list | None = None
        self._in_title = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        self.links += [v for k, v in attrs.items() if k in ("src", "href") and v is not None]
        if tag == "title":
            self._in_title = True
        if tag == "section":
            self._section = {"text": [], "tables": [], "images": []}
            self.sections[attrs["id"]] = self._section
            self.order.append(attrs["id"])
        if self._section is None:
            return
        if tag == "table":
            self._section["tables"].append({"id": attrs.get("id"), "head": [], "rows": []})
        elif tag == "tr":
            self._section["tables"][-1]["rows"].append([])
        elif tag in ("td", "th"):
            self._cell = [tag, "", attrs.get("data-value")]
        elif tag == "img":
            self._section["images"].append(attrs["src"])

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        if tag == "section":
            self._section = None
        if tag in ("td", "th") and self._cell is not None and self._section is not None:
            kind, text, value = self._cell
            table = self._section["tables"][-1]
            if kind == "th":
                table["head"].append(text)  # the header row stays an empty row
            else:
                table["rows"][-1].append((text, None if value is None else float(value)))
            self._cell = None

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._cell is not None:
            self._cell[1] += data
        if self._section is not None:
            self._section["text"].append(data)

    def text(self, section: str) -> str:
        return " ".join(" ".join(self.sections[section]["text"]).split())

    def table(self, section: str, ident: str | None = None) -> dict:
        tables = self.sections[section]["tables"]
        return next(t for t in tables if ident is None or t["id"] == ident)


def _rows(table: dict) -> list[list]:
    return [r for r in table["rows"] if r]


@pytest.fixture(scope="module")
def page_and_docs(tmp_path_factory):
    """The page and its ``--json`` document, with ``rank --json`` and ``pairs --json`` of the
    same data and prior (the CLI's default, learned prior): each command run once."""
    from bayes_eval.datasets import load

    folder = tmp_path_factory.mktemp("report")
    path, data = folder / "report.html", str(folder / "six.csv")
    R = load("matharena_aime25_i")["results"].sel(model=SIX)
    R.rename("score").to_dataframe().reset_index().to_csv(data, index=False)
    docs = {}
    for key, argv in (
        ("report", ["report", data, "--html", str(path)]),
        ("rank", ["rank", data]),
        ("pairs", ["pairs", data]),
    ):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main([*argv, "--json"]) == 0
        docs[key] = json.loads(out.getvalue())
    docs["data"] = data
    return Page(path.read_text(encoding="utf-8")), docs


def test_the_page_has_every_section_in_order(page_and_docs):
    page, docs = page_and_docs
    assert page.order == list(SECTIONS) == docs["report"]["sections"]
    assert docs["data"] in page.title


def test_the_leaderboard_is_ranks_answer(page_and_docs):
    page, docs = page_and_docs
    rank = docs["rank"]
    table = page.table("leaderboard", "leaderboard-table")
    rows = _rows(table)
    assert [r[0][0] for r in rows] == [m["model"] for m in rank["models"]]  # best first
    for row, m in zip(rows, rank["models"], strict=True):
        for (text, value), key in zip(row[1:5], ("mu", "sigma", "lo", "hi"), strict=True):
            assert value == m[key]  # the same computation: equal, not close
            assert text == f"{m[key]:.4f}"
        lo, hi = m["rank_range"]
        assert row[5][0] == (f"{lo}" if lo == hi else f"{lo}-{hi}")
        assert row[6][1] == m["prob_next"]  # None (shown "-") for the last
    words = page.text("leaderboard")
    assert f"prior: {rank['prior']}" in words and f"estimand: {rank['estimand']}" in words
    assert rank["estimand"] == THESE_QUESTIONS == docs["report"]["estimand"]
    assert docs["report"]["prior"] == rank["prior"]


def _png_size(src: str) -> tuple[int, int]:
    head = "data:image/png;base64,"
    assert src.startswith(head)
    data = base64.b64decode(src[len(head) :], validate=True)
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_figures_are_embedded_pngs(page_and_docs):
    page, _ = page_and_docs
    forest, heat = page.sections["forest"]["images"], page.sections["pairs"]["images"]
    assert len(forest) == 1 and len(heat) == 0  # the pairs are HTML tables, not a picture
    width, height = _png_size(forest[0])
    assert width > 300 and height > 6 * 30  # a row per model


def test_the_pairs_are_pairs_answer(page_and_docs):
    page, docs = page_and_docs
    pairs = docs["pairs"]
    rows = _rows(page.table("pairs", "pairs-table"))
    names = pairs["models"]
    assert [(r[0][0], r[1][0]) for r in rows] == list(itertools.pairwise(names))
    for i, row in enumerate(rows):
        assert row[2][0] == str(pairs["shared"][i][i + 1])
        assert row[3][1] == pairs["these_questions"][i][i + 1]
        assert row[4][1] == pairs["paired"][i][i + 1]
    words = page.text("pairs")
    assert THESE_QUESTIONS in words and NEW_QUESTIONS in words
    assert pairs["prior_detail"]["paired"] in words and pairs["these_questions_from"] in words
    adjacent = [(r["these_questions"], r["paired"]) for r in docs["report"]["pairs"]]
    assert adjacent == [(r[3][1], r[4][1]) for r in rows]  # --json says what the page says


def test_the_diagnostics_name_the_fit(page_and_docs):
    page, docs = page_and_docs
    rank = docs["rank"]
    items = dict((r[0][0], r[1][0]) for r in _rows(page.table("diagnostics")))
    assert items["prior"] == rank["prior"]
    assert items["prior kind"] == "empirical" and items["prior pool"] == "board"
    assert int(items["quadrature nodes J"]) > 1  # integrated over the hyperparameters
    assert items["P(better) computed from"] == rank["prob_better"]["from"]
    assert float(items["board model: question-difficulty sd s (logit, mode)"]) > 0
    assert float(items["board model: ability sd (logit, mode)"]) > 0
    assert items["board model: question-difficulty sd s (logit, mode)"] == (
        f"{rank['board_model']['difficulty_sd']:.3g}"
    )
    assert items["rank range: credible when P(better) at least"] == f"{rank['confidence']:g}"
    prior = _rows(page.table("diagnostics", "prior-table"))
    assert [r[0][0] for r in prior] == [m["model"] for m in rank["models"]]
    for row, m in zip(prior, rank["models"], strict=True):
        assert row[2][1] == pytest.approx(sum(m["prior_alpha"]), rel=1e-12)  # sum(a)
        assert row[-1][0] in ("yes", "NO")
    assert "Notes and warnings" in page.text("diagnostics")


def test_the_data_summary_counts_what_was_read(page_and_docs):
    page, docs = page_and_docs
    items = dict((r[0][0], r[1][0]) for r in _rows(page.table("data")))
    assert items["source"] == docs["data"]
    assert (items["models"], items["questions"]) == ("6", "15")
    assert items["trials per question (at most)"] == "4"
    assert items["scored attempts"] == str(6 * 15 * 4) and items["weights"] == "0, 1"
    per_model = _rows(page.table("data", "data-table"))
    assert sorted(r[0][0] for r in per_model) == sorted(SIX)
    assert {r[1][0] for r in per_model} == {"60"}  # 15 questions x 4 trials each


def test_nothing_in_the_page_loads_from_anywhere(page_and_docs):
    page, _ = page_and_docs
    assert page.links and all(link.startswith("data:image/png;base64,") for link in page.links)
    assert not page.tags & {"script", "link", "iframe", "object", "embed", "base"}
    assert all("url(" not in page.text(s) for s in SECTIONS)


def test_the_command_says_where_it_wrote(tmp_path, capsys):
    path = tmp_path / "r.html"
    # a small table: two models, so the test is quick
    rows = ["model,question,trial,score"]
    rows += [f"a,q{q},{t},{int((q + t) % 3 > 0)}" for q in range(6) for t in range(2)]
    rows += [f"b<i>,q{q},{t},{int((q * t) % 4 == 1)}" for q in range(6) for t in range(2)]
    data = tmp_path / "runs.csv"
    data.write_text("\n".join(rows) + "\n")
    assert main(["report", str(data), "--html", str(path), "--prior-kind", "uniform"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert "prior: uniform" in out[0] and out[-1] == f"report written to {path}"
    text = path.read_text(encoding="utf-8")
    assert "b&lt;i&gt;" in text and "<i>" not in text  # a name is text, never markup
    page = Page(text)
    assert [r[0][0] for r in _rows(page.table("leaderboard", "leaderboard-table"))][1] == "b<i>"


@pytest.mark.parametrize(
    ("extra", "phrase"),
    [
        (["--html", "{tmp}/missing/r.html"], "does not exist"),
        (["--html", "{tmp}"], "is a folder"),
        ([], "the following arguments are required: --html"),
        (["--html", "{tmp}/r.html", "--prior-kind", "uniform", "--pool", "model"], "--pool"),
    ],
    ids=["missing-folder", "folder", "no-html", "pool-uniform"],
)
def test_bad_input_is_one_line(tmp_path, capsys, extra, phrase):
    argv = ["report", BOARD, *(a.format(tmp=tmp_path) for a in extra)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bayes-eval: error: ") and phrase in err[0]
    assert not (tmp_path / "r.html").exists()


def test_lm_eval_output_is_reported_one_task_at_a_time(tmp_path, capsys):
    folder = str(Path(__file__).resolve().parents[1] / "data" / "lm_eval_output")
    path = tmp_path / "r.html"
    assert main(["report", folder, "--html", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "2 tasks (arc_easy, gsm8k)" in err[0] and "--task" in err[0]
    assert not path.exists()
    assert main(["report", folder, "--html", str(path), "--task", "gsm8k"]) == 0
    capsys.readouterr()
    assert main(["rank", folder, "--task", "gsm8k", "--json"]) == 0
    rank = json.loads(capsys.readouterr().out)
    page = Page(path.read_text(encoding="utf-8"))
    rows = _rows(page.table("leaderboard", "leaderboard-table"))
    assert [(r[0][0], r[1][1]) for r in rows] == [(m["model"], m["mu"]) for m in rank["models"]]
    assert "[task gsm8k]" in page.title
