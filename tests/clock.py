"""The hand-moved clock every harness gives the service (and, where a test needs it, the store): time in tests
moves only when the test says so, never with sleeps."""

from __future__ import annotations


class Clock:
    """A clock the test moves by hand (turn timers, claim windows, daily grants)."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
