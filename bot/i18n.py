"""Message catalogs: every user-facing sentence lives in bot/locales/<lang>.json, none in code.

Arabic is the default language; a user's choice beats the chat's, which beats the default. A key missing from a
catalog falls back to English and then to the key itself, so a gap shows up as text instead of a crash.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DEFAULT_LANGUAGE = "ar"
LANGUAGES = ("ar", "en")
_LOCALES = Path(__file__).with_name("locales")


@cache
def catalog(lang: str) -> dict[str, str]:
    path = _LOCALES / f"{lang}.json"
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def normalize(lang: str | None) -> str | None:
    """`en-US` -> `en`; unknown languages -> None (the caller falls back)."""
    if not lang:
        return None
    short = lang.split("-")[0].split("_")[0].lower()
    return short if short in LANGUAGES else None


def pick_language(*choices: str | None) -> str:
    for choice in choices:
        lang = normalize(choice)
        if lang:
            return lang
    return DEFAULT_LANGUAGE


def t(lang: str, key: str, **values: Any) -> str:
    """The sentence `key` in `lang`, with {placeholders} filled."""
    text = catalog(lang).get(key) or catalog("en").get(key) or key
    try:
        return text.format(**values)
    except (KeyError, IndexError):
        return text


def game_name(lang: str, game_id: str) -> str:
    return t(lang, f"game.{game_id}")
