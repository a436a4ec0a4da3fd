"""A tiny seeded generator whose whole state is one integer, so it lives inside JSON game states.

Python's `random.Random` would need a 625-word state in every snapshot; SplitMix64 needs one int and gives
the same sequence on every platform and Python version, which replays rely on.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1


def seed_state(seed: int | str | None) -> int:
    """Turn any user seed into the generator's 64-bit state."""
    if seed is None:
        seed = 0
    if isinstance(seed, str):
        value = 0
        for byte in seed.encode():
            value = (value * 131 + byte) & _MASK
        seed = value
    return int(seed) & _MASK


def next_u64(state: int) -> tuple[int, int]:
    """Advance the state; return (new_state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in [0, n) by rejection, so no modulo bias creeps into the deal."""
    if n <= 0:
        raise ValueError("n must be positive")
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, value = next_u64(state)
        if value < limit:
            return state, value % n


def shuffled(state: int, items: list) -> tuple[int, list]:
    """Fisher-Yates shuffle of a copy of `items`; returns (new_state, shuffled copy)."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        state, j = below(state, i + 1)
        out[i], out[j] = out[j], out[i]
    return state, out
