"""The `expert` level: determinized rollouts ("perfect-information Monte Carlo") over the seat's view.

Why this search: every Majlis game hides cards (hands, the stock, a pile's lower cards), and the bot may use only
what its seat sees. For each decision the bot deals `worlds` complete positions that agree with its view — the unseen
cards shuffled into the hidden places, in the sizes the view shows (each game's `sample` builds them from the view
alone, never from the real state) — then plays every candidate move in every world and follows it with the `normal`
bot for every seat until the round ends (or a game's horizon), scoring what the seat's side gained against the
others. Every candidate meets the same worlds and the same rollout dice (common random numbers), so the comparison
between two moves is not drowned by the luck of the deal. The `normal` bot's own choice is always a candidate, and
the move with the best mean replaces it only when it is ahead by more than a standard error (`_pick`).

The budget is a number of rollouts, not a time: the decision depends only on the view, the legal moves and the
`rng` it is given (the service seeds that from the match's seed and version), so a replay or a restarted worker
picks the same move on any machine, however loaded. Memory is a handful of game states at a time (one world and
one rollout): about a MiB at most (`bench/expert_strength.py --memory`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalMove

State = dict[str, Any]
View = dict[str, Any]


@dataclass(frozen=True)
class SearchPlan:
    """How one game's expert searches: what it may not know it fills in with `sample`; how far it looks."""

    game_id: str
    sample: Callable[[View, random.Random], State]  # a full state agreeing with the view, hidden cards dealt anew
    rollouts: int = 48  # the budget: rollouts per decision, shared among the candidates
    max_worlds: int = 16  # no more worlds than this, even with few candidates
    candidates: int = 8  # at most this many moves are searched (the normal bot's choice always among them)
    horizon: int = 400  # rollout moves at most (a round normally ends long before)
    win_bonus: float = 0.0  # value of winning the match inside a rollout, in score points
    # a score for a position a rollout stopped in before its round ended: side -> points it is worth (optional)
    estimate: Callable[[State, int], list[float]] | None = None
    # how sure the search must be (standard errors) before it overrules the normal bot's move (`_pick`)
    confidence: float = 1.0


def _pick(outcomes: list[list[float]], confidence: float) -> int:
    """The candidate to play (index; 0 is the favourite): the best mean, but only if it beats the favourite by
    more than `confidence` standard errors of their paired differences — the same worlds and dice met both, so
    the difference is what the move changed. A handful of rollouts is noisy: without this margin the search
    would trade the normal bot's good move for a lucky one about as often as for a better one."""
    if len(outcomes) < 2:
        return 0
    count = len(outcomes)
    means = [sum(row[index] for row in outcomes) / count for index in range(len(outcomes[0]))]
    best = max(range(len(means)), key=lambda index: (round(means[index], 6), -index))
    if best == 0:
        return 0
    gaps = [row[best] - row[0] for row in outcomes]
    mean = sum(gaps) / count
    spread = (sum((gap - mean) ** 2 for gap in gaps) / (count - 1)) ** 0.5
    return best if mean > confidence * spread / count**0.5 else 0


def side_of(game: Any, players: int, seat: int) -> int:
    """The index in `result()["scores"]` that counts for `seat` (its team's in a team game)."""
    return seat % 2 if players in game.info.teams_at else seat


class ExpertBot:
    """PIMC over determinized worlds with the normal bot as rollout policy (see the module docstring)."""

    level = "expert"

    def __init__(self, plan: SearchPlan) -> None:
        import engine
        from engine.bots import get

        self.plan = plan
        self.game = engine.get(plan.game_id)
        self.policy = get(plan.game_id, "normal")

    def choose(self, view: View, legal: list[str], rng: random.Random, attempts: list[str] | None = None) -> str:
        """`attempts` (Tunj's rule-breaking moves) are accepted and ignored: the expert never slips."""
        if not legal:
            raise ValueError("no legal move to choose from")
        # One draw from the caller's generator seeds everything below: the decision is a function of it.
        seed = rng.getrandbits(64)
        favourite = self.policy.choose(view, legal, random.Random(seed))
        if len(legal) == 1:
            return legal[0]
        plan = self.plan
        search = random.Random(seed ^ 0x5EA4C4)
        moves = self._candidates(view, legal, favourite, search)
        if len(moves) == 1:
            return moves[0]
        worlds = max(2, min(plan.max_worlds, plan.rollouts // len(moves)))
        outcomes: list[list[float]] = []  # per world, each candidate's value (the favourite's first)
        seat = view["seat"]
        for _ in range(worlds):
            world = plan.sample(view, search)
            dice = search.getrandbits(64)
            values = [self._rollout(world, seat, move, dice) for move in moves]
            if None in values:  # the world guessed some bookkeeping of the turn wrong: a move fails in it
                continue
            outcomes.append([float(value) for value in values])  # type: ignore[arg-type]
        return moves[_pick(outcomes, plan.confidence)]

    def _candidates(self, view: View, legal: list[str], favourite: str, rng: random.Random) -> list[str]:
        plan = self.plan
        if len(legal) <= plan.candidates:
            rest = [move for move in legal if move != favourite]
        else:
            others = [move for move in legal if move != favourite]
            rest = rng.sample(others, plan.candidates - 1)
        return [favourite, *rest[: plan.candidates - 1]]

    def _rollout(self, world: State, seat: int, move: str, dice: int) -> float | None:
        """Play `move` in `world`, then the normal bot everywhere until the round ends; what the seat's side gained
        over the others (their mean), in the game's points."""
        game, plan = self.game, self.plan
        players = game.players(world)
        before = game.result(world)
        start_round = before["round"]
        try:
            state = game.apply(world, seat, move)
        except IllegalMove:
            return None
        rng = random.Random(dice)
        steps = 0
        while steps < plan.horizon:
            mover = game.to_move(state)
            if mover is None or game.result(state)["round"] != start_round:
                break
            legal = game.legal_moves(state, mover)
            if not legal:  # a world whose guessed bookkeeping leaves the mover stuck: score it where it stands
                break
            try:
                choice = legal[0] if len(legal) == 1 else self.policy.choose(game.view(state, mover), legal, rng)
                # In place, unchecked: `state` is this rollout's own copy (from `apply` above) and `choice` one of
                # the canonical legal moves, so `apply`'s copy and parse would only cost a fifth of the rollout again.
                game._play(state, mover, choice)
            except (IllegalMove, ValueError, KeyError, IndexError):
                # A world guesses the turn's bookkeeping the view does not show (Konkan tiles: which melds were
                # laid this turn); where the guess leads the normal bot astray, the world is dropped, not the move.
                return None
            steps += 1
        after = game.result(state)
        gained = [now - then for now, then in zip(after["scores"], before["scores"], strict=True)]
        if plan.estimate is not None and game.to_move(state) is not None \
                and after["round"] == start_round:
            gained = [g + e for g, e in zip(gained, plan.estimate(state, seat), strict=True)]
        if game.info.lower_is_better:
            gained = [-g for g in gained]
        mine = side_of(game, players, seat)
        others = [g for index, g in enumerate(gained) if index != mine]
        value = gained[mine] - sum(others) / max(1, len(others))
        if after["over"] and plan.win_bonus:
            value += plan.win_bonus if mine in after["winners"] else -plan.win_bonus
        return value


def unseen(deck: list[str], seen: list[str]) -> list[str]:
    """The cards of `deck` (a multiset: Canasta's two decks repeat codes) left once the `seen` ones are taken out."""
    left = Counter(deck)
    left.subtract(Counter(seen))
    return [card for card, count in sorted(left.items()) for _ in range(max(0, count))]


def real(code: str) -> str:
    """The card itself of a meld entry: `X:7H` is the joker X standing as 7H."""
    return code.split(":", 1)[0]
