"""Message catalogs: every user-facing sentence lives in bot/locales/<lang>.po, none in code.

Why Babel and gettext `.po` files: `.po` is the format translators and their tools (Poedit, Weblate, msgfmt -c)
already know, it holds plural forms and contexts natively, and Babel — maintained, pure Python — both reads it and
carries CLDR's plural rules for every language (Arabic's six forms, English's two). The `.po` files are parsed once
per process at first use, so there is no compile step and no compiled file in the repository to go stale.

The msgid is the key the code passes (`t(lang, "lobby.joined")`); msgstr is the text with str.format
`{placeholders}`. Counted messages (`tn`) have one msgstr per plural form, in CLDR's order of the language's
categories (zero, one, two, few, many, other — the order of the gettext Plural-Forms header Babel writes).
A message may have variants under msgctxt "you" — the wording when its subject is the reader: its `{name}` is a
`You` (the terminal's player, who reads everything) or it is built inside `addressing_you()` — and "to_you", when
another of its values is the reader ("Bot 2 called Tunj! Your move …").

Arabic is the default language; a user's choice beats the chat's, which beats the default. A key missing from a
catalog falls back to English and then to the key itself, so a gap shows up as text instead of a crash.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.pofile import read_po

DEFAULT_LANGUAGE = "ar"
LANGUAGES = ("ar", "en")
YOU = "you"  # the msgctxt of variants whose subject is the reader (second person)
TO_YOU = "to_you"  # the msgctxt of variants that name the reader elsewhere than as subject ("your move")
_LOCALES = Path(__file__).with_name("locales")
_CATEGORIES = ("zero", "one", "two", "few", "many", "other")
_addressing_you: ContextVar[bool] = ContextVar("addressing_you", default=False)


@dataclass(frozen=True)
class Catalog:
    """One language's messages: (context, key) -> text, or the tuple of plural forms for counted messages."""

    lang: str
    messages: dict[tuple[str | None, str], str | tuple[str, ...]]

    def get(self, key: str, context: str | None = None) -> str | tuple[str, ...] | None:
        return self.messages.get((context, key)) or None

    def __getitem__(self, key: str) -> str | tuple[str, ...]:
        return self.messages[(None, key)]

    def __contains__(self, key: object) -> bool:
        return (None, key) in self.messages

    def __iter__(self) -> Iterator[str]:
        """The keys (a key with a "you" variant once), like the dict the JSON catalogs were."""
        return iter(dict.fromkeys(key for _, key in self.messages))


@cache
def catalog(lang: str) -> Catalog:
    path = _LOCALES / f"{lang}.po"
    if not path.exists():
        return Catalog(lang, {})
    with path.open("rb") as handle:
        po = read_po(handle, locale=lang)
    messages: dict[tuple[str | None, str], str | tuple[str, ...]] = {}
    for message in po:
        if not message.id:
            continue  # the header
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        text = tuple(message.string) if isinstance(message.string, (tuple, list)) else message.string
        messages[(message.context, key)] = text
    return Catalog(lang, messages)


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


@cache
def plural_categories(lang: str) -> tuple[str, ...]:
    """The language's CLDR plural categories in catalog order, e.g. ("one", "other") for English."""
    tags = _locale(lang).plural_form.tags | {"other"}
    return tuple(category for category in _CATEGORIES if category in tags)


def plural_index(lang: str, n: int | float) -> int:
    """Which plural form `n` takes in `lang` (CLDR rules; the sign does not change the form)."""
    category = _locale(lang).plural_form(abs(n))
    return plural_categories(lang).index(category)


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


class You(str):
    """The reader's own name ("You" / "أنت"): a message whose `{name}` is a You takes its "you" variant."""


@contextlib.contextmanager
def addressing_you(active: bool = True) -> Iterator[None]:
    """Within this block, messages that have a second-person ("you") variant use it."""
    token = _addressing_you.set(active)
    try:
        yield
    finally:
        _addressing_you.reset(token)


def _person(values: dict[str, Any]) -> str | None:
    """The context that fits who the message is about: the reader as its subject (`{name}` is a You, or inside
    `addressing_you()`), the reader as another part of it (another value is a You), or nobody in particular."""
    if isinstance(values.get("name"), You) or _addressing_you.get():
        return YOU
    if any(isinstance(value, You) for value in values.values()):
        return TO_YOU
    return None


def _lookup(lang: str, key: str, context: str | None = None) -> str | tuple[str, ...] | None:
    """The message in `lang`, else in English; the variant for `context` first when there is one."""
    for source in (lang, "en") if lang != "en" else ("en",):
        entry = catalog(source)
        found = (entry.get(key, context) if context else None) or entry.get(key)
        if found is not None:
            return found if source == lang or not isinstance(found, tuple) else _english_as(lang, found)
    return None


def _english_as(lang: str, forms: tuple[str, ...]) -> tuple[str, ...]:
    """English plural forms stretched over `lang`'s categories (a missing translation still counts right)."""
    return tuple(forms[0] if category == "one" else forms[-1] for category in plural_categories(lang))


def _fill(text: str, values: dict[str, Any]) -> str:
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return text


def has(lang: str, key: str) -> bool:
    return _lookup(lang, key) is not None


def t(lang: str, key: str, **values: Any) -> str:
    """The sentence `key` in `lang`, with {placeholders} filled (a counted message takes its `n` if given)."""
    found = _lookup(lang, key, _person(values))
    if found is None:
        return key
    if isinstance(found, tuple):
        count = _count(values.get("n"))
        found = found[plural_index(lang, count)] if count is not None else found[-1]
    return _fill(found, values)


def _count(value: Any) -> int | None:
    """`n` as a number for choosing a plural form (a count may arrive as text, e.g. a run's `H3:2`)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None


def tn(lang: str, key: str, n: int, **values: Any) -> str:
    """The counted sentence `key` in `lang` in the plural form `n` takes, with {n} and the others filled."""
    found = _lookup(lang, key, _person(values))
    if found is None:
        return key
    text = found[plural_index(lang, n)] if isinstance(found, tuple) else found
    return _fill(text, {**values, "n": n})


def refusal(lang: str, error: Exception) -> str:
    """An engine refusal (IllegalMove, BadOption) in `lang`: the catalog's `illegal.<code>` filled with the error's
    params; the error's own English text when it has no code or the catalogs do not know it (an engine written
    elsewhere may not give codes yet)."""
    code = getattr(error, "code", None)
    if code and has(lang, f"illegal.{code}"):
        return t(lang, f"illegal.{code}", **getattr(error, "params", {}))
    return getattr(error, "reason", None) or str(error)


def game_name(lang: str, game_id: str) -> str:
    return t(lang, f"game.{game_id}")


def round_name(lang: str, game_id: str, n: int) -> str:
    """Round `n` in the game's own word, as its rules and score sheets say it: Kenza's deal, Canasta's and Tunj's
    hand, the Konkans' round — one word per game everywhere, the generic lines (table caption, recap, /score)
    included. A game without its own word has rounds."""
    key = f"round.{game_id}"
    return t(lang, key if has(lang, key) else "sheet.round", n=n)
