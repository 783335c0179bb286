"""Rebuild the compact datasets shipped in ``bayes_eval/datasets/data/`` from raw source files.

The package ships derived, compact forms of public evaluation results (counts, rewards,
correctness, scores); this script documents exactly how each was derived and rebuilds them
from a folder holding the raw files as the sources publish them::

    python scripts/build_datasets.py --source RAW_DIR [--check]

``RAW_DIR`` must contain ``data/trials``, ``data/judges``, ``data/bandit`` and ``data/logs``
with the raw files named below. ``--check`` rebuilds into a temporary folder and compares
with the shipped files (exit 1 on a difference). The product never runs this script and
never reads ``RAW_DIR``: it only reads what this script wrote.
"""

from __future__ import annotations

import argparse
import csv
import filecmp
import gzip
import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "bayes_eval" / "datasets" / "data"


def _write_csv(path: Path, header: list[str], rows: list[list], *, gz: bool = False) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    data = buf.getvalue().encode()
    if gz:  # mtime=0: the same input gives the same bytes
        path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    else:
        path.write_bytes(data)


def _copy_licence(src: Path, dst: Path) -> None:
    if (src / "LICENSE").is_file():
        shutil.copyfile(src / "LICENSE", dst / "LICENSE")


def build_matharena(raw: Path, out: Path) -> None:
    src = raw / "data/trials/matharena_aime2025_I"
    shutil.copyfile(src / "aime2025_I_counts.csv", out / "counts.csv")
    shutil.copyfile(src / "aime2025_I_cost_usd_per_run.csv", out / "cost_usd_per_run.csv")
    _copy_licence(src, out)


def build_phi4(raw: Path, out: Path) -> None:
    src = raw / "data/trials/phi4_reasoning_aime25"
    rows = list(csv.DictReader((src / "phi4_reasoning_aime25_per_question.csv").open()))
    table = []
    for r in rows:
        acc = float(r["acc"])
        correct = round(acc * 80)
        if abs(acc * 80 - correct) > 0.05:  # acc is printed to 3 decimals: k/80 is exact
            raise SystemExit(f"phi4: acc {acc} is not a multiple of 1/80")
        table.append([int(r["data_id"]), correct, 80])
    _write_csv(out / "counts.csv", ["question", "correct", "trials"], table)
    ref = json.loads((src / "phi4_reasoning_aime25_reference_metrics.json").read_text())
    keep = {
        "model": ref["model_key"],
        "task": ref["task"],
        "bayes_ci": ref["bayes_ci_full"],
        "by_k": {
            "k": ref["table_by_k"]["k"],
            "pass_at_k": ref["table_by_k"]["pass@k"],
            "pass_hat_k": ref["table_by_k"]["pass^k"],
        },
        "other_models_bayes_ci": ref["other_models_aime25_bayes_ci"],
    }
    (out / "published.json").write_text(json.dumps(keep, indent=1) + "\n")


def build_taubench(raw: Path, out: Path) -> None:
    src = raw / "data/trials/taubench_gpt4o_airline"
    records = json.loads((src / "gpt-4o-airline.json").read_text())
    rows = sorted((int(r["task_id"]), int(r["trial"]), int(r["reward"])) for r in records)
    _write_csv(out / "rewards.csv", ["task_id", "trial", "reward"], [list(r) for r in rows])
    _copy_licence(src, out)


def build_cruxeval(raw: Path, out: Path) -> None:
    src = raw / "data/trials/cruxeval_codellama7b"
    rows = []
    for task in ("input", "output"):
        data = json.loads((src / f"sample_scored_codellama-7b_temp0.2_{task}.json").read_text())
        scored = data["raw_scored_generations"]
        for qid in sorted(scored, key=lambda s: int(s.rsplit("_", 1)[1])):
            values = scored[qid]
            rows.append([task, qid, "".join("1" if v else "0" for v in values)])
    _write_csv(out / "correct.csv.gz", ["task", "question", "correct"], rows, gz=True)
    _copy_licence(src, out)


def build_gpt_oss(raw: Path, out: Path) -> None:
    src = raw / "data/trials/scorio_fixture"
    data = json.loads((src / "aime25_q06_compass.json").read_text())
    rows = [
        [t, a, int(c), s]
        for t, (a, c, s) in enumerate(
            zip(data["answers"], data["correct"], data["scores"], strict=True)
        )
    ]
    _write_csv(out / "attempts.csv", ["trial", "answer", "correct", "verifier_prob"], rows)
    (out / "ground_truth.txt").write_text(str(data["ground_truth"]) + "\n")
    _copy_licence(src, out)


def build_mtbench(raw: Path, out: Path) -> None:
    src = raw / "data/judges/mtbench_tableD2/mtbench_2turn_score_counts_tableD2.csv"
    shutil.copyfile(src, out / "counts.csv")


def build_summeval(raw: Path, out: Path) -> None:
    """Numeric scores only (no judge responses); -1 (unparseable) becomes an empty cell."""
    src = raw / "data/judges/summeval_shen2023/summeval_12sys_experts_and_llm_judges.csv"
    rows = list(csv.DictReader(src.open()))
    header = [c for c in rows[0] if c != "expert_mean"]  # the mean of expert1..3
    table = []
    for r in rows:
        line = []
        for c in header:
            v = r[c]
            if c.startswith("j_") and float(v) < 0:
                v = ""
            elif c not in ("doc_id", "system", "dim"):
                x = float(v)
                v = str(int(x)) if x == int(x) else repr(x)
            line.append(v)
        table.append(line)
        mean = np.mean([float(r[f"expert{i}"]) for i in (1, 2, 3)])
        if abs(mean - float(r["expert_mean"])) > 1e-4:
            raise SystemExit(f"summeval: expert_mean {r['expert_mean']} != mean of experts")
    _write_csv(out / "scores.csv.gz", header, table, gz=True)


def build_bandit(raw: Path, out: Path) -> None:
    for name in ("gsm8k_arms.csv", "piqa_arms.csv", "mmlu_meta.json"):
        shutil.copyfile(raw / "data/bandit" / name, out / name)


def build_inspect(raw: Path, out: Path) -> None:
    """The log file itself, and its arrays as read by the Inspect reader (``log_arrays.json``:
    what ``datasets.load`` returns, so the data layer needs no log reader)."""
    from bayes_eval.logs import read_eval_log

    log = out / "mmlu-summary-choices.eval"
    shutil.copyfile(raw / "data/logs/mmlu-summary-choices.eval", log)
    ds = read_eval_log(log).to_dataset().rename({"R": "results"})
    ds.attrs = {k: v for k, v in ds.attrs.items() if k != "sources"}
    text = json.dumps(ds.to_dict(data="list"), indent=1)
    (out / "log_arrays.json").write_text(text + "\n")


BUILDERS = {
    "matharena_aime25_i": build_matharena,
    "phi4_aime25": build_phi4,
    "taubench_airline_gpt4o": build_taubench,
    "cruxeval_codellama7b": build_cruxeval,
    "gpt_oss_20b_aime25_q06": build_gpt_oss,
    "mtbench_judges": build_mtbench,
    "summeval_judges": build_summeval,
    "bandit_arms": build_bandit,
    "inspect_mmlu_log": build_inspect,
}


def build(raw: Path, out: Path) -> None:
    for name, fn in BUILDERS.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        fn(raw, folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, type=Path, help="folder with data/...")
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    if not args.check:
        build(args.source, OUT)
        print(f"written under {OUT}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(args.source, Path(tmp))
        bad = []
        for f in sorted(Path(tmp).rglob("*")):
            if f.is_file():
                shipped = OUT / f.relative_to(tmp)
                if not shipped.is_file() or not filecmp.cmp(f, shipped, shallow=False):
                    bad.append(str(f.relative_to(tmp)))
    print("differs: " + ", ".join(bad) if bad else "all shipped files match their sources")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
