"""The configuration of the ``sbc`` study (``bayes-eval validate sbc``).

Kept apart from :mod:`.study_configs` and free of study code (no NumPy work, no PyMC): the
registry imports it at import time. Annotations are real types (no ``from __future__ import
annotations``) so that ``field.type`` can be inspected directly.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field

from bayes_eval.validation import config_checks as check

__all__ = ["SBC_ESTIMATORS", "SbcConfig"]

#: ``matching-exact`` needs no MCMC; the others are NUTS fits of the PyMC models.
SBC_ESTIMATORS = (
    "matching-exact",
    "matching",
    "hierarchical",
    "crossed",
    "power-prior",
    "judges",
)
#: Options that say how to run, not what: they may change when a study is resumed.
EXECUTION = ("scheduler", "workers", "max_cells")


def _opt(default, help: str, **extra):
    return field(default=default, metadata={"help": help, **extra})


@dataclass(frozen=True)
class SbcConfig:
    """``sbc``: simulation-based calibration of one estimator, in resumable blocks on Dask."""

    estimator: str = _opt(
        "matching-exact",
        "what to calibrate: matching-exact (closed-form posterior, no MCMC) or a PyMC model "
        "fitted with NUTS",
        choices=SBC_ESTIMATORS,
    )
    simulations: int | None = _opt(
        None, "SBC simulations (default 10000 for matching-exact, 200 with NUTS)"
    )
    questions: int = _opt(30, "questions M per simulated benchmark")
    trials: int | None = _opt(None, "trials N per question (default 8; not for judges)")
    n_models: int = _opt(2, "LLMs evaluated on the same questions (ranks need 2 or more)")
    draws: int | None = _opt(
        None,
        "posterior draws: ranked draws for matching-exact (default 100), NUTS draws per "
        "chain otherwise (default 200)",
    )
    tune: int | None = _opt(None, "NUTS tuning steps per chain (default 200)")
    chains: int | None = _opt(None, "NUTS chains (default 2)")
    thin: int | None = _opt(
        None, "keep every THIN-th NUTS draw for the ranks (near-independent draws; default 4)"
    )
    posterior_alpha0: float | None = _opt(
        None,
        "matching-exact only: the prior of the posterior (default the true alpha0 = 1; "
        "another value is the deliberately mis-specified check, which must fail)",
    )
    block: int | None = _opt(
        None, "simulations per cell (default 2000 for matching-exact, 10 with NUTS)"
    )
    seed: int = _opt(0, "random seed")
    scheduler: str | None = _opt(None, "address of a running Dask scheduler, tcp://HOST:PORT")
    workers: int | None = _opt(
        None,
        "workers of the local Dask cluster (default: the cores, or 0 for matching-exact; "
        "0: no Dask, in-process)",
    )
    max_cells: int | None = _opt(None, "stop after this many new cells (resume later)")

    def __post_init__(self):
        if self.estimator not in SBC_ESTIMATORS:
            raise ValueError(
                f"estimator is {self.estimator!r}; expected one of {list(SBC_ESTIMATORS)}."
            )
        check.integer("simulations", self.simulations, 2, optional=True)
        for name in ("questions", "n_models"):
            check.integer(name, getattr(self, name))
        for name in ("trials", "tune", "chains", "thin"):
            check.integer(name, getattr(self, name), optional=True)
        given = [n for n in ("tune", "chains", "thin") if getattr(self, n) is not None]
        if given and self.estimator == "matching-exact":
            raise ValueError(
                f"{', '.join(given)} set NUTS, but matching-exact draws its posterior in closed "
                "form (no MCMC): drop them, or choose a NUTS estimator."
            )
        if self.estimator == "judges" and self.trials is not None:
            raise ValueError(
                "trials is not used by the judges estimator (one judgement per judge, question "
                "and candidate); expected it unset."
            )
        check.integer("draws", self.draws, optional=True)
        check.integer("block", self.block, optional=True)
        check.positive_number("posterior_alpha0", self.posterior_alpha0, optional=True)
        if self.posterior_alpha0 is not None and self.estimator != "matching-exact":
            raise ValueError(
                "posterior_alpha0 is a check of matching-exact only; expected it unset for "
                f"estimator {self.estimator!r}."
            )
        check.integer("seed", self.seed, 0)
        check.integer("workers", self.workers, 0, optional=True)
        check.integer("max_cells", self.max_cells, optional=True)
        exact = self.estimator == "matching-exact"
        if not exact and self.n_chains * self.n_draws < 2 * self.n_thin:
            raise ValueError(
                f"chains x draws / thin keeps fewer than 2 draws; expected more draws or a "
                f"smaller thin than {self.n_thin}."
            )

    @property
    def exact(self) -> bool:
        return self.estimator == "matching-exact"

    @property
    def n_simulations(self) -> int:
        return self.simulations or (10_000 if self.exact else 200)

    @property
    def n_draws(self) -> int:
        """Posterior draws: ranked draws (exact) or NUTS draws per chain."""
        return self.draws or (100 if self.exact else 200)

    @property
    def n_trials(self) -> int:
        return self.trials or 8

    @property
    def n_tune(self) -> int:
        return 200 if self.tune is None else self.tune

    @property
    def n_chains(self) -> int:
        return self.chains or 2

    @property
    def n_thin(self) -> int:
        return self.thin or 4

    @property
    def block_size(self) -> int:
        return self.block or (2000 if self.exact else 10)

    def cells(self) -> list[int]:
        """First simulation of every block."""
        return list(range(0, self.n_simulations, self.block_size))

    def study_fields(self) -> dict:
        """The fields that define the results (not how they are run), defaults resolved."""
        out = {k: v for k, v in dataclasses.asdict(self).items() if k not in EXECUTION}
        out |= {"simulations": self.n_simulations, "draws": self.n_draws, "trials": self.n_trials}
        if not self.exact:
            out |= {"tune": self.n_tune, "chains": self.n_chains, "thin": self.n_thin}
        out["block"] = self.block_size
        return out

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.study_fields(), sort_keys=True).encode()).hexdigest()[
            :16
        ]
