"""Tunj through the chat layout and the service: two-press moves, the claim window both ways, a whole hand."""

from __future__ import annotations

import random

import pytest

import engine
from bot import callbacks, presenter, summary
from bot.games import ui_for
from bot.i18n import catalog, t
from bot.messages import Actor, ChatRef
from bot.service import Service
from engine.bots import decide
from storage import Store
from tests.chat import Clock, fake_service
from tests.fakes import FakeTransport
from tests.tunj_tables import play_out_bot_turn, table

GAME = engine.get("tunj")
UI = ui_for("tunj")
GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")
MONA = Actor("fake", "2", "Mona", language="en")


def private(actor: Actor) -> ChatRef:
    return ChatRef("fake", actor.user_id, private=True)


# ---- the layout on engine states ---------------------------------------------------------------------------


def _states(seeds: range, moves: int) -> list[dict]:
    """States met in random-bot play (claims included), to check the buttons against the legal list."""
    out = []
    for seed in seeds:
        state = GAME.new(2, {}, seed=seed)
        chooser = random.Random(seed)
        for _ in range(moves):
            if GAME.result(state)["over"]:
                break
            seat = GAME.to_move(state)
            out.append(state)
            state = GAME.apply(state, seat, decide("tunj", state, seat, "random", chooser))
    return out


def _reachable(view: dict, legal: list[str]) -> tuple[list[str], int]:
    """Every move a player can reach by pressing (first step, then each pick's second step), and how many
    second steps lacked a way back."""
    reached: list[str] = []
    no_back = 0
    for row in UI.rack_buttons(view, legal, "en", None):
        for button in row:
            if button.kind == "move":
                reached.append(button.move)
            elif button.kind == "pick":
                second = UI.rack_buttons(view, legal, "en", button.arg)
                kinds = [b.kind for r in second for b in r]
                assert "pick" not in kinds, "a second step does not open a third"
                no_back += "back" not in kinds
                reached += [b.move for r in second for b in r if b.kind == "move"]
    return reached, no_back


def test_buttons_offer_exactly_the_attempts_in_two_presses_and_tunj_to_the_other_seat():
    """The mover's buttons reach every attempt (legal and priority-neglecting moves) once; the other seat has
    the one Tunj! control all through the mover's turn, and during a claim the keyboards look the same."""
    claims = slips = 0
    for state in _states(range(4), 120):
        seat = GAME.to_move(state)
        mover = UI.shown_to_move(GAME.view(state, None), seat)
        other = 1 - mover
        for who in (mover, other):
            view = UI.disguise(GAME.view(state, who))
            offered = UI.offered_moves(GAME, state, who)
            rows = UI.rack_buttons(view, offered, "en", None) if offered else UI.standby_buttons(view, "en")
            kinds = [button.kind for row in rows for button in row]
            if who == other:
                assert kinds == ["call"], "the waiting seat has exactly the Tunj! control"
                assert not offered
                continue
            if state["claim"] is not None:
                claims += 1
                assert rows == [], "the mover waits for the window; they cannot call on themselves"
                continue
            assert "call" not in kinds
            reached, no_back = _reachable(view, offered)
            assert sorted(reached) == sorted(GAME.attempts(state, seat))
            assert len(reached) == len(set(reached))
            assert no_back == 0
            slips += len(offered) > len(GAME.legal_moves(state, seat))
        if state["claim"] is not None:
            caller_view = UI.disguise(GAME.view(state, state["claim"]["caller"]))
            assert caller_view["claim"]["open"] is False and caller_view["to_move"] == state["claim"]["by"]
            assert not any(event["type"] == "claim" for event in caller_view["events"])
    assert claims >= 3, "the random bots made attempts that opened claims"
    assert slips >= 3, "positions with priority-neglecting buttons came up"


def test_pick_keys_fit_an_action_code_and_mark_the_source():
    layout = {
        "reserves": [["5S", "2C"], ["9D"]],
        "houses": [["KH", "QS", "JH"], ["8C"], ["4D"], ["3S"], ["TD"], ["7H"], [], []],
        "hands": [["2H"], ["3H"]],
        "to_move": 0,
    }
    state = GAME.new(2, {}, layout=layout)
    legal = GAME.legal_moves(state, 0)
    view = GAME.view(state, 0)
    assert "move H1:2 H8" in legal
    picks = [b for row in UI.rack_buttons(view, legal, "en", None) for b in row if b.kind == "pick"]
    run = next(b for b in picks if b.arg == "H1x2")
    assert ":" not in run.arg and "H1" in run.label and "×2" in run.label
    assert callbacks.decode(callbacks.encode("p", 12345, 99999, run.arg)).args[1] == "H1x2"
    second = UI.rack_buttons(view, legal, "en", "H1x2")
    assert [b.move for r in second for b in r if b.kind == "move"] == ["move H1:2 H7", "move H1:2 H8"]
    assert UI.selected(view, "H1x2") == (2, 102)
    assert UI.selected(view, "R") == (0,)
    assert UI.selected(view, None) == ()
    assert UI.selected(view, "Q9") == ()
    # a stale or forged pick falls back to the first step
    assert UI.rack_buttons(view, legal, "en", "H7x5") == UI.rack_buttons(view, legal, "en", None)
    # target labels name the card they go on
    reserve = [b.label for r in UI.rack_buttons(view, legal, "en", "R") for b in r]
    assert reserve == ["→ H7 (empty)", "→ H8 (empty)", "« Back"]


def test_turned_card_shows_its_targets_at_once():
    layout = {"reserves": [["KS"], ["QD"]], "houses": [["9C"], ["5D"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"],
                                                       ["7D"]], "hands": [["8H"], ["3C"]], "to_move": 0}
    state = GAME.apply(GAME.new(2, {}, layout=layout), 0, "turn")
    assert state["piles"]["T"] == ["8H"] and state["claim"] is None
    legal = GAME.legal_moves(state, 0)
    rows = UI.rack_buttons(GAME.view(state, 0), legal, "en", None)
    moves = [b.move for r in rows for b in r]
    assert moves == ["move T H1"] == legal
    assert [b.label for r in rows for b in r] == ["→ H1 (9♣)"]
    assert not any(b.kind == "back" for r in rows for b in r)


def test_timers_and_forced_expire():
    layout = {"reserves": [["KS"], ["QD"]], "houses": [["9C"], ["5D"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"],
                                                       ["7D"]], "hands": [["8H"], ["3C"]], "to_move": 0}
    state = GAME.new(2, {"claim_seconds": 5}, layout=layout)
    public = GAME.view(state, None)
    assert UI.forced_timeout_move(public) is None
    assert UI.timer_seconds(public, state["options"], None) == UI.turn_seconds
    assert UI.timer_seconds(public, state["options"], 30) == 30
    state = GAME.apply(state, 0, "move H1 F1")  # 9C on an empty foundation: a building break
    public = GAME.view(state, None)
    assert UI.forced_timeout_move(public) == "expire"
    assert UI.timer_seconds(public, state["options"], 30) == 5
    assert UI.timer_seconds(public, {}, 30) == 5  # from the view when the options do not say


def test_texts_for_moves_claims_and_the_board():
    layout = {"reserves": [["KS"], ["QD"]], "houses": [["9C"], ["5D"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"],
                                                       ["7D"]], "hands": [["8H"], ["3C"]], "to_move": 0}
    state = GAME.new(2, {}, layout=layout)
    assert UI.describe_move("move R F1", "en") == "reserve → F1"
    assert UI.describe_move("move H3:2 OW", "en") == "2 cards from H3 → opponent's waste"
    assert UI.describe_move("tunj", "en") == "called Tunj!"
    assert "window closed" in UI.describe_move("expire", "en")
    after = GAME.apply(state, 0, "move H1 F1")
    words = UI.describe_move("move H1 F1", "en", GAME.view(after, None))
    assert words.startswith("attempted H1 → F1 — broke:") and "foundations go up" in words
    names = ["Ali", "Mona"]
    table = UI.describe_table(GAME.view(after, None), "en", names)
    assert "Open claim: Ali attempted H1 → F1" in table and "Mona may call Tunj!" in table
    assert "H1: 9♣" in table and "F1: —" in table
    hidden = UI.describe_table(UI.disguise(GAME.view(after, None)), "en", names)
    assert "claim" not in hidden.lower() and "broke" not in hidden and "H1: 9♣" in hidden
    assert UI.describe_move("move H1 F1", "en", UI.disguise(GAME.view(after, None))) == "H1 → F1"
    called = GAME.apply(after, 1, "tunj")
    assert "Mona called Tunj! Ali's H1 → F1 broke: foundations go up by suit from the ace. It is cancelled" in \
        UI.describe_table(GAME.view(called, None), "en", names)
    assert UI.describe_move("tunj", "en", GAME.view(called, None)) == \
        "called Tunj! — H1 → F1 broke: foundations go up by suit from the ace"
    expired = GAME.apply(after, 1, "expire")
    assert "No call in time: Ali's H1 → F1 stays refused (it broke: foundations go up" in \
        UI.describe_table(GAME.view(expired, None), "en", names)
    rack = UI.describe_rack(GAME.view(state, 1), "ar")
    assert rack.splitlines()[2].startswith("أنت:")  # seat 1's own line names it "you"
    assert UI.score_line(GAME.view(state, None), "en", names) == "Ali: 0 · Mona: 0"


def test_every_tunj_key_exists_in_both_catalogs():
    import inspect

    import bot.games.tunj as module
    import renderers.tunj as pictures

    source = inspect.getsource(module)
    keys = {key for key in catalog("en") if key.startswith("tunj.")}
    assert keys == {key for key in catalog("ar") if key.startswith("tunj.")}
    for code in {code for _, code in pictures._RULE_PHRASES} | {"other"}:
        assert f"tunj.rule.{code}" in keys
    for literal in ("tunj.btn.call", "tunj.btn.turn", "tunj.src.run", "tunj.dst.or", "tunj.board.claim"):
        assert literal in source and literal in keys


# ---- through the service -----------------------------------------------------------------------------------


@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "tunj.db", seed=11) as made:
        yield made


async def open_tunj(service, players=(ALI, MONA), bots=(), options=("claim_seconds=5",)):
    await service.command(Actor("fake", "1", "Ali", language="en", is_admin=True), GROUP, "lang", ["en"])
    for actor in players:
        await service.command(actor, private(actor), "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["tunj", *options])
    match = await service.store.lobby_or_active_match("fake", "-100")
    for actor in players[1:]:
        await service.press(actor, GROUP, callbacks.encode("j", match.id))
    for level in bots:
        await service.press(ALI, GROUP, callbacks.encode("b", match.id, level))
    reply = await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    assert not reply.alert, reply.text
    return await service.store.get_match(match.id)


async def _state(store, match_id):
    match = await store.get_match(match_id)
    return match, GAME.from_json(match.snapshot)


async def _actors(store, match_id):
    """Actor per seat."""
    seats = await store.seats(match_id)
    return [ALI if seat.display_name == "Ali" else MONA if seat.display_name == "Mona" else None for seat in seats]


async def _opened(service, store):
    """A new match between Ali and Mona: (match, state, seat to move, its actor, the other actor)."""
    match = await open_tunj(service)
    match, state = await _state(store, match.id)
    actors = await _actors(store, match.id)
    mover = GAME.to_move(state)
    return match, state, mover, actors[mover], actors[1 - mover]


def _bad_foundation_move(state) -> str:
    """A move that breaks a building rule: a house's non-ace outer card onto an empty foundation."""
    piles = state["piles"]
    empty = next(f for f in (f"F{n}" for n in range(1, 9)) if not piles[f])
    house = next(h for h in (f"H{n}" for n in range(1, 9)) if piles[h] and piles[h][-1][0] != "A")
    return f"move {house} {empty}"


async def test_claim_called_in_time_by_the_other_human(setup):
    service, transport, store, clock = setup
    match, state, offender, a, b = await _opened(service, store)
    attempt = _bad_foundation_move(state)
    before = {name: list(pile) for name, pile in state["piles"].items()}
    # Before any attempt B already holds the Tunj! control, on the rack and on the table
    standing = transport.buttons(b.user_id)
    assert [button.label for button in standing] == ["📣 Tunj!"] and standing[0].data == f"t:{match.id}"
    assert any(button.data == f"t:{match.id}" for button in transport.buttons("-100"))
    sends_to_b = sum(1 for c in transport.calls if c[0] == "send" and c[1] == b.user_id)
    b_rack = transport.latest(b.user_id)

    reply = await service.command(a, GROUP, "m", attempt.split())
    assert not reply.alert, reply.text
    match, state = await _state(store, match.id)
    assert state["claim"] is not None and GAME.to_move(state) == 1 - offender
    assert state["piles"] == before, "an attempt is never carried out"
    assert match.deadline == pytest.approx(clock.now + 5)
    # Nothing tells B: no new rack message, the same control, no claim named anywhere, A still shown moving
    assert sum(1 for c in transport.calls if c[0] == "send" and c[1] == b.user_id) == sends_to_b
    assert transport.latest(b.user_id) is b_rack
    table = transport.latest("-100")
    assert "attempted" not in table.text and "broke" not in table.text and "claim" not in table.alt.lower()
    assert f"{a.name}: {UI.describe_move(attempt, 'en')}" in table.text, "shown like any move"
    assert t("en", "table.turn", name=a.name) in table.text, "the mover is still shown moving"
    # A has nothing to press meanwhile, and A cannot answer their own claim
    assert not transport.buttons(a.user_id)
    own = await service.command(a, GROUP, "m", ["tunj"])
    assert own.alert and "your turn" in own.text

    clock.now += 4  # inside the 5-second window
    assert await service.tick() == 0
    reply = await service.press(b, private(b), standing[0].data)
    assert not reply.alert, reply.text
    match, state = await _state(store, match.id)
    assert state["claim"] is None
    assert GAME.to_move(state) == 1 - offender, "a correct call passes the turn to the caller"
    assert (await store.moves(match.id))[-1].move == "tunj"
    caption = transport.latest("-100").text
    assert "called Tunj!" in caption and "broke: foundations go up" in caption, caption
    # B moves now: the same control answers that it is B's own turn, and the version is untouched
    again = await service.press(b, private(b), standing[0].data)
    assert again.alert and "your turn" in again.text
    assert (await store.get_match(match.id)).version == match.version


async def test_a_call_with_no_claim_is_refused_until_the_movers_next_move(setup):
    service, transport, store, clock = setup
    match, state, mover, a, b = await _opened(service, store)
    control = transport.buttons(b.user_id)[0].data
    first = await service.press(b, private(b), control)
    assert first.alert and "no claim" in first.text
    again = await service.press(b, private(b), control)
    assert again.alert and "call again after the mover's next move" in again.text
    typed = await service.command(b, GROUP, "m", ["tunj"])
    assert typed.alert and "call again after" in typed.text
    assert (await store.get_match(match.id)).version == match.version, "a refused call changes nothing"
    # The mover's next move lifts the lock; an attempt then is called as usual
    legal = GAME.legal_moves(state, mover)
    reply = await service.command(a, GROUP, "m", legal[0].split())
    assert not reply.alert, reply.text
    match, state = await _state(store, match.id)
    if GAME.to_move(state) != mover:
        return  # the legal move ended A's turn (a wasted turned card): nothing more to check
    unlocked = await service.press(b, private(b), control)
    assert unlocked.alert and "no claim" in unlocked.text, "a new move of the mover: B may call (and is refused)"


async def test_the_lock_lifts_with_the_attempt_that_follows(setup):
    service, transport, store, clock = setup
    match, state, mover, a, b = await _opened(service, store)
    control = transport.buttons(b.user_id)[0].data
    assert "no claim" in (await service.press(b, private(b), control)).text
    await service.command(a, GROUP, "m", _bad_foundation_move(state).split())
    reply = await service.press(b, private(b), control)
    assert not reply.alert, reply.text
    match, state = await _state(store, match.id)
    assert GAME.to_move(state) == 1 - mover and (await store.moves(match.id))[-1].move == "tunj"


async def test_claim_window_closes_without_a_call(setup):
    service, transport, store, clock = setup
    match, state, offender, a, _ = await _opened(service, store)
    attempt = _bad_foundation_move(state)
    before = {name: list(pile) for name, pile in state["piles"].items()}
    await service.command(a, GROUP, "m", attempt.split())
    match, state = await _state(store, match.id)
    assert state["claim"] is not None

    clock.now = match.deadline - 0.5
    assert await service.tick() == 0
    clock.now = match.deadline + 0.1
    assert await service.tick() == 1
    match, state = await _state(store, match.id)
    assert state["claim"] is None
    assert GAME.to_move(state) == offender, "after an uncalled attempt the offender plays on"
    assert state["piles"] == before, "the attempt stays refused (nothing neglected, nothing corrected)"
    last = (await store.moves(match.id))[-1]
    assert (last.move, last.actor, last.seat) == ("expire", "timer", 1 - offender)
    for seat in await store.seats(match.id):
        assert seat.timeouts_in_a_row == 0 and not seat.away, "a closing window is nobody's absence"
    texts = [shown.message.text for shown in transport.sent if shown.chat_id in (ALI.user_id, MONA.user_id)]
    assert not any("Time ran out" in text for text in texts)
    # the offender's turn timer is the normal one again
    assert match.deadline == pytest.approx(clock.now + UI.turn_seconds)
    assert transport.buttons(a.user_id), "the offender has their buttons back"


async def test_neglected_priority_is_corrected_when_the_window_closes(setup):
    """Turning while a card fits a foundation neglects priority 2; uncalled, the engine makes that move."""
    service, transport, store, clock = setup
    match = await open_tunj(service)
    actors = await _actors(store, match.id)
    for number in range(400):  # both humans type the normal bot's moves until such a position comes up
        match, state = await _state(store, match.id)
        assert match.status == "active"
        seat = GAME.to_move(state)
        legal = GAME.legal_moves(state, seat)
        if "turn" in GAME.attempts(state, seat) and any(m.split()[-1].startswith("F") for m in legal):
            assert "turn" not in legal, "turning now neglects priority 2: an attempt, not a legal move"
            break
        move = decide("tunj", state, seat, "normal", random.Random(number))
        reply = await service.command(actors[seat], GROUP, "m", move.split())
        assert not reply.alert, reply.text
    else:
        pytest.fail("no position with a neglectable foundation move came up")
    await service.command(actors[seat], GROUP, "m", ["turn"])
    match, state = await _state(store, match.id)
    assert state["claim"]["neglected"] is not None
    neglected = state["claim"]["neglected"]
    clock.now = match.deadline + 1
    assert await service.tick() == 1
    match, state = await _state(store, match.id)
    assert state["claim"] is None
    events = GAME.view(state, None)["events"]
    assert {"type": "corrected", "seat": seat, "move": neglected} in events
    assert "Made for" in transport.latest("-100").alt


async def _press_move(service, transport, store, match_id, actor, seat, want: str) -> None:
    """Press the buttons that play `want`: its source, then its target (or the one button for it; Tunj! for
    `tunj`)."""
    match = await store.get_match(match_id)
    state = GAME.from_json(match.snapshot)
    pick = None
    for _ in range(2):
        drawn = [b for row in presenter.rack_buttons(match, state, seat, "en", pick) for b in row]
        bound = transport.buttons(actor.user_id)[: len(drawn)]
        assert [b.label for b in bound] == [b.label for b in drawn]
        for ui_button, button in zip(drawn, bound, strict=True):
            if (ui_button.kind == "move" and ui_button.move == want) or (ui_button.kind == "call" and want == "tunj"):
                reply = await service.press(actor, private(actor), button.data)
                assert not reply.alert, reply.text
                return
        source = want.split()[1].replace(":", "x")
        chooser = next(i for i, b in enumerate(drawn) if b.kind == "pick" and b.arg == source)
        reply = await service.press(actor, private(actor), bound[chooser].data)
        assert not reply.alert, reply.text
        pick = source
    raise AssertionError(f"no button plays {want}")


def _policy(legal: list[str]) -> str:
    """Foundation moves first (the reserve's before others), then any move off a house-to-house shuffle, then
    turning, then anything."""
    if "tunj" in legal:
        return "tunj"
    to_foundation = sorted((m for m in legal if m.split()[-1].startswith("F")), key=lambda m: m.split()[1] != "R")
    if to_foundation:
        return to_foundation[0]
    placing = [m for m in legal if m.startswith("move") and not (m.split()[1][0] == "H" and m.split()[2][0] == "H")]
    if placing:
        return placing[0]
    if "turn" in legal:
        return "turn"
    return legal[0]


async def test_whole_hand_human_against_a_bot_by_button_presses(setup):
    service, transport, store, clock = setup
    match = await open_tunj(service, players=(ALI,), bots=("random",))
    human = next(seat.seat for seat in await store.seats(match.id) if seat.display_name == "Ali")
    presses = called = within = 0
    for _ in range(1500):
        await play_out_bot_turn(service, clock, match.id)
        match, state = await _state(store, match.id)
        if match.status != "active":
            break
        assert GAME.to_move(state) == human, "the bot's paced turn is over"
        legal = GAME.legal_moves(state, human)
        want = _policy(legal)
        called += want == "tunj"
        sends = sum(1 for c in transport.calls if c[0] == "send" and c[1] == ALI.user_id)
        logged = len(await store.moves(match.id))
        await _press_move(service, transport, store, match.id, ALI, human, want)
        presses += 1
        match, after = await _state(store, match.id)
        if want != "tunj" and len(await store.moves(match.id)) == logged + 1 and GAME.to_move(after) == human:
            # a move within the human's turn (nobody else moved): the rack message was edited, not sent again
            # (a correct call is different: the turn comes to the caller, whose phone rings)
            within += 1
            assert sum(1 for c in transport.calls if c[0] == "send" and c[1] == ALI.user_id) == sends
    assert match.status == "finished", f"hand not over after {presses} moves"
    assert called >= 1, "the random bot's attempts were called with the Tunj! button"
    assert within >= 10, "turns are chains of several moves"
    # the log replays to the same final state
    replay = GAME.new(2, match.options, seed=match.seed)
    for record in await store.moves(match.id):
        replay = GAME.apply(replay, record.seat, record.move)
    assert GAME.to_json(replay) == match.snapshot


async def test_rules_command(setup):
    service, _, _, _ = setup
    text = (await service.command(ALI, GROUP, "rules", ["tunj"])).text
    assert "Tunj" in text and "/m move R F1" in text
    assert "طنج" in (await service.command(Actor("fake", "9", "Sami", language="ar"), GROUP, "rules", ["tunj"])).text


def test_during_a_claim_the_caller_keeps_the_one_call_control():
    """The keyboard for the caller during a claim is the same Tunj! control as before it (kind "call")."""
    layout = {"reserves": [["KS"], ["QD"]], "houses": [["9C"], ["5D"], ["JS"], ["2D"], ["3H"], ["4C"], ["8S"],
                                                       ["7D"]], "hands": [["8H"], ["3C"]], "to_move": 0}
    before = GAME.new(2, {}, layout=layout)
    state = GAME.apply(before, 0, "move H1 F1")
    during = UI.standby_buttons(UI.disguise(GAME.view(state, 1)), "ar")
    assert during == UI.standby_buttons(UI.disguise(GAME.view(before, 1)), "ar")
    assert [[b.kind for b in row] for row in during] == [["call"]]
    assert UI.rack_buttons(GAME.view(state, 1), GAME.legal_moves(state, 1), "ar", None) == during
    assert presenter.button_moves(during) == [], "the call is no versioned move button"
    assert UI.standby_buttons(UI.disguise(GAME.view(state, 0)), "ar") == [], "no call on one's own attempt"


async def test_pictures_through_the_service_follow_the_pick(tmp_path):
    store = await Store.open(str(tmp_path / "pictures.db"))
    service = Service(store, clock=Clock(), seed_source=random.Random(11))
    transport = FakeTransport()
    service.attach(transport, images=True)
    match = await open_tunj(service, players=(ALI,), bots=("normal",))
    table = transport.latest("-100")
    assert table.image and table.image[:4] == b"\x89PNG"
    rack = transport.latest(ALI.user_id)
    picks = [b for b in transport.buttons(ALI.user_id) if b.data.startswith("p:")]
    assert rack.image and picks
    reply = await service.press(ALI, private(ALI), picks[0].data)
    assert not reply.alert, reply.text
    picked = transport.latest(ALI.user_id)
    assert picked.image != rack.image, "the picked source is ringed in the rack picture"
    assert any(b.label == "« Back" for row in picked.keyboard for b in row)
    await service.press(ALI, private(ALI), next(b.data for row in picked.keyboard for b in row
                                                 if b.label == "« Back"))
    assert transport.latest(ALI.user_id).image == rack.image
    assert (await store.get_match(match.id)).version == match.version, "picking is not a move"
    await store.close()


async def test_a_bot_calls_a_typed_attempt_at_once(setup):
    service, transport, store, clock = setup
    match = await open_tunj(service, players=(ALI,), bots=("normal",))
    match, state = await _state(store, match.id)
    human = GAME.to_move(state)
    logged = len(await store.moves(match.id))
    reply = await service.command(ALI, GROUP, "m", _bad_foundation_move(state).split())
    assert not reply.alert, reply.text
    records = (await store.moves(match.id))[logged:]
    assert records[0].seat == human and records[0].actor == "human"
    assert (records[1].move, records[1].actor, records[1].seat) == ("tunj", "bot", 1 - human)
    assert len(records) == 2, "then the bot's own turn goes at its pace, a move at a time"
    await play_out_bot_turn(service, clock, match.id)
    records = (await store.moves(match.id))[logged:]
    assert all(record.seat == 1 - human for record in records[1:]), "the turn passed to the caller"
    match, state = await _state(store, match.id)
    assert GAME.to_move(state) in (human, None)
    assert state["claim"] is None or state["claim"]["by"] == 1 - human, "or the bot slipped: the human may call"


async def test_a_bot_covering_an_absent_player_never_slips_in_their_name(setup, monkeypatch):
    """Even with the casual level made to slip at every chance, the seat of a player marked away is played by the
    rules: slips are for bots in their own seats."""
    from engine.tunj.bots import NormalBot

    monkeypatch.setattr(NormalBot, "slip_rate", 1.0)
    service, transport, store, clock = setup
    match = await open_tunj(service)
    match, state = await _state(store, match.id)
    away = GAME.to_move(state)
    await store.set_seat_flags(match.id, away, away=True)
    await service.resume()
    records = await store.moves(match.id)
    assert records and all(record.seat == away and record.actor == "bot" for record in records)
    replay = GAME.new(2, match.options, seed=match.seed)
    for record in records:
        replay = GAME.apply(replay, record.seat, record.move)
        assert replay["claim"] is None, f"the covering bot slipped: {record.move}"
    match, state = await _state(store, match.id)
    assert GAME.to_move(state) != away, "the covering bot played the absent player's whole turn"


# ---- the recap's folded turn and the hand's sheet (exact texts) --------------------------------------------------
def test_a_folded_run_says_how_far_the_reserve_went_down_when_it_is_not_emptied():
    """Two reserve cards go home (A♠ then 2♠ on F1) and a third stays: the recap's line for the run says the
    reserve went from 3 to 1, where F1 now stands, and the run's last move."""
    state = table(reserves=(["AS", "2S", "9D"], ["3C"]), hands=(["QH"], ["2D"]))
    before = GAME.view(state, None)
    first = GAME.apply(state, 0, "move R F1")
    second = GAME.apply(first, 0, "move R F1")
    moves = [("move R F1", GAME.view(first, None)), ("move R F1", GAME.view(second, None))]
    assert UI.fold(0, moves, before, "en") == "reserve 3 → 1, F1 to 2♠, reserve → F1"


def test_a_deadlock_sheet_names_who_has_the_lighter_burden():
    """rules/tunj.md: in a deadlock "the lower burden wins and scores the difference" — Mona's 2 against Ali's 6
    scores her 4, and the sheet's note names her with the subtraction."""
    view = GAME.view(table(reserves=(["3S", "5S", "7S"], ["3C"])), None)
    assert summary.sheets("tunj", view, ["Ali", "Mona"], "en")[0].text().splitlines()[-1] == (
        "Mona has the lighter burden: 6 − 2 = 4")


def test_a_picked_cards_targets_are_foundations_then_houses_then_the_opponents_piles_each_with_its_top():
    """The reserve's 2♥ may go up on A♥ (F1), down on 3♠ (H3) or 3♣ (H5), or onto the opponent's reserve (3♥,
    same suit one rank apart): the second press offers them in that order, each labelled with the card it covers."""
    state = table(reserves=(["2H", "9D"], ["3H", "5C"]), hands=(["QH"], ["2D"]), houses={"H3": ["3S"], "H5": ["3C"]},
                  foundations={"F1": ["AH"]})
    keyboard = UI.rack_buttons(GAME.view(state, 0), GAME.attempts(state, 0), "en", "R")
    assert [(b.label, b.move) for b in [button for row in keyboard for button in row] if b.kind == "move"] == [
        ("→ F1 (A♥)", "move R F1"), ("→ H3 (3♠)", "move R H3"), ("→ H5 (3♣)", "move R H5"),
        ("→ their reserve (3♥)", "move R OR")]


def test_a_called_or_expired_claim_and_a_wasted_card_are_told_in_the_readers_language():
    """rules/tunj.md: once a claim is called or its window closes, the broken rule is named — in the reader's
    language, all of it (Arabic here, from the catalog); a turned card with no place goes to the waste, named."""
    state = table(reserves=(["9S"], ["9D", "8S"]), hands=(["5C"], ["5H", "4D"]), houses={"H5": ["8C"]}, to_move=1)
    attempt = GAME.apply(state, 1, "move R H5")  # 9D on 8C: not one rank down
    names = ["Ali", "Mona"]
    called = UI.describe_events(GAME.view(GAME.apply(attempt, 0, "tunj"), None), "ar", names)
    assert called == ["Ali نادى طنج! حركة Mona (الاحتياط إلى H5) خالفت: البيوت تنزل درجة واحدة بلونين متناوبين. "
                      "أُلغيت وانتقل الدور."]
    expired = UI.describe_events(GAME.view(GAME.apply(attempt, 0, "expire"), None), "ar", names)
    assert expired == ["لم ينادِ أحد في الوقت: تبقى حركة Mona (الاحتياط إلى H5) مرفوضة (خالفت: البيوت تنزل درجة واحدة "
                       "بلونين متناوبين)."]
    turned = GAME.apply(table(reserves=(["9S"], ["9D"]), hands=(["5C", "7D"], ["5H", "4D"])), 0, "turn")
    assert UI.describe_events(GAME.view(turned, None), "en", names) == ["Ali's turned card 5♣ went to the waste."]


def test_the_table_in_words_shows_each_seats_piles_burden_and_the_turned_card():
    """The public board: per seat the reserve (count and top), hand count, waste (count and top), score and
    burden = hand + waste + 2 × reserve (rules/tunj.md: Ali 1 + 2 + 2 × 2 = 7, Mona 2 + 2 + 2 × 1 = 6), and the
    card Ali just turned while it waits for a place; the foundations by their top cards."""
    state = table(reserves=(["9S", "4H"], ["9D"]), hands=(["QH", "5C"], ["5H", "4D"]),
                  wastes=(["7C", "3D"], ["8D", "2C"]), foundations={"F2": ["AC"]})
    text = UI.describe_table(GAME.view(GAME.apply(state, 0, "turn"), None), "en", ["Ali", "Mona"])
    assert text.splitlines()[-1] == "Foundations: F1: — · F2: A♣ · F3: — · F4: — · F5: — · F6: — · F7: — · F8: —"
    assert text.splitlines()[:4] == [
        "Tunj — Hand 1",
        "Ali: reserve 2 (top 9♠) · hand 1 · waste 2 (top 7♣) · score 0 · burden 7",
        "Mona: reserve 1 (top 9♦) · hand 2 · waste 2 (top 8♦) · score 0 · burden 6",
        "Turned card: Q♥"]


def test_a_hand_won_by_the_second_seat_is_announced_with_its_points():
    """Mona (seat 1) neglects priority 1; Ali's call makes her compulsory move, which lays her last card: she wins
    30 + Ali's hand 2 + waste 1 + 2 × reserve 1 = 35, and the table says so."""
    state = table(reserves=(["9S"], ["AS"]), hands=(["5C", "4D"], []), wastes=(["7H"], []),
                  houses={"H1": ["5H"], "H2": ["6S"]}, to_move=1)
    called = GAME.apply(GAME.apply(state, 1, "move H1 H2"), 0, "tunj")
    assert UI.describe_events(GAME.view(called, None), "en", ["Ali", "Mona"])[-1] == "Mona won the hand: +35."


def test_the_recap_keeps_an_attempt_in_view_with_the_closed_window_that_answered_it():
    """Mona's attempt opened a claim and Ali let the window close; Mona is to move again. Her recap shows what
    happened since her last turn — the closed window — and keeps her own attempt above it, so the line that
    names the broken rule reads with the move it is about (bot/summary.py: "an attempt the next turn answered")."""
    state = table(reserves=(["9S"], ["9D", "8S"]), hands=(["5C"], ["5H", "4D"]), houses={"H5": ["8C"]}, to_move=1)
    log = summary.Log(base=GAME.view(state, None))
    attempt = GAME.apply(state, 1, "move R H5")
    log.entries.append((1, "move R H5", GAME.view(attempt, None), 1))
    expired = GAME.apply(attempt, 0, "expire")
    log.entries.append((0, "expire", GAME.view(expired, None), 1))
    assert summary.recap("tunj", log, 1, GAME.view(expired, None), ["Ali", "Mona"], "en") == [
        "Mona: attempted reserve → H5 — broke: houses go down by one in alternating colours",
        "Ali: window closed with no call — their opponent's reserve → H5 broke: houses go down by one in alternating "
        "colours"]


def test_the_first_press_buttons_are_in_the_players_language():
    """An Arabic player's sources (their reserve's top card) and the Turn button read in Arabic."""
    state = table(reserves=(["2H", "9D"], ["3H", "5C"]), hands=(["QH"], ["2D"]), houses={"H3": ["3S"]},
                  foundations={"F1": ["AH"]})
    labels = [b.label for row in UI.rack_buttons(GAME.view(state, 0), GAME.attempts(state, 0), "ar", None)
              for b in row]
    assert labels == [t("ar", "tunj.src.reserve", card="2♥"), t("ar", "tunj.btn.turn")]
    assert labels != [t("en", "tunj.src.reserve", card="2♥"), t("en", "tunj.btn.turn")]
