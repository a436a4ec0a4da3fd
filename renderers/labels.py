"""Words drawn into images, per language. The bot's message catalogs are separate; these are only the short
labels on the pictures, kept in one place so a translation fix touches one file.

A language without an entry falls back to English rather than failing: a picture with English labels is better
than no picture in a chat that asked for a language we have not translated yet.
"""

from __future__ import annotations

RTL_LANGS = frozenset({"ar", "fa", "ur", "he"})

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "game.kenza": "Kenza",
        "game.rabaeen": "Rabaeen",
        "game.canasta": "Canasta",
        "game.tunj": "Tunj",
        "your_hand": "Your hand",
        "your_turn": "Your turn",
        "no_cards": "No cards in hand",
        "deal": "Deal {n}",
        "target": "Target {n}",
        "table": "Table",
        "table_empty": "The table is empty",
        "stock": "Stock",
        "player": "Player {n}",
        "team": "Team {n}",
        "col.player": "Player",
        "col.hand": "Hand",
        "col.captured": "Captured",
        "col.sweeps": "Sweeps",
        "dealer": "dealer",
        "scores": "Scores",
        "last_move": "Last move",
        "played": "{name} played",
        "took": "took",
        "over": "Game over",
        "winner": "Winner: {names}",
        "winners": "Winners: {names}",
        "draw": "Draw: {names}",
        "and": " & ",
    },
    "ar": {
        "game.kenza": "كينزة",
        "game.rabaeen": "ربعين",
        "game.canasta": "كناستا",
        "game.tunj": "طنج",
        "your_hand": "أوراقك",
        "your_turn": "دورك",
        "no_cards": "لا أوراق في يدك",
        "deal": "التوزيعة {n}",
        "target": "الهدف {n}",
        "table": "الطاولة",
        "table_empty": "الطاولة فارغة",
        "stock": "الشدّة",
        "player": "اللاعب {n}",
        "team": "الفريق {n}",
        "col.player": "اللاعب",
        "col.hand": "اليد",
        "col.captured": "المأخوذ",
        "col.sweeps": "المسحات",
        "dealer": "الموزّع",
        "scores": "النقاط",
        "last_move": "آخر حركة",
        "played": "{name} لعب",
        "took": "وأخذ",
        "over": "انتهت المباراة",
        "winner": "الفائز: {names}",
        "winners": "الفائزون: {names}",
        "draw": "تعادل: {names}",
        "and": " و",
    },
}


def label(lang: str, key: str, **values: object) -> str:
    """The label in `lang` (English if that language has none), with `{placeholders}` filled."""
    table = LABELS.get(lang, LABELS["en"])
    text = table.get(key, LABELS["en"][key])
    return text.format(**values) if values else text


def is_rtl(lang: str) -> bool:
    return lang in RTL_LANGS
