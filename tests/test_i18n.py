"""Catalogs (gettext .po through Babel): every key in both languages with every CLDR plural form and the same
placeholders; real plurals; engine refusals translated from their codes; the terminal speaks one language."""

from __future__ import annotations

import ast
import gettext
import random
import re
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import engine
from bot.i18n import (
    LANGUAGES,
    TO_YOU,
    YOU,
    You,
    addressing_you,
    catalog,
    plural_categories,
    plural_index,
    refusal,
    t,
    tn,
)
from bot.messages import Actor, ChatRef
from bot.service import Service
from engine import BadOption, IllegalMove
from storage import Store
from tests.fakes import FakeTransport
from tests.test_console import run_console
from tests.test_service import open_table

ROOT = Path(__file__).resolve().parent.parent
FORMS = {"ar": 6, "en": 2}
ARABIC_LETTER = re.compile(r"[\u0600-\u06FF]")


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def forms_of(entry: str | tuple[str, ...]) -> tuple[str, ...]:
    return entry if isinstance(entry, tuple) else (entry,)


# ---- the catalogs themselves ---------------------------------------------------------------------------------
def test_both_languages_have_the_same_messages_and_contexts():
    en, ar = catalog("en").messages, catalog("ar").messages
    assert len(en) > 350
    assert set(en) == set(ar), (set(en) ^ set(ar))
    for context, key in en:
        if context is not None:
            assert context in (YOU, TO_YOU)
            assert (None, key) in en, f"the {context} variant of {key} has no plain message"


def test_counted_messages_have_every_plural_form_of_each_language():
    assert plural_categories("ar") == ("zero", "one", "two", "few", "many", "other")
    assert plural_categories("en") == ("one", "other")
    counted = 0
    for message_id, en_entry in catalog("en").messages.items():
        ar_entry = catalog("ar").messages[message_id]
        assert isinstance(en_entry, tuple) == isinstance(ar_entry, tuple), message_id
        if isinstance(en_entry, tuple):
            counted += 1
            assert len(en_entry) == FORMS["en"] and len(ar_entry) == FORMS["ar"], message_id
        for lang, entry in (("en", en_entry), ("ar", ar_entry)):
            assert all(form.strip() for form in forms_of(entry)), (lang, message_id)
    assert counted >= 20


def test_placeholders_match_between_languages():
    for message_id, en_entry in catalog("en").messages.items():
        ar_entry = catalog("ar").messages[message_id]
        en_names = set().union(*(placeholders(form) for form in forms_of(en_entry)))
        ar_names = set().union(*(placeholders(form) for form in forms_of(ar_entry)))
        assert en_names == ar_names, (message_id, en_names, ar_names)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_po_header_plural_rule_is_cldrs(lang):
    """The Plural-Forms header (what gettext tools read) picks the same form as Babel's CLDR rule we use."""
    with (ROOT / "bot" / "locales" / f"{lang}.po").open("rb") as handle:
        po = read_po(handle)
    assert po.num_plurals == FORMS[lang]
    header = gettext.c2py(po.plural_expr)
    for n in range(0, 1200):
        assert header(n) == plural_index(lang, n), n


def test_arabic_plurals_follow_the_six_forms():
    expected = {0: "0 ورقة", 1: "ورقة واحدة", 2: "ورقتان", 3: "3 أوراق", 10: "10 أوراق", 11: "11 ورقة",
                99: "99 ورقة", 100: "100 ورقة", 102: "102 ورقة", 103: "103 أوراق", 111: "111 ورقة"}
    assert {n: tn("ar", "count.cards", n) for n in expected} == expected
    assert [tn("ar", "count.games", n) for n in (0, 1, 2, 3, 11, 100)] == [
        "لا مباريات", "مباراة واحدة", "مباراتان", "3 مباريات", "11 مباراة", "100 مباراة"]
    assert t("ar", "canasta.take", top="Q♥", n=2) == "خذ الأرض: Q♥ (ورقتان)"
    assert t("ar", "canasta.draw", n=1) == "🂠 اسحب من الكومة (بقيت ورقة واحدة)"
    assert tn("ar", "timer.set", 10) == "لكل دور الآن 10 ثوانٍ."
    # a negative score takes the form of its size
    assert "3 نقاط" in t("ar", "canasta.side", side="A", n=-3, status="", red3s="", hands="")


# Arabic nouns that follow a number and change with it; a placeholder that is not a count (a meld's number, a
# rank, a name) may stand before them.
COUNTED_NOUNS = ("نقطة", "نقاط", "نقطتان", "نقطتين", "ورقة", "أوراق", "ورق", "ورقتان", "ورقتين", "قطعة", "قطع",
                 "قطعتان", "عملة", "عملات", "لاعب", "لاعبين", "لاعبًا", "لاعبَين", "جولة", "جولات", "انتصار",
                 "انتصارات", "انتصارًا", "مباراة", "مباريات", "لقطة", "لقطات", "نقلة", "نقلات", "تصنيف", "ثانية",
                 "ثوانٍ", "ثوان", "حركة", "حركات", "مشارك", "مشاركين", "مشاركًا", "جوكر", "جوكرات", "قفل", "أقفال",
                 "تنزيلة", "تنزيلات", "مرة", "مرات", "دقيقة", "دقائق", "خسارة", "خسارات", "تعادل", "تعادلات",
                 "مقعد", "مقاعد", "حجر", "أحجار")
NOT_COUNTS = {"name", "names", "number", "rank", "pile", "card", "cards", "game", "mode", "top", "house", "side"}
NUMBER_BEFORE_NOUN = re.compile(r"\{(\w+)\}\s?(" + "|".join(COUNTED_NOUNS) + r")(?=[\s.,،؛:)»—]|$)")


def test_no_arabic_count_is_left_without_its_plural_forms():
    """"4 نقطة", "10 عملة": a number written before a noun must be the `n` of a counted message, whose six forms
    give the noun the number needs (issue 25, defect 8); any other count is said as a label ("النقاط 4")."""
    bare = []
    for (context, key), entry in catalog("ar").messages.items():
        for form in forms_of(entry):
            for found in NUMBER_BEFORE_NOUN.finditer(form):
                name = found.group(1)
                if name not in NOT_COUNTS and not (name == "n" and isinstance(entry, tuple)):
                    bare.append((context, key, found.group(0)))
    assert bare == []


@pytest.mark.parametrize("n", [*range(13), 100, 101])
def test_arabic_counts_take_the_form_of_their_number(n):
    """Each number from 0 to 12 and 100, 101 in the six forms: 1 and 2 by the noun alone, 3–10 the plural, 11–99
    the singular accusative, 100–102 the singular (CLDR's zero, one, two, few, many, other)."""
    category = ("zero", "one", "two", "few", "many", "other")[plural_index("ar", n)]
    points = {"zero": f"{n} نقطة", "one": "نقطة واحدة", "two": "نقطتان", "few": f"{n} نقاط", "many": f"{n} نقطة",
              "other": f"{n} نقطة"}[category]
    assert tn("ar", "count.points", n) == points
    coins = {"zero": f"{n} عملة", "one": "عملة واحدة", "two": "عملتان", "few": f"{n} عملات", "many": f"{n} عملة",
             "other": f"{n} عملة"}[category]
    assert tn("ar", "coins.stake_set", n) == f"الرهان: {coins} للمقعد."
    players = {"zero": f"لـ{n} لاعب", "one": "للاعب واحد", "two": "للاعبَين", "few": f"لـ{n} لاعبين",
               "many": f"لـ{n} لاعبًا", "other": f"لـ{n} لاعب"}[category]
    assert players in t("ar", "tour.bad_seats", game="طنج", n=n)
    wins = {"few": f"{n} انتصارات متتالية", "many": f"{n} انتصارًا متتاليًا", "other": f"{n} انتصار متتالٍ"}
    if category in wins:
        assert t("ar", "ladder.news_streak", n=n) == f"🔥 {wins[category]}"
    assert t("ar", "konkan.table_seat", name="علي", score=n, n=3, status="-") == f"علي: النقاط {n} · 3 أوراق · -"


def test_english_plurals_have_one_and_other():
    assert [tn("en", "count.cards", n) for n in (0, 1, 2, 3)] == ["0 cards", "1 card", "2 cards", "3 cards"]
    assert t("en", "canasta.table_pile", stock=9, top="Q♥", n=1, state="") == "Stock 9 · discard pile Q♥ (1 card)"
    assert t("en", "canasta.take", top="Q♥", n=3) == "Take the pile: Q♥ (3 cards)"


def test_you_variants_speak_to_the_reader():
    you_ar, you_en = You("أنت"), You("You")
    assert t("ar", "canasta.took_pile", name=you_ar, top="7♥") == "أخذتَ الأرض وعليك أن تنزّل 7♥"
    assert t("ar", "canasta.took_pile", name="علي", top="7♥") == "علي أخذ الأرض وعليه أن ينزّل 7♥"
    assert t("en", "stats.none", name=you_en) == "You have not finished a game yet."
    assert t("en", "stats.none", name="Ali") == "Ali has not finished a game yet."
    assert t("en", "table.turn", name=you_en) == "▶ Your turn"
    with addressing_you():
        assert t("ar", "canasta.m.take") == "أخذتَ الأرض"
    assert t("ar", "canasta.m.take") == "أخذ الأرض"
    called = t("en", "tunj.ev.called", name="Bot 2", offender=you_en, move="R → F1", rules="priority 1")
    assert called.startswith("Bot 2 called Tunj! Your R → F1")


def test_a_missing_key_or_value_shows_text_instead_of_failing():
    assert t("ar", "no.such.key") == "no.such.key"
    assert t("ar", "lobby.title") == "طاولة جديدة: {game}"
    assert catalog("fr").messages == {}
    assert t("fr", "lobby.joined") == "You joined the table."


# ---- refusals ------------------------------------------------------------------------------------------------
CODED = ("base.py", "cards.py", "kenza", "canasta", "tunj", "konkan_cards", "konkan_tiles")  # every refusal coded


def _raised_codes() -> dict[str, set[str]]:
    """Every code the engine gives a refusal, with the parameter names given with it (read from the source).
    A code is optional (engines written elsewhere may give none yet, and show their English), but the engines
    in CODED give one to every refusal."""
    codes: dict[str, set[str]] = {}
    for path in (ROOT / "engine").rglob("*.py"):
        strict = path.relative_to(ROOT / "engine").parts[0] in CODED
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = {node.value.value for node in ast.walk(tree)
                    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and any(isinstance(target, ast.Name) and target.id == "code" for target in node.targets)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("IllegalMove", "BadOption"):
                assert len(node.args) >= 2 or not strict, f"{path}:{node.lineno} raises a refusal without a code"
                if len(node.args) < 2:
                    continue
                params = {keyword.arg for keyword in node.keywords}
                code = node.args[1]
                names = [code.value] if isinstance(code, ast.Constant) else sorted(assigned)
                for name in names:
                    codes.setdefault(name, set()).update(params)
    return codes


def test_every_engine_refusal_code_is_translated_with_its_parameters():
    codes = _raised_codes()
    assert len(codes) > 80
    for code, params in codes.items():
        for lang in LANGUAGES:
            entry = catalog(lang).get(f"illegal.{code}")
            assert entry is not None, (lang, code)
            used = set().union(*(placeholders(form) for form in forms_of(entry)))
            assert used <= params, (lang, code, used - params)


def test_refusal_keeps_the_contract_reason_and_translates_the_code():
    kenza = engine.get("kenza")
    state = kenza.new(2, {}, seed=3)
    with pytest.raises(IllegalMove) as caught:
        kenza.parse_move(state, 0, "play 9O")
    error = caught.value
    assert error.reason == "'9O' is not a card (e.g. 1O, 7C, 10E, 12B)" and error.code == "not_a_card"
    assert refusal("en", error) == error.reason
    assert refusal("ar", error) == "«9O» ليست ورقة (مثل 1O, 7C, 10E, 12B)"
    canasta = engine.get("canasta")
    state = canasta.new(2, {}, seed=3)
    seat = canasta.to_move(state)
    with pytest.raises(IllegalMove) as caught:
        canasta.apply(state, seat, "meld 7H 7S 7D")
    assert caught.value.reason == "first draw from the stock or take the discard pile"
    assert refusal("ar", caught.value) == "اسحب من الكومة أو خذ الأرض أولًا"
    with pytest.raises(BadOption) as bad:
        canasta.new(4, {"variant": "duo"})
    assert refusal("ar", bad.value) == "كاناستا duo للاعبَين، لا 4"


def test_refusal_without_a_known_code_shows_the_engines_english():
    assert refusal("ar", IllegalMove("meld 3 is not yours")) == "meld 3 is not yours"
    assert refusal("ar", IllegalMove("a Konkan reason", "konkan.something_new", n=2)) == "a Konkan reason"
    assert refusal("ar", ValueError("plain")) == "plain"


async def test_a_refused_move_in_an_arabic_chat_shows_an_arabic_reason(tmp_path):
    store = await Store.open(str(tmp_path / "majlis.db"))
    service = Service(store, seed_source=random.Random(5))
    transport = FakeTransport()
    service.attach(transport, images=False)
    group = ChatRef("fake", "-100", private=False)
    ali = Actor("fake", "1", "Ali", language="ar")
    await service.command(ali, group, "lang", ["ar"])
    try:
        match, _ = await open_table(service, players=(ali,))
        assert engine.get("kenza").to_move(engine.get("kenza").from_json(match.snapshot)) == 0
        hand = engine.get("kenza").view(engine.get("kenza").from_json(match.snapshot), 0)["hand"]
        missing = next(f"{v}{s}" for v in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12) for s in "OCEB" if f"{v}{s}" not in hand)
        for move, reason in (("play 9O", "«9O» ليست ورقة"), (f"play {missing}", f"{missing} ليست في يدك"),
                             ("hello", "اكتب الحركة هكذا")):
            reply = await service.command(ali, group, "m", move.split())
            assert reply.alert and reply.text.startswith("غير مسموح: " + reason), reply.text
            assert not re.search(r"\b(is|not|your|hand|write|card)\b", reply.text), reply.text
    finally:
        await store.close()


# ---- the terminal --------------------------------------------------------------------------------------------
ALLOWED_LATIN = re.compile(r"^(\d{1,2}[OCEB]|play|take|q|[a-z]+)$")
COMMANDS = {"new", "join", "leave", "start", "cancel", "hand", "score", "top", "stats", "rules", "lang", "help",
            "m", "back", "timer", "replay", "tournament", "play", "take", "ar", "en", "q"}


async def test_a_whole_kenza_match_in_the_arabic_terminal_has_no_english_word():
    inputs = ["play 9O", "play 13O", "/score", "/stats", "/top", "/hand", "/frob", "99"] + ["1"] * 400
    text, _, finished = await run_console(inputs, lang="ar")
    assert finished.status == "finished"
    assert "الفائز" in text or "تعادل" in text
    words = set(re.findall(r"[A-Za-z][A-Za-z0-9]*", text))
    cards = {word for word in words if re.fullmatch(r"\d{0,2}[OCEB]", word)}
    assert words - cards - COMMANDS == set(), words - cards - COMMANDS
    # the player is "أنت" and is spoken to: second person, not third
    assert "◀ دورك" in text and "أنت: " in text and "لم تُنهِ أي مباراة بعد." in text
    assert "الدور على أنت" not in text


async def test_after_lang_en_every_name_and_prompt_follows():
    text, _, match = await run_console(["1", "/lang en", "1", "/stats", "q"], lang="ar")
    after = text[text.index("This chat now speaks English."):]
    assert "You: " in after and "▶ Your turn" in after and "You have not finished a game yet." in after
    assert not ARABIC_LETTER.search(after), after
    assert match.status == "active"


async def test_a_whole_english_terminal_match_has_no_arabic_and_no_broken_grammar():
    text, _, finished = await run_console(["/stats"] + ["1"] * 400, lang="en")
    assert finished.status == "finished"
    assert not ARABIC_LETTER.search(text)
    assert "You has" not in text and "You have not finished a game yet." in text
    assert "▶ Your turn" in text and "▶ You to play" not in text


def test_picture_labels_count_with_the_same_plural_rules():
    from renderers.labels import LABELS, label

    for lang in LANGUAGES:
        counted = {key: text for key, text in LABELS[lang].items() if isinstance(text, tuple)}
        assert set(counted) == {key for key, text in LABELS["en"].items() if isinstance(text, tuple)}
        assert all(len(forms) == FORMS[lang] for forms in counted.values()), lang
    assert [label("ar", "canasta.cards", n=n) for n in (1, 2, 3, 11)] == [
        "ورقة واحدة", "ورقتان", "3 أوراق", "11 ورقة"]
    assert [label("en", "canasta.cards", n=n) for n in (1, 2)] == ["1 card", "2 cards"]


def test_every_count_drawn_in_a_picture_has_plural_forms():
    """Issue 25, defect 8: Konkan pictures said "3 ورقة", "8 ورقة". A picture label that puts a count before its
    noun ("{n} cards") has every plural form of each language."""
    from renderers.labels import LABELS, label

    nouns = [key for key, text in LABELS["en"].items() if isinstance(text, str) and re.match(r"\{n\} [a-z]", text)]
    assert not nouns, nouns
    assert [label("ar", "konkan.cards", n=n) for n in (1, 2, 3, 8, 11, 100)] == [
        "ورقة واحدة", "ورقتان", "3 أوراق", "8 أوراق", "11 ورقة", "100 ورقة"]
    assert [label("ar", "kt.tiles", n=n) for n in (1, 2, 3, 10, 14, 106)] == [
        "قطعة واحدة", "قطعتان", "3 قطع", "10 قطع", "14 قطعة", "106 قطع"]
    assert [label("en", key, n=n) for key in ("konkan.cards", "kt.tiles") for n in (1, 14)] == [
        "1 card", "14 cards", "1 tile", "14 tiles"]


def test_a_count_given_as_text_still_chooses_its_form():
    assert t("ar", "tunj.name.run", n="2", house="H3") == "ورقتان من H3"
    assert t("en", "tunj.name.run", n="3", house="H3") == "3 cards from H3"
