"""`majlis run` (the bots, or the terminal game when no token is set) and `majlis play GAME` (terminal game)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys

from bot.i18n import LANGUAGES, t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="majlis", description="Majlis: Arabic card games for group chats")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", help="run the configured chat bots (the terminal game when no token is set)")
    play = commands.add_parser("play", help="play a game in the terminal against bots")
    play.add_argument("game", nargs="?", default="kenza")
    play.add_argument("--players", type=int, default=2)
    play.add_argument("--variant")
    play.add_argument("--target", type=int)
    play.add_argument("--lang", choices=LANGUAGES, default="ar")
    play.add_argument("--seed", type=int)
    play.add_argument("--name", default=None)
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            return asyncio.run(_play(args.game, args.players, args.variant, args.target, args.lang, args.seed,
                                     args.name))
        return asyncio.run(_run())
    except KeyboardInterrupt:
        return 0


async def _play(game: str, players: int, variant: str | None, target: int | None, lang: str, seed: int | None,
                name: str | None) -> int:
    import engine
    from bot.console import ConsoleTransport, play
    from bot.games import playable_games
    from bot.service import Service
    from storage import Store

    if game not in playable_games():
        print(t(lang, "err.unknown_game", games=", ".join(playable_games())), file=sys.stderr)
        return 2
    info = engine.get(game).info
    if not info.min_players <= players <= info.max_players:
        print(t(lang, "err.players_range", game=info.names.get(lang, info.id), min=info.min_players,
                max=info.max_players), file=sys.stderr)
        return 2
    options = {key: str(value) for key, value in (("variant", variant), ("target", target)) if value is not None}
    store = await Store.open(":memory:")
    try:
        service = Service(store, seed_source=random.Random(seed))
        transport = ConsoleTransport()
        service.attach(transport, images=False)
        await play(service, transport, game, players, options, lang, name=name or t(lang, "console.you"))
    finally:
        await store.close()
    return 0


async def _run() -> int:
    from dotenv import load_dotenv

    from bot.config import Settings

    load_dotenv()
    settings = Settings.from_env()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not settings.any_platform:
        print(t("en", "console.no_token"))
        print(t("ar", "console.no_token"))
        return await _play("kenza", 2, None, None, "ar", None, None)
    from bot.runner import run_platforms

    try:
        await run_platforms(settings)
    except Exception as error:  # a bad token or no network at start-up: say so plainly, no traceback
        logging.getLogger("majlis").debug("start-up failed", exc_info=True)
        print(t("en", "run.failed", reason=f"{type(error).__name__}: {error}"), file=sys.stderr)
        print(t("ar", "run.failed", reason=f"{type(error).__name__}: {error}"), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
