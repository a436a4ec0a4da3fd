"""The rules of each game for players, in both languages: `bot/rules/<game>.<lang>.md`, and their chat pages.

The files ship as package data beside this module, so an installed bot finds them without the source tree. Each
file is `# title`, then `## sections`: the first tells the game in short, the last how to play it in Majlis (the
buttons, typed moves and card letters). In chat `/rules [game]` shows those two and lists the other parts;
`/rules game N` shows part N. A part is one or more whole sections, cut so every page fits one Telegram message
(4096 characters) and one Discord embed; the markdown is shown as plain text (headings and list marks kept, code
marks dropped), as both platforms get it without a parse mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from bot.i18n import t

PAGE_LIMIT = 3600  # characters of rules per page; the footer and title stay far below the 4096 of a message


@dataclass(frozen=True)
class Section:
    title: str
    body: str

    def text(self) -> str:
        return f"▪️ {self.title}\n{self.body}"


@cache
def document(game_id: str, lang: str) -> str | None:
    """The markdown of a game's rules in `lang` (English when that language has none), or None."""
    for choice in (lang, "en"):
        path = resources.files(__package__).joinpath(f"{game_id}.{choice}.md")
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return None


def _plain(line: str) -> str:
    line = line.replace("`", "").replace("**", "")
    return "• " + line[2:] if line.startswith("- ") else line


@cache
def sections(game_id: str, lang: str) -> tuple[str, tuple[Section, ...]]:
    """(title, sections) of a rules file: `# title`, then `## section` headings with their text."""
    text = document(game_id, lang)
    if text is None:
        return "", ()
    title, found, current, lines = "", [], None, []
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("# "):
            title = line[2:].strip()
        elif line.startswith("## "):
            if current is not None:
                found.append(Section(current, "\n".join(lines).strip()))
            current, lines = line[3:].strip(), []
        elif current is not None:
            lines.append(_plain(line))
    if current is not None:
        found.append(Section(current, "\n".join(lines).strip()))
    return title, tuple(found)


@cache
def pages(game_id: str, lang: str) -> tuple[tuple[Section, ...], ...]:
    """Page 1 is the first section (the rules in short) with the last (how to play them here: buttons, typed
    moves, card letters); the sections between follow on pages filled up to PAGE_LIMIT."""
    _, found = sections(game_id, lang)
    if not found:
        return ()
    out: list[tuple[Section, ...]] = [(found[0], found[-1]) if len(found) > 1 else (found[0],)]
    page: list[Section] = []
    for section in found[1:-1]:
        size = sum(len(s.text()) + 2 for s in page) + len(section.text())
        if page and size > PAGE_LIMIT:
            out.append(tuple(page))
            page = []
        page.append(section)
    if page:
        out.append(tuple(page))
    return tuple(out)


def _command(game_id: str, number: int, lang: str) -> str:
    mark = "\u200e" if lang == "ar" else ""  # keeps a Latin command in order inside an Arabic line
    return f"{mark}/rules {game_id} {number}"


def page_text(game_id: str, lang: str, number: int = 1) -> str | None:
    """Page `number` (from 1) of a game's rules as chat text, with directions to the other pages; None when the
    game has no rules file or no such page."""
    book = pages(game_id, lang)
    if not 1 <= number <= len(book):
        return None
    title, _ = sections(game_id, lang)
    parts = [f"📖 {title}" + (f" — {t(lang, 'rules.part', n=number, total=len(book))}" if number > 1 else "")]
    parts += [section.text() for section in book[number - 1]]
    if number == 1 and len(book) > 1:
        listing = "\n".join(t(lang, "rules.part_line", command=_command(game_id, n, lang),
                              titles=" · ".join(s.title for s in book[n - 1])) for n in range(2, len(book) + 1))
        parts.append(f"{t(lang, 'rules.more')}\n{listing}")
    elif number < len(book):
        parts.append(t(lang, "rules.next", command=_command(game_id, number + 1, lang)))
    return "\n\n".join(parts)


def page_count(game_id: str, lang: str) -> int:
    return len(pages(game_id, lang))
