"""The grid and settings of a coverage study (:class:`CoverageConfig`), read from TOML by
:func:`load_config`; :mod:`bayes_eval.validation.coverage` runs it."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bayes_eval.validation import config_checks as check
from bayes_eval.validation.study_configs import COVERAGE_SCENARIOS as SCENARIOS

__all__ = ["CoverageConfig", "load_config"]


@dataclass
class CoverageConfig:
    """Grid and settings of a coverage study (TOML keys of the same names).

    ``nuts_cells`` lists ``[scenario, C, M, N]`` cells where the hierarchical model is also
    fitted, with ``nuts_reps`` replicates of ``nuts_draws`` draws each. The exact interval is
    computed for binary cells (Beta convolutions, milliseconds); for rubrics (C > 1) it needs
    Gil-Pelaez inversions, 0.1-1 s per interval, so it runs only with ``exact_categorical``.
    """

    M: list[int] = field(default_factory=lambda: [5, 15, 30, 100, 500])
    N: list[int] = field(default_factory=lambda: [1, 4, 16, 80])
    C: list[int] = field(default_factory=lambda: [1, 2, 4])
    scenarios: list[str] = field(
        default_factory=lambda: ["uniform", "dirichlet", "beta_mixture", "anchored"]
    )
    reps: int = 2000
    exact_reps: int = 2000
    exact_categorical: bool = False
    bootstrap_resamples: int = 200
    empirical_exact_reps: int = 0  # off: each exact learned-prior interval costs 1-3 s
    confidence: float = 0.95
    alpha0: float = 0.5
    seed: int = 0
    anchors: list[str] = field(
        default_factory=lambda: ["phi4_aime25", "cruxeval_codellama7b", "taubench_airline_gpt4o"]
    )
    nuts_cells: list[list] = field(default_factory=list)
    nuts_reps: int = 20
    nuts_draws: int = 300

    def validate(self) -> None:
        """Check every key by type and range (``ValueError`` naming the key and the value,
        e.g. ``M must be a list of positive integers, got 5``)."""
        for name in ("M", "N", "C"):
            check.integers(name, getattr(self, name))
        check.strings("scenarios", self.scenarios, SCENARIOS)
        check.integer("reps", self.reps, 2)
        for name in ("exact_reps", "bootstrap_resamples", "empirical_exact_reps", "seed"):
            check.integer(name, getattr(self, name), 0)
        check.boolean("exact_categorical", self.exact_categorical)
        check.probability("confidence", self.confidence)
        check.positive_number("alpha0", self.alpha0)
        check.strings("anchors", self.anchors)
        if not isinstance(self.nuts_cells, (list, tuple)):
            raise ValueError(
                f"nuts_cells must be a list of [scenario, C, M, N] cells, got {self.nuts_cells!r}"
            )
        for cell in self.nuts_cells:
            check.nuts_cell("nuts_cells", cell, SCENARIOS)
        check.integer("nuts_reps", self.nuts_reps)
        check.integer("nuts_draws", self.nuts_draws)

    def cells(self) -> list[tuple[str, int, int, int]]:
        out = []
        for s in self.scenarios:
            for c in self.C:
                if s == "anchored" and c != 1:
                    continue  # real per-question rates are binary
                for m in self.M:
                    for n in self.N:
                        out.append((s, int(c), int(m), int(n)))
        return out

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:16]


def load_config(path: str | Path) -> CoverageConfig:
    """Read a TOML configuration (any subset of :class:`CoverageConfig`'s fields)."""
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "expected a TOML file."
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the coverage configuration ({exc}).") from exc
    known = list(CoverageConfig.__dataclass_fields__)
    unknown = set(raw) - set(known)
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}; expected some of {known}.")
    config = CoverageConfig(**raw)
    try:
        config.validate()
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return config
