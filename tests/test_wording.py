"""One word per thing, in each language, everywhere (issue 25): the catalogs, the rules the bot shows and the
pictures' labels spell each game and each thing one way, count with one kind of digits, and each game calls its
rounds by one word — the game's own (Kenza's deal, Canasta's and Tunj's hand, the Konkans' round) — in its own
lines and in the generic ones (table caption, recap, /score)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine
from bot.console import play
from bot.i18n import LANGUAGES, You, catalog, round_name, t
from bot.messages import Actor, ChatRef
from bot.presenter import describe_move
from renderers.labels import LABELS
from tests.chat import console_service, fake_service, typed_lines

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("kenza", "canasta", "tunj", "konkan_cards", "konkan_tiles")

# The spelling the seeds use (../shared/seeds): كونكان, كاناستا, a natural canasta is نظيفة, the tile turned up to
# name the joker is الكوب, a tile is a قطعة, Konkan's finish in one meld move is a هاند. Each pair: the word
# refused, the word used instead.
REFUSED = {
    "كنكان": "كونكان",
    "كناستا": "كاناستا",
    "كانستا": "كاناستا",
    "كاناستا طبيعية": "كاناستا نظيفة",
    "المؤشر": "الكوب",
    "أحجار": "قطع",
    "حجرًا": "قطعة",
    "بيد واحدة": "بهاند",
}
ARABIC_INDIC_DIGIT = re.compile("[\u0660-\u0669\u06f0-\u06f9]")


def arabic_texts() -> dict[str, str]:
    """Every Arabic text a player can meet, by where it lives."""
    texts = {}
    for (context, key), entry in catalog("ar").messages.items():
        texts[f"ar.po {context or ''} {key}"] = " | ".join(entry if isinstance(entry, tuple) else (entry,))
    for path in sorted((ROOT / "bot" / "rules").glob("*.ar.md")):
        texts[path.name] = path.read_text(encoding="utf-8")
    for key, value in LABELS["ar"].items():
        texts[f"labels {key}"] = " | ".join(value if isinstance(value, tuple) else (value,))
    return texts


def test_each_arabic_word_has_one_spelling_everywhere():
    texts = arabic_texts()
    assert len(texts) > 300
    for refused, used in REFUSED.items():
        assert [where for where, text in texts.items() if refused in text] == [], f"write {used}, not {refused}"
    assert "كونكان (قطع)" == t("ar", "game.konkan_tiles") and "كاناستا" == t("ar", "game.canasta")


def test_numbers_are_written_with_western_digits_everywhere():
    """The lobby's options and three rules files used Arabic-Indic digits where everything else uses 0-9."""
    texts = arabic_texts()
    assert [where for where, text in texts.items() if ARABIC_INDIC_DIGIT.search(text)] == []
    assert t("ar", "opt.target.101") == "إلى 101"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_game_names_its_rounds_with_one_word(lang):
    """The game's own score-sheet lines and the generic lines (caption, recap, /score) say the same word."""
    own_lines = {"kenza": "kenza.sheet.clear", "canasta": "canasta.sheet.stock", "tunj": "tunj.sheet.deadlock",
                 "konkan_cards": "konkan.sheet.void", "konkan_tiles": "sheet.round"}
    for game, key in own_lines.items():
        word = round_name(lang, game, 3)
        assert t(lang, key, n=3, name="X").startswith(word), (game, word)
        assert t(lang, "recap.round", round=word) == f"{word}:"
        assert t(lang, "table.title", game="G", round=word) == f"G — {word}"
        assert t(lang, "score.round", round=word, points="A 5").startswith(word)
    assert [round_name("en", game, 2) for game in GAMES] == ["Deal 2", "Hand 2", "Hand 2", "Round 2", "Round 2"]
    assert round_name("ar", "konkan_cards", 2) == "الجولة 2" and round_name("ar", "kenza", 2) == "التوزيعة 2"


async def _terminal(game: str, lang: str, inputs: list[str]) -> str:
    store, service, transport, out = await console_service(3)
    read = typed_lines(inputs)

    try:
        await play(service, transport, game, 2, {}, lang, read=read)
    finally:
        await store.close()
    return out.getvalue()


@pytest.mark.parametrize(("game", "lang", "title"), [
    ("konkan_cards", "en", "Konkan (cards) — Round 1"), ("konkan_cards", "ar", "كونكان (ورق) — الجولة 1"),
    ("kenza", "en", "Kenza — Deal 1"), ("canasta", "ar", "كاناستا — اليد 1")])
async def test_the_table_caption_says_the_games_own_round_word(game, lang, title):
    """The caption heading every table in the terminal said "deal" in every game ("Konkan (cards) — deal 1")."""
    assert title in await _terminal(game, lang, ["/score"])


def test_every_move_description_has_its_second_person_variant():
    """Your own moves read in the second person in every game: each move description (`*.m.*`) has a "you"
    variant, in Arabic a different verb form (tiles said "أنت: نزّل" where the cards games said "أنت: نزّلتَ")."""
    ar, en = catalog("ar").messages, catalog("en").messages
    moves = sorted(key for context, key in ar if context is None and re.search(r"^[a-z_]+\.m\.", key))
    assert len(moves) >= 25 and any(key.startswith("kt.m.") for key in moves)
    assert [key for key in moves if ("you", key) not in ar or ("you", key) not in en] == []
    assert [key for key in moves if ar[("you", key)] == ar[(None, key)]] == []


@pytest.mark.parametrize(("move", "said"), [
    ("draw", "سحبتَ قطعة"), ("take", "أخذتَ القطعة المرمية"), ("discard R5", "رميتَ 🟥5"),
    ("meld R1 R2 R3", "نزّلتَ"), ("add K7 to 2", "ركّبتَ"), ("finish B3", "أنهيتَ مخفيًا")])
def test_your_own_tile_moves_speak_to_you(move, said):
    mine = describe_move("konkan_tiles", move, "ar", None, You("أنت"))
    theirs = describe_move("konkan_tiles", move, "ar", None, "بوت 2")
    assert mine.startswith(said) and not theirs.startswith(said), (mine, theirs)


async def test_the_lobby_counts_seats_without_a_range_of_one(tmp_path):
    """Tunj takes exactly two: its lobby said "Seats 1 (needs 2–2)"; now "Players: 1 of 2", and a game of several
    sizes gives its range."""
    async with fake_service(tmp_path / "majlis.db", 1) as (service, transport, _, _):
        group, ali = ChatRef("fake", "-5", private=False), Actor("fake", "1", "Ali", language="en", is_admin=True)
        await service.command(ali, group, "lang", ["en"])
        for game, line in (("tunj", "Players: 1 of 2:"), ("kenza", "Players: 1 (2 to 4):")):
            await service.command(ali, group, "new", [game])
            lobby = [sent.message.text for sent in transport.sent if "Ali" in sent.message.text][-1]
            assert line in lobby.splitlines(), lobby
            await service.command(ali, group, "cancel")
    assert t("ar", "lobby.seats_fixed", count=1, max=2) == "اللاعبون: 1 من 2:"


@pytest.mark.parametrize("lang", ["ar", "en"])
@pytest.mark.parametrize("game_id,players,options", [("kenza", 2, {}), ("canasta", 2, {"variant": "duo"})])
def test_a_table_picture_names_its_round_with_the_games_word(game_id, players, options, lang):
    """Canasta's table picture was titled "التوزيعة 1" / "Deal 1" (Kenza's word) while its captions, sheet and
    rules say hand: a picture's title uses the same word as the game's text lines."""
    import renderers
    from tests.pictures import played
    from tests.test_render_phone_size import drawn_sizes

    game = engine.get(game_id)
    view = game.view(played(game_id, players, 3, 6, options), None)
    with drawn_sizes() as drawn:
        renderers.render_table(game_id, view, lang, ["A", "B"])
    word = round_name(lang, game_id, view.get("round", 1))
    assert any(word in shown for _size, shown in drawn), (word, [shown for _size, shown in drawn][:8])


@pytest.mark.parametrize("game_id,players", [("kenza", 2), ("canasta", 2), ("tunj", 2), ("konkan_cards", 2),
                                             ("konkan_tiles", 4)])
def test_your_own_moves_are_told_as_what_you_did(game_id, players):
    """The answer to your move is "✓ You …" and the table's line "You: …": each of your moves reads as a verb of
    yours in English ("You put 10🏆 on the table", not "You 10🏆 to the table") and in Arabic in the second
    person, in every game — also Kenza's and Tunj's, whose moves were told card first ("3⚔️ took 12⚔️")."""
    import random

    from engine.bots import decide

    game = engine.get(game_id)
    state = game.new(players, {}, seed=2)
    seen = 0
    for step in range(160):
        seat = game.to_move(state)
        if seat is None:
            break
        move = decide(game_id, state, seat, "normal", random.Random(step))
        state = game.apply(state, seat, move)
        view = game.view(state, None)
        mine = describe_move(game_id, move, "en", view, You(""))
        assert re.match(r"[a-z]+ ", mine), (move, mine)
        ar_mine, ar_theirs = (describe_move(game_id, move, "ar", view, who) for who in (You(""), "X"))
        assert ar_mine != ar_theirs, (move, ar_mine)
        seen += 1
    assert seen > 10
