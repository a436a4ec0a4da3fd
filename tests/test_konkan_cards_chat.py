"""Konkan (cards) in chat: the picker's buttons per phase, joker places, swaps, the texts and catalogs, a whole match
through the service by buttons only, and a whole terminal match typed at the prompt."""

from __future__ import annotations

import random

import pytest

import engine
import renderers
from bot import callbacks
from bot.console import play as console_play
from bot.games import playable_games, ui_for
from bot.games.konkan_cards import UI, _grow, _ways, card_label
from bot.i18n import catalog, t
from bot.messages import Actor, ChatRef
from engine.bots import decide
from tests.chat import PickerPlayer, console_service, fake_service, flat, toggles

GAME = engine.get("konkan_cards")
GROUP = ChatRef("fake", "-300", private=False)
ALI = Actor("fake", "21", "Ali", language="en")


def labels(keyboard):
    return [button.label for button in flat(keyboard)]


def select(view, legal, cards):
    pick = None
    used: set[int] = set()
    for card in cards:
        position = next(p for p, c in enumerate(view["hand"]) if c == card and p not in used)
        used.add(position)
        pick = toggles(UI.rack_buttons(view, legal, "en", pick))[position].arg
    return UI.rack_buttons(view, legal, "en", pick)


def layout(hands, **rest):
    return GAME.new(len(hands), {}, layout={"hands": hands, "dealer": 0} | rest)


def test_registered_and_catalogs_complete():
    assert "konkan_cards" in playable_games() and ui_for("konkan_cards") is UI
    en, ar = catalog("en"), catalog("ar")
    ours = [k for k in en if k.startswith("konkan.")]
    assert len(ours) > 25 and all(ar.get(k) for k in ours)
    for key in ("opt.variant.konkan51", "opt.variant.konkan71"):
        assert en.get(key) and ar.get(key)
    assert card_label("TH") == "10♥" and card_label("X:7S") == "🃏=7♠" and card_label("X") == "🃏"


def test_first_turn_is_a_discard_picker_with_commit_in_the_final_round():
    state = layout([["7H", "8H"], ["2C", "KD", "9S"]], stock=["4S"], round=5)
    view, legal = GAME.view(state, 1), GAME.legal_moves(state, 1)
    assert UI.turn_prompt(view, "en") == t("en", "konkan.prompt.first_commit")
    keyboard = UI.rack_buttons(view, legal, "en", None)
    assert keyboard[0][0].move == "commit"
    keyboard = select(view, legal, ["KD"])
    discard = next(b for b in flat(keyboard) if b.label == t("en", "rummy.discard", card="K♦"))
    assert discard.move == "discard KD"


def test_draw_step_buttons():
    melds = [{"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = GAME.apply(layout([["JC", "QD", "2S"], ["8H", "3C"]], stock=["4S"], melds=melds), 1, "discard 8H")
    keyboard = UI.rack_buttons(GAME.view(state, 0), GAME.legal_moves(state, 0), "en", None)
    assert [b.move for b in flat(keyboard)] == ["draw", "take"]
    assert labels(keyboard)[1] == t("en", "konkan.take", top="8♥")
    taken = GAME.apply(state, 0, "take")
    keyboard = UI.rack_buttons(GAME.view(taken, 0), GAME.legal_moves(taken, 0), "en", None)
    assert keyboard[0][0].move == "add 8H to 1"


def test_a_swap_while_the_taken_card_waits_is_offered_by_the_picker_only():
    """konkan-cards.md: a swap is allowed while a taken discard waits. The whole-move buttons stay the melds and
    lay-offs that use the taken card; the swap is a picker button (select the real card), which says what it does."""
    melds = [{"seat": 0, "cards": ["TS", "JS", "QS"]}, {"seat": 1, "cards": ["5H", "X:6H", "7H"]}]
    state = layout([["6H", "4C", "5C", "KD", "9D"], ["3C", "3D", "8S"]], stock=["9S", "2S"], melds=melds)
    state = GAME.apply(GAME.apply(state, 1, "discard 3C"), 0, "take")
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    assert "swap 6H for 2" in legal
    whole = [b.move for b in flat(UI.rack_buttons(view, legal, "en", None)) if b.kind == "move"]
    assert whole == ["meld 3C 4C 5C"]
    swap = [b for b in flat(select(view, legal, ["6H"])) if b.move == "swap 6H for 2"]
    assert [b.label for b in swap] == [t("en", "konkan.swap", n="2")]


def test_joker_places_and_swaps_are_offered():
    melds = [{"seat": 1, "cards": ["9S", "X:TS", "JS"]}, {"seat": 0, "cards": ["KS", "KH", "KD"]}]
    state = GAME.apply(layout([["5H", "6H", "X", "TS", "2C"], ["4C", "3C"]], stock=["8D"], melds=melds), 1,
                       "discard 4C")
    state = GAME.apply(state, 0, "draw")
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    moves = [b.move for b in flat(select(view, legal, ["5H", "6H", "X"])) if b.kind == "move"]
    assert "meld 5H 6H X:7H" in moves and "meld X:4H 5H 6H" in moves
    assert all(GAME.parse_move(state, 0, move) == move for move in moves if move.startswith("meld"))
    moves = [b.move for b in flat(select(view, legal, ["TS"])) if b.kind == "move"]
    assert "swap TS for 1" in moves and "discard TS" in moves
    assert _grow(["KS", "KH", "KD"], ["X"], 2) == ["add X to 2"]
    assert _grow(["9S", "TS", "JS"], ["X"], 1) == ["add X:QS to 1", "add X:8S to 1"]
    assert _ways(["5H", "7H", "X"])[0].cards == ("5H", "X:6H", "7H")


def test_texts_describe_moves_and_the_table():
    assert UI.describe_move("meld 5H X:6H 7H | KS KH KD", "en") == "melded 5♥ 🃏=6♥ 7♥ · K♠ K♥ K♦"
    assert UI.describe_move("swap 8D 8C for 3", "en") == t("en", "konkan.m.swap", cards="8♦ 8♣", n="3")
    assert UI.describe_move("commit", "ar") == t("ar", "konkan.m.commit")
    melds = [{"seat": 1, "cards": ["9S", "X:TS", "JS"]}]
    view = GAME.view(layout([["5H", "6H"], ["4C", "3C"]], stock=["8D"], melds=melds), None)
    text = UI.describe_table(view, "en", ["Ali", "Bot"])
    assert "#1 9♠ 🃏=10♠ J♠" in text and "reshuffles left: 3" in text and "round 1 of 5" in text


# ---- whole matches ----------------------------------------------------------------------------------------------
@pytest.fixture
async def setup(tmp_path):
    async with fake_service(tmp_path / "majlis.db", seed=5) as (service, transport, store, _):
        yield service, transport, store


def pressable(move: str, view: dict) -> bool:
    """Moves the test's player makes with the picker: melds and lay-offs whose jokers take the first place the
    buttons offer (other places have buttons of their own, exercised above)."""
    words = move.split()
    if words[0] == "meld":
        groups = [part.split() for part in move[5:].split(" | ")]
        return all(_ways([c if not c.startswith("X") else "X" for c in g])[0].cards == tuple(g) for g in groups)
    if words[0] == "add":
        meld = view["melds"][int(words[-1]) - 1]
        plain = ["X" if c.startswith("X") else c for c in words[1:-2]]
        return _grow(meld["cards"], plain, int(words[-1]))[:1] == [move]
    return True


def choose(view: dict, legal: list[str]) -> str:
    if view["phase"] == "draw":
        return "take" if "take" in legal else "draw"
    if view["must_use"]:
        return legal[0]
    lays = [m for m in legal if m.split()[0] in ("meld", "add", "swap") and pressable(m, view)]
    if lays:
        return max(lays, key=lambda m: (len(m.split()), m))
    return next(m for m in legal if m.startswith("discard"))


class Player(PickerPlayer):
    @staticmethod
    def code(card: str) -> str:
        """A joker placed in a meld (`X:7H`) is the hand's `X`."""
        return "X" if card.startswith("X") else card

    async def play(self, move: str, view: dict, legal: list[str]) -> None:
        words = move.split()
        if words[0] in ("draw", "take"):
            text = await self.press(self.find("🂠" if words[0] == "draw" else "Take "))
        elif view["must_use"] and len(legal) <= 6:
            text = await self.press(self.find(UI.button_label(move, "en"), exact=True))
        elif words[0] == "discard":
            await self.toggle(view, [words[1]])
            text = await self.press(self.find(t("en", "rummy.discard", card=card_label(words[1])), exact=True))
        elif words[0] in ("add", "swap"):
            await self.toggle(view, words[1:-2])
            label = t("en", "rummy.add", n=words[-1]) if words[0] == "add" else t("en", "konkan.swap", n=words[-1])
            text = await self.press(self.find(label, exact=True))
        else:
            text = await self.lay(view, move)
        assert text.startswith("✓ You "), (text, move)


async def test_whole_match_human_against_a_bot_by_buttons(setup):
    service, transport, store = setup
    await service.command(ALI, GROUP, "lang", ["en"])
    await service.command(ALI, GROUP, "new", ["konkan_cards"])
    match = await store.lobby_or_active_match("fake", "-300")
    await service.press(ALI, GROUP, callbacks.encode("b", match.id, "normal"))
    await service.press(ALI, GROUP, callbacks.encode("s", match.id))
    ali = Player(service, transport, ALI)
    made = 0
    while made < 3000:
        match = await store.get_match(match.id)
        if match.status != "active":
            break
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        assert seat == 0, "the bot never waits for a press"
        view, legal = GAME.view(state, seat), GAME.legal_moves(state, seat)
        move = choose(view, legal)
        await ali.play(move, view, legal)
        record = (await store.moves(match.id))[match.version]
        assert (record.seat, record.move) == (0, move)
        made += 1
    match = await store.get_match(match.id)
    assert match.status == "finished", made
    state = GAME.from_json(match.snapshot)
    assert len(GAME.result(state)["history"]) >= 5
    records = await store.moves(match.id)
    human = [r.move for r in records if r.seat == 0]
    assert any(m.startswith("meld") for m in human) and any(m.startswith("discard") for m in human)
    replay = GAME.new(2, match.options, seed=match.seed)
    for record in records:
        replay = GAME.apply(replay, record.seat, record.move)
    assert GAME.to_json(replay) == match.snapshot
    assert ali.presses > made


async def test_whole_terminal_match_typed_at_the_prompt():
    store, service, transport, out = await console_service(8)
    typed = {"n": 0}

    async def read(prompt: str) -> str:
        match = await store.lobby_or_active_match("console", "table")
        state = GAME.from_json(match.snapshot)
        seat = GAME.to_move(state)
        typed["n"] += 1
        if typed["n"] == 1:
            return "discard QQ"  # a typo is answered and changes nothing
        return decide("konkan_cards", state, seat, "normal", random.Random(typed["n"]))

    await console_play(service, transport, "konkan_cards", 3, {"variant": "konkan71"}, "en", read=read)
    finished = await store.get_match(1)
    await store.close()
    assert finished.status == "finished" and finished.options["variant"] == "konkan71"
    text = out.getvalue()
    assert "⚠ Not allowed" in text and "Winner" in text


def test_the_rack_shows_what_the_selection_is_worth_before_opening():
    hand = ["KS", "KH", "KD", "7C", "8C", "9C", "2H"]
    state = GAME.apply(layout([hand, ["4C", "3C"]], stock=["5S"]), 1, "discard 4C")
    state = GAME.apply(state, 0, "draw")
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    pick = None
    for card in ("KS", "KH", "KD"):
        position = view["hand"].index(card)
        pick = toggles(UI.rack_buttons(view, legal, "en", pick))[position].arg
    assert UI.rack_view(view, pick)["selection_total"] == 30
    staged = next(b for b in flat(UI.rack_buttons(view, legal, "en", pick)) if b.label == t("en", "rummy.stage"))
    pick = staged.arg
    for card in ("7C", "8C", "9C"):
        pick = toggles(UI.rack_buttons(view, legal, "en", pick))[view["hand"].index(card)].arg
    assert UI.rack_view(view, pick)["selection_total"] == 54
    pick = toggles(UI.rack_buttons(view, legal, "en", pick))[view["hand"].index("2H")].arg
    assert UI.rack_view(view, pick)["selection_total"] == 30  # 7C 8C 9C 2H is no meld: only the staged set counts
    assert "selection_total" not in UI.rack_view(view, None)
    plain = renderers.render_rack("konkan_cards", UI.rack_view(view, None), "en")
    shown = renderers.render_rack("konkan_cards", UI.rack_view(view, pick), "en")
    assert plain != shown


# ---- what the player reads: rack, table, prompts and the round sheet (exact texts) --------------------------------
def test_a_take_that_must_be_melded_is_said_on_the_rack_and_offered_as_whole_move_buttons():
    """rules/konkan-cards.md: a taken discard must be melded (or laid off) at once. The taker's rack says so under
    their cards, status and own melds, the table names the taker, and each move using the card is one button
    labelled with its cards and meld number (a meld from Ali's own cards, lay-offs on meld #2)."""
    melds = [{"seat": 1, "cards": ["9S", "X:TS", "JS"]}, {"seat": 0, "cards": ["5H", "6H", "7H"]}]
    state = layout([["9H", "TH", "KC"], ["4C", "3C", "8H"]], stock=["8D", "2S", "5D"], melds=melds)
    state = GAME.apply(GAME.apply(state, 1, "discard 8H"), 0, "take")
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    assert UI.describe_rack(view, "en") == (
        "Your cards (4): 1) 8♥  2) 9♥  3) 10♥  4) K♣\nhas opened\nYour melds: #2 5♥ 6♥ 7♥\n"
        "You took 8♥: meld it now (or lay it off).")
    assert UI.turn_prompt(view, "en") == "You took 8♥: meld it now (or lay it off)."
    whole = [(b.label, b.move) for b in flat(UI.rack_buttons(view, legal, "en", None)) if b.kind == "move"]
    assert whole == [("Meld 8♥ 9♥ 10♥", "meld 8H 9H TH"), ("Add 8♥ to meld 2", "add 8H to 2"),
                     ("Add 8♥ 9♥ to meld 2", "add 8H 9H to 2"), ("Add 8♥ 9♥ 10♥ to meld 2", "add 8H 9H TH to 2")]
    assert UI.describe_table(GAME.view(state, None), "en", ["Ali", "Bot"]).endswith(
        "Ali: 0 points · 4 cards · has opened\n  #2 5♥ 6♥ 7♥\nBot: 0 points · 2 cards · has opened\n"
        "  #1 9♠ 🃏=10♠ J♠\nAli took 8♥ from the discard and must meld it")


def test_the_play_prompt_and_status_follow_opened_and_committed():
    """After the draw: a player who has not opened is told the minimum, one who has opened every play, one who
    committed to Konkan (final round) that only the whole Konkan may be melded; each status shows on the rack."""
    melds = [{"seat": 1, "cards": ["9S", "X:TS", "JS"]}]
    state = layout([["5H", "6H", "KC"], ["4C", "3C", "9D"]], stock=["8D", "2S", "5D", "6C"], melds=melds)
    state = GAME.apply(GAME.apply(state, 1, "discard 9D"), 0, "draw")
    view = GAME.view(state, 0)
    assert UI.turn_prompt(view, "en") == t("en", "konkan.prompt.open", n=51)
    assert UI.describe_rack(view, "en") == "Your cards (4): 1) 5♥  2) 6♥  3) 8♦  4) K♣\nfirst meld needs 51"
    state = GAME.apply(GAME.apply(state, 0, "discard KC"), 1, "draw")
    assert UI.turn_prompt(GAME.view(state, 1), "en") == t("en", "konkan.prompt.play")

    final = layout([["5H", "6H", "KC"], ["4C", "3C", "9D"]], stock=["8D", "2S", "5D", "6C"], round=5)
    final = GAME.apply(GAME.apply(final, 1, "commit"), 1, "discard 9D")
    final = GAME.apply(GAME.apply(GAME.apply(final, 0, "draw"), 0, "discard KC"), 1, "draw")
    view = GAME.view(final, 1)
    assert UI.turn_prompt(view, "en") == t("en", "konkan.prompt.committed")
    assert UI.describe_rack(view, "en") == "Your cards (3): 1) 2♠  2) 3♣  3) 4♣\ncommitted to Konkan"


def test_a_void_round_sheet_names_the_void_and_why_each_seat_scores():
    """A round whose stock runs out with nothing to reshuffle is void; nobody opened, so each seat scores 100
    ("others who never opened | 100 flat"), and the sheet says why beside each seat's points and total."""
    state = GAME.apply(layout([["5H", "6H"], ["4C", "3C", "KD"]], stock=[]), 1, "discard KD")
    view = GAME.view(state, None)
    sheet = UI.round_sheet(view["last_round"], 1, view, ["Ali", "Bot"], ["Ali", "Bot"], "en")
    assert sheet.text() == ("Round 1: void — the stock ran out\n"
                            "Ali: never opened · Points +100 · Total 100\nBot: never opened · Points +100 · Total 100")


def test_a_committed_first_seat_gets_its_whole_konkan_as_one_button_after_the_draw():
    """rules/konkan-cards.md: a committed player "may only meld when the Konkan is complete" — a run of 10 and a
    set of 4 laid at once. For the seat that committed (seat 0, the round's first player, in the final round) the
    legal Konkan comes first as one button with its cards; the draw step's button tells how many cards are left."""
    run = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"]
    state = layout([[*run, "KS", "KH", "KD", "KC", "9C"], ["4C", "3C", "8D"]], stock=["5S", "6S", "7S", "8S"],
                   round=5, dealer=1)
    state = GAME.apply(GAME.apply(state, 0, "commit"), 0, "discard 9C")
    state = GAME.apply(GAME.apply(state, 1, "draw"), 1, "discard 8D")
    keyboard = UI.rack_buttons(GAME.view(state, 0), GAME.legal_moves(state, 0), "en", None)
    assert labels(keyboard)[0] == "🂠 Draw from the stock (3 cards left)" == t("en", "konkan.draw", n=3)
    state = GAME.apply(state, 0, "draw")
    first = UI.rack_buttons(GAME.view(state, 0), GAME.legal_moves(state, 0), "en", None)[0]
    assert [(b.label, b.move) for b in first] == [
        ("Meld 2♥ 3♥ 4♥ 5♥ 6♥ 7♥ 8♥ 9♥ 10♥ J♥ | K♠ K♥ K♦ K♣", "meld 2H 3H 4H 5H 6H 7H 8H 9H TH JH | KS KH KD KC")]
