"""`majlis run` (the bots, or the terminal game when no token is set) and `majlis play GAME` (terminal game)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys
from typing import TYPE_CHECKING, Any

from bot.i18n import LANGUAGES, normalize, refusal, t, tn

OPTION_HELP = {
    "variant": "the game's variant (per game below)",
    "target": "points that win the match (per game below)",
    "claim_seconds": "Tunj: seconds the opponent has to call Tunj! after a broken rule",
    "mode": "Konkan tiles: the table's mode (quick, turbo, sulaymaniyah, private; default by players: 4 → quick, "
            "2 → private, a 1v1 room; with --rules sulaymaniyah and no --players: the sulaymaniyah mode)",
    "rules": "Konkan tiles: erbil (standard) or sulaymaniyah; private rooms choose, the sulaymaniyah mode plays "
             "sulaymaniyah",
}
if TYPE_CHECKING:
    from storage.errors import DatabaseUnusable

GAME_ALIASES = {"konkan": "konkan_tiles"}  # as /new konkan in the chats


def _describe_value(game_id: str, name: str, value: Any) -> str:
    """A choice with its catalog description when it has one: `rabaeen (Rabaeen (sum 40))`."""
    key = f"opt.{name}.{game_id}" if name == "variant" and value == game_id else f"opt.{name}.{value}"
    text = t("en", key)
    return f"{value} ({text})" if text != key and name == "variant" else str(value)


def games_help() -> str:
    """Every playable game with its player counts and each option's values and default, from the engines
    themselves, so the help cannot drift from what `play` accepts."""
    import engine
    from bot.games import playable_games

    lines = ["games (GAME) and their options:"]
    for game_id in playable_games():
        rules = engine.get(game_id)
        info = rules.info
        defaults = {}
        for count in range(info.min_players, info.max_players + 1):
            try:
                defaults[count] = rules.check_options(count, {})
            except ValueError:  # a count no table of this game seats (Konkan tiles: 3)
                continue
        counts = [count for count, chosen in defaults.items() if _starts(rules, count, chosen)]
        defaults = {count: defaults[count] for count in counts}
        players = " or ".join(map(str, counts)) if len(counts) < 3 else f"{counts[0]}–{counts[-1]}"
        teams = f", partners at {', '.join(map(str, info.teams_at))}" if info.teams_at else ""
        lines.append(f"  {game_id:<9} {t('en', f'game.{game_id}')}: {players} players{teams}")
        for name, spec in info.options.items():
            flag = "--" + name.replace("_", "-")
            if spec.choices:
                choices = [choice for choice in spec.choices if name != "mode" or _terminal_mode(game_id, choice)]
                values = " | ".join(_describe_value(game_id, name, choice) for choice in choices)
            else:
                values = f"a whole number {spec.minimum}–{spec.maximum}"
            by_count = {count: chosen[name] for count, chosen in defaults.items()}
            if len(set(map(str, by_count.values()))) > 1:
                default = "default by players: " + ", ".join(f"{c} → {v}" for c, v in by_count.items())
            elif spec.default is None:
                default = "default: one hand" if name == "target" else "default: none"
            else:
                default = f"default {spec.default}"
            lines.append(f"            {flag} {values} ({default})")
    lines.append("")
    lines.append("examples: majlis play kenza --players 4 --target 101 · majlis play canasta --variant duo "
                 "--lang en · majlis play tunj --target 200 --claim-seconds 15 · majlis play konkan --players 2 "
                 "(Konkan tiles, a private 1v1 room)")
    return "\n".join(lines)


def _terminal_mode(game_id: str, mode: str) -> bool:
    """Whether `play` can open a table of this mode: one human with bots (Konkan tiles' ranked is four humans) and a
    mode the chats open from /new (tournament tables come from a bracket)."""
    import engine
    from bot.games import ui_for

    rules, ui = engine.get(game_id), ui_for(game_id)
    if ui.mode_refusal(mode, "en") is not None:
        return False
    chosen = {"mode": mode}
    return any(_starts(rules, count, chosen) and ui.start_refusal(chosen, 1, count - 1, "en") is None
               for count in range(rules.info.min_players, rules.info.max_players + 1))


def _starts(rules: Any, players: int, options: dict[str, Any]) -> bool:
    try:
        rules.new(players, options, seed=0)
    except ValueError:
        return False
    return True


class _Parser(argparse.ArgumentParser):
    """Builds the list of games only when help is shown: it asks every engine, which a plain start need not."""

    def format_help(self) -> str:
        if self.epilog == GAMES_EPILOG:
            self.epilog = games_help()
        return super().format_help()


GAMES_EPILOG = "(the games)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="majlis", description="Majlis: Arabic card games for group chats, and in this terminal "
                     "against bots.", epilog=GAMES_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", metavar="{run,play,ratings,db,drain}", parser_class=_Parser)
    commands.add_parser("run", help="run the chat bots configured in .env (the terminal game when no token is set)",
                        description="Start every platform whose token is set in .env or the environment "
                                    "(TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN); with none, play Kenza here.")
    play = commands.add_parser("play", help="play a game in the terminal against bots (majlis play --help)",
                               description="Play at a table in this terminal with bots in the other seats. Type a "
                                           "button's number, a move in notation (play 6O take 4C 5E) or a "
                                           "/command; q or Ctrl-C leaves.",
                               epilog=GAMES_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    play.add_argument("game", nargs="?", default="kenza", metavar="GAME",
                      help="which game (default kenza; the list is below)")
    play.add_argument("--players", type=int, default=None, metavar="N", help="seats at the table, you included "
                      "(default 2, or the fewest the mode seats: Konkan tiles 4, 2 with --mode private)")
    play.add_argument("--variant", metavar="V", help=OPTION_HELP["variant"])
    play.add_argument("--target", type=int, metavar="T", help=OPTION_HELP["target"])
    play.add_argument("--claim-seconds", type=int, metavar="S", help=OPTION_HELP["claim_seconds"])
    play.add_argument("--mode", metavar="M", help=OPTION_HELP["mode"])
    play.add_argument("--rules", metavar="R", help=OPTION_HELP["rules"])
    play.add_argument("--lang", choices=LANGUAGES, default="ar", help="language of the game (default ar)")
    play.add_argument("--seed", type=int, metavar="S", help="deal from this seed (the same seed deals the same)")
    play.add_argument("--name", default=None, help="your name at the table")
    play.add_argument("--bots", default="normal", metavar="LEVEL",
                      help="the bots' level: random (easy), normal (default) or expert (searches ahead), or one a "
                           "game adds — Tunj's strong never slips (nor does its expert), while its random and normal "
                           "bots sometimes neglect a priority for you to call Tunj!")
    play.add_argument("--stake", type=int, default=0, metavar="COINS",
                      help="a coin table (Konkan cards): each seat puts COINS in the pot; bots sit only at free "
                           "tables, so the other seats are players at this terminal taking turns at the keyboard")
    play.add_argument("--queue", action="store_true",
                      help="join the game's matchmaking queue (--mode: which one) as /play does in a chat: alone "
                           "here, bots take the empty seats at once and the mode's turn timers run")
    ratings = commands.add_parser(
        "ratings", help="check or rebuild the ranked ladder from the stored match results",
        description="Fold every stored rated result again, in the order it was applied, with the same openskill "
                    "update: `check` says whether the stored ratings are exactly what the results give; `rebuild` "
                    "also rewrites them from the results. Uses the database of $DATABASE_URL or .env's (default "
                    "./data/majlis.db). Exits 1 when a stored number differed, 2 when the database cannot be "
                    "opened.")
    ratings.add_argument("action", choices=("check", "rebuild"))
    add_db_commands(commands)
    return parser


def add_db_commands(commands: Any) -> None:
    """`majlis db copy|backup|check` (bot/dbtools.py) and `majlis drain` (bot/drain.py): the operator's tools."""
    db = commands.add_parser("db", help="copy the database to PostgreSQL (or back), back it up, check it",
                             description="The database of $DATABASE_URL or .env's (default ./data/majlis.db).")
    actions = db.add_subparsers(dest="db_action", metavar="{copy,backup,check}", required=True)
    copy = actions.add_parser(
        "copy", help="copy every table into an empty database (SQLite to PostgreSQL, or back)",
        description="Copy every table from SOURCE_URL to TARGET_URL, whose schema the migrations make. The target "
                    "must be empty; the source is read in one snapshot, so a running bot may keep writing to it. "
                    "Each table is copied in one transaction; an interrupted copy goes on with --resume. "
                    "Afterwards the counts are compared, the ratings folded again (as `majlis ratings check`) and "
                    "every finished match replayed from its move log. Exits 0 when all agree, 1 when the copy "
                    "does not check out, 2 when it was refused.")
    copy.add_argument("source", metavar="SOURCE_URL", help="e.g. ./data/majlis.db or sqlite:///data/majlis.db")
    copy.add_argument("target", metavar="TARGET_URL", help="e.g. postgresql://majlis@db-host/majlis")
    copy.add_argument("--resume", action="store_true",
                      help="go on after an interrupted copy: tables already complete are skipped")
    backup = actions.add_parser(
        "backup", help="a consistent copy of the live database in a new SQLite file",
        description="Write a consistent copy of the database to PATH while the bot runs (SQLite's online backup; "
                    "from PostgreSQL, the rows of one snapshot). PATH must not exist yet.")
    backup.add_argument("path", metavar="PATH")
    drain = commands.add_parser(
        "drain", help="stop a running `majlis run` without cutting a move off (for a deploy)",
        description="Send SIGTERM to the `majlis run` named in the pid file and wait for it to end: it opens no new "
                    "table (whoever tries is told the bot restarts in a moment), lets the moves under way finish "
                    "and their screens go out, then exits within MAJLIS_DRAIN_SECONDS (default 20). Start the new "
                    "version afterwards; it resumes every match. Exits 0 when it stopped, 1 when it is still "
                    "running after the wait, 2 when no running process is named in the pid file.")
    drain.add_argument("--pid-file", metavar="PATH", default=None,
                       help="the pid file of the worker to drain (default $MAJLIS_PID_FILE or ./data/majlis.pid)")
    actions.add_parser(
        "check", help="integrity checks: pages, foreign keys, schema, sequences, ratings, replays",
        description="SQLite's integrity and foreign-key checks, the schema at this version's revision with every "
                    "column, PostgreSQL's id sequences, the ratings folded again and every finished match "
                    "replayed. Writes nothing. Exits 0 when all is well, 1 with the problems, 2 when the database "
                    "cannot be opened.")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    lang = args.lang if args.command == "play" else _operator_language()
    try:
        if args.command == "play" and args.queue:
            game = GAME_ALIASES.get(args.game.lower(), args.game.lower())
            return asyncio.run(_play_queued(game, args.mode, args.lang, args.seed, args.name))
        if args.command == "play":
            options = {"variant": args.variant, "target": args.target, "claim_seconds": args.claim_seconds,
                       "mode": args.mode, "rules": args.rules}
            game = GAME_ALIASES.get(args.game.lower(), args.game.lower())
            options = _with_mode(game, {key: value for key, value in options.items() if value is not None},
                                 args.players)
            players = args.players or _fewest_players(game, options)
            return asyncio.run(_play(game, players, options, args.lang, args.seed, args.name, args.bots,
                                     args.stake))
        if args.command == "ratings":
            return asyncio.run(_ratings(args.action == "rebuild", lang))
        if args.command == "db":
            return asyncio.run(_db(args, lang))
        if args.command == "drain":
            return asyncio.run(_drain(args.pid_file, lang))
        return asyncio.run(_run(lang))
    except KeyboardInterrupt:  # Ctrl-C leaves like `q` does
        print("\n" + t(lang, "console.bye"), flush=True)
        return 0


def _with_mode(game: str, options: dict[str, Any], players: int | None = None) -> dict[str, Any]:
    """A game with a mode picker in the chats gets a mode here when none is named, as the chats never open such a
    table without one: the first mode of the picker that seats `players` (any count the game seats when None),
    keeps the named options (`--rules sulaymaniyah` -> the Sulaymaniyah mode) and the terminal can start (one
    human, bots in the other seats). Konkan tiles: quick at four, a private 1v1 room at two."""
    from bot.games import playable_games, ui_for

    if game not in playable_games() or "mode" in options or not ui_for(game).mode_choices("en"):
        return options
    import engine

    rules, ui = engine.get(game), ui_for(game)
    counts = [players] if players else range(rules.info.min_players, rules.info.max_players + 1)
    for _label, mode in ui.mode_choices("en"):
        chosen = {"mode": mode, **options}
        if ui.mode_refusal(mode, "en") is not None:
            continue
        for count in counts:
            if _starts(rules, count, chosen) and ui.start_refusal(chosen, 1, count - 1, "en") is None:
                return chosen
    return {"mode": ui.mode_choices("en")[0][1], **options}  # nothing fits: check_table says why


def _fewest_players(game: str, options: dict[str, Any]) -> int:
    """2 unless the options need more (a Konkan mode of four seats)."""
    import engine

    if game not in engine.game_ids():
        return 2
    rules = engine.get(game)
    for count in range(max(2, rules.info.min_players), rules.info.max_players + 1):
        try:
            rules.check_options(count, options)
        except ValueError:
            continue
        return count
    return 2


async def _ratings(write: bool, lang: str) -> int:
    """`majlis ratings check|rebuild`: the ladder folded again from the stored results (storage.ratings)."""
    from dotenv import find_dotenv, load_dotenv

    from storage import Store
    from storage.errors import DatabaseUnusable

    load_dotenv(find_dotenv(usecwd=True))  # the database `majlis run` uses, from the same .env
    try:
        store = await Store.open(create=False)  # a new empty file has nothing to check: refused, not made
    except DatabaseUnusable as error:
        print(unusable_line(lang, error), file=sys.stderr)
        return 2
    try:
        report = await store.rebuild_ratings(write=write)
    finally:
        await store.close()
    print(tn(lang, "ladder.cli_summary", report.matches, ratings=report.ratings))
    for line in report.differences:
        print("  " + line)
    if not report.differences:
        print(t(lang, "ladder.cli_identical"))
        return 0
    print(tn(lang, "ladder.cli_rewritten" if write else "ladder.cli_differ", len(report.differences)))
    return 1


async def _db(args: argparse.Namespace, lang: str) -> int:
    from dotenv import find_dotenv, load_dotenv

    from bot import dbtools

    load_dotenv(find_dotenv(usecwd=True))  # DATABASE_URL as `majlis run` reads it
    if args.db_action == "copy":
        return await dbtools.copy_command(lang, args.source, args.target, args.resume)
    if args.db_action == "backup":
        return await dbtools.backup_command(lang, args.path)
    return await dbtools.check_command(lang)


async def _drain(path: str | None, lang: str) -> int:
    from pathlib import Path

    from dotenv import find_dotenv, load_dotenv

    from bot.drain import alive, drain_process, drain_seconds, pid_file, read_pid

    load_dotenv(find_dotenv(usecwd=True))  # MAJLIS_PID_FILE and MAJLIS_DRAIN_SECONDS as `majlis run` reads them
    where = Path(path).expanduser() if path else pid_file()
    wait = drain_seconds() + 10  # the drain's own bound, and the closing after it
    pid = read_pid(where)
    if pid is None or not alive(pid):
        print(t(lang, "drain.no_process", path=where), file=sys.stderr)
        return 2
    print(t(lang, "drain.sent", pid=pid, seconds=f"{wait:g}"), flush=True)
    pid, ended = await drain_process(where, wait)
    if pid is None:  # it ended between the two looks
        ended, pid = True, read_pid(where)
    if not ended:
        print(t(lang, "drain.still_running", pid=pid, seconds=f"{wait:g}"), file=sys.stderr)
        return 1
    print(t(lang, "drain.stopped", pid=pid))
    return 0


def unusable_line(lang: str, error: DatabaseUnusable) -> str:
    """The one line for a DATABASE_URL that cannot be used (storage.errors.DatabaseUnusable): where, and why."""
    return t(lang, "db.unusable", where=error.where, reason=t(lang, error.reason, detail=error.detail))


def token_refused(error: BaseException) -> tuple[str, str] | None:
    """(setting, platform) when a platform refused its token at start-up, None for any other failure: only then
    is "check the token in .env" the advice (a network or database failure is not cured by the tokens)."""
    import discord
    from telegram.error import InvalidToken

    if isinstance(error, InvalidToken):
        return "TELEGRAM_BOT_TOKEN", "Telegram"
    if isinstance(error, discord.LoginFailure):
        return "DISCORD_BOT_TOKEN", "Discord"
    return None


def _operator_language() -> str:
    """`majlis run` has no --lang: its own lines follow the terminal's locale when that is Arabic or English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        lang = normalize(os.environ.get(name))
        if lang:
            return lang
    return "en"


def check_table(game: str, players: int, options: dict[str, Any], lang: str, bots: str = "normal",
                stake: int = 0) -> str | None:
    """Why this table cannot be set up (in `lang`), or None: checked before anything starts, so `majlis play`
    with a bad option exits non-zero with the reason instead of opening a table that cannot start."""
    import engine
    from bot.games import playable_games

    if game not in playable_games():
        return t(lang, "err.unknown_game", games=", ".join(playable_games()))
    rules = engine.get(game)
    info = rules.info
    if not info.min_players <= players <= info.max_players:
        return tn(lang, "err.players_range", info.max_players, game=t(lang, f"game.{game}"),
                  min=info.min_players)
    try:
        rules.new(players, rules.check_options(players, options), seed=0)
    except ValueError as error:
        return t(lang, "err.bad_option", reason=refusal(lang, error))
    from bot.games import ui_for
    from engine.bots import levels

    closed = ui_for(game).mode_refusal(str(options["mode"]), lang) if "mode" in options else None
    if closed is not None:  # a mode the chats do not open from /new either (tournament tables, Kirkuk)
        return closed
    not_yet = ui_for(game).start_refusal(options, 1, players - 1, lang)  # the terminal seats one human
    if not_yet is not None:
        return not_yet
    if bots not in levels(game):
        return t(lang, "err.bot_level", level=bots, levels=", ".join(levels(game)))
    from bot.coin_tables import COIN_GAMES, parse_stake

    if stake and game not in COIN_GAMES:
        return t(lang, "coins.not_this_game", game=t(lang, f"game.{game}"))
    if parse_stake(str(stake)) is None:
        return t(lang, "coins.bad_stake")
    return None


async def _play(game: str, players: int, options: dict[str, Any], lang: str, seed: int | None,
                name: str | None, bots: str = "normal", stake: int = 0) -> int:
    from bot.console import ConsoleTransport, play
    from bot.service import Service
    from storage import Store

    game = game.lower()
    options = {key: value for key, value in options.items() if value is not None}
    problem = check_table(game, players, options, lang, bots, stake)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    store = await Store.open(":memory:")
    try:
        service = Service(store, seed_source=random.Random(seed))
        transport = ConsoleTransport()
        service.attach(transport, images=False)
        refused = await play(service, transport, game, players,
                             {key: str(value) for key, value in options.items()}, lang, name=name or "", bots=bots,
                             stake=stake, linger=True)
    finally:
        await store.close()
    if refused is not None:
        print(refused.text, file=sys.stderr)
        return 2
    return 0


async def _play_queued(game: str, mode: str | None, lang: str, seed: int | None, name: str | None) -> int:
    """`majlis play --queue`: the terminal as one more platform of the queue (bot/console.py `play_queued`)."""
    from bot.console import ConsoleTransport, play_queued
    from bot.service import Service
    from storage import Store

    store = await Store.open(":memory:")
    try:
        # Nobody else can come to this terminal's own database: waiting for people would only keep you waiting.
        service = Service(store, seed_source=random.Random(seed), queue_waits={"*": 0.0})
        transport = ConsoleTransport()
        service.attach(transport, images=False)
        refused = await play_queued(service, transport, game, mode.lower() if mode else None, lang, name=name or "",
                                    linger=True)
    finally:
        await store.close()
    if refused is not None:
        print(refused.text, file=sys.stderr)
        return 2
    return 0


def configure_logging(operators: bool, settings: Any = None) -> None:
    """Operators of the chat bots read INFO lines (schema migrations, connections); a person playing in the terminal
    sees only what went wrong, not the migrations of the game's own throw-away database. With `settings`: their
    MAJLIS_LOG_FORMAT, worker name, and the secrets no line may show (bot/logs.py). httpx logs every request's URL at
    INFO, and a Bot API URL holds the bot's token: its lines are kept to warnings, so no token is logged."""
    from bot import logs

    if settings is None:
        logs.configure_logging(operators)
        return
    logs.configure_logging(operators, settings.log_format, settings.secrets, settings.worker)


async def _run(lang: str) -> int:
    from dotenv import find_dotenv, load_dotenv

    from bot.config import ConfigError, Settings

    load_dotenv(find_dotenv(usecwd=True))  # the .env of the directory Majlis runs in, as README says
    try:
        settings = Settings.from_env()
    except ConfigError as error:
        print(t(lang, "config.bad_value", name=error.name, value=error.value, reason=t(lang, error.reason)),
              file=sys.stderr)
        return 2
    configure_logging(settings.any_platform, settings)
    if not settings.any_platform:
        print(t("en", "console.no_token"))
        print(t("ar", "console.no_token"))
        return await _play("kenza", 2, {}, "ar", None, None)
    from bot.runner import run_platforms
    from storage.errors import DatabaseUnusable

    try:
        await run_platforms(settings)
    except DatabaseUnusable as error:  # DATABASE_URL: one line saying what is wrong, before anything started
        logging.getLogger("majlis").debug("start-up failed", exc_info=True)
        print(unusable_line(lang, error), file=sys.stderr)
        return 2
    except Exception as error:  # a bad token or no network at start-up: say so plainly, no traceback
        logging.getLogger("majlis").debug("start-up failed", exc_info=True)
        refused = token_refused(error)
        if refused is not None:
            name, platform = refused
            print(t(lang, "run.token_refused", name=name, platform=platform), file=sys.stderr)
            return 2
        key = "run.failed_network" if _network(error) else "run.failed"
        reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        print(t("en", key, reason=reason), file=sys.stderr)
        print(t("ar", key, reason=reason), file=sys.stderr)
        return 1
    return 0


def _network(error: BaseException) -> bool:
    """A failure to reach a platform (no route, DNS, a time-out, a TLS failure), which the network can cure."""
    import socket
    import ssl

    import aiohttp
    from telegram.error import NetworkError

    return isinstance(error, (ConnectionError, socket.gaierror, ssl.SSLError, TimeoutError, NetworkError,
                              aiohttp.ClientError))


if __name__ == "__main__":
    raise SystemExit(main())
