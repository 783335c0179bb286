"""Importers for evaluation logs; each returns a :class:`bayes_eval.eval_log.EvalLog`.

One module per source tool: :mod:`.long_table_log` (CSV/Parquet), :mod:`.inspect_log`
(Inspect AI), :mod:`.lm_eval_log` (lm-evaluation-harness), :mod:`.helm_log` (HELM),
:mod:`.trials_json` (CRUXEval and tau-bench result files). :func:`detect` picks the format
of a path.
"""

from __future__ import annotations

import json
from pathlib import Path

from bayes_eval.log_formats.helm_log import read_helm
from bayes_eval.log_formats.inspect_log import read_inspect
from bayes_eval.log_formats.lm_eval_log import read_lm_eval
from bayes_eval.log_formats.long_table_log import read_csv_log, read_parquet_log
from bayes_eval.log_formats.trials_json import read_cruxeval, read_taubench

__all__ = ["READERS", "detect"]

READERS = {
    "csv": read_csv_log,
    "parquet": read_parquet_log,
    "inspect": read_inspect,
    "lm-eval": read_lm_eval,
    "helm": read_helm,
    "cruxeval": read_cruxeval,
    "taubench": read_taubench,
}


def detect(path: Path) -> str:
    """Format of ``path`` from its suffix, or for ``.json`` from the shape of its content."""
    if path.is_dir():
        if (path / "per_instance_stats.json").is_file():
            return "helm"
        if any(path.glob("samples_*.jsonl")):
            return "lm-eval"
        if any(path.glob("*.eval")):
            return "inspect"
        raise ValueError(
            f"{path}: a directory without per_instance_stats.json, samples_*.jsonl or *.eval "
            "files; pass the log files themselves or --format."
        )
    name = path.name.lower()
    if name.endswith(".eval"):
        return "inspect"
    if name.endswith((".csv", ".csv.gz", ".tsv")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    if name.endswith(".jsonl"):
        return "lm-eval"
    if name.endswith(".json"):
        try:
            data = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{path}: not valid JSON ({exc}).") from exc
        if isinstance(data, dict):
            if "raw_scored_generations" in data:
                return "cruxeval"
            if "eval" in data and "samples" in data:
                return "inspect"
        if isinstance(data, list) and data and isinstance(data[0], dict):
            if "instance_id" in data[0] and "stats" in data[0]:
                return "helm"
            if "task_id" in data[0] and "reward" in data[0]:
                return "taubench"
        raise ValueError(
            f"{path}: JSON that is not a known log (Inspect, HELM per_instance_stats, CRUXEval, "
            "tau-bench); pass --format or convert it to a long CSV table."
        )
    raise ValueError(
        f"{path}: cannot tell the format from the name; pass --format (one of {sorted(READERS)})."
    )
