"""What a measurement says: confirmed, refuted or unknown, with the figures in words."""

from __future__ import annotations

from dataclasses import dataclass

CONFIRMED, REFUTED, UNKNOWN = "confirmed", "refuted", "unknown"


@dataclass(frozen=True)
class Measurement:
    verdict: str  # CONFIRMED, REFUTED or UNKNOWN
    text: str  # the figures, in words

    @property
    def confirmed(self) -> bool:
        return self.verdict == CONFIRMED

    @property
    def refuted(self) -> bool:
        return self.verdict == REFUTED


def worst(measurements: list[Measurement], nothing: str) -> Measurement:
    """The run that shows most: a confirmation, else what could not be told, else a refutation."""
    for verdict in (CONFIRMED, UNKNOWN, REFUTED):
        found = [m for m in measurements if m.verdict == verdict]
        if found:
            return found[0]
    return Measurement(UNKNOWN, nothing)
