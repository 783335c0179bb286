"""Inspect AI evaluation logs (``.eval`` zip of JSON, or a ``.json`` log).

Layout read (Inspect log format version 2): ``header.json`` (``eval.model``, ``eval.task``,
``eval.scorers``) and one ``samples/<id>_epoch_<n>.json`` per sample and epoch, each with
``id``, ``epoch``, ``scores`` (``{scorer: {value, answer, ...}}``), ``output`` (``usage``,
``choices[0].stop_reason``) and ``error`` when the sample failed. A ``.json`` log holds the
same header keys and a ``samples`` list.

Mapping:

* epochs are trials; sample ids are questions; the task is ``eval.task``;
* the primary scorer (``scorer=``, default the first listed in the header) gives the
  category ``score``. Letter values use Inspect's conventions C (correct), P (partial),
  I (incorrect), N (no answer): by default ``I, N -> 0, C -> 1`` when no ``P`` occurs in the
  logs read, and ``I, N -> 0, P -> 1, C -> 2`` with weights ``(0, 0.5, 1)`` otherwise (the
  weights are Inspect's own ``value_to_float``); ``value_map=`` overrides. Booleans and the
  numbers 0/1 are categories as they are;
* **every scorer becomes a signal** ``score_<scorer>`` (C = 1, P = 0.5, I = N = 0; numbers as
  they are; dict values give ``score_<scorer>_<key>``), so several scorers or judges are
  available to rubric schemata; ``is_correct`` is the primary scorer's value;
* ``token_ratio`` = output tokens / ``max_tokens`` (32768 as in Hariri et al., "Don't Pass@k",
  App. F.1),
  ``repeated_pattern`` = 0 if the stop reason is ``stop`` or ``tool_calls``, else 1;
* samples with an ``error`` are failed trials (status ``error``).

**Which reader.** When the ``inspect_ai`` package is importable (the ``inspect`` extra), each
file is read by Inspect's own ``inspect_ai.log.read_eval_log`` (messages, events, store and
attachments skipped), so whatever log versions Inspect reads are read; the fields above are
taken from its ``EvalLog`` and mapped as described. Without it, or for a file Inspect refuses
(e.g. a hand-written or truncated log), this module's own reader of the JSON takes over and
either reads the file or says what is wrong with it. On logs Inspect writes both give the
same :class:`~bayes_eval.logs.eval_log.EvalLog` (tested on a real ``mockllm`` run). Inspect
compresses ``.eval`` archives with Zstandard, which Python's ``zipfile`` reads only once
``inspect_ai`` is imported (it patches ``zipfile`` through ``zipfile-zstd``); without the
extra such a log is refused with that advice.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log, positive_int

__all__ = ["LETTER_VALUES", "read_inspect"]

#: Inspect's ``value_to_float`` for letter scores.
LETTER_VALUES = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_SAMPLE = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")


def _load_json(raw: bytes, where: str) -> Any:
    """The JSON value of ``raw`` (text that is not JSON is refused, naming ``where``)."""
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: not valid JSON ({exc}).") from exc
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read.") from None


def _log_parts(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    """(header, [(where, sample), ...]) of one log file: Inspect's reader, else ours."""
    parts = _inspect_ai_parts(path)
    return parts if parts is not None else _own_parts(path)


def _inspect_ai_parts(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]]] | None:
    """The fields this module reads, from ``inspect_ai.log.read_eval_log``, in the JSON's layout.

    Samples come in the order of their archive names. None without ``inspect_ai`` or for a
    file it refuses.
    """
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        return None
    try:
        log = read_eval_log(
            str(path), exclude_fields={"messages", "events", "store", "attachments"}
        )
    except Exception:  # pydantic, zip and JSON errors: our reader says what is wrong
        return None
    ev = log.eval
    header = {
        "eval": {
            "model": ev.model,
            "task": ev.task,
            "created": ev.created,
            "scorers": [{"name": sc.name} for sc in ev.scorers or []],
            **{key: _plain(getattr(ev, key, None)) for key in VARIANT_FIELDS},
        }
    }
    plan = getattr(log, "plan", None)
    if plan is not None and getattr(plan, "config", None) is not None:
        header["plan"] = {"config": _plain(plan.config)}
    samples = []
    for i, s in enumerate(log.samples or []):
        usage = s.output.usage
        record = {
            "id": s.id,
            "epoch": s.epoch,
            "scores": {k: {"value": v.value} for k, v in (s.scores or {}).items()},
            "output": {
                "usage": None if usage is None else {"output_tokens": usage.output_tokens},
                "choices": [{"stop_reason": c.stop_reason} for c in s.output.choices],
            },
            "error": None if s.error is None else {"message": s.error.message},
        }
        name = f"samples/{s.id}_epoch_{s.epoch}.json"
        samples.append(
            (
                name,
                f"{path}: " + (f"samples[{i}]" if path.suffix.lower() == ".json" else name),
                record,
            )
        )
    if path.suffix.lower() != ".json":
        samples.sort(key=lambda x: x[0])
    return header, [(where, record) for _, where, record in samples]


def _plain(value: Any) -> Any:
    """A pydantic object as the plain JSON values of its set fields (others as they are)."""
    dump = getattr(value, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else value


def _own_parts(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    """(header, [(where, sample), ...]) of one log file, read from its JSON."""
    if path.suffix.lower() == ".json":
        data = _load_json(path.read_bytes(), str(path))
        if not isinstance(data, dict) or "eval" not in data:
            raise ValueError(f"{path}: not an Inspect log (no 'eval' key).")
        samples = data.get("samples") or []
        if not isinstance(samples, list):
            raise ValueError(
                f"{path}: 'samples' is a {_kind(samples)}; expected a list of sample records."
            )
        return data, [(f"{path}: samples[{i}]", s) for i, s in enumerate(samples)]
    try:
        return _zip_parts(path)
    except ValueError:
        raise
    except NotImplementedError as exc:  # zipfile: a compression method it cannot decompress
        raise ValueError(
            f"{path}: the archive's compression is one this Python's zipfile cannot read "
            f"({exc}); Inspect writes Zstandard-compressed .eval logs: install the inspect "
            "extra (pip install 'bayes_eval[inspect]'), whose reader reads them."
        ) from exc
    except Exception as exc:  # zipfile, zlib and the file system raise many error types
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise ValueError(
            f"{path}: not an Inspect .eval log (a damaged zip archive: {detail})."
        ) from exc


def _zip_parts(path: Path) -> tuple[Mapping[str, Any], list[tuple[str, Any]]]:
    """(header, [(where, sample), ...]) of an ``.eval`` zip archive."""
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{path}: not an Inspect .eval log (not a zip archive).") from exc
    with zf:
        names = zf.namelist()
        head_name = "header.json" if "header.json" in names else "_journal/start.json"
        if head_name not in names:
            raise ValueError(f"{path}: no header.json or _journal/start.json in the archive.")
        header = _load_json(zf.read(head_name), f"{path}: {head_name}")
        if not isinstance(header, Mapping):
            raise ValueError(
                f"{path}: {head_name} holds a {_kind(header)}; expected a JSON object "
                "with an 'eval' record (an Inspect log)."
            )
        samples = []
        for name in sorted(n for n in names if _SAMPLE.match(n)):
            samples.append((f"{path}: {name}", _load_json(zf.read(name), f"{path}: {name}")))
    return header, samples


def _kind(value: object) -> str:
    """The JSON name of a value's type."""
    if isinstance(value, Mapping):
        return "JSON object"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else type(value).__name__


def _epoch(value: object, where: str) -> int:
    """A sample's epoch, an integer >= 1 (``"2"`` and ``2.0`` are 2)."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where}: epoch is {value!r}; expected an integer >= 1.")
    return value


def _label(value: object, name: str, where: str) -> str:
    """A model, task or sample id as text: a string or a number, else refused."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(
            f"{where}: {name} is a {_kind(value)} ({value!r:.40}); expected a string or a number."
        )
    return str(value)


def _output_signals(output: object, max_tokens: int, where: str) -> dict[str, float]:
    """``token_ratio`` and ``repeated_pattern`` from a sample's ``output`` (where present)."""
    out: dict[str, float] = {}
    if not isinstance(output, Mapping):
        return out
    usage = output.get("usage")
    tokens = usage.get("output_tokens") if isinstance(usage, Mapping) else None
    if tokens is not None:
        if isinstance(tokens, bool) or not isinstance(tokens, (int, float)):
            raise ValueError(f"{where}: output_tokens is {tokens!r:.40}; expected a number.")
        out["token_ratio"] = float(tokens) / max_tokens
    choices = output.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        stop = choices[0].get("stop_reason")
        if stop:
            out["repeated_pattern"] = float(stop not in ("stop", "tool_calls"))
    return out


def _check_value_map(value_map: object) -> dict[str, int]:
    """``value_map`` with upper-case letters, each mapped to an integer category >= 0."""
    if not isinstance(value_map, Mapping):
        raise ValueError(
            f"value_map is {value_map!r:.60}; expected a mapping of score letters to categories."
        )
    out = {}
    for k, v in value_map.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(
                f"value_map maps {k!r} to {v!r:.40}; expected an integer category >= 0."
            )
        out[str(k).upper()] = v
    return out


def _value_float(value: object, where: str) -> dict[str, float]:
    """A score value as floats by column suffix (``""``, or ``"_key"`` per key of a dict)."""
    if isinstance(value, bool):
        return {"": float(value)}
    if isinstance(value, (int, float)):
        return {"": float(value)}
    if isinstance(value, str):
        if value.upper() in LETTER_VALUES:
            return {"": LETTER_VALUES[value.upper()]}
        try:
            return {"": float(value)}
        except ValueError:
            raise ValueError(
                f"{where}: score value {value!r:.60} is not C/P/I/N or a number."
            ) from None
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if isinstance(v, (Mapping, list)):
                raise ValueError(
                    f"{where}: score value {value!r:.60} nests a {_kind(v)}; expected numbers or "
                    "C/P/I/N letters."
                )
            out[f"_{k}"] = _value_float(v, where)[""]
        return out
    if value is None:
        return {"": np.nan}
    raise ValueError(
        f"{where}: score value {value!r:.60} is a {_kind(value)}; expected a number, a boolean, "
        "C/P/I/N or a JSON object of those."
    )


#: The parts of a run's header that make it another variant of a model on a task (arguments
#: of the task and of the model, generation settings, the solver plan's settings): runs that
#: differ in any are never trials of one model.
VARIANT_FIELDS = ("task_args", "model_args", "model_generate_config")


def _once(files: Sequence[Path]) -> list[Path]:
    """Each file once (a file reached twice, e.g. through a folder and itself)."""
    seen, out = set(), []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            out.append(f)
    return out


def _variant(header: Mapping, ev: Mapping) -> dict[str, str]:
    """A run's settings that must agree for its epochs to be trials of the same model."""
    out = {}
    for key in VARIANT_FIELDS:
        value = ev.get(key)
        if value not in (None, {}, []):
            out[key] = json.dumps(value, sort_keys=True, default=str)
    plan = header.get("plan")
    config = plan.get("config") if isinstance(plan, Mapping) else None
    if isinstance(config, Mapping) and config:
        out["generate_config"] = json.dumps(config, sort_keys=True, default=str)
    return out


def _runs(runs: list[_Run]) -> tuple[list[str], list[int]]:
    """The model label and the first trial of every run.

    Runs of one model on one task with the same settings are its repeated runs (their epochs
    follow each other as trials, in the order the runs were created); runs whose settings
    differ are variants, labelled ``model [setting=value, ...]`` with the settings that tell
    them apart.
    """
    groups: dict[tuple[str, str], list[int]] = {}
    keys = []
    for i, (_, header, _samples, ev, name, task) in enumerate(runs):
        variant = _variant(header, ev)
        keys.append(variant)
        groups.setdefault((name, task), []).append(i)
    labels = [r[4] for r in runs]
    offsets = [0] * len(runs)
    for members in groups.values():
        distinct = list(dict.fromkeys(json.dumps(keys[i], sort_keys=True) for i in members))
        if len(distinct) > 1:
            fields = sorted({f for i in members for f in keys[i]})
            differ = [f for f in fields if len({keys[i].get(f) for i in members}) > 1]
            for i in members:
                shown_ = ", ".join(f"{f}={keys[i].get(f, '{}')}" for f in differ)
                labels[i] = f"{runs[i][4]} [{shown_}]"
        by_label: dict[str, list[int]] = {}
        for i in members:
            by_label.setdefault(labels[i], []).append(i)
        for same in by_label.values():
            same.sort(key=lambda i: (str(runs[i][3].get("created", "")), str(runs[i][0])))
            start = 0
            for i in same:
                offsets[i] = start
                epochs = [s.get("epoch") for _, s in runs[i][2] if isinstance(s, Mapping)]
                numbers = [e for e in epochs if isinstance(e, int) and not isinstance(e, bool)]
                start += max(numbers, default=0)
    return labels, offsets


def _signal_name(scorer: str) -> str:
    return "score_" + re.sub(r"[^A-Za-z0-9_]+", "_", scorer).strip("_")


def read_inspect(
    paths: Sequence[Path],
    *,
    model: str | None = None,
    scorer: str | None = None,
    value_map: Mapping[str, int] | None = None,
    max_tokens: int | None = None,
    **options: Any,
) -> EvalLog:
    """Read Inspect AI logs (see the module docstring for the mapping).

    Parameters
    ----------
    paths : sequence of Path
        ``.eval`` or ``.json`` logs, or folders of ``.eval`` logs.
    model : str, optional
        The model's name; default each log's ``eval.model``.
    scorer : str, optional
        The primary scorer, which gives the category; default the first in the header.
    value_map : mapping of str to int, optional
        Score letter to category (e.g. ``{"I": 0, "P": 1, "C": 2}``); default Inspect's
        conventions, as in the module docstring.
    max_tokens : int, optional
        The output budget dividing the output tokens into ``token_ratio``, default 32768.
    **options
        The reader options of the other formats: refused unless ``None``.

    Returns
    -------
    EvalLog
        One row per sample and epoch, of format ``"inspect"``; ``meta`` names the scorer, the
        category map and the default weights.

    Examples
    --------
    >>> from bayes_eval.datasets import files
    >>> from bayes_eval.logs.inspect_ai import read_inspect
    >>> log = read_inspect([files("inspect_mmlu_log", "mmlu-summary-choices.eval")])
    >>> log.table["model"][0], log.table["task"][0], dict(log.results().sizes)
    ('openai/gpt-4o', 'inspect_evals/mmlu_0_shot', {'model': 1, 'question': 1, 'trial': 1})
    >>> log.signals
    ('score_choice', 'is_correct', 'token_ratio', 'repeated_pattern')
    """
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the inspect reader does not take {sorted(options)}.")
    max_tokens = positive_int("max_tokens", 32768 if max_tokens is None else max_tokens)
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("*.eval")) if p.is_dir() else [p])
    checked_map = None if value_map is None else _check_value_map(value_map)
    runs = [_parse_run(path, model) for path in _once(files)]
    labels, offsets = _runs(runs)
    checked = [_validate_run(run, scorer, max_tokens) for run in runs]
    rows: list[dict[str, Any]] = []
    raws: list[object] = []  # each row's primary score as logged
    wheres: list[str] = []
    for run, label, offset, samples in zip(runs, labels, offsets, checked, strict=True):
        for smp in samples:
            rows.append(_row(smp, label, run.task, offset))
            raws.append(smp.raw)
            wheres.append(smp.where)
    primary_seen = {smp.primary for samples in checked for smp in samples}
    letters = {r.upper() for r in raws if isinstance(r, str) and r.upper() in LETTER_VALUES}
    if checked_map is None:
        checked_map, weights = _default_map(letters)
    else:
        weights = None
    note = _score_rows(rows, raws, checked_map, primary_seen)
    meta: dict[str, object] = {
        "scorer": ", ".join(sorted(str(p) for p in primary_seen)),
        "category_map": json.dumps(checked_map),
    }
    if note is not None:
        meta["note"] = note
        weights = None
    if weights is not None:
        meta["default_weights"] = weights
    return make_log(
        pd.DataFrame(rows),
        fmt="inspect",
        sources=[str(r.path) for r in runs],
        meta=meta,
        locate=wheres.__getitem__,
    )


class _Run(NamedTuple):
    """One parsed log: its file, header, ``(where, sample)`` pairs, ``eval`` record, model, task."""

    path: Path
    header: Mapping[str, Any]
    samples: list[tuple[str, Any]]
    ev: Mapping[str, Any]
    name: str
    task: str


@dataclass(frozen=True)
class _Sample:
    """One checked sample: its question, epoch, primary scorer and signals (in column order)."""

    where: str
    question: str
    epoch: int
    failed: bool
    primary: str | None
    raw: object  # the primary scorer's value as logged (None without one)
    signals: dict[str, float]


def _parse_run(path: Path, model: str | None) -> _Run:
    """Parse: a log's header and samples, with its model and task."""
    header, samples = _log_parts(path)
    ev = header.get("eval") or {}
    if not isinstance(ev, Mapping):
        raise ValueError(f"{path}: 'eval' is a {_kind(ev)}; expected a JSON object.")
    name = model or _label(ev.get("model", path.stem), "eval.model", str(path))
    task = _label(ev.get("task", ""), "eval.task", str(path))
    return _Run(path, header, samples, ev, name, task)


def _validate_run(run: _Run, scorer: str | None, max_tokens: int) -> list[_Sample]:
    """Validate: every sample of a log, checked (a log without samples is refused)."""
    scorers = run.ev.get("scorers")
    scorers = scorers if isinstance(scorers, list) else []
    listed = [
        s["name"] for s in scorers if isinstance(s, Mapping) and isinstance(s.get("name"), str)
    ]
    if not run.samples:
        raise ValueError(
            f"{run.path}: the log holds no samples (was it run with log_samples=False?)."
        )
    return [_check_sample(s, where, scorer, listed, max_tokens) for where, s in run.samples]


def _check_sample(
    s: object, where: str, scorer: str | None, listed: list[str], max_tokens: int
) -> _Sample:
    """A sample's fields, checked; the primary scorer is ``scorer``, else the first listed."""
    if not isinstance(s, Mapping) or "id" not in s or "epoch" not in s:
        raise ValueError(f"{where}: a sample needs 'id' and 'epoch'.")
    scores = s.get("scores") or {}
    if not isinstance(scores, Mapping):
        raise ValueError(f"{where}: 'scores' is a {_kind(scores)}; expected a JSON object.")
    epoch = _epoch(s["epoch"], where)
    primary = scorer or (listed[0] if listed else (next(iter(scores), None)))
    question = _label(s["id"], "the sample id", where)
    failed = bool(s.get("error"))
    if not failed and primary not in scores:
        raise ValueError(
            f"{where}: no score from scorer {primary!r} (scorers present: "
            f"{sorted(scores)}); choose one with scorer=... / --scorer."
        )
    signals, raw = _score_signals(scores, primary, where)
    signals.update(_output_signals(s.get("output"), max_tokens, where))
    return _Sample(where, question, epoch, failed, primary, raw, signals)


def _score_signals(
    scores: Mapping[str, Any], primary: str | None, where: str
) -> tuple[dict[str, float], object]:
    """Every scorer's signal ``score_<scorer>`` (and ``is_correct``), and the primary's value."""
    out: dict[str, float] = {}
    raw = None
    for sc_name, sc in scores.items():
        value = sc.get("value") if isinstance(sc, Mapping) else sc
        for suffix, v in _value_float(value, f"{where}, scorer {sc_name!r}").items():
            out[_signal_name(sc_name) + suffix] = v
        if sc_name == primary:
            raw = value
            out["is_correct"] = _value_float(value, where).get("", np.nan)
    return out, raw


def _row(smp: _Sample, label: str, task: str, offset: int) -> dict[str, Any]:
    """Assemble: a sample's row (its trial follows the run's ``offset``)."""
    return {
        "model": label,
        "task": task,
        "question": smp.question,
        "trial": offset + smp.epoch - 1,
        **smp.signals,
        "status": "error" if smp.failed else "ok",
    }


def _default_map(letters: set[str]) -> tuple[dict[str, int], list[float]]:
    """Inspect's letter categories and weights: with a ``P`` three levels, else two."""
    if "P" in letters:
        return {"I": 0, "N": 0, "P": 1, "C": 2}, [0.0, 0.5, 1.0]
    return {"I": 0, "N": 0, "C": 1}, [0.0, 1.0]


def _score_rows(
    rows: list[dict[str, Any]],
    raws: list[object],
    value_map: Mapping[str, int],
    primary_seen: set[str | None],
) -> str | None:
    """Give each row its category ``score``; the note when the values are not categories.

    With such a note every ``score`` is NaN (no category column: the scores stay available as
    signals).
    """
    note = None
    for r, raw in zip(rows, raws, strict=True):
        if r["status"] != "ok":
            r["score"] = np.nan
        elif isinstance(raw, str) and raw.upper() in value_map:
            r["score"] = value_map[raw.upper()]
        elif isinstance(raw, bool) or (isinstance(raw, (int, float)) and float(raw) in (0.0, 1.0)):
            r["score"] = int(raw)
        elif isinstance(raw, str) and raw.upper() in LETTER_VALUES:
            raise ValueError(f"value_map has no category for the score letter {raw!r}.")
        elif note is None:
            note = (
                f"the primary scorer's values (e.g. {raw!r} for {r['model']}, question "
                f"{r['question']}, epoch {r['trial'] + 1}) are not categories (C/P/I/N, 0/1); "
                f"rank a schema over the signal {_signal_name(str(next(iter(primary_seen))))!r}"
            )
    if note is not None:
        for r in rows:
            r["score"] = np.nan
    return note
