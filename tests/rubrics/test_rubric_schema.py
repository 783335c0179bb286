"""Rubric schemata (Hariri et al., "Don't Pass@k", App. F, Tables 4-5) against hand-computed
categories."""

from __future__ import annotations

import numpy as np
import pytest

import bayes_eval as be
from bayes_eval.rubrics.catalog import SCHEMATA, get_schema
from bayes_eval.rubrics.categories import categorize, rubric_thresholds
from bayes_eval.rubrics.expression import parse_expression
from bayes_eval.rubrics.spec import load_schema, schema_from_spec

# Nine attempts with every base signal; thresholds fixed so the categories can be derived by
# hand from Table 4 (derivations in the comments of EXPECTED).
COLUMNS = (
    "is_correct",
    "has_box",
    "token_ratio",
    "repeated_pattern",
    "prompt_bpt",
    "completion_bpt",
    "compass_context_A",
    "compass_context_B",
    "compass_context_C",
)
ROWS = [
    (
        1,
        1,
        0.05,
        0,
        1.0,
        0.4,
        0.90,
        0.05,
        0.05,
    ),  # r0 correct boxed econ ind high_conf A_high corr-high
    (
        1,
        0,
        0.20,
        0,
        2.5,
        0.8,
        0.50,
        0.30,
        0.20,
    ),  # r1 correct unboxed moderate OOD high_conf corr-mid, B>C
    (
        1,
        1,
        0.50,
        0,
        1.0,
        1.3,
        0.70,
        0.20,
        0.10,
    ),  # r2 correct boxed verbose low_conf corr-low A_high
    (
        0,
        1,
        0.05,
        0,
        1.0,
        0.9,
        0.70,
        0.20,
        0.10,
    ),  # r3 wrong boxed econ high_conf wrong_high_conf A_high
    (
        0,
        0,
        0.50,
        0,
        3.0,
        2.0,
        0.10,
        0.30,
        0.45,
    ),  # r4 wrong unboxed verbose OOD low_conf not-whc, C>B
    (0, 1, 0.20, 0, 1.0, 1.2, 0.20, 0.60, 0.20),  # r5 wrong boxed moderate low_conf whc, B>C
    (1, 1, 0.05, 1, 1.0, 0.4, 0.90, 0.05, 0.05),  # r6 invalid: repeated pattern
    (0, 0, 0.05, 0, 1.0, 0.5, 0.10, 0.30, 0.60),  # r7 invalid: verifier C >= 0.5
    (1, 0, 0.08, 0, 1.0, 1.1, 0.40, 0.40, 0.20),  # r8 correct unboxed econ low_conf corr-mid, B>=C
]
THRESHOLDS = {
    "tau_high": 1.0,
    "tau_low_wrong": 1.5,
    "tau_prompt": 2.0,
    "len_p33": 0.1,
    "len_p66": 0.3,
    "corr_p33": 0.5,
    "corr_p66": 1.2,
}
EXPECTED = {
    "exact_match": [2, 2, 2, 1, 1, 1, 0, 0, 2],
    "format_aware": [4, 3, 4, 2, 1, 2, 0, 0, 3],
    "conf_calibrated": [5, 4, 3, 2, 1, 2, 0, 0, 4],
    "ood_robustness": [4, 3, 4, 2, 1, 2, 0, 0, 4],
    "strict_compliance": [2, 1, 2, 1, 1, 1, 0, 0, 1],
    "conf_wrong_penalty": [3, 3, 3, 1, 2, 1, 0, 0, 3],
    "verifier_only": [3, 2, 3, 3, 1, 2, 0, 0, 2],
    "format_confidence": [7, 5, 6, 3, 1, 2, 0, 0, 4],
    "length_robust": [2, 2, 2, 1, 1, 1, 0, 0, 2],
    "verifier_prob": [4, 3, 4, 1, 2, 2, 0, 0, 3],
    "efficiency_adjusted": [4, 5, 6, 1, 3, 2, 0, 0, 4],
    "concision_high_conf": [5, 3, 2, 1, 1, 1, 0, 0, 4],
}


def _signals():
    arr = np.array(ROWS, dtype=float)
    return {c: arr[:, i] for i, c in enumerate(COLUMNS)}


def test_twelve_schemata_of_table5():
    names = {s.name for s in SCHEMATA.values()}
    assert len(SCHEMATA) == 12
    assert names == {
        "Exact Match",
        "Format Aware",
        "Conf-Calibrated",
        "OOD Robustness",
        "Strict Compliance",
        "Conf-Wrong Penalty",
        "Verifier-Only",
        "Format+Confidence",
        "Length-Robust",
        "Verifier Prob",
        "Efficiency-Adjusted",
        "Concision-High-Conf",
    }
    assert get_schema("Format Aware").weights == (0, 0, 1, 2, 3)  # App. F's example weights
    for s in SCHEMATA.values():
        assert len(s.weights) == s.n_categories
        assert s.labels[0] == "invalid"


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_schema_against_hand_computed_categories(key):
    sig = _signals()
    before = {k: v.copy() for k, v in sig.items()}
    out = categorize(sig, key, thresholds=THRESHOLDS)
    np.testing.assert_array_equal(out.R, EXPECTED[key])
    assert out.counts.sum() == len(ROWS)
    np.testing.assert_array_equal(
        out.counts, np.bincount(EXPECTED[key], minlength=len(out.weights))
    )
    for k in sig:  # inputs are not mutated
        np.testing.assert_array_equal(sig[k], before[k])


def test_thresholds_are_pooled_percentiles_over_all_models():
    rng = np.random.default_rng(3)
    shape = (3, 10, 4)  # model, question, trial
    sig = {
        "is_correct": rng.integers(0, 2, shape).astype(float),
        "completion_bpt": rng.gamma(2.0, 0.5, shape) + np.arange(3)[:, None, None],
        "token_ratio": rng.random(shape),
        "has_box": rng.integers(0, 2, shape),
    }
    th = rubric_thresholds(sig, "conf_calibrated")
    bpt, ok = sig["completion_bpt"].ravel(), sig["is_correct"].ravel() >= 0.5
    assert th["tau_low_wrong"] == pytest.approx(np.percentile(bpt[~ok], 60), rel=1e-14)
    assert th["corr_p33"] == pytest.approx(np.percentile(bpt[ok], 33), rel=1e-14)
    assert th["corr_p66"] == pytest.approx(np.percentile(bpt[ok], 66), rel=1e-14)
    out = categorize(sig, "conf_calibrated")
    assert out.thresholds == th
    # one model alone would get other thresholds; the pooled ones put all on one scale
    alone = rubric_thresholds({k: v[2] for k, v in sig.items()}, "conf_calibrated")
    assert alone["corr_p33"] > th["corr_p33"]
    # scoring model 2 alone with the pooled thresholds reproduces its pooled categories
    again = categorize({k: v[2] for k, v in sig.items()}, "conf_calibrated", thresholds=th)
    np.testing.assert_array_equal(again.R, out.R[2])
    eff = rubric_thresholds(sig, "efficiency_adjusted")
    assert eff == pytest.approx(
        {
            "len_p33": np.percentile(sig["token_ratio"], 33),
            "len_p66": np.percentile(sig["token_ratio"], 66),
        },
        rel=1e-14,
    )


def test_missing_trials_are_masked_and_not_pooled():
    sig = {k: v.reshape(1, 1, -1).copy() for k, v in _signals().items()}
    for v in sig.values():
        v[..., 4] = np.nan  # attempt r4 did not run
    out = categorize(sig, "exact_match")
    assert np.isnan(out.R[0, 0, 4])
    assert out.counts.sum() == len(ROWS) - 1
    th = rubric_thresholds(sig, "format_confidence")
    keep = np.delete(np.array(ROWS)[:, 5], 4)
    assert th["tau_high"] == pytest.approx(np.percentile(keep, 40))


def test_optional_invalid_signals_may_be_absent_but_required_ones_not():
    sig = {k: v for k, v in _signals().items() if k in ("is_correct", "has_box")}
    out = categorize(sig, "format_aware")
    assert out.missing_signals == ("compass_context_C", "repeated_pattern")
    np.testing.assert_array_equal(out.R, [4, 3, 4, 2, 1, 2, 4, 1, 3])  # no invalid category now
    with pytest.raises(ValueError, match=r"needs the signal\(s\) \['completion_bpt'\]"):
        categorize(sig, "conf_calibrated")
    bad = dict(_signals())
    bad["is_correct"] = bad["is_correct"].copy()
    bad["is_correct"][3] = np.nan
    with pytest.raises(
        ValueError,
        match=r"'is_correct' is missing \(NaN\) for an attempt that exists, at index \(3,\)",
    ):
        categorize(bad, "exact_match", present=np.ones(len(ROWS), bool))


def test_weights_override_and_length_check():
    out = categorize(_signals(), "exact_match", thresholds=THRESHOLDS, weights=[0, 0.2, 1])
    assert list(out.weights) == [0, 0.2, 1]
    with pytest.raises(ValueError, match="expected 3 finite numbers"):
        categorize(_signals(), "exact_match", weights=[0, 1])
    with pytest.raises(ValueError, match="unknown schema 'nope'"):
        get_schema("nope")
    assert get_schema("conf-wrong penalty").key == "conf_wrong_penalty"
    assert get_schema("Verifier Probe").key == "verifier_prob"


def test_table5_as_printed_is_not_a_partition_and_the_check_says_where():
    # Conf-Calibrated exactly as printed: "wrong and low_conf" overlaps "wrong_high_conf"
    spec = {
        "name": "as printed",
        "weights": [0, 0, 1, 2, 3, 4],
        "categories": [
            {"when": "wrong and low_conf"},
            {"when": "wrong_high_conf"},
            {"when": "correct and low_conf"},
            {"when": "correct and not low_conf and not high_conf"},
            {"when": "correct and high_conf"},
        ],
    }
    schema = schema_from_spec(spec)
    with pytest.raises(
        ValueError,
        match=r"mutually exclusive and exhaustive over valid attempts, but categories 1 .* and 2 .* all hold when",
    ):
        categorize(_signals(), schema, thresholds=THRESHOLDS)


def test_user_schema_from_toml(tmp_path):
    path = tmp_path / "latency.toml"
    path.write_text(
        'name = "Fast and right"\n'
        'description = "correct answers, faster is better"\n'
        "weights = [0, 0, 1, 2]\n"
        'invalid = "repeated_pattern >= 0.5"\n'
        "[thresholds]\n"
        'fast_cut = { signal = "token_ratio", percentile = 50, among = "is_correct >= 0.5" }\n'
        "[variables]\n"
        'fast = "token_ratio <= fast_cut"\n'
        "[[categories]]\n"
        'label = "wrong"\nwhen = "wrong"\n'
        "[[categories]]\n"
        'label = "slow correct"\nwhen = "correct & ~fast"\n'
        "[[categories]]\n"
        'label = "fast correct"\nwhen = "correct & fast"\n'
    )
    schema = load_schema(path)
    assert schema.labels == ("invalid", "wrong", "slow correct", "fast correct")
    out = categorize(_signals(), schema)
    tr = np.array(ROWS)[:, 2]
    cut = np.percentile(tr[np.array(ROWS)[:, 0] == 1], 50)  # pooled over correct attempts incl. r6
    assert out.thresholds == {"fast_cut": pytest.approx(cut)}
    expected = [0 if r[3] else (1 if r[0] == 0 else (3 if r[2] <= cut else 2)) for r in ROWS]
    np.testing.assert_array_equal(out.R, expected)
    # and it ranks with Bayes@N like any categorical result (the uniform prior by hand)
    mu, sigma = be.bayes(out.R.reshape(1, -1).astype(int), out.weights, prior="uniform")
    counts = np.bincount(out.R.astype(int), minlength=4)
    alpha = counts + 1.0
    assert mu == pytest.approx(alpha @ out.weights / alpha.sum(), rel=1e-12)
    assert sigma > 0


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"name": "x", "weights": [0, 1], "categories": [{"when": "correct"}]},
            r"'weights' has length 2 but the schema has 2|no category holds",
        ),
        (
            {"name": "x", "weights": [0, 1, 2], "categories": [{"when": "correct"}]},
            r"'weights' has length 3 but the schema has 2 categories",
        ),
        (
            {"name": "x", "weights": [0, 1], "categories": [{"when": "__import__('os')"}]},
            r"unsupported construct",
        ),
        (
            {"name": "x", "weights": [0, 1], "categories": [{"when": "correct and"}]},
            r"not a valid expression",
        ),
        (
            {"name": "x", "weights": [0, 1], "categories": [{"when": "0 < a < 1"}]},
            r"chained or unsupported comparison",
        ),
        ({"name": "x", "weights": [0, 1], "categories": []}, r"non-empty list"),
        (
            {"name": "x", "weights": [0, 1], "categories": [{"when": "a"}], "colour": 1},
            r"unknown key\(s\) \['colour'\]",
        ),
        (
            {
                "name": "x",
                "weights": [0, 1],
                "categories": [{"when": "v1"}],
                "variables": {"v1": "v2", "v2": "v1"},
            },
            r"cycle",
        ),
        (
            {
                "name": "x",
                "weights": [0, 1],
                "categories": [{"when": "correct"}],
                "variables": {"correct": "is_correct > 0"},
            },
            r"redefines",
        ),
        (
            {
                "name": "x",
                "weights": [0, 1],
                "categories": [{"when": "correct"}],
                "thresholds": {"t": {"signal": "a", "percentile": 140}},
            },
            r"percentile 140",
        ),
    ],
)
def test_bad_user_schemata(spec, message):
    with pytest.raises(ValueError, match=message):
        schema = schema_from_spec(spec)
        categorize(_signals(), schema)


def test_gap_in_user_schema_is_reported():
    schema = schema_from_spec(
        {
            "name": "gappy",
            "weights": [0, 0, 1],
            "categories": [{"when": "wrong and boxed"}, {"when": "correct"}],
        }
    )
    with pytest.raises(ValueError, match=r"no category holds when has_box=-0.5, is_correct=-0.5"):
        categorize(_signals(), schema)


def test_expression_language_is_closed():
    e = parse_expression("(a >= 0.5) & ~(b < c) | (not d)")
    assert e.names == {"a", "b", "c", "d"}
    ns = {
        "a": np.array([1.0, 0.0]),
        "b": np.array([0.0, 2.0]),
        "c": np.array([1.0, 1.0]),
        "d": np.array([1.0, 0.0]),
    }
    np.testing.assert_array_equal(e.evaluate(ns), [False, True])
    for bad in ("a.b", "f(a)", "a[0]", "lambda: 1", "a + b > 1"):
        with pytest.raises(ValueError):
            parse_expression(bad)


def test_verifier_prob_on_the_scorio_fixture():
    """gpt-oss-20b on AIME'25 q6: 80 answers, correctness and CompassVerifier P(correct)."""
    from bayes_eval import datasets

    data = datasets.load("gpt_oss_20b_aime25_q06")
    correct = data["results"].values[0, 0]
    A = data["verifier_prob"].values[0, 0]
    assert correct.sum() == 32
    out = categorize({"is_correct": correct[None, :], "verifier_A": A[None, :]}, "verifier_prob")
    expected = np.where(correct == 1, np.where(A >= 0.6, 4, 3), np.where(A >= 0.6, 1, 2))
    np.testing.assert_array_equal(out.R[0], expected)
    counts = np.bincount(expected, minlength=5)
    assert out.counts.tolist() == counts.tolist()
    # Bayes@N of the categorical result against the Dirichlet posterior by hand (App. A,
    # the uniform prior)
    mu, sigma = be.bayes(out.R.astype(int), out.weights, prior="uniform")
    alpha = counts + 1.0
    a0 = alpha.sum()
    w = np.asarray(out.weights)
    m = alpha @ w / a0
    var = (alpha @ w**2 / a0 - m**2) / (a0 + 1)
    assert mu == pytest.approx(m, rel=1e-12)
    assert sigma == pytest.approx(np.sqrt(var), rel=1e-10)


def test_compare_schemata_matches_per_schema_bayes(tmp_path):
    import xarray as xr

    from bayes_eval import xr as bxr
    from bayes_eval.rubrics.comparison import compare_schemata, plot_schema_ranks

    rng = np.random.default_rng(11)
    shape = (3, 8, 5)
    p = np.array([0.8, 0.5, 0.3])[:, None, None]
    ds = xr.Dataset(
        {
            "is_correct": (("model", "question", "trial"), (rng.random(shape) < p).astype(float)),
            "has_box": (("model", "question", "trial"), (rng.random(shape) < 0.6).astype(float)),
            "completion_bpt": (("model", "question", "trial"), rng.gamma(2, 0.5, shape)),
        },
        coords={"model": ["m0", "m1", "m2"]},
    )
    table = compare_schemata(
        ds, ["exact_match", "format_aware", "verifier_only", "conf_wrong_penalty"]
    )
    assert list(table["schema"].values) == ["Exact Match", "Format Aware", "Conf-Wrong Penalty"]
    assert "Verifier-Only" in table.attrs["skipped"]
    for key in ("format_aware", "conf_wrong_penalty"):
        cats = categorize(ds, key)
        direct = bxr.bayes(cats.R, cats.weights, prior="empirical", skipna=True)
        name = get_schema(key).name
        np.testing.assert_allclose(table["mu"].sel(schema=name), direct["mu"], rtol=1e-13)
        np.testing.assert_allclose(table["sigma"].sel(schema=name), direct["sigma"], rtol=1e-13)
    assert table["rank"].sel(schema="Exact Match").values.tolist() == [1, 2, 3]
    out = plot_schema_ranks(table, tmp_path / "bump.png")
    assert out.stat().st_size > 1000


@pytest.mark.slow  # five fresh imports; tests/test_architecture.py checks for cycles statically
def test_the_rubric_modules_import_on_their_own():
    """Each rubric module imports first in a fresh interpreter: no import cycle between
    ``spec``, ``catalog``, ``categories``, ... (each name is imported from the module that
    defines it; no facade gathers them)."""
    import subprocess
    import sys

    code = (
        "import importlib, sys\n"
        "for part in ('spec', 'catalog', 'categories', 'expression', 'comparison'):\n"
        "    for name in [m for m in sys.modules if m.startswith('bayes_eval.rubrics')]:\n"
        "        del sys.modules[name]\n"
        "    importlib.import_module('bayes_eval.rubrics.' + part)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
