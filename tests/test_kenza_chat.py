"""Kenza in chat as a player reads it: the capture choices, the prompt, the move and table texts, in the reader's
language (the texts catalog, bot/locales)."""

from __future__ import annotations

import engine
from bot.games import ui_for
from bot.i18n import You, t

GAME = engine.get("kenza")
UI = ui_for("kenza")


def layout_state(hands, table, stock=()):
    return GAME.new(2, {"variant": "kenza", "target": 151},
                    layout={"hands": [list(h) for h in hands], "table": list(table), "stock": list(stock)})


def test_a_card_with_two_captures_offers_each_in_the_players_language():
    """rules/kenza.md: a 6 on 2 3 4 5 may take 2+3+4 or 4+5 — pressing the 6 opens one button per capture, in
    Arabic for an Arabic player, with a way back; the prompt is theirs too."""
    state = layout_state([["6O", "1B"], ["1C"]], ["2C", "3C", "4C", "5C"], stock=["7E", "7B"])
    view, legal = GAME.view(state, 0), GAME.legal_moves(state, 0)
    keyboard = UI.rack_buttons(view, legal, "ar", "0")
    assert [[b.label for b in row] for row in keyboard] == [
        [t("ar", "kenza.take", cards="2🏆 + 3🏆 + 4🏆"), t("ar", "kenza.take", cards="4🏆 + 5🏆")],
        [t("ar", "btn.back")]]
    assert keyboard[0][0].label != t("en", "kenza.take", cards="2🏆 + 3🏆 + 4🏆")
    assert UI.turn_prompt(view, "ar") == t("ar", "rack.your_turn", game=t("ar", "game.kenza")) != \
        UI.turn_prompt(view, "en")


def test_a_capture_and_the_table_in_words():
    """A capture names the card played and the cards it took; the table names the cards on it, the stock and the
    deal, then each player's hand, pile and sweeps, listed one after the other."""
    state = layout_state([["6O", "1B"], ["1C"]], ["2C", "3C", "4C", "5C"], stock=["7E", "7B"])
    assert UI.describe_move("play 6O take 4C 5C", "en") == "6🪙 took 4🏆 5🏆"
    assert UI.describe_table(GAME.view(state, None), "en", ["Ali", "Bot"]).splitlines() == [
        "Table: 2🏆 3🏆 4🏆 5🏆 · stock 2 · deal 1",
        "Ali: hand 2, pile 0, sweeps 0, Bot: hand 1, pile 0, sweeps 0"]


def test_a_deals_sheet_labels_its_rows():
    """The deal's sheet names every row from the catalog — cards, gold, other cards, sweeps, points, total."""
    detail = {"last_capturer": None, "leftover": 0, "points": [9, 3], "totals": [9, 3],
              "sides": [{"cards": 22, "gold": 5, "others": 12, "sweeps": 2}, {"cards": 18, "gold": 1, "others": 15,
                                                                               "sweeps": 0}]}
    sheet = UI.round_sheet(detail, 1, {}, ["Ali", "Bot"], ["Ali", "Bot"], "en")
    assert [label for label, _ in sheet.rows] == [
        t("en", key) for key in ("kenza.sheet.cards", "kenza.sheet.gold", "kenza.sheet.others", "kenza.sheet.sweeps",
                                 "sheet.points", "sheet.total")]
    assert t("en", "sheet.points") == "Points"


def test_the_leftover_cards_line_counts_its_cards_and_speaks_to_you():
    """The table cards left at the end of a deal: counted with the noun the number takes (Arabic "6 أوراق", "11
    ورقة"), and when they went to the reader, "you took …" in the second person, never "went to You" (issue 25)."""
    def title(lang, count, points, name):
        detail = {"last_capturer": 1, "leftover": count, "leftover_points": points, "points": [0, 0],
                  "totals": [0, 0], "sides": []}
        return UI.round_sheet(detail, 2, {}, ["Ali", name], ["Ali", name], lang).title

    assert title("en", 6, 6, "Bot 2") == "Deal 2: Bot 2 took the 6 cards left on the table (6 points), as the last " \
                                         "to capture"
    assert title("en", 1, 1, "Bot 2") == "Deal 2: Bot 2 took the 1 card left on the table (1 point), as the last " \
                                         "to capture"
    assert title("en", 3, 4, You("You")) == "Deal 2: you took the 3 cards left on the table (4 points), as the " \
                                            "last to capture"
    assert title("ar", 6, 6, "بوت 2") == "التوزيعة 2: أخذ بوت 2 أوراق الأرض الباقية: 6 أوراق (6 نقاط)، لأنه آخر من أكل"
    assert title("ar", 11, 2, "بوت 2") == "التوزيعة 2: أخذ بوت 2 أوراق الأرض الباقية: 11 ورقة (نقطتان)، لأنه آخر من أكل"
    mine = title("ar", 2, 1, You("أنت"))
    assert mine == "التوزيعة 2: أخذتَ أوراق الأرض الباقية: ورقتان (نقطة واحدة)، لأنك آخر من أكل"
    assert "أنت" not in mine and "You" not in title("en", 2, 2, You("You"))
