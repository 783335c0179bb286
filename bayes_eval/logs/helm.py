"""HELM ``per_instance_stats.json`` (one run directory of ``benchmark_output/runs/<suite>``).

The file is a list of records ``{instance_id, train_trial_index, [perturbation], stats}``;
``stats`` is a list of ``{name: {name, split, ...}, count, sum, mean, ...}``. The run's
``run_spec.json`` beside it names the model (``adapter_spec.model``) and the run
(``name``, e.g. ``mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt-4o``).

Mapping: ``instance_id`` is the question, ``train_trial_index`` the trial (HELM's repeated
trials with different in-context examples), the metric (``metric=``, default
``exact_match``) gives the 0/1 category and ``is_correct``; every other unperturbed stat
with a ``mean`` becomes a signal (``num_output_tokens`` also gives ``token_ratio``). Records
with a ``perturbation`` (robustness/fairness variants) are skipped: they are different
conditions, not repeated trials. The task is the run name without its ``model=`` argument;
the model is ``model=``, else ``run_spec.json``, else the ``model=`` part of the directory
name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from bayes_eval.logs.eval_log import EvalLog, make_log

__all__ = ["read_helm"]


def _run_identity(run_dir: Path, model: str | None) -> tuple[str, str]:
    spec_path = run_dir / "run_spec.json"
    name, spec_model = run_dir.name, None
    if spec_path.is_file():
        try:
            spec = json.loads(spec_path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{spec_path}: not valid JSON ({exc}).") from exc
        name = str(spec.get("name", name))
        spec_model = (spec.get("adapter_spec") or {}).get("model")
    m = re.search(r"(?:^|[,:])model=([^,]+)", name)
    task = re.sub(r",?model=[^,]+", "", name).rstrip(":,")
    return model or spec_model or (m.group(1) if m else "model"), task


def read_helm(
    paths: Sequence[Path],
    *,
    model: str | None = None,
    metric: str | None = None,
    max_tokens: int | None = None,
    **options,
) -> EvalLog:
    """Read HELM per-instance stats (see the module docstring)."""
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        raise ValueError(f"the helm reader does not take {sorted(options)}.")
    metric = metric or "exact_match"
    max_tokens = 32768 if max_tokens is None else int(max_tokens)
    files = [p / "per_instance_stats.json" if p.is_dir() else p for p in paths]
    rows = []
    for f in files:
        if not f.is_file():
            raise ValueError(f"{f}: no such file.")
        try:
            records = json.loads(f.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{f}: not valid JSON ({exc}).") from exc
        if not isinstance(records, list):
            raise ValueError(f"{f}: expected a list of per-instance records.")
        name, task = _run_identity(f.parent, model)
        for i, rec in enumerate(records):
            where = f"{f}: record {i}"
            if not isinstance(rec, Mapping) or "instance_id" not in rec or "stats" not in rec:
                raise ValueError(f"{where}: expected keys 'instance_id' and 'stats'.")
            if rec.get("perturbation"):
                continue
            stats = {}
            for st in rec["stats"]:
                sname = st.get("name") if isinstance(st, Mapping) else None
                if not isinstance(sname, Mapping) or "name" not in sname:
                    raise ValueError(f"{where}: a stat has no name.")
                if sname.get("perturbation"):
                    continue
                if st.get("count", 1) and st.get("mean") is not None:
                    stats[str(sname["name"])] = float(st["mean"])
            row = {
                "model": name,
                "task": task,
                "question": str(rec["instance_id"]),
                "trial": int(rec.get("train_trial_index", 0)),
            }
            if metric not in stats:
                row.update(status="error", score=np.nan)
            else:
                v = stats[metric]
                if v not in (0.0, 1.0):
                    raise ValueError(
                        f"{where}: metric {metric!r} is {v!r}; expected 0/1 per attempt to use "
                        "it as the category (choose another with metric=...)."
                    )
                row.update(status="ok", score=int(v), is_correct=v)
            for k, v in stats.items():
                if k != metric:
                    row[k] = v
            if "num_output_tokens" in stats:
                row["token_ratio"] = stats["num_output_tokens"] / max_tokens
            rows.append(row)
    df = pd.DataFrame(rows)
    if len(df) and (df["status"] == "error").all():
        raise ValueError(f"{', '.join(map(str, files))}: no record has the metric {metric!r}.")
    return make_log(df, fmt="helm", sources=[str(f) for f in files], meta={"metric": metric})
