"""Konkan refusals (cards and tiles) carry a code the catalogs translate: the English reason stays the contract's,
an Arabic player reads Arabic. Matches are played with broken moves thrown in at every turn, and every refusal met
on the way must come back translated, in both languages, with no placeholder left unfilled."""

from __future__ import annotations

import io
import random
import re

import pytest

import engine
from bot.console import ConsoleTransport
from bot.console import play as console_play
from bot.i18n import refusal
from bot.service import Service
from engine import BadOption, IllegalMove
from engine.bots import decide
from engine.konkan_cards.cards import DECK as CARDS
from engine.konkan_tiles.tiles import DECK as TILES
from storage import Store

ARABIC = re.compile(r"[\u0600-\u06FF]")
PIECES = {"konkan_cards": sorted(set(CARDS)), "konkan_tiles": sorted(set(TILES))}
VERBS = ("meld", "add", "swap", "discard", "commit", "draw", "take", "lock", "finish", "option")


def broken(legal: list[str], pieces: list[str], chooser: random.Random) -> list[str]:
    """Moves a player might type by mistake: legal moves with a piece, a number or a word changed, dropped or
    doubled, verbs with wrong arguments, jokers standing for things, and plain noise."""
    def piece() -> str:
        return chooser.choice(pieces)

    out = ["", "frob", chooser.choice(VERBS), f"{chooser.choice(VERBS)} {piece()}", "option maybe",
           f"meld {piece()} {piece()} {piece()}", f"meld {piece()} {piece()} | {piece()}", f"meld {piece()}:{piece()}",
           f"add {piece()} to {chooser.randint(0, 9)}", f"add {piece()} {piece()} to 1", f"add {piece()} to x",
           f"swap {piece()} for {chooser.randint(1, 4)}", f"swap {piece()} {piece()} {piece()} for 1",
           f"swap X:{piece()} for 1", f"lock {piece()} to {chooser.randint(1, 4)} {chooser.choice(['left', 'right'])}",
           f"finish {piece()}", f"finish {piece()}:{piece()}", f"discard {piece()}", f"discard {piece()}:{piece()}",
           "discard X", "draw now", "add to 1", "swap for 1"]
    for move in chooser.sample(legal, min(4, len(legal))):
        words = move.split()
        at = chooser.randrange(len(words))
        out.append(" ".join(words[:at] + [piece()] + words[at + 1:]))
        out.append(" ".join(words[:at] + words[at + 1:]))
        out.append(" ".join(words + [piece()]))
        out.append(" ".join(words[:1] + words[2:] + words[1:2] * 2))
    return out


def check_translated(error: ValueError, seen: set[str]) -> None:
    assert error.code, f"refusal without a code: {error.reason!r}"
    arabic, english = refusal("ar", error), refusal("en", error)
    assert arabic != error.reason and ARABIC.search(arabic), (error.code, arabic)
    assert "{" not in arabic and "{" not in english, (error.code, arabic, english)
    assert not ARABIC.search(english), (error.code, english)
    seen.add(error.code)


@pytest.mark.parametrize(("game_id", "players", "options", "least"), [
    ("konkan_cards", 3, {}, 30),
    ("konkan_tiles", 4, {"mode": "turbo"}, 35),
    ("konkan_tiles", 2, {"mode": "private", "rules": "sulaymaniyah"}, 30),
])
def test_every_refusal_met_while_playing_is_translated(game_id, players, options, least):
    game = engine.get(game_id)
    chooser = random.Random(11)
    state = game.new(players, options, seed=5)
    seen: set[str] = set()
    for _ in range(400):
        seat = game.to_move(state)
        if seat is None:
            break
        legal = game.legal_moves(state, seat)
        for move in broken(legal, PIECES[game_id], chooser):
            if move in legal:
                continue
            try:
                game.apply(state, seat, move)
            except IllegalMove as error:
                check_translated(error, seen)
        with pytest.raises(IllegalMove) as other:
            game.apply(state, (seat + 1) % players, legal[0])
        check_translated(other.value, seen)
        state = game.apply(state, seat, decide(game_id, state, seat, "normal", chooser))
    assert len(seen) >= least, sorted(seen)


@pytest.mark.parametrize(("players", "options", "arabic"), [
    (4, {"mode": "kirkuk"}, "قواعد كركوك قادمة قريبًا"),
    (4, {"mode": "blitz"}, "الخيار «mode» يكون واحدًا من quick, ranked"),
    (2, {"mode": "quick"}, "كونكان quick لـ4 لاعبين، لا 2"),
    (4, {"mode": "quick", "rules": "sulaymaniyah"}, "القواعد تُختار في الغرف الخاصة فقط؛ وquick تُلعب بقواعد erbil"),
    (4, {"mode": "private", "rules": "kirkuk"}, "الخيار «rules» يكون واحدًا من erbil, sulaymaniyah، لا «kirkuk»"),
    (4, {"speed": "fast"}, "خيارات غير معروفة للعبة konkan_tiles: speed"),
    (3, {}, "كونكان القطع للاعبَين أو لأربعة، لا 3"),
])
def test_konkan_tiles_bad_options_are_refused_in_arabic(players, options, arabic):
    with pytest.raises(BadOption) as bad:
        engine.get("konkan_tiles").new(players, options, seed=1)
    assert isinstance(bad.value, ValueError)  # the contract's ValueError still catches it
    assert refusal("ar", bad.value).startswith(arabic), refusal("ar", bad.value)


def test_konkan_tiles_refusals_keep_the_english_reason_and_read_arabic():
    """A player's move refused by the tiles engine: the contract's English reason, the Arabic text from the
    catalog with its numbers in the right plural form."""
    game = engine.get("konkan_tiles")
    state = game.new(4, {"mode": "quick"}, seed=3)
    captain = game.to_move(state)
    state = game.apply(state, captain, game.legal_moves(state, captain)[-1])  # the captain's first discard
    seat = game.to_move(state)
    expected = {
        "meld R9 R10 R11": ("first draw a tile or take the last discard", "اسحب قطعة أو خذ آخر رمية أولًا"),
        "discard K1": ("first draw a tile or take the last discard", "اسحب قطعة أو خذ آخر رمية أولًا"),
        "hello": ("start your turn with draw or take", "ابدأ دورك بـ draw أو take"),
    }
    for move, (english, arabic) in expected.items():
        with pytest.raises(IllegalMove) as caught:
            game.apply(state, seat, move)
        assert (caught.value.reason, refusal("ar", caught.value)) == (english, arabic)
    state = game.apply(state, seat, "draw")
    missing = next(tile for tile in ("R7", "B7", "K7", "Y7", "R3") if tile not in state["hands"][seat])
    for move, english, arabic in (
        ("meld R9 R10", "a meld needs at least 3 tiles", "التركيب يحتاج 3 قطع على الأقل"),
        ("meld R9 K9 R10", "a run is one colour and a set one number: these tiles are neither",
         "التسلسل لون واحد والمجموعة رقم واحد: وهذه القطع ليست هذا ولا ذاك"),
        ("meld K2 K3 B13", "a run is one colour and a set one number: these tiles are neither",
         "التسلسل لون واحد والمجموعة رقم واحد: وهذه القطع ليست هذا ولا ذاك"),
        (f"discard {missing}", f"{missing} is not in your hand", f"{missing} ليست في يدك"),
        ("add R12 to 1", "there is no meld 1 on the table", "لا يوجد التركيب 1 على الطاولة"),
    ):
        with pytest.raises(IllegalMove) as caught:
            game.apply(state, seat, move)
        assert (caught.value.reason, refusal("ar", caught.value)) == (english, arabic), move


def test_counted_konkan_refusals_take_the_plural_form_of_their_number():
    one = IllegalMove("lock 1 more tile before your last discard", "konkan_tiles.locks_before_discard", n=1)
    two = IllegalMove("lock 2 more tiles before your last discard", "konkan_tiles.locks_before_discard", n=2)
    assert refusal("ar", one) == "بقي عليك قفل قطعة واحدة قبل رميتك الأخيرة"
    assert refusal("ar", two) == "بقي عليك قفل قطعتين قبل رميتك الأخيرة"
    assert refusal("en", one) == one.reason and refusal("en", two) == two.reason
    opening = IllegalMove("your first meld needs 51 points; this is 30", "konkan.opening_minimum", n=51, worth=30)
    assert refusal("ar", opening) == "أول نزلة لك تبي 51 نقطة؛ وهذي 30"
    assert refusal("en", opening) == opening.reason


async def test_a_refused_konkan_cards_move_in_the_arabic_terminal_reads_arabic():
    """Typed at the prompt of an Arabic terminal: the refusals are Arabic, with only card codes and command words
    in Latin letters, and the match goes on."""
    store = await Store.open(":memory:")
    out = io.StringIO()
    service = Service(store, seed_source=random.Random(8))
    transport = ConsoleTransport(out)
    service.attach(transport, images=False)
    game = engine.get("konkan_cards")
    typed = iter(["frob", "meld 7H 8H", "draw", "discard QQ", "meld 7H 8H", "swap 7H for 9"])

    async def read(prompt: str) -> str:
        match = await store.lobby_or_active_match("console", "table")
        assert game.from_json(match.snapshot)["phase"] in ("draw", "play")  # this seed: the bot dealt, we draw
        return next(typed, "q")

    await console_play(service, transport, "konkan_cards", 2, {}, "ar", read=read)
    await store.close()
    text = out.getvalue()
    warnings = [line for line in text.splitlines() if "غير مسموح" in line]
    assert [line.split(": ", 1)[1] for line in warnings] == [
        "حركة مو معروفة «frob»: استخدم draw أو take أو meld أو add أو swap أو discard أو commit",
        "اسحب من السحبة أو خذ من كومة النار أول",
        "«QQ» ليست ورقة (مثل AS, TH, 7C, X)",
        "المجموعة تبي 3 ورقات على الأقل",
        "ما فيه مجموعة 9 على الطاولة",
    ], warnings
