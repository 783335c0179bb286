"""The twelve built-in schemata of Table 5 of Hariri et al., by key (:data:`SCHEMATA`).

Table 5 is in Hariri et al., "Don't Pass@k: A Bayesian Framework for Large Language Model
Evaluation", App. F.

Where Table 5 is not a partition as printed, the built-in schema uses the reading below
(each is also in the schema's ``note``):

* *Conf-Calibrated*, *Conf-Wrong Penalty*: "wrong ∧ low_conf" is read as
  "wrong ∧ ¬wrong_high_conf" (``wrong_high_conf`` uses ``tau_low_wrong``, ``low_conf`` uses
  ``tau_high``; as printed, some wrong attempts would be in both or neither category).
  The three correct levels of Conf-Calibrated use ``corr_p33``/``corr_p66`` (Table 4's
  percentiles of ``completion_bpt`` among correct attempts): high = ``<= corr_p33``,
  mid = ``(corr_p33, corr_p66]``, low = ``> corr_p66``.
* *Verifier-Only*: "high C" / "high B" are read as "not A_high and C > B" / "not A_high and
  B >= C" (the larger of the two remaining verifier probabilities).
* *Concision-High-Conf*: category 4 is "correct ∧ economical ∧ low_conf" so that it excludes
  category 5.
* *Exact Match* and *Length-Robust* have the same categories (as printed in Table 5).

Only Format Aware's weights ``[0, 0, 1, 2, 3]`` are given in the paper; the other default
weights are ours (each schema's ``weights``), chosen so that the weight order follows the
schema's description. Pass ``weights=`` to :func:`bayes_eval.rubrics.categories.categorize` (or
``--weights``) to override.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bayes_eval.rubrics.spec import Schema, schema_from_spec, schema_key

__all__ = ["SCHEMATA", "describe_schemata", "get_schema"]


def _builtin(
    name: str,
    description: str,
    categories: Sequence[str],
    weights: Sequence[float],
    note: str = "",
) -> Schema:
    return schema_from_spec(
        {
            "name": name,
            "description": description,
            "weights": weights,
            "note": note,
            "categories": [{"label": c, "when": c} for c in categories],
        },
        source="built-in schema",
    )


_NOT_WHC = "wrong and not wrong_high_conf"
#: The twelve schemata of Table 5, by key.
SCHEMATA: dict[str, Schema] = {
    s.key: s
    for s in (
        _builtin(
            "Exact Match",
            "Correctness only; ignores formatting, confidence and length.",
            ["wrong", "correct"],
            [0, 0, 1],
        ),
        _builtin(
            "Format Aware",
            "Rewards boxed answers; distinguishes boxed/unboxed even when "
            "wrong (weights from App. F).",
            ["wrong and unboxed", "wrong and boxed", "correct and unboxed", "correct and boxed"],
            [0, 0, 1, 2, 3],
        ),
        _builtin(
            "Conf-Calibrated",
            "Penalises confidently wrong; grades correct answers by confidence (low/mid/high).",
            [
                _NOT_WHC,
                "wrong_high_conf",
                "correct_low_conf",
                "correct_mid_conf",
                "correct_high_conf",
            ],
            [0, 1, 0, 2, 3, 4],
            "wrong and low_conf read as wrong and not wrong_high_conf; correct levels from "
            "corr_p33/corr_p66.",
        ),
        _builtin(
            "OOD Robustness",
            "Separates in-distribution and OOD prompts; checks "
            "correctness under both (correct on an OOD prompt weighs more).",
            ["ood and wrong", "ind and wrong", "ood and correct", "ind and correct"],
            [0, 0, 0, 2, 1],
        ),
        _builtin(
            "Strict Compliance",
            "Requires boxed final answers; unboxed-correct is non-compliant.",
            ["wrong or (correct and unboxed)", "correct and boxed"],
            [0, 0, 1],
        ),
        _builtin(
            "Conf-Wrong Penalty",
            "Heavier penalty for wrong answers at high confidence.",
            ["wrong_high_conf", _NOT_WHC, "correct"],
            [0, -1, 0, 1],
            "wrong and low_conf read as wrong and not wrong_high_conf.",
        ),
        _builtin(
            "Verifier-Only",
            "Verifier signals alone (model-agnostic).",
            [
                "not A_high and compass_context_C > compass_context_B",
                "not A_high and compass_context_B >= compass_context_C",
                "A_high",
            ],
            [0, 0, 0, 1],
            "high C / high B read as the larger of C and B when A is not high.",
        ),
        _builtin(
            "Format+Confidence",
            "(boxed/unboxed) x (low/high confidence) for wrong and "
            "correct; rewards boxed high-confidence correct, penalises confidently wrong.",
            [
                "wrong and unboxed",
                "wrong and boxed and low_conf",
                "wrong and boxed and high_conf",
                "correct and unboxed and low_conf",
                "correct and unboxed and high_conf",
                "correct and boxed and low_conf",
                "correct and boxed and high_conf",
            ],
            [0, 0, 1, 0, 2, 3, 4, 5],
        ),
        _builtin(
            "Length-Robust",
            "Correctness irrespective of verbosity (same categories as Exact Match).",
            ["wrong", "correct"],
            [0, 0, 1],
        ),
        _builtin(
            "Verifier Prob",
            "Agreement with the verifier: wrong with high A is "
            "inconsistent; distinguishes under/over-confidence on correct.",
            [
                "wrong and A_high",
                "wrong and not A_high",
                "correct and not A_high",
                "correct and A_high",
            ],
            [0, 0, 1, 2, 3],
        ),
        _builtin(
            "Efficiency-Adjusted",
            "Rewards short correct completions; penalises verbose outputs, especially wrong ones.",
            [
                "wrong and economical",
                "wrong and moderate",
                "wrong and verbose",
                "correct and economical",
                "correct and moderate",
                "correct and verbose",
            ],
            [0, 0, -1, -2, 3, 2, 1],
        ),
        _builtin(
            "Concision-High-Conf",
            "Prefers concise, high-confidence correct answers; downweights verbose correctness.",
            [
                "wrong",
                "correct and verbose",
                "correct and moderate",
                "correct and economical and low_conf",
                "correct and economical and high_conf",
            ],
            [0, 0, 1, 2, 3, 4],
            "category 4 is correct and economical and low_conf (excludes category 5).",
        ),
    )
}


def get_schema(name: str | Schema) -> Schema:
    """A built-in schema by key or display name (case, spaces and punctuation ignored).

    Parameters
    ----------
    name : str or Schema
        A key of :data:`SCHEMATA` (``"format_aware"``) or a display name (``"Format Aware"``);
        a :class:`~bayes_eval.rubrics.spec.Schema` is returned as it is.

    Returns
    -------
    Schema
        The built-in schema.

    Raises
    ------
    ValueError
        No built-in schema has that key or name.

    Examples
    --------
    >>> schema = get_schema("Format Aware")
    >>> schema.key, schema.weights
    ('format_aware', (0.0, 0.0, 1.0, 2.0, 3.0))
    >>> get_schema("format-aware") is schema
    True
    """
    if isinstance(name, Schema):
        return name
    key = schema_key(str(name))
    if key in SCHEMATA:
        return SCHEMATA[key]
    aliases = {"verifier_probe": "verifier_prob", "format_confidence": "format_confidence"}
    if key in aliases and aliases[key] in SCHEMATA:
        return SCHEMATA[aliases[key]]
    raise ValueError(
        f"unknown schema {name!r}; expected one of {sorted(SCHEMATA)} (see `bayes-eval schemas`)."
    )


def describe_schemata() -> list[dict[str, Any]]:
    """One record per built-in schema: key, name, categories, weights, signals, note.

    Returns
    -------
    list of dict
        One dict per schema of :data:`SCHEMATA`, in Table 5's order, with the keys ``key``,
        ``name``, ``description``, ``categories``, ``weights``, ``required_signals``,
        ``optional_signals``, ``thresholds`` (the names used) and ``note``.

    Examples
    --------
    >>> records = describe_schemata()
    >>> len(records), records[1]["key"]
    (12, 'format_aware')
    >>> records[1]["required_signals"], records[1]["optional_signals"]
    (['has_box', 'is_correct'], ['compass_context_C', 'repeated_pattern'])
    """
    out = []
    for s in SCHEMATA.values():
        req, opt = s.signals()
        out.append(
            {
                "key": s.key,
                "name": s.name,
                "description": s.description,
                "categories": list(s.labels),
                "weights": list(s.weights),
                "required_signals": list(req),
                "optional_signals": list(opt),
                "thresholds": sorted(s._used_thresholds()),
                "note": s.note,
            }
        )
    return out
