"""Every kind of bad input raises a ValueError that names the argument, what was found and what
was expected; nothing returns a silent number."""

from __future__ import annotations

import numpy as np
import pytest

import bayes_eval as be

R = np.array([[0, 1, 1, 0], [1, 1, 0, 1]])
RC = np.array([[0, 1, 2, 2], [1, 2, 0, 1]])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        # non-integer scores
        (
            lambda: be.bayes(np.array([[0.0, 0.5], [1.0, 1.0]])),
            r"R contains the non-integer score 0\.5 at index \(0, 1\).*expected integer",
        ),
        # categories outside 0..C
        (
            lambda: be.bayes(RC),
            r"R contains category 2 but no weights w.*pass w of length C \+ 1 = 3",
        ),
        (
            lambda: be.bayes(RC, [0.0, 1.0]),
            r"w has length 2 \(categories 0..1\) but R contains category 2.*len\(w\) = C \+ 1 >= 3",
        ),
        (
            lambda: be.bayes(np.array([[0, -1], [1, 1]])),
            r"R contains the negative category -1 at index \(0, 1\)",
        ),
        (
            lambda: be.pass_at_k(RC, 1),
            r"R contains category 2; expected labels within 0..1 \(the Pass family needs binary",
        ),
        (
            lambda: be.bayes(R, None, np.array([[2], [0]])),
            r"R0 contains category 2; expected labels within 0..1",
        ),
        # NaN where no mask is meant
        (
            lambda: be.bayes(np.array([[0.0, np.nan], [1.0, 1.0]])),
            r"R contains NaN at index \(0, 1\).*mask=numpy.isnan\(R\)",
        ),
        (
            lambda: be.bayes(np.array([[0.0, np.nan], [1.0, 1.0]]), mask=np.zeros((2, 2), bool)),
            r"NaN at index \(0, 1\) that the mask does not mark",
        ),
        (lambda: be.bayes(np.array([[0.0, np.inf], [1.0, 1.0]])), r"infinite value"),
        # ragged rows
        (lambda: be.bayes([[0, 1, 1], [1, 0]]), r"R has ragged rows \(row lengths 3, 2\).*mask"),
        # R0 with another number of questions
        (
            lambda: be.bayes(R, None, np.array([[1], [0], [1]])),
            r"R0 has shape \(3, 1\); expected \(M, D\) with leading shape \(2,\)",
        ),
        (
            lambda: be.bayes(np.stack([R, R]), None, np.array([[1], [0]])),
            r"R0 has shape \(2, 1\); expected \(L, M, D\)",
        ),
        # len(w) != C + 1 and bad w values
        (
            lambda: be.bayes(R, [[0.0, 1.0]]),
            r"w has shape \(1, 2\); expected a non-empty 1-D vector",
        ),
        (lambda: be.bayes(R, [0.0, np.nan]), r"w contains a non-finite value"),
        (lambda: be.bayes(R, ["a", "b"]), r"w has dtype <U1; expected real numbers"),
        # k < 1 or k > N
        (lambda: be.pass_at_k(R, 0), r"k is 0; expected 1 <= k <= N = 4"),
        (lambda: be.pass_hat_k_ci(R, 5), r"k is 5; expected 1 <= k <= N = 4"),
        (lambda: be.mg_pass_at_k(R, 2.0), r"k is 2.0; expected an integer"),
        (
            lambda: be.pass_at_k(R, 4, mask=np.array([[0, 0, 0, 1], [0, 0, 0, 0]], bool)),
            r"k is 4; expected 1 <= k <= N = 3 \(the smallest per-question trial count",
        ),
        # tau outside (0, 1]
        (lambda: be.g_pass_at_k_tau(R, 2, 0.0), r"tau is 0.0; expected a number in \(0, 1\]"),
        (lambda: be.g_pass_at_k_tau_ci(R, 2, 1.5), r"tau is 1.5; expected a number in \(0, 1\]"),
        # confidence outside (0, 1)
        (
            lambda: be.bayes_ci(R, confidence=1.0),
            r"confidence is 1.0; expected a probability strictly between 0 and 1",
        ),
        (lambda: be.pass_at_k_ci(R, 1, confidence=0.0), r"confidence is 0.0"),
        (lambda: be.avg_ci(R, confidence=95), r"confidence is 95"),
        # empty input
        (
            lambda: be.bayes(np.zeros((0, 3), int)),
            r"R is empty \(shape \(0, 3\)\); expected at least one question",
        ),
        (
            lambda: be.bayes(np.zeros((2, 0), int)),
            r"R is empty \(shape \(2, 0\)\); expected at least one trial",
        ),
        (lambda: be.bayes(np.zeros((0, 2, 3), int)), r"expected at least one model"),
        # other arguments
        (lambda: be.bayes(R, alpha0=0.0), r"alpha0 is 0.0; expected finite values > 0"),
        (
            lambda: be.bayes(R, alpha0=[1, 1, 1]),
            r"alpha0 has shape \(3,\); expected a scalar or a vector of length C \+ 1 = 2",
        ),
        (lambda: be.pass_at_k_ci(R, 1, beta0=-1), r"beta0 is -1; expected a finite number > 0"),
        (lambda: be.bayes_ci(R, bounds=(1.0, 0.0)), r"bounds is \(1.0, 0.0\); expected lo <= hi"),
        (
            lambda: be.bayes_ci(R, interval="wald"),
            r"interval is 'wald'; expected one of 'auto', 'normal', 'exact'\.",
        ),
        (
            lambda: be.pass_at_k_ci(R, 1, interval="auto"),
            r"interval is 'auto'; expected one of 'normal', 'exact'\.",
        ),
        (
            lambda: be.bayes(R, mask=np.zeros((2, 3), bool)),
            r"mask has shape \(2, 3\); expected the shape of R, \(2, 4\)",
        ),
        (
            lambda: be.bayes(R, mask=np.zeros((2, 4), int)),
            r"mask has dtype int64; expected a boolean array",
        ),
        (
            lambda: be.bayes(R, mask=np.array([[1, 1, 1, 1], [0, 0, 0, 0]], bool)),
            r"no observed trial for question index \(0,\)",
        ),
        (lambda: be.bayes(np.array([["a", "b"]])), r"R has dtype <U1; expected integer"),
        (
            lambda: be.bayes(np.zeros((2, 2, 2, 2), int)),
            r"R has 4 dimensions.*expected \(M, N\) for one model or \(L, M, N\)",
        ),
        (lambda: be.bayes(None), r"R is None"),
    ],
)
def test_bad_input_raises_clear_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_long_table_errors(tmp_path):
    """A long CSV table read by the one logs pipeline: every error names the file and the line
    or record (``validate convergence`` and ``elicit`` read results this way too)."""
    from bayes_eval.logs import read_eval_log

    head = "model,question,trial,score\n"
    bad = {
        "missing.csv": ("model,trial,score\na,0,1\n", r"missing column\(s\) \['question'\]"),
        "extra.csv": (
            "model,question,trial,score,extra\na,q1,0,1,x\n",
            r"line 2: column 'extra' has the non-numeric value 'x'; expected a number",
        ),
        "empty.csv": (head, r"no rows"),
        "text.csv": (head + "a,q1,0,yes\n", r"line 2: column 'score' has the non-numeric value"),
        "frac.csv": (
            head + "a,q1,0,1.5\n",
            r"frac.csv: line 2 \(a, q1, trial 0\) has score 1\.5; expected an integer category "
            r"0\.\.C or a graded score in \[0, 1\]",
        ),
        "negative.csv": (
            head + "a,q1,0,1\na,q1,1,-1\n",
            r"negative.csv: line 3 \(a, q1, trial 1\) has score .*-1.*expected an integer category",
        ),
        "blank.csv": (
            head + "a,q1,0,1\na,q1,1,\n",
            r"blank.csv: line 3 .* has no score but status 'ok'",
        ),
        "dup.csv": (head + "a,q1,0,1\na,q1,0,0\n", r"dup.csv: line 3 repeats model='a'"),
        "gap.csv": (
            head + "a,q1,0,1\nb,q2,0,1\n",
            r"model .*a.* has no scored attempt on question",
        ),
    }
    for name, (text, match) in bad.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ValueError, match=match) as info:
            read_eval_log(path).results()
        assert str(path) in str(info.value)
    with pytest.raises(ValueError, match="no such file"):
        read_eval_log(tmp_path / "absent.csv")


def test_messages_show_numpy_values_as_plain_python():
    # users see 1.5 and 'model-b', never np.float64(1.5) or np.str_('model-b')
    from bayes_eval.inputs import shown

    assert shown(np.float64(1.5)) == "1.5" and shown(np.str_("model-b")) == "'model-b'"
    assert shown(np.array([1, 2])) == "[1, 2]" and shown("x" * 100).endswith("...")
    R = np.zeros((2, 3), int)
    for kwargs in ({"w": np.array([0.0, np.inf])}, {"alpha0": np.float64(-1.0)}):
        with pytest.raises(ValueError) as info:
            be.bayes(R, **kwargs)
        assert "np." not in str(info.value)
