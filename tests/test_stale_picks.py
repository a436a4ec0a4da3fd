"""A press on an old picking-state keyboard never plays a move other than the one its button showed.

A seat's picking state (Canasta's card selection, Kenza's capture choice for one card) changes without a move, so
the match version alone does not tell two keyboards apart: a move button must name the keyboard it was drawn on.
These tests draw keyboard K1, move the picking state on to K2 with real button presses, then press a K1 button:
the service must either refuse it or play exactly the move K1 showed — never what K2 has at that position.
Layouts are forced (the engine's `layout`), so each case happens on every run.
"""

from __future__ import annotations

import itertools
import random

import engine
from bot import callbacks, presenter
from bot.games.canasta import UI as CANASTA_UI
from bot.games.rummy import Pick
from bot.i18n import t
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store
from tests.fakes import FakeTransport

GROUP = ChatRef("fake", "-100", private=False)
ALI = Actor("fake", "1", "Ali", language="en")
MONA = Actor("fake", "2", "Mona", language="en")
ALI_DM = ChatRef("fake", "1", private=True)

KENZA_LAYOUT = {"hands": [["6O", "7C", "1B"], ["1C", "2B", "3B"]], "table": ["2C", "3C", "4C", "5C", "1E"],
                "stock": [], "dealer": 1}
CANASTA_LAYOUT = {  # seat 0's team has opened; it holds five natural triples and four wild cards: many melds
    "hands": [["4S", "4H", "4D", "5S", "5H", "5D", "6S", "6H", "6D", "8S", "8H", "8D", "9S", "9H", "9D",
               "X", "X", "2C", "2D"],
              ["4C", "5C", "6C", "7D", "8C", "9C", "TD", "QC", "QS", "AS", "AH", "JC", "TS"]],
    "melds": [{"team": 0, "cards": ["KH", "KS", "KC"]}, {"team": 1, "cards": ["JH", "JS", "JD"]}],
    "stock": ["JC", "7S", "KD", "TC", "QD", "3C"], "discard": ["QH"], "dealer": 1,  # seat 0 draws the JC
}


def forced(monkeypatch, game_id: str, layout: dict) -> None:
    """The next table of `game_id` starts from `layout` instead of a shuffled deal."""
    game = engine.get(game_id)
    deal = game.new
    monkeypatch.setattr(game, "new", lambda players, options=None, seed=None, layout=None: deal(
        players, options, seed=seed, layout=CANASTA_LAYOUT if game_id == "canasta" else KENZA_LAYOUT))


async def start(store: Store, words: list[str]) -> tuple[Service, FakeTransport, int]:
    service = Service(store, seed_source=random.Random(4))
    transport = FakeTransport()
    service.attach(transport, images=False)
    await service.command(ALI, GROUP, "new", words)
    match = await store.lobby_or_active_match("fake", "-100")
    await service.press(MONA, GROUP, callbacks.encode("j", match.id))
    assert not (await service.press(ALI, GROUP, callbacks.encode("s", match.id))).alert
    return service, transport, match.id


def rack(transport: FakeTransport) -> list:
    return [button for row in transport.latest(ALI.user_id).keyboard for button in row if button.data]


def move_buttons(transport: FakeTransport) -> dict[int, tuple[str, str]]:
    """Move number -> (label, code) of Ali's current rack."""
    return {int(b.data.split(":")[3]): (b.label, b.data) for b in rack(transport) if b.data.startswith("m:")}


async def press_label(service: Service, transport: FakeTransport, label: str) -> None:
    button = next((b for b in rack(transport) if b.label == label or b.label.startswith(label)), None)
    assert button is not None, f"no {label!r} in {[b.label for b in rack(transport)]}"
    reply = await service.press(ALI, ALI_DM, button.data)
    assert not reply.alert, reply.text


async def assert_old_press_plays_what_it_showed(service: Service, store: Store, match_id: int, code: str,
                                                shown_move: str, other_move: str) -> None:
    before = await store.get_match(match_id)
    reply = await service.press(ALI, ALI_DM, code)
    played = await store.moves(match_id)
    if reply.alert:
        assert (await store.get_match(match_id)).version == before.version, "a refused press changed the match"
        return
    assert played[-1].move == shown_move, f"the old button showed {shown_move!r}, {played[-1].move!r} was played"
    assert played[-1].move != other_move


async def test_kenza_old_capture_choice_is_never_another_cards_capture(store, monkeypatch):
    forced(monkeypatch, "kenza", KENZA_LAYOUT)
    service, transport, match_id = await start(store, ["kenza"])
    await press_label(service, transport, "1. 6🪙")  # the six's capture choices
    first = move_buttons(transport)
    await press_label(service, transport, t("en", "btn.back"))
    await press_label(service, transport, "2. 7🏆")  # now the seven's choices, at the same version
    second = move_buttons(transport)
    label, code = first[0]
    assert "+" in label and first[0][1] != second[0][1]
    match = await store.get_match(match_id)
    state = engine.get("kenza").from_json(match.snapshot)
    moves = engine.get("kenza").legal_moves(state, 0)
    shown = next(m for m in moves if m.startswith("play 6O") and set(m.split()[3:]) == set(
        word for word in ("2C", "3C", "4C", "5C", "1E") if _label(word) in label))
    await assert_old_press_plays_what_it_showed(service, store, match_id, code, shown, "play 7C")


def _label(code: str) -> str:
    from bot.games.kenza import card_label
    return card_label(code)


def playable(state: dict, move: str) -> bool:
    """Whether seat 0 may play `move` now (so pressing a button for it would really play it)."""
    game = engine.get("canasta")
    try:
        game.apply(state, 0, game.parse_move(state, 0, move))
    except engine.IllegalMove:
        return False
    return True


async def drawn_canasta(store: Store, monkeypatch) -> tuple[Service, FakeTransport, int]:
    forced(monkeypatch, "canasta", CANASTA_LAYOUT)
    service, transport, match_id = await start(store, ["canasta", "variant=duo"])
    code = next(data for _, data in move_buttons(transport).values())  # the draw step's first button: draw
    assert not (await service.press(ALI, ALI_DM, code)).alert
    return service, transport, match_id


async def select(service: Service, transport: FakeTransport, positions: tuple[int, ...], hand: list[str],
                 sort: str = "r") -> None:
    """Put the rack in `sort` order ("r" by rank, "s" by suit), clear the selection, then toggle each position's
    card button (numbers are position + 1 in either order)."""
    flip = t("en", "rummy.sort_suit" if sort == "s" else "rummy.sort_rank")
    if any(b.label == flip for b in rack(transport)):
        await press_label(service, transport, flip)
    clear = t("en", "rummy.clear")
    if any(b.label == clear for b in rack(transport)):
        await press_label(service, transport, clear)
    ticked = next((b.label for b in rack(transport) if b.label.startswith("✓ ")), None)
    if ticked is not None:  # one ticked card: its own toggle is the clear (no second button with its code)
        await press_label(service, transport, ticked)
    for position in positions:
        await press_label(service, transport, f"{position + 1}. {CANASTA_UI.card_label(hand[position])}")


async def test_canasta_old_selection_discard_is_not_the_new_selections(store, monkeypatch):
    service, transport, match_id = await drawn_canasta(store, monkeypatch)
    match = await store.get_match(match_id)
    hand = engine.get("canasta").view(engine.get("canasta").from_json(match.snapshot), 0)["hand"]
    await select(service, transport, (hand.index("9S"),), hand)
    old = {label: code for label, code in move_buttons(transport).values()}
    discard = t("en", "rummy.discard", card="9♠")
    assert discard in old
    await select(service, transport, (hand.index("4H"),), hand)
    await assert_old_press_plays_what_it_showed(service, store, match_id, old[discard], "discard 9S", "discard 4H")


async def test_canasta_old_keyboard_with_a_colliding_fingerprint_plays_what_it_showed(store, monkeypatch):
    """Two selections whose keyboards have different moves at the same number, but whose picking states would
    share a short fingerprint: the old keyboard's button still means its own move."""
    service, transport, match_id = await drawn_canasta(store, monkeypatch)
    match = await store.get_match(match_id)
    state = engine.get("canasta").from_json(match.snapshot)
    hand = engine.get("canasta").view(state, 0)["hand"]
    view = engine.get("canasta").view(state, 0)
    by_tag: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    for size in range(1, 8):  # every selection a player can toggle that offers a move (a discard or a meld)
        for chosen in itertools.combinations(range(len(hand)), size):
            if size == 1 or CANASTA_UI.meld_shape([hand[p] for p in chosen], view):
                for sort in "rs":
                    code = Pick(sort=sort, selected=frozenset(chosen)).encode(hand)
                    by_tag.setdefault(presenter.pick_tag(code), []).append((sort, chosen))
    pair = None
    for group in (g for g in by_tag.values() if len(g) > 1):
        moves = {key: presenter.button_moves(presenter.rack_buttons(
            match, state, 0, "en", Pick(sort=key[0], selected=frozenset(key[1])).encode(hand))) for key in group}
        for a, b in itertools.combinations(group, 2):
            common = [i for i in range(min(len(moves[a]), len(moves[b])))
                      if moves[a][i] != moves[b][i] and playable(state, moves[a][i]) and playable(state, moves[b][i])]
            if common:
                pair = (a, b, common[0], moves[a][common[0]], moves[b][common[0]])
                break
        if pair:
            break
    assert pair is not None, "the layout gives two selections with one fingerprint and different playable moves"
    (first_sort, first), (second_sort, second), number, shown, other = pair
    await select(service, transport, first, hand, first_sort)
    old_label, old_code = move_buttons(transport)[number]
    await select(service, transport, second, hand, second_sort)
    assert move_buttons(transport)[number][0] != old_label, "the new keyboard shows another move there"
    await assert_old_press_plays_what_it_showed(service, store, match_id, old_code, shown, other)


def test_a_move_codes_picking_field_is_one_a_keyboard_of_ours_could_carry():
    """A move button's last field is the picking state after presenter.PICK_MARK (printable ASCII, as every game's
    picking keys are) or its four-hex-digit fingerprint; anything else was never drawn and is refused as forged."""
    from bot import presenter
    from bot.core.play import drawn_tag

    mark = presenter.PICK_MARK
    for drawn in ("0a9f", "ffff", mark, mark + "6O", mark + "R1~H2"):
        assert drawn_tag(drawn), drawn
    for forged in ("0a9", "0a9f0", "0A9F", "xyz1", "", mark + "6é", mark + "6\n", mark + "٦"):
        assert not drawn_tag(forged), forged
