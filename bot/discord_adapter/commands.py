"""The slash commands, built from the service's command list, the playable games and their table options.

Discord has no Arabic client locale, so the default text of every description is Arabic with the English after
it (when both fit Discord's 100 characters), and English clients (en-US, en-GB) get English alone through the
translator. Command and parameter names stay the ASCII words of the text commands (/new, /join, /m ...).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import discord
from discord import app_commands

import engine
from bot.games import playable_games, ui_for
from bot.i18n import LANGUAGES, catalog, normalize, t

TEXT_LIMIT = 100
DEFAULT_LANGUAGE_TEXT = "ar"


class CommandRunner(Protocol):
    async def on_command(self, interaction: discord.Interaction, name: str, args: list[str]) -> None: ...


def text(key: str) -> app_commands.locale_str:
    """A translatable string: Arabic (plus English when it fits) by default, the catalog's text per locale."""
    arabic, english = t(DEFAULT_LANGUAGE_TEXT, key), t("en", key)
    both = f"{arabic} · {english}"
    default = both if len(both) <= TEXT_LIMIT and arabic != english else arabic[:TEXT_LIMIT]
    return app_commands.locale_str(default, key=key)


class CatalogTranslator(app_commands.Translator):
    """Command texts from bot/locales: a Discord locale maps to a catalog language when we have one."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = string.extras.get("key")
        lang = normalize(locale.value)
        if key is None or lang is None or lang == DEFAULT_LANGUAGE_TEXT or key not in catalog(lang):
            return None
        return t(lang, key)[:TEXT_LIMIT]


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    description: str  # catalog key
    required: bool = False
    choices: list[app_commands.Choice[str]] = field(default_factory=list)


@dataclass(frozen=True)
class Spec:
    name: str
    params: tuple[Param, ...] = ()
    args: Callable[[dict[str, Any]], list[str]] = lambda values: []


def _game_choices() -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=text(f"game.{game_id}"), value=game_id) for game_id in playable_games()]


def _option_params() -> list[Param]:
    """One optional parameter per table option of any playable game, its choices the union over games."""
    values: dict[str, list[str]] = {}
    for game_id in playable_games():
        for name, spec in engine.get(game_id).info.options.items():
            for choice in spec.choices or ():
                if str(choice) not in values.setdefault(name, []):
                    values[name].append(str(choice))
    params = []
    for name, choices in values.items():
        options = [
            app_commands.Choice(name=text(f"opt.{name}.{value}") if f"opt.{name}.{value}" in catalog("en")
                                else app_commands.locale_str(value), value=value)
            for value in choices[:25]
        ]
        params.append(Param(name, str | None, f"opt.name.{name}", choices=options))
    return params


def _mode_choices() -> list[app_commands.Choice[str]]:
    """Every mode a leaderboard may name, over all games (the service refuses one the chosen game lacks)."""
    modes: list[str] = []
    for game_id in playable_games():
        modes += [mode for mode in ui_for(game_id).ladder_modes() if mode not in modes]
    return [app_commands.Choice(name=text(f"ladder.mode.{mode}"), value=mode) for mode in modes]


def _queue_modes() -> list[str]:
    """Every queue mode a game with several has (the service refuses one the chosen game lacks; a game with one
    queue needs no mode)."""
    modes: list[str] = []
    for game_id in playable_games():
        offered = ui_for(game_id).queue_modes()
        modes += [mode for mode in offered if len(offered) > 1 and mode not in modes]
    return modes


def _new_args(values: dict[str, Any]) -> list[str]:
    game = values.pop("game", None)
    if not game:
        return []
    return [game, *(f"{name}={value}" for name, value in values.items() if value)]


def specs() -> list[Spec]:
    """Every command of the service (bot.service.Service.command), with Discord parameters where it has any."""
    game = Param("game", str | None, "dc.param.game", choices=_game_choices())
    scopes = [app_commands.Choice(name=text(f"top.scope.{scope}"), value=scope) for scope in ("here", "global")]
    switch = [app_commands.Choice(name=text(f"dc.rated.{value}"), value=value) for value in ("on", "off")]
    languages = [app_commands.Choice(name=app_commands.locale_str(t(lang, f"dc.lang.{lang}")), value=lang)
                 for lang in LANGUAGES]
    queues = [app_commands.Choice(name=text(f"ladder.mode.{mode}"), value=mode) for mode in _queue_modes()]
    return [
        Spec("play", (game, Param("mode", str | None, "dc.param.queue_mode", choices=queues)),
             lambda v: [v[name] for name in ("game", "mode") if v.get(name)]),
        Spec("queue"),
        Spec("new", (game, *_option_params(), Param("stake", int | None, "dc.param.stake")), _new_args),
        Spec("join"), Spec("leave"), Spec("start"), Spec("cancel"), Spec("hand"), Spec("score"),
        Spec("top", (game, Param("mode", str | None, "dc.param.mode", choices=_mode_choices()),
                     Param("scope", str | None, "dc.param.scope", choices=scopes)),
             lambda v: [v[name] for name in ("game", "mode", "scope") if v.get(name)]),
        Spec("stats", (Param("user", discord.User | None, "dc.param.user"),),
             lambda v: [str(v["user"].id)] if v.get("user") else []),
        Spec("rules", (game, Param("part", int | None, "dc.param.part")),
             lambda v: [*([v["game"]] if v.get("game") else []), *([str(v["part"])] if v.get("part") else [])]),
        Spec("lang", (Param("language", str, "dc.param.language", required=True, choices=languages),),
             lambda v: [v["language"]]),
        Spec("help"),
        Spec("m", (Param("move", str, "dc.param.move", required=True),), lambda v: str(v["move"]).split()),
        Spec("back"),
        Spec("timer", (Param("seconds", str, "dc.param.seconds", required=True),), lambda v: [str(v["seconds"])]),
        Spec("coins"),
        Spec("rated", (Param("state", str | None, "dc.param.rated", choices=switch),),
             lambda v: [v["state"]] if v.get("state") else []),
        Spec("replay", (Param("match", int | None, "dc.param.match"),),
             lambda v: [str(v["match"])] if v.get("match") else []),
        Spec("tournament", (Param("words", str | None, "dc.param.words"),),
             lambda v: str(v["words"]).split() if v.get("words") else []),
        # The operators' (bot/core/operators.py); anyone else is told they are the operators'.
        Spec("ban", (Param("user", discord.User | None, "dc.param.user"), Param("who", str | None, "dc.param.who")),
             _user_args),
        Spec("unban", (Param("user", discord.User | None, "dc.param.user"),
                       Param("who", str | None, "dc.param.who")), _user_args),
        Spec("status"),
    ]


def _user_args(values: dict[str, Any]) -> list[str]:
    """A chosen member by id, else the typed id / @name / platform:id."""
    if values.get("user"):
        return [str(values["user"].id)]
    return [str(values["who"])] if values.get("who") else []


def build(spec: Spec, runner: CommandRunner) -> app_commands.Command[Any, ..., None]:
    """An app command whose callback hands the normalised words to `runner` (the text command's arguments)."""

    async def invoke(interaction: discord.Interaction, **values: Any) -> None:
        await runner.on_command(interaction, spec.name, spec.args(dict(values)))

    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
    parameters += [
        inspect.Parameter(param.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=param.annotation,
                          **({} if param.required else {"default": None}))
        for param in sorted(spec.params, key=lambda p: not p.required)
    ]
    invoke.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    invoke.__name__ = f"command_{spec.name}"
    callback: Callable[..., Awaitable[None]] = invoke
    if spec.params:
        callback = app_commands.describe(**{p.name: text(p.description) for p in spec.params})(callback)
        chosen = {p.name: p.choices for p in spec.params if p.choices}
        if chosen:
            callback = app_commands.choices(**chosen)(callback)
    return app_commands.Command(name=spec.name, description=text(f"dc.cmd.{spec.name}"), callback=callback)


def build_all(runner: CommandRunner) -> list[app_commands.Command[Any, ..., None]]:
    return [build(spec, runner) for spec in specs()]
