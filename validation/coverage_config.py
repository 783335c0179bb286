"""The grid and settings of a coverage study (:class:`CoverageConfig`), read from TOML by
:func:`load_config`; :mod:`bayes_eval.validation.coverage` runs it."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

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
        for name in ("M", "N", "C"):
            values = getattr(self, name)
            if not values or any(int(v) != v or v < 1 for v in values):
                raise ValueError(
                    f"{name} is {values!r}; expected a non-empty list of positive integers."
                )
        bad = [s for s in self.scenarios if s not in SCENARIOS]
        if bad:
            raise ValueError(f"scenarios {bad} are unknown; expected some of {list(SCENARIOS)}.")
        if not 0 < self.confidence < 1:
            raise ValueError(
                f"confidence is {self.confidence!r}; expected a probability in (0, 1)."
            )
        if self.reps < 2 or self.exact_reps < 0 or self.empirical_exact_reps < 0:
            raise ValueError("reps must be >= 2, exact_reps and empirical_exact_reps >= 0.")

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
        raw = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the coverage configuration ({exc}).") from exc
    unknown = set(raw) - set(CoverageConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}.")
    config = CoverageConfig(**raw)
    config.validate()
    return config
