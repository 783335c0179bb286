"""The one NUTS settings value: its checks, its filling-in, the deprecated spellings."""

from __future__ import annotations

import argparse
import dataclasses
import warnings

import numpy as np
import pytest

from bayes_eval.cli import _options as opt
from bayes_eval.nuts import SAMPLERS, NutsSettings


def test_defaults_leave_the_model_its_own_values():
    s = NutsSettings()
    assert (s.draws, s.tune, s.sampler, s.target_accept, s.cores) == (None,) * 5
    assert (s.chains, s.seed, s.progress, s.warn) == (4, 0, False, True)
    filled = s.resolved(draws=1000, tune=500, sampler="nutpie", target_accept=0.9)
    assert (filled.draws, filled.tune, filled.sampler, filled.target_accept) == (
        1000,
        500,
        "nutpie",
        0.9,
    )
    # a value set by the caller wins over the model's own
    assert (
        NutsSettings(draws=7, sampler="pymc")
        .resolved(draws=1000, sampler="nutpie")
        .kwargs()["draws"]
        == 7
    )
    assert NutsSettings(sampler="pymc").resolved(sampler="nutpie").sampler == "pymc"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draws": 0}, "draws is 0; expected a positive integer"),
        ({"draws": 1.5}, r"draws is 1\.5; expected a positive integer"),
        ({"draws": True}, "draws is True; expected a positive integer"),
        ({"tune": -1}, "tune is -1; expected a non-negative integer"),
        ({"chains": 0}, "chains is 0; expected a positive integer"),
        ({"seed": -3}, "seed is -3; expected a non-negative integer"),
        ({"cores": 0}, "cores is 0; expected a positive integer"),
        ({"sampler": "stan"}, "sampler is 'stan'; expected 'pymc' or 'nutpie'"),
        ({"target_accept": 1.0}, r"target_accept is 1\.0; expected a number in \(0, 1\)"),
        ({"target_accept": True}, r"target_accept is True; expected a number in \(0, 1\)"),
        ({"progress": 1}, "progress is 1; expected True or False"),
    ],
)
def test_bad_settings_raise_one_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        NutsSettings(**kwargs)


def test_integers_are_stored_as_python_ints_and_the_value_is_frozen():
    s = NutsSettings(draws=np.int64(20), tune=30.0, chains=np.int32(2))
    assert type(s.draws) is int and type(s.tune) is int and type(s.chains) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.draws = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="no NUTS setting is called warmup"):
        s.resolved(warmup=10)
    assert s.replace(seed=4).seed == 4 and s.seed == 0


def test_settings_passed_one_by_one_still_work_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match=r"fit\(\): passing NUTS settings one by one"):
        s = NutsSettings.from_call(NutsSettings(chains=2), {"draws": 30, "seed": 5}, owner="fit")
    assert (s.draws, s.seed, s.chains) == (30, 5, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no legacy keywords: no warning
        assert NutsSettings.from_call(None, {}, owner="fit") == NutsSettings()
    with pytest.raises(TypeError, match="fit\\(\\) got an unexpected keyword argument 'warmup'"):
        NutsSettings.from_call(None, {"warmup": 3}, owner="fit")
    with pytest.raises(ValueError, match="nuts is 5; expected a NutsSettings"):
        NutsSettings.from_call(5, {}, owner="fit")  # type: ignore[arg-type]


def _args(argv, **defaults):
    p = argparse.ArgumentParser(parents=[opt.nuts_options(**defaults)])
    p.add_argument("--json", action="store_true")
    return p.parse_args(argv)


def test_the_command_line_options_are_the_settings_fields():
    fields = [f.name for f in dataclasses.fields(NutsSettings)]
    assert [n for n in opt.NUTS if n != "no_progress"] == [n for n in fields if n in opt.NUTS]
    assert set(SAMPLERS) == {"pymc", "nutpie"}
    args = _args(["--draws", "50", "--seed", "3", "--target-accept", "0.95"])
    s = opt.sampler_settings(args)
    assert isinstance(s, NutsSettings)
    assert (s.draws, s.tune, s.chains, s.seed, s.sampler, s.target_accept) == (
        50,
        1000,
        4,
        3,
        "pymc",
        0.95,
    )
    assert s.progress is True
    assert opt.sampler_settings(args, quiet=True).progress is False
    assert opt.sampler_settings(_args(["--no-progress"])).progress is False


def test_a_default_described_in_words_is_the_models_own():
    args = _args(
        [], draws="1000; 16000 with --integrated", sampler="pymc; nutpie with --integrated"
    )
    s = opt.sampler_settings(args)
    assert s.draws is None and s.sampler is None and s.tune == 1000
    assert opt.sampler_settings(_args(["--sampler", "nutpie", "--draws", "9"])).sampler == "nutpie"
