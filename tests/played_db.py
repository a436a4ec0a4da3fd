"""A database made by playing whole matches of every game (the operator tools' tests copy, back up and check it).

Kenza and a Konkan coin table are played through the service, humans typing the normal bot's moves with /m in rated
groups: players, chats, lobbies, messages, stats, ratings, the coin ledger, achievements. Tunj, Canasta and ranked
Konkan with tiles are longer (300 to 800 moves), and the service's deliveries cost about 7 ms a move: they are
played through the store as the service commits them (the same calls, the engine's states and results, rated
sides), which writes the same rows but the messages, at a tenth of the time. A Kenza table is left in play.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import engine
from bot import callbacks
from bot.messages import Actor, ChatRef
from bot.service import Service
from engine.bots import decide
from storage import Store
from storage.ladder import sides_and_places
from tests.chat import fake_service

PEOPLE = [Actor("fake", str(10 + n), name, language="en") for n, name in enumerate(("Ali", "Mona", "Sami", "Huda"))]
ADMIN = Actor("fake", "10", "Ali", language="en", is_admin=True)
# (game, how the table opens: /new words or a mode button, players); one group each, every one rated
TABLES = [("kenza", ["kenza", "target=101"], 2), ("konkan_cards", ["konkan_cards", "stake=20"], 2)]
# (game, mode, options, players) played through the store
# with the seed of the shortest of a dozen deals (the normal bots end them in 270, 186 and 464 moves)
STORE_TABLES = [("tunj", "", {}, 2, 11), ("canasta", "", {"target": 2500}, 2, 0), ("konkan_tiles", "ranked", {}, 4, 2)]


async def open_table(service: Service, group: ChatRef, how: list[str] | str, players: int) -> int:
    if isinstance(how, str):
        await service.press(PEOPLE[0], group, callbacks.encode("n", 0, how))
    else:
        await service.command(PEOPLE[0], group, "new", how)
    match = await service.store.lobby_or_active_match(group.platform, group.chat_id)
    assert match is not None
    for actor in PEOPLE[1:players]:
        await service.press(actor, group, callbacks.encode("j", match.id))
    reply = await service.press(PEOPLE[0], group, callbacks.encode("s", match.id))
    assert not reply.alert, reply.text
    return match.id


async def play(service: Service, match_id: int, seed: int, moves: int | None = None) -> None:
    """The humans of the table type the normal bot's moves until the match ends (or `moves` were played)."""
    store = service.store
    seats = await store.seats(match_id)
    by_player = {(await store.get_player(seat.player_id)).user_id: seat for seat in seats if seat.player_id}
    actors = {by_player[actor.user_id].seat: actor for actor in PEOPLE if actor.user_id in by_player}
    rng = random.Random(seed)
    for _ in range(moves or 20000):
        match = await store.get_match(match_id)
        if match.status != "active":
            return
        rules = engine.get(match.game)
        state = rules.from_json(match.snapshot)
        seat = rules.to_move(state)
        move = decide(match.game, state, seat, "normal", rng, slips=False)
        actor = actors[seat]
        reply = await service.command(actor, ChatRef("fake", actor.user_id, private=True), "m", move.split())
        assert not reply.alert, (match.game, move, reply.text)
    assert moves is not None, "the match did not end"


async def play_in_store(store: Store, number: int, game: str, mode: str, options: dict[str, Any], players: int,
                        seed: int) -> int:
    """A rated table of `players` humans played to its end through the store's calls, as bot/core/play.py commits
    each move (the finishing move with the result and the rated sides)."""
    rules = engine.get(game)
    options = rules.check_options(players, options)
    ids = [(await store.find_player("fake", actor.user_id)).id for actor in PEOPLE[:players]]
    match = await store.create_match(game, mode, options, "fake", f"-{300 + number}", ids[0], seed, rated=True)
    for player_id in ids:
        await store.add_seat(match.id, player_id)
    state = rules.new(players, options, seed=seed)
    match = await store.start_match(match.id, rules.to_json(state), None)
    rng = random.Random(seed)
    while (seat := rules.to_move(state)) is not None:
        move = decide(game, state, seat, "normal", rng, slips=False)
        state = rules.apply(state, seat, move)
        result = rules.result(state)
        over = bool(result["over"])
        sides = sides_and_places(result, players, rules.info.lower_is_better) if over else None
        match = await store.apply_move(match.id, match.version, seat, "human", move, rules.to_json(state), None,
                                       finished_result=result if over else None, sides=sides)
    assert match.status == "finished"
    return match.id


async def build(path: Path | str, seed: int = 4) -> dict[str, int]:
    """Every game played to its end in its own rated group, then a Kenza table left in play; match id by game."""
    played = {}
    async with fake_service(path, seed) as (service, _transport, store, _clock):
        for actor in PEOPLE:
            await service.command(actor, ChatRef("fake", actor.user_id, private=True), "start")
        for number, (game, how, players) in enumerate(TABLES):
            group = ChatRef("fake", f"-{100 + number}")
            await service.command(ADMIN, group, "rated", ["on"])
            played[game] = await open_table(service, group, how, players)
            await play(service, played[game], seed + number)
        for number, (game, mode, options, players, deal) in enumerate(STORE_TABLES):
            played[game] = await play_in_store(store, number, game, mode, options, players, deal)
        live = await open_table(service, ChatRef("fake", "-200"), ["kenza"], 2)
        await play(service, live, seed, moves=3)
        played["live"] = live
        await service.close()
    return played
