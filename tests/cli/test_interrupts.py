"""Ctrl-C while a command samples, sampler output kept off stdout, and what a fit that fails
its convergence checks prints (issue 27).

The SIGINT tests run ``bayes-eval`` in a subprocess of its own process group (as a terminal's
Ctrl-C reaches every process of the foreground job) and send the signal once the sampler has
started, told by the line PyMC logs on stderr when it starts sampling.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

from bayes_eval.cli import main

BAYES_EVAL = str(Path(sys.executable).with_name("bayes-eval"))
#: Exit within this many seconds of Ctrl-C (issue 27).
DEADLINE = 5.0


def _interrupt(
    argv: list[str], started: str, after: float, **env: str
) -> tuple[int, float, str, str]:
    """Run ``bayes-eval argv``, send SIGINT to its process group ``after`` seconds after a
    stderr line containing ``started``; return (status, seconds to exit, stdout, stderr).
    ``env``: more environment variables."""
    env = dict(os.environ, PYTENSOR_FLAGS="numba__fastmath=False") | env
    proc = subprocess.Popen(
        [BAYES_EVAL, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )
    err: list[str] = []
    seen = threading.Event()

    def read_stderr() -> None:
        for line in proc.stderr:
            err.append(line)
            if started in line:
                seen.set()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert seen.wait(120), "".join(err)
        time.sleep(after)
        assert proc.poll() is None, "finished before the interrupt: give it more draws"
        os.killpg(proc.pid, signal.SIGINT)
        start = time.monotonic()
        proc.wait(timeout=30)
        elapsed = time.monotonic() - start
        stdout = proc.stdout.read()
        reader.join(5)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, elapsed, stdout, "".join(err)


def _assert_interrupted(status: int, elapsed: float, stdout: str, stderr: str) -> None:
    assert status == 130, stderr
    assert elapsed < DEADLINE, elapsed
    assert stderr.rstrip().splitlines()[-1] == "bayes-eval: interrupted", stderr
    assert stderr.count("bayes-eval:") == 1, stderr  # no error, no warning about a partial fit
    for sign in ("Traceback", "SystemError", "non-finite"):
        assert sign not in stderr, stderr
    assert stdout == ""  # no result from the draws made before the interrupt


#: Enough draws that sampling lasts well past the interrupt (~1,000 draws/s per chain here).
LONG = ["--draws", "50000", "--tune", "500", "--chains", "2", "--seed", "1"]


@pytest.mark.pymc
@pytest.mark.slow
def test_sigint_while_crosscheck_samples_exits_130():
    """PyMC's NUTS, interrupted mid-sampling: PyMC catches the interrupt and returns the
    draws so far, or Numba turns it into SystemError; either way one line and status 130
    (before the fix: exit 1 with a SystemError traceback, or a FAIL table from one chain)."""
    argv = ["crosscheck", "dataset:taubench_airline_gpt4o", "--prior-kind", "uniform", *LONG]
    out = _interrupt([*argv, "--mc-draws", "1000"], started="NUTS: [", after=0.5)
    _assert_interrupted(*out)


@pytest.mark.pymc
@pytest.mark.slow
def test_sigint_while_crossed_rank_samples_with_nutpie_exits_130():
    """nutpie aborts and returns a partial trace on Ctrl-C: not a finished fit (before the
    fix: exit 2, "mu contains a non-finite value"). ``--json``: stdout stays empty."""
    argv = ["rank", "dataset:matharena_aime25_i", "--estimator", "crossed", "--sampler"]
    out = _interrupt([*argv, "nutpie", *LONG, "--json"], started="NUTS[nutpie]", after=0.5)
    _assert_interrupted(*out)


@pytest.mark.pymc
@pytest.mark.slow
def test_sigint_while_judges_samples_in_worker_processes_exits_130():
    """The judges model samples its chains in worker processes (multiprocess PyMC): Ctrl-C
    reaches the whole process group; one line and status 130, no result."""
    argv = ["judges", "dataset:mtbench_judges", *LONG]
    out = _interrupt(argv, started="NUTS: [", after=0.5)
    _assert_interrupted(*out)
    # which fit runs is said on stderr before it starts (a pipe shows no progress bar)
    assert "judges: fitting dataset:mtbench_judges [" in out[3] and "(1 of 1)" in out[3]


@pytest.mark.pymc
@pytest.mark.slow
def test_sigint_while_the_model_compiles_exits_130(tmp_path):
    """Ctrl-C while PyTensor compiles the crossed model (fresh, empty compile caches: the
    compilation takes seconds after PyMC's "Initializing NUTS" line and before its sampling
    line): one line and status 130 (before the fix it was once ignored and the run finished)."""
    argv = ["rank", "dataset:matharena_aime25_i", "--estimator", "crossed", *LONG]
    flags = f"compiledir={tmp_path / 'pytensor'},numba__fastmath=False"
    status, elapsed, stdout, stderr = _interrupt(
        argv,
        started="Initializing NUTS",
        after=0.2,
        PYTENSOR_FLAGS=flags,
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
    )
    assert "sampling (" not in stderr, "the interrupt came after compiling: " + stderr
    _assert_interrupted(status, elapsed, stdout, stderr)


@pytest.mark.slow  # a fresh interpreter: about a second
def test_sigint_during_the_first_imports_exits_130():
    """Ctrl-C while ``bayes-eval`` still imports its numerical stack, before any command runs:
    one line and status 130, not Python's traceback. The moment is told by Python's import
    log (``PYTHONPROFILEIMPORTTIME``): ``bayes_eval.cli`` is imported, the program is not."""
    status, elapsed, stdout, stderr = _interrupt(
        ["datasets"], started="| bayes_eval.cli\n", after=0.0, PYTHONPROFILEIMPORTTIME="1"
    )
    own = [line for line in stderr.splitlines() if not line.startswith("import time:")]
    # stdout stays empty: the command never ran (an interrupt that Python reported and
    # ignored in an import's finaliser, which then went on, ends the same way)
    _assert_interrupted(status, elapsed, stdout, "\n".join(own))


@pytest.mark.pymc  # imports PyMC (bayes_eval.models), samples nothing
def test_sampler_session_turns_a_swallowed_interrupt_into_keyboardinterrupt(capsys):
    """What PyMC does on Ctrl-C (catch KeyboardInterrupt, return what it has) or Numba (raise
    SystemError instead) ends the session with KeyboardInterrupt; text printed inside goes to
    stderr; the previous SIGINT handler is back afterwards."""
    from bayes_eval.models.sampling import sampler_session

    before = signal.getsignal(signal.SIGINT)
    for swallow in (True, False):
        with pytest.raises(KeyboardInterrupt), sampler_session():
            print("progress")
            try:
                signal.raise_signal(signal.SIGINT)
                time.sleep(1.0)  # the handler raises here
            except KeyboardInterrupt:
                if not swallow:
                    raise SystemError("returned a result with an exception set") from None
        assert signal.getsignal(signal.SIGINT) is before
    with sampler_session():  # no interrupt: nothing raised
        print("more progress")
    out = capsys.readouterr()
    assert out.out == "" and out.err.split() == ["progress", "progress", "more", "progress"]


@pytest.mark.pymc  # imports PyMC (bayes_eval.models), samples nothing
def test_an_interrupt_landing_in_a_finaliser_prints_no_traceback(monkeypatch):
    """Seen in CI: SIGINT raised inside a weakref callback, which Python reports as "Exception
    ignored in ..." with a traceback. Once an interrupt is noted such reports are dropped;
    other unraisable exceptions are still reported, and the hook is restored afterwards."""
    import types

    from bayes_eval.models.sampling import sampler_session

    def unraisable(exc):
        return types.SimpleNamespace(
            exc_type=type(exc), exc_value=exc, exc_traceback=None, err_msg=None, object=None
        )

    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(u.exc_value))
    before = sys.unraisablehook
    with pytest.raises(KeyboardInterrupt), sampler_session():
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(1.0)
        except KeyboardInterrupt:
            pass
        sys.unraisablehook(unraisable(KeyboardInterrupt()))
        sys.unraisablehook(unraisable(ValueError("a real problem")))
    assert sys.unraisablehook is before
    assert [type(e) for e in reported] == [ValueError]


def test_main_reports_an_interrupt_a_library_turned_into_another_error(monkeypatch, capsys):
    """An interrupt that reaches main as a ValueError (a partial fit rejected as bad data) or
    not at all (swallowed, the command finished) still ends with one line and status 130."""
    import bayes_eval.cli._program as cli

    def swallowed(args):
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(1.0)
        except KeyboardInterrupt:
            if args.name == "bad":
                raise ValueError("mu contains a non-finite value") from None
        return 0

    real = cli.parser

    def patched(only=None):  # `datasets NAME` runs `swallowed`
        p = real(only)
        sub = next(a for a in p._actions if a.dest == "command")
        sub.choices["datasets"].set_defaults(func=swallowed)
        return p

    monkeypatch.setattr(cli, "parser", patched)
    for name in ("bad", "phi4_aime25"):
        assert main(["datasets", name]) == 130
        err = capsys.readouterr().err
        assert err == "bayes-eval: interrupted\n"


def test_rank_crossed_passes_target_accept(monkeypatch):
    """``--target-accept`` reaches the sampler of ``rank --estimator crossed``; out of (0, 1)
    it is refused when parsed, naming the option."""
    import bayes_eval.models.crossed_leaderboard as cl

    seen = {}

    class Stop(Exception):
        pass

    def fake(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(cl, "crossed_leaderboard", fake)
    argv = ["rank", "dataset:matharena_aime25_i", "--estimator", "crossed"]
    with pytest.raises(Stop):
        main([*argv, "--target-accept", "0.97"])
    assert seen["nuts"].target_accept == 0.97
    with pytest.raises(Stop):
        main(argv)
    assert seen["nuts"].target_accept is None  # the model's own default


@pytest.mark.parametrize("value", ["1", "0", "1.5", "nan", "high"])
def test_target_accept_outside_0_1_is_refused(value, capsys):
    assert main(["crosscheck", "dataset:phi4_aime25", "--target-accept", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bayes-eval: error: argument --target-accept:") and "(0, 1)" in err


def test_convergence_warning_says_not_to_be_trusted_and_names_target_accept(capsys):
    """The ConvergenceWarning of a fit, as the command line prints it: the numbers are not to
    be trusted, one failed check per line (at most 6, the rest counted), and the advice
    names options that exist."""
    from bayes_eval.cli._program import _one_line_warning, parser
    from bayes_eval.models.sampling import ConvergenceWarning, Diagnostics, warn_if_unconverged

    checks = [f"r-hat of 'theta{i}' is 1.050 > 1.01" for i in range(7)]
    checks.append("3 divergences after tuning (0.15% of 2000 draws) > 0: increase target_accept")
    diag = Diagnostics(1.05, 50.0, 50.0, 3, 0.0015, False, tuple(checks))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        warn_if_unconverged(diag, "crossed model fit")
    (w,) = rec
    assert w.category is ConvergenceWarning
    _one_line_warning(w.message, w.category, w.filename, w.lineno)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == (
        "bayes-eval: warning: crossed model fit did not pass the convergence checks: "
        "its numbers are not to be trusted"
    )
    assert lines[1:7] == [f"  {c}" for c in checks[:6]]
    assert lines[7] == "  ... and 2 more failed check(s)"
    assert "--target-accept" in lines[8] and "--draws" in lines[8] and "--tune" in lines[8]
    for command in ("crosscheck", "rank", "judges", "compare", "priors"):
        sub = next(a for a in parser()._actions if a.dest == "command").choices[command]
        options = {s for a in sub._actions for s in a.option_strings}
        assert {"--draws", "--tune", "--target-accept"} <= options, command


@pytest.mark.pymc
@pytest.mark.slow
def test_rank_crossed_json_stdout_is_json_with_progress_on(tmp_path):
    """With --json the progress bars are off and PyMC's log lines and the convergence warning
    go to stderr: stdout is the JSON document alone (progress, when on, is sent to stderr by
    ``sampler_session``: tested above)."""
    env = dict(os.environ, PYTENSOR_FLAGS="numba__fastmath=False")
    argv = ["rank", "dataset:matharena_aime25_i", "--estimator", "crossed", "--json"]
    argv += ["--draws", "50", "--tune", "50", "--chains", "2"]
    proc = subprocess.run([BAYES_EVAL, *argv], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["estimator"] == "crossed" and doc["fit"]["converged"] is False
    assert "not to be trusted" in proc.stderr and "--target-accept" in proc.stderr


def test_an_interrupt_before_the_handler_is_installed_prints_one_line(monkeypatch, capsys):
    # Ctrl-C in the first lines of run(), before its SIGINT handler is in place (seen once in a
    # full run of test_sigint_during_the_first_imports_exits_130: the interrupt hit
    # signal.getsignal): one line and status 130, not Python's traceback
    import bayes_eval.cli as cli

    def interrupted(signum):
        raise KeyboardInterrupt

    handler = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(cli.signal, "getsignal", interrupted)
    assert cli.run() == 130
    assert capsys.readouterr().err == "bayes-eval: interrupted\n"
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGINT) is handler  # nothing was changed


def test_sigint_between_the_console_script_import_and_run_exits_130():
    """The console script runs ``from bayes_eval.cli import run`` and then ``run()``: a Ctrl-C
    between the two (a window the import-log test above hits on a loaded machine) is noted
    by the guard the import installs under ``bayes-eval`` and reported by ``run``: one line,
    status 130, no traceback. Imported by any other program the module leaves SIGINT alone."""
    code = (
        "import os, signal, sys\n"
        "sys.argv[0] = '/somewhere/bin/bayes-eval'\n"
        "from bayes_eval.cli import run\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.argv = ['bayes-eval', 'datasets']\n"
        "sys.exit(run())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130, done.stderr
    assert done.stderr == "bayes-eval: interrupted\n" and done.stdout == ""
    other = "import signal, bayes_eval.cli; print(signal.getsignal(signal.SIGINT).__name__)"
    done = subprocess.run([sys.executable, "-c", other], capture_output=True, text=True)
    assert done.stdout.strip() == "default_int_handler", done.stderr
