"""The Inspect AI extension on a real Inspect run: ``inspect_ai.eval`` of a small task with
the ``mockllm/model`` provider over several epochs (no network: sockets are refused; every
file under tmp_path), then the bayes_at_n metric against ``bayes_ci`` on the log read back,
and Inspect's log reader against ours.

Needs the ``inspect`` extra (``make test`` installs it); without it these tests skip.
Imports happen inside the fixtures so that the fast tier never loads Inspect (~2 s).
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from bayes_eval import datasets
from bayes_eval.metrics.bayes import bayes_ci

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("inspect-run"),  # one worker runs the eval once for all tests
    # Inspect builds its tenacity retry policy with a keyword tenacity deprecates
    pytest.mark.filterwarnings("ignore:The .initial. parameter is deprecated:DeprecationWarning"),
]

#: correct epochs of each sample out of EPOCHS; the graded scorer gives P to one wrong epoch
RIGHT = {"q1": 4, "q2": 1, "q3": 0, "q4": 3, "q5": 2}
EPOCHS = 4
FAILS = ("q4", 1)  # the second call for q4 raises: one errored epoch, a missing trial


def _no_network(*args, **kwargs):
    raise OSError("network access in a test")


@pytest.fixture(scope="module")
def inspect_run(tmp_path_factory):
    """One Inspect eval: 5 samples x 4 epochs, scorers ``match`` (C/I) and ``graded``
    (C/P/I), each with accuracy, stderr and bayes_at_n; returns (eval log, log path)."""
    pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install -e .[inspect]")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, accuracy, match, scorer
    from inspect_ai.scorer import stderr as inspect_stderr
    from inspect_ai.solver import generate

    from bayes_eval.logs.inspect_metric import bayes_at_n

    base = tmp_path_factory.mktemp("inspect")
    mp = pytest.MonkeyPatch()
    mp.setattr(socket.socket, "connect", _no_network)
    mp.setattr(socket, "getaddrinfo", _no_network)
    for var, sub in (("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        mp.setenv(var, str(base / sub))  # Inspect's traces and caches
    mp.setenv("INSPECT_LOG_DIR", str(base / "logs"))
    calls: Counter = Counter()

    def reply(messages, tools, tool_choice, config):
        q = messages[-1].text.split(":")[0]
        k = calls[q]
        calls[q] += 1
        if (q, k) == FAILS:
            raise RuntimeError("mock model failure")
        text = "yes" if k < RIGHT[q] else ("maybe" if k == RIGHT[q] else "no")
        out = ModelOutput.from_content(model="mockllm", content=text)
        out.usage = ModelUsage(input_tokens=4, output_tokens=1, total_tokens=5)  # no tiktoken
        return out

    @scorer(metrics=[accuracy()])
    def graded():
        async def score(state, target):
            said = state.output.completion
            value = {"yes": CORRECT, "maybe": PARTIAL}.get(said, INCORRECT)
            return Score(value=value, answer=said)

        return score

    task = Task(
        dataset=[Sample(id=q, input=f"{q}: say yes", target="yes") for q in RIGHT],
        solver=generate(),
        scorer=[match(), graded()],
        metrics=[accuracy(), inspect_stderr(), bayes_at_n()],  # for both scorers
    )
    root = logging.getLogger()
    before = (list(root.handlers), root.level, sys.excepthook)
    try:
        (log,) = inspect_eval(
            task,
            model=get_model("mockllm/model", custom_outputs=reply),
            epochs=EPOCHS,
            log_dir=str(base / "logs"),
            display="none",
            fail_on_error=False,
            max_samples=1,
        )
    finally:
        mp.undo()
        # Inspect installs a root log handler and an excepthook: later tests run without them
        root.handlers[:] = before[0]
        root.setLevel(before[1])
        sys.excepthook = before[2]
    (path,) = (base / "logs").glob("*.eval")
    return log, path


def _reported(path, scorer_name):
    """What the log file says bayes_at_n reported for a scorer (mu, sd, lo, hi), the params it
    recorded, and the names of the scorer's other metrics."""
    from inspect_ai.log import read_eval_log as inspect_read

    scores = inspect_read(str(path), header_only=True).results.scores
    mine = [s.metrics for s in scores if s.scorer == scorer_name and "bayes@N" in s.metrics]
    others = {k for s in scores if s.scorer == scorer_name for k in s.metrics}
    assert len(mine) == 1, f"one bayes_at_n result for {scorer_name}"
    values = [mine[0][k].value for k in ("bayes@N", "bayes_sd", "bayes_lo", "bayes_hi")]
    return values, mine[0]["bayes@N"].params, others


@pytest.mark.parametrize(("scorer_name", "weights"), [("match", [0, 1]), ("graded", [0, 0.5, 1])])
def test_metric_equals_bayes_ci_on_the_log_it_wrote(inspect_run, scorer_name, weights):
    from bayes_eval.logs import read_eval_log

    log, path = inspect_run
    assert log.status == "success"
    got, params, beside = _reported(path, scorer_name)
    assert {"accuracy", "stderr"} <= beside
    assert params["estimand"] == "these questions"
    assert params["prior_label"] == "empirical (per model, board-informed, integrated)"
    back = read_eval_log(path, scorer=scorer_name)
    assert back.meta["default_weights"] == weights
    R = back.results().sel(model="mockllm/model").values
    missing = np.isnan(R)
    assert missing.sum() == 1 and R.shape == (len(RIGHT), EPOCHS)  # the failed epoch
    labels = np.where(missing, 0, R).astype(np.int64)
    expected = bayes_ci(labels, weights, prior="empirical", mask=missing, bounds="support")
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_inspect_reader_and_ours_give_the_same_log(inspect_run, monkeypatch):
    from inspect_ai.log import read_eval_log as inspect_read
    from inspect_ai.log import write_eval_log

    from bayes_eval.logs import inspect_ai as reader
    from bayes_eval.logs import read_eval_log

    _, path = inspect_run
    as_json = path.with_suffix(".json")  # the same log in Inspect's JSON format
    write_eval_log(inspect_read(str(path)), str(as_json), format="json")
    shipped = datasets.files("inspect_mmlu_log", "mmlu-summary-choices.eval")
    files = (path, as_json, shipped)
    for p in files:
        assert reader._inspect_ai_parts(p) is not None  # Inspect's reader read it
    via_inspect = [read_eval_log(p, scorer=s) for p in files[:2] for s in ("match", "graded")]
    via_inspect.append(read_eval_log(shipped))
    # as if not installed (zipfile stays patched for Zstandard by inspect_ai's import: see
    # test_without_inspect_a_zstd_log_is_refused_with_advice for a process without it)
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    assert reader._inspect_ai_parts(path) is None
    ours = [read_eval_log(p, scorer=s) for p in files[:2] for s in ("match", "graded")]
    ours.append(read_eval_log(shipped))
    for a, b in zip(via_inspect, ours, strict=True):
        assert a.table.equals(b.table)
        assert (a.signals, a.sources, a.format, dict(a.meta)) == (
            b.signals,
            b.sources,
            b.format,
            dict(b.meta),
        )
    # the log holds what the mock model was told to say: q4's second call failed, so its
    # third and fourth calls said "yes" and "maybe"
    R = ours[0].results().sel(model="mockllm/model")
    assert dict(zip(R["question"].values, np.nansum(R.values, axis=1), strict=True)) == {
        "q1": 4,
        "q2": 1,
        "q3": 0,
        "q4": 2,
        "q5": 2,
    }
    assert (ours[0].table["status"] == "error").sum() == 1


def test_without_inspect_a_zstd_log_is_refused_with_advice(inspect_run, tmp_path):
    _, path = inspect_run
    blocked = tmp_path / "blocked" / "inspect_ai"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('not installed')\n")
    code = f"from bayes_eval.logs import read_eval_log; read_eval_log({str(path)!r})"
    env = {**os.environ, "PYTHONPATH": str(blocked.parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 1
    assert "ValueError" in out.stderr and "Inspect writes Zstandard-compressed" in out.stderr
    assert "pip install 'bayes_eval[inspect]'" in out.stderr


def test_metric_is_registered_for_inspect(inspect_run):
    from importlib.metadata import distributions

    from bayes_eval.logs.inspect_metric import bayes_at_n

    # the installed package's entry point makes ``bayes_eval/bayes_at_n`` known to Inspect (a
    # stale bayes_eval.egg-info in the working directory may shadow the installed metadata in
    # importlib.metadata.entry_points(): every bayes_eval distribution found is asked)
    found = [
        ep
        for d in distributions()
        if d.metadata["Name"] == "bayes_eval"
        for ep in d.entry_points
        if ep.group == "inspect_ai" and ep.name == "bayes_eval"
    ]
    assert found and found[0].load().__name__ == "bayes_eval.logs.inspect_metric"
    with pytest.raises(ValueError, match="prior is 'flat'"):
        bayes_at_n(prior="flat")  # refused when the task is built, not after the run
