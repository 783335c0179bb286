"""The build backend of bayes_eval: setuptools' own (``setuptools.build_meta``), with one
informational notice silenced.

An editable install (``pip install -e .``, which ``make demo`` and ``make test`` run) maps
``models/`` and ``validation/`` to ``bayes_eval.models`` and ``bayes_eval.validation``, so
setuptools installs a meta path finder and emits ``InformationOnly("Editable installation.")``
telling the reader that folders named like the package may shadow it. pip (26 and newer)
prints every warning of a build backend as a ``BuildBackendWarning`` block, which reads like a
failed install. This module ignores exactly that notice while an editable wheel is built;
every other warning of setuptools still reaches pip. Nothing else differs from
``setuptools.build_meta``: the other hooks are setuptools' own objects.
"""

from __future__ import annotations

import warnings

from setuptools import build_meta as _setuptools

build_sdist = _setuptools.build_sdist
build_wheel = _setuptools.build_wheel
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """``setuptools.build_meta.build_editable`` without its "Editable installation." notice."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Editable installation\.")
        return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
