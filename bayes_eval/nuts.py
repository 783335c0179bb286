"""The settings of a NUTS run, as one immutable value shared by every model and command.

Every function of ``bayes_eval.models`` and ``bayes_eval.validation`` that samples takes
one :class:`NutsSettings` (``nuts=``; the judges' fits ``settings=``), and the command line
builds one from its sampler options (``--draws``, ``--tune``, ``--chains``, ``--seed``,
``--sampler``, ``--target-accept``, ``--no-progress``). A setting left at None is the sampled
model's own (for example 16,000 draws for the judges model with hyperpriors, 1,000
elsewhere): :meth:`NutsSettings.resolved` fills it in. The module needs nothing beyond the
standard library; PyMC is imported only by the functions that sample.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SAMPLERS", "NutsSettings"]

#: The NUTS implementations: PyMC's own and nutpie's.
SAMPLERS = ("pymc", "nutpie")


def _is_int(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    return float(value).is_integer()


@dataclass(frozen=True)
class NutsSettings:
    """The settings of a NUTS run: draws, tuning, chains, seed, sampler and checks.

    A setting left at None takes the sampled model's own value (:meth:`resolved`). The
    values are checked when the settings are made: a bad value raises a ``ValueError``
    naming it.

    Parameters
    ----------
    draws : int or None
        Draws kept per chain, at least 1 (None: the model's own, 1,000 for most).
    tune : int or None
        Tuning steps per chain, at least 0 (None: the model's own, 1,000 for most).
    chains : int
        Number of chains, at least 1; default 4.
    seed : int
        Random seed, at least 0; default 0.
    sampler : {"pymc", "nutpie"} or None
        The NUTS implementation (None: the model's own, PyMC's for most).
    target_accept : float or None
        NUTS target acceptance rate in (0, 1) (None: the model's own, 0.8 for most).
    progress : bool
        Show the sampler's progress bar on stderr; default False.
    cores : int or None
        Chains run at the same time, at least 1 (None: the CPUs this process may use, at
        most ``chains``).
    warn : bool
        Issue a convergence warning when a check fails; default True (the diagnostics are
        stored either way).

    Examples
    --------
    >>> from bayes_eval.nuts import NutsSettings
    >>> nuts = NutsSettings(draws=500, chains=2, seed=3)
    >>> full = nuts.resolved(draws=1000, tune=1000, sampler="pymc")
    >>> full.draws, full.tune, full.chains, full.seed, full.sampler, full.target_accept
    (500, 1000, 2, 3, 'pymc', None)
    >>> NutsSettings(chains=0)
    Traceback (most recent call last):
    ...
    ValueError: chains is 0; expected a positive integer.
    """

    draws: int | None = None
    tune: int | None = None
    chains: int = 4
    seed: int = 0
    sampler: str | None = None
    target_accept: float | None = None
    progress: bool = False
    cores: int | None = None
    warn: bool = True

    def __post_init__(self) -> None:
        for name, least in (("draws", 1), ("tune", 0), ("chains", 1), ("seed", 0), ("cores", 1)):
            value = getattr(self, name)
            if value is None and name in ("draws", "tune", "cores"):
                continue
            if not _is_int(value) or value < least:
                kind = "a positive" if least else "a non-negative"
                raise ValueError(f"{name} is {value!r}; expected {kind} integer.")
            object.__setattr__(self, name, int(value))
        if self.sampler is not None and self.sampler not in SAMPLERS:
            raise ValueError(f"sampler is {self.sampler!r}; expected 'pymc' or 'nutpie'.")
        ta = self.target_accept
        if ta is not None and not (
            not isinstance(ta, bool) and isinstance(ta, numbers.Real) and 0.0 < ta < 1.0
        ):
            raise ValueError(f"target_accept is {ta!r}; expected a number in (0, 1).")
        for name in ("progress", "warn"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} is {getattr(self, name)!r}; expected True or False.")

    def resolved(self, **own: Any) -> NutsSettings:
        """These settings with each unset (None) value taken from ``own``, the model's own.

        Parameters
        ----------
        **own : Any
            The sampled model's own values by field name (e.g. ``draws=1000``); a value set
            here wins over ``own``.

        Returns
        -------
        NutsSettings
            The settings with the unset values filled in.

        Examples
        --------
        >>> from bayes_eval.nuts import NutsSettings
        >>> settings = NutsSettings(draws=200).resolved(draws=1000, tune=500)
        >>> settings.draws, settings.tune
        (200, 500)
        """
        unknown = sorted(set(own) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise ValueError(f"no NUTS setting is called {', '.join(unknown)}.")
        fill = {k: v for k, v in own.items() if getattr(self, k) is None and v is not None}
        return dataclasses.replace(self, **fill) if fill else self

    def replace(self, **changes: Any) -> NutsSettings:
        """These settings with some values changed (checked like new settings).

        Parameters
        ----------
        **changes : Any
            New values by field name.

        Returns
        -------
        NutsSettings
            The changed settings.

        Examples
        --------
        >>> from bayes_eval.nuts import NutsSettings
        >>> NutsSettings(seed=1).replace(chains=2).chains
        2
        """
        return dataclasses.replace(self, **changes)

    def kwargs(self) -> dict[str, Any]:
        """The settings as keyword arguments, in field order.

        Returns
        -------
        dict
            Field name -> value.

        Examples
        --------
        >>> from bayes_eval.nuts import NutsSettings
        >>> NutsSettings(draws=10).kwargs()["draws"]
        10
        """
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_call(
        cls, nuts: NutsSettings | None, legacy: Mapping[str, Any], *, owner: str
    ) -> NutsSettings:
        """The settings a sampling function was given: ``nuts``, or the old one-by-one keywords.

        Parameters
        ----------
        nuts : NutsSettings or None
            The settings the caller passed (None: the defaults).
        legacy : mapping
            Keyword arguments the function received beside ``nuts``: NUTS settings passed one
            by one (``draws=...``), which still work with a ``DeprecationWarning``.
        owner : str
            The function's name, for the messages.

        Returns
        -------
        NutsSettings
            ``nuts`` with the one-by-one settings applied.

        Examples
        --------
        >>> import warnings
        >>> from bayes_eval.nuts import NutsSettings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", DeprecationWarning)
        ...     NutsSettings.from_call(None, {"draws": 50}, owner="fit").draws
        50
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(legacy) - names)
        if unknown:
            raise TypeError(f"{owner}() got an unexpected keyword argument {unknown[0]!r}")
        settings = cls() if nuts is None else nuts
        if not isinstance(settings, NutsSettings):
            raise ValueError(f"nuts is {nuts!r}; expected a NutsSettings.")
        if legacy:
            warnings.warn(
                f"{owner}(): passing NUTS settings one by one ({', '.join(sorted(legacy))}) is "
                f"deprecated; pass nuts=NutsSettings({', '.join(sorted(legacy))}=...).",
                DeprecationWarning,
                stacklevel=3,
            )
            settings = settings.replace(**legacy)
        return settings
