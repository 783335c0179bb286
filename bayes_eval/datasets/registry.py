"""The registry of shipped datasets: names, provenance, files and loaders."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import overload

import xarray as xr

from bayes_eval.datasets import loaders

__all__ = ["DATASETS", "DatasetInfo", "files", "list_datasets", "load", "table_path"]

DATA_DIR = Path(__file__).resolve().parent / "data"

MIT = "MIT (upstream LICENSE shipped beside the data)"
HARIRI = (
    "M. Hariri, A. Samandar, M. Hinczewski, V. Chaudhary, \"Don't Pass@k: A Bayesian "
    'Framework for Large Language Model Evaluation", ICLR 2026.'
)
VOSSLER = (
    'P. Vossler, F. Xia, Y. Mai, A. Subbaswamy, J. Feng, "LLMs Judging LLMs: A Simplex '
    'Perspective", 2025 (arXiv 2505.21972).'
)
XIE = (
    'Q. Xie, Y. He, N. Cao, "Efficient Cost-Aware LLM Evaluation via Bayesian Bandit Gittins '
    'Indices".'
)


@dataclass(frozen=True)
class DatasetInfo:
    """Provenance and loader of one shipped dataset.

    Attributes
    ----------
    name, description : str
        Registry key and a one-line description.
    source, licence, citation : str
        Where the numbers come from, under which terms they are shipped, how to cite them.
    folder : str
        Sub-folder of ``bayes_eval/datasets/data`` holding the files and ``SOURCE.md``.
    loader : callable
        ``loader(folder: Path) -> xarray.Dataset``.
    log_file : str, optional
        For datasets shipped as an evaluation log: the file, read by
        :func:`bayes_eval.logs.read_eval_log` when a command is given ``dataset:NAME``.
    table_file : str, optional
        For judge scores and bandit metadata: the table a command reads when given
        ``dataset:NAME`` (``bayes-eval judges``, ``bayes-eval adaptive simulate``).

    Examples
    --------
    >>> from bayes_eval.datasets.registry import DATASETS
    >>> info = DATASETS["mtbench_judges"]
    >>> info.folder, info.table_file, info.log_file
    ('mtbench_judges', 'counts.csv', None)
    >>> DATASETS["inspect_mmlu_log"].log_file
    'mmlu-summary-choices.eval'
    """

    name: str
    description: str
    source: str
    licence: str
    citation: str
    folder: str
    loader: Callable[[Path], xr.Dataset]
    log_file: str | None = None
    table_file: str | None = None


_ENTRIES = [
    DatasetInfo(
        "matharena_aime25_i",
        "MathArena AIME 2025 I leaderboard: 16 models x 15 questions x 4 runs, cost per run",
        "eth-sri/matharena.ai @ 8fdd9aba (static/js/table_data.js), February 2025",
        MIT,
        'M. Balunović, J. Dekoninck, I. Petrov, N. Jovanović, M. Vechev, "MathArena: '
        'Evaluating LLMs on Uncontaminated Math Competitions", 2025.',
        "matharena_aime25_i",
        loaders.load_matharena,
    ),
    DatasetInfo(
        "phi4_aime25",
        "Phi-4-reasoning on AIME'25: 30 questions x 80 trials, with the published metrics",
        "mohsenhariri/bayes-kit @ c964359f (notebooks/datasets/trace), printed outputs",
        "no licence file: published figures (counts and metrics), shipped with the citation",
        HARIRI,
        "phi4_aime25",
        loaders.load_phi4,
    ),
    DatasetInfo(
        "taubench_airline_gpt4o",
        "tau-bench airline, gpt-4o: 50 tasks x 4 trials, reward 0/1 (no trajectories)",
        "sierra-research/tau-bench @ 59a200c6 (historical_trajectories/gpt-4o-airline.json)",
        MIT,
        'S. Yao, N. Shinn, P. Razavi, K. Narasimhan, "tau-bench: A Benchmark for Tool-Agent-'
        'User Interaction in Real-World Domains", 2024.',
        "taubench_airline_gpt4o",
        loaders.load_taubench,
    ),
    DatasetInfo(
        "cruxeval_codellama7b",
        "CRUXEval input and output prediction, CodeLlama-7B (T = 0.2): 2 x 800 problems x 10",
        "facebookresearch/cruxeval @ 190faf16 (samples/evaluation_results)",
        MIT,
        'A. Gu, B. Rozière, H. Leather, A. Solar-Lezama, G. Synnaeve, S. I. Wang, "CRUXEval: '
        'A Benchmark for Code Reasoning, Understanding and Execution", ICML 2024.',
        "cruxeval_codellama7b",
        loaders.load_cruxeval,
    ),
    DatasetInfo(
        "gpt_oss_20b_aime25_q06",
        "gpt-oss-20b (low) on AIME'25 q6: 80 answers, correctness, verifier probabilities",
        "mohsenhariri/scorio @ dedc4154 (tests/aggregate/fixtures/aime25_q06_compass.json)",
        MIT,
        HARIRI,
        "gpt_oss_20b_aime25_q06",
        loaders.load_gpt_oss,
    ),
    DatasetInfo(
        "mtbench_judges",
        "MT-Bench two-turn score counts: 6 candidates x 2 LLM judges x 5 levels (Table D.2)",
        "Vossler et al. 2025, Appendix D.5, Table D.2 (transcribed)",
        "numbers from a published table, shipped with the citation",
        VOSSLER,
        "mtbench_judges",
        loaders.load_mtbench,
        table_file="counts.csv",
    ),
    DatasetInfo(
        "summeval_judges",
        "SummEval: 100 docs x 12 systems x 4 aspects; 3 expert, 5 crowd, 5 LLM-judge scores",
        "Yale-LILY/SummEval (expert, crowd); DAMO-NLP-SG/LLM_summeval @ bd7dde1 (judges)",
        "SummEval annotations MIT; judge scores: the source states no licence, so only the "
        "numeric scores are shipped (no responses), with the citation",
        'A. R. Fabbri et al., "SummEval: Re-evaluating Summarization Evaluation", TACL 2021; '
        'C. Shen et al., "Large Language Models are Not Yet Human-Level Evaluators for '
        'Abstractive Summarization", Findings of EMNLP 2023.',
        "summeval_judges",
        loaders.load_summeval,
        table_file="scores.csv.gz",
    ),
    DatasetInfo(
        "bandit_gsm8k_arms",
        "GSM8K bandit arms: 122 (model, prompt, temperature, max tokens) with prices",
        "Xie, He, Cao (tables) and QianJaneXie/BanditGittinsEval (arm manifests)",
        "facts (names, settings, prices), shipped with the citation",
        XIE,
        "bandit_arms",
        loaders.load_gsm8k_arms,
        table_file="gsm8k_arms.csv",
    ),
    DatasetInfo(
        "bandit_piqa_arms",
        "PIQA bandit arms: 103 (model, prompt, temperature, max tokens) with prices",
        "Xie, He, Cao (tables) and QianJaneXie/BanditGittinsEval (arm manifests)",
        "facts (names, settings, prices), shipped with the citation",
        XIE,
        "bandit_arms",
        loaders.load_piqa_arms,
        table_file="piqa_arms.csv",
    ),
    DatasetInfo(
        "bandit_mmlu_meta",
        "MMLU bandit metadata: 15 models x 100 prompts, 57 subjects' sizes, priors, moments",
        "QianJaneXie/BanditGittinsEval (task metadata, row-mean priors) and the paper's Table 3",
        "facts (sizes, prices, summary statistics), shipped with the citation",
        XIE,
        "bandit_arms",
        loaders.load_mmlu_meta,
        table_file="mmlu_meta.json",
    ),
    DatasetInfo(
        "inspect_mmlu_log",
        "An Inspect AI .eval log: MMLU 0-shot, gpt-4o, one sample (for the log importer)",
        "written by inspect_ai 0.3.154 (UKGovernmentBEIS/inspect_ai)",
        "MIT (the Inspect AI project)",
        'UK AI Security Institute, "Inspect AI: Framework for Large Language Model Evaluations".',
        "inspect_mmlu_log",
        loaders.load_inspect_log,
        log_file="mmlu-summary-choices.eval",
    ),
]

#: Every shipped dataset by name.
DATASETS: dict[str, DatasetInfo] = {d.name: d for d in _ENTRIES}


def table_path(source: str | Path, kind: str | None = None) -> Path:
    """``source`` as a path: a file name as given, or ``dataset:NAME``'s table file.

    With ``kind`` (``"judges"``, ``"bandit"``) only the tables whose name holds it are offered.

    Parameters
    ----------
    source : str or Path
        A file name, or ``"dataset:NAME"`` for a shipped dataset with a table file.
    kind : str, optional
        A fragment the dataset's name must hold (``"judges"``, ``"bandit"``); default any
        dataset with a table file.

    Returns
    -------
    Path
        ``source`` itself as a path, or the shipped table's file.

    Raises
    ------
    ValueError
        If ``NAME`` is not a shipped dataset, or has no table file of this ``kind`` (the
        message lists those that have).

    Examples
    --------
    >>> from bayes_eval.datasets.registry import table_path
    >>> table_path("dataset:mtbench_judges", kind="judges").name
    'counts.csv'
    >>> str(table_path("my_scores.csv"))
    'my_scores.csv'
    """
    text = str(source)
    if not text.startswith("dataset:"):
        return Path(source)
    info = _info(text[len("dataset:") :])
    if info.table_file is None or (kind is not None and kind not in info.name):
        tables = sorted(
            n for n, d in DATASETS.items() if d.table_file and (kind is None or kind in n)
        )
        raise ValueError(
            f"dataset {info.name!r} is not a table of this kind; expected one of {tables}."
        )
    return DATA_DIR / info.folder / info.table_file


def _info(name: str) -> DatasetInfo:
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; expected one of {sorted(DATASETS)}.")
    return DATASETS[name]


def list_datasets() -> dict[str, str]:
    """Names of the shipped datasets, each with a one-line description.

    Returns
    -------
    dict of str to str
        Each dataset's name (for :func:`bayes_eval.datasets.registry.load` or
        ``dataset:NAME``) and its description, in registry order.

    Examples
    --------
    >>> from bayes_eval.datasets.registry import list_datasets
    >>> "taubench_airline_gpt4o" in list_datasets()
    True
    >>> list_datasets()["taubench_airline_gpt4o"]
    'tau-bench airline, gpt-4o: 50 tasks x 4 trials, reward 0/1 (no trajectories)'
    """
    return {name: d.description for name, d in DATASETS.items()}


@overload
def files(name: str, filename: None = None) -> tuple[Path, ...]: ...
@overload
def files(name: str, filename: str) -> Path: ...
def files(name: str, filename: str | None = None) -> tuple[Path, ...] | Path:
    """The shipped files of a dataset (data, ``SOURCE.md``, ``LICENSE``), sorted.

    With ``filename``, the path of that one file instead.

    Parameters
    ----------
    name : str
        One of :func:`bayes_eval.datasets.registry.list_datasets`.
    filename : str, optional
        A file of the dataset's folder; default all of them.

    Returns
    -------
    tuple of Path or Path
        The dataset's files sorted by path, or, with ``filename``, that file's path.

    Raises
    ------
    ValueError
        If ``name`` is not a shipped dataset or has no file ``filename`` (the message lists
        the valid names).

    Examples
    --------
    >>> from bayes_eval.datasets.registry import files
    >>> [p.name for p in files("taubench_airline_gpt4o")]
    ['LICENSE', 'SOURCE.md', 'rewards.csv']
    >>> files("taubench_airline_gpt4o", "rewards.csv").name
    'rewards.csv'
    """
    folder = DATA_DIR / _info(name).folder
    if filename is not None:
        path = folder / filename
        if not path.is_file():
            names = sorted(p.name for p in folder.iterdir())
            raise ValueError(f"dataset {name!r} has no file {filename!r}; it has {names}.")
        return path
    return tuple(sorted(p for p in folder.iterdir() if p.is_file()))


def load(name: str) -> xr.Dataset:
    """Load a shipped dataset as an :class:`xarray.Dataset`.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`.

    Returns
    -------
    xarray.Dataset
        A new object on every call (modifying it does not change later loads), with
        ``attrs`` ``name``, ``description``, ``source``, ``licence``, ``citation`` and
        dataset-specific notes.

    Raises
    ------
    ValueError
        ``name`` is not a shipped dataset (the message lists the valid names).

    Examples
    --------
    >>> from bayes_eval.datasets.registry import load
    >>> ds = load("taubench_airline_gpt4o")
    >>> dict(ds["results"].sizes)
    {'model': 1, 'question': 50, 'trial': 4}
    >>> ds.attrs["name"]
    'taubench_airline_gpt4o'
    """
    info = _info(name)
    ds = info.loader(DATA_DIR / info.folder)
    ds.attrs = {
        "name": info.name,
        "description": info.description,
        "source": info.source,
        "licence": info.licence,
        "citation": info.citation,
        **ds.attrs,
    }
    return ds
