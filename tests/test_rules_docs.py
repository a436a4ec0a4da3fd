"""The rules for players (bot/rules/<game>.<lang>.md): complete in both languages, shipped as package data, and
shown by `/rules [game] [part]` in pages that fit one chat message."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from bot import rules
from bot.games import playable_games
from bot.messages import Actor, ChatRef
from bot.service import Service
from storage import Store

ROOT = Path(__file__).resolve().parents[1]
TELEGRAM_TEXT_LIMIT = 4096
GAMES = ("kenza", "canasta", "tunj", "konkan_cards", "konkan_tiles")
CARD_LETTERS = {"kenza": ("O", "C", "E", "B", "1O", "12C"), "canasta": ("S", "H", "D", "C", "X", "TH"),
                "tunj": ("S", "H", "D", "C", "7D", "/m move R F1"),
                "konkan_cards": ("S", "H", "D", "C", "X", "TH", "X:7H", "/m commit"),
                "konkan_tiles": ("R9", "K13", "B1", "R8:B6", "/m lock", "/m finish", "/m option")}


def test_every_playable_game_has_rules_in_both_languages():
    assert set(playable_games()) == set(GAMES)
    for game in GAMES:
        for lang in ("en", "ar"):
            assert (ROOT / "bot" / "rules" / f"{game}.{lang}.md").is_file()
            title, found = rules.sections(game, lang)
            assert title and len(found) >= 5
        # the same sections in both languages, and the card letters of typed moves in both
        assert len(rules.sections(game, "en")[1]) == len(rules.sections(game, "ar")[1])
        for lang in ("en", "ar"):
            last = rules.sections(game, lang)[1][-1].body
            assert "/m " in last and all(code in last for code in CARD_LETTERS[game]), (game, lang)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_pages_cover_the_whole_file_and_fit_a_message(game, lang):
    count = rules.page_count(game, lang)
    assert count >= 2
    shown = [rules.page_text(game, lang, n) for n in range(1, count + 1)]
    assert all(page is not None and len(page) <= TELEGRAM_TEXT_LIMIT for page in shown)
    everything = "\n".join(shown)
    for section in rules.sections(game, lang)[1]:
        assert section.body in everything  # every section is on some page
    assert rules.page_text(game, lang, count + 1) is None and rules.page_text(game, lang, 0) is None


@pytest.mark.parametrize("lang", ["en", "ar"])
async def test_rules_command_shows_the_files_in_the_readers_language(lang):
    store = await Store.open(":memory:")
    try:
        service = Service(store, seed_source=random.Random(1))
        actor = Actor("fake", "1", "Ali", language=lang)
        group = ChatRef("fake", "g1")
        for game in GAMES:
            first = (await service.command(actor, group, "rules", [game])).text
            title, found = rules.sections(game, lang)
            assert first.startswith(f"📖 {title}")
            assert found[0].body in first and found[-1].body in first  # in short, and how to play it here
            assert "/rules " + game + " 2" in first
            second = (await service.command(actor, group, "rules", [game, "2"])).text
            assert found[1].body in second
            missing = (await service.command(actor, group, "rules", [game, "9"])).text
            assert ("parts 1 to" if lang == "en" else "الأجزاء من 1 إلى") in missing
        other = "ar" if lang == "en" else "en"
        assert rules.sections("kenza", other)[1][0].body not in (await service.command(actor, group, "rules",
                                                                                       ["kenza"])).text
    finally:
        await store.close()


def test_an_installed_bot_finds_the_rules(tmp_path):
    """Build the packages as an install would (setuptools build_py with pyproject's package data) and read the
    rules from that copy in a fresh interpreter outside the source tree."""
    build = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['setup.py', '-q', 'build_py', "
                            f"'--build-lib', {str(tmp_path / 'lib')!r}]; from setuptools import setup; setup()"],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    probe = ("import bot.rules, sys; assert bot.rules.__file__.startswith(sys.argv[1]), bot.rules.__file__; "
             "print(all(bot.rules.page_text(g, l) for g in ('kenza', 'canasta', 'tunj') for l in ('en', 'ar')))")
    run = subprocess.run([sys.executable, "-c", probe, str(tmp_path / "lib")], cwd=tmp_path,
                         env={"PYTHONPATH": str(tmp_path / "lib"), "PATH": "/usr/bin:/bin"}, capture_output=True,
                         text=True)
    assert run.returncode == 0 and run.stdout.strip() == "True", run.stderr


def test_discord_rules_command_takes_a_part():
    from bot.discord_adapter.commands import specs

    spec = next(spec for spec in specs() if spec.name == "rules")
    assert [param.name for param in spec.params] == ["game", "part"]
    assert spec.args({"game": "tunj", "part": 2}) == ["tunj", "2"]
    assert spec.args({"game": None, "part": 2}) == ["2"] and spec.args({"game": "kenza", "part": None}) == ["kenza"]
