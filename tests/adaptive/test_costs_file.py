"""The per-arm costs file of ``adaptive simulate --costs`` (issue 29: it had to have no
header). Files numpy writes and reads (``np.savetxt``/``np.loadtxt``) are the independent
reference for the header-less forms."""

from __future__ import annotations

import numpy as np
import pytest

from bayes_eval.adaptive.runs import load_bandit, read_costs
from bayes_eval.cli import main


@pytest.mark.parametrize("shape", ["column", "row"])
def test_header_less_files_read_as_numpy_reads_them(shape, tmp_path):
    costs = np.random.default_rng(0).uniform(0.1, 3.0, 7)
    path = tmp_path / "c.csv"
    np.savetxt(path, costs if shape == "column" else costs[None], delimiter=",")
    np.testing.assert_array_equal(read_costs(path), np.loadtxt(path, delimiter=",", ndmin=1))
    np.testing.assert_allclose(read_costs(path), costs, rtol=1e-15)


@pytest.mark.parametrize(
    "text",
    [
        "cost_usd\n0.5\n2\n1.25\n",
        "arm,cost_usd\na,0.5\nb,2\nc,1.25\n",
        "cost,arm\n0.5,a\n2,b\n1.25,c\n",
    ],
)
def test_a_header_names_the_cost_column(text, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(text)
    np.testing.assert_array_equal(read_costs(path), [0.5, 2.0, 1.25])


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("", "the file is empty"),
        ("cost\n", "a header without costs"),
        ("1\nx\n", "line 2 has 'x'"),
        ("1,2\n3,4\n", "several lines of several numbers"),
        ("arm,price\na,1\n", "names no single cost column"),
    ],
)
def test_bad_costs_files_say_what_is_wrong(text, phrase, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=phrase):
        read_costs(path)


def test_a_matrix_with_a_costs_file_with_a_header(tmp_path, capsys):
    rng = np.random.default_rng(1)
    matrix = tmp_path / "m.csv"
    scores = (rng.random((4, 30)) < rng.random((4, 1))).astype(int)
    np.savetxt(matrix, scores, delimiter=",", fmt="%d")
    costs = tmp_path / "c.csv"
    costs.write_text("cost_usd\n0.5\n1\n2\n3\n")
    data = load_bandit("matrix", matrix=str(matrix), costs=str(costs))
    np.testing.assert_array_equal(data.costs, [0.5, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(data.matrix, scores)
    costs.write_text("cost_usd\n0.5\n1\n2\n")  # one arm short: refused before simulating
    argv = ["adaptive", "simulate", "--dataset", "matrix", "--matrix", str(matrix)]
    argv += ["--costs", str(costs), "--budget-kind", "cost", "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "one per arm" in err
