"""The tables as SQLAlchemy Core sees them: what the query layer builds its statements from.

The DDL itself lives in the Alembic revisions (storage/revisions/); these definitions only have to name the same
columns with types that read back right on both engines (timestamps are floats, match seeds 62-bit integers).
`tests/test_schema_migrations.py` checks that a migrated database has exactly these tables and columns.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Float, ForeignKey, Integer, MetaData, Table, Text

metadata = MetaData()

players = Table(
    "players", metadata,
    Column("id", Integer, primary_key=True),
    Column("platform", Text, nullable=False),
    Column("user_id", Text, nullable=False),
    Column("display_name", Text, nullable=False),
    Column("language", Text),
    Column("created", Float, nullable=False),
    Column("client_language", Text),
    Column("username", Text),
    Column("banned_at", Float),  # when an operator banned this account (/ban); None: not banned
)

chats = Table(
    "chats", metadata,
    Column("platform", Text, primary_key=True),
    Column("chat_id", Text, primary_key=True),
    Column("language", Text),
    Column("defaults", Text, nullable=False),
    Column("created", Float, nullable=False),
)

matches = Table(
    "matches", metadata,
    Column("id", Integer, primary_key=True),
    Column("game", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("options", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("seed", BigInteger),
    Column("snapshot", Text),
    Column("version", Integer, nullable=False),
    Column("platform", Text, nullable=False),
    Column("chat_id", Text, nullable=False),
    Column("creator_id", Integer, ForeignKey("players.id")),
    Column("deadline", Float),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
    Column("finished", Float),
    Column("result", Text),
    Column("delivered_version", Integer),
    Column("stake", Integer, nullable=False),
    Column("rated", Integer, nullable=False),
    Column("lobby_version", Integer, nullable=False),  # counts the lobby's changes (seats, options, start, cancel)
    Column("lobby_shown", Integer, nullable=False),  # the lobby_version the lobby message shows; below: owed
)

seats = Table(
    "seats", metadata,
    Column("match_id", Integer, ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id")),
    Column("bot_level", Text),
    Column("timeouts_in_a_row", Integer, nullable=False),
    Column("away", Integer, nullable=False),
    Column("platform", Text),  # the platform the seat's player is shown on; None: a bot
)

moves = Table(
    "moves", metadata,
    Column("match_id", Integer, ForeignKey("matches.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("actor", Text, nullable=False),
    Column("move", Text, nullable=False),
    Column("at", Float, nullable=False),
)

messages = Table(
    "messages", metadata,
    Column("id", Integer, primary_key=True),
    Column("match_id", Integer, ForeignKey("matches.id")),
    Column("platform", Text, nullable=False),
    Column("chat_id", Text, nullable=False),
    Column("message_id", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("seat", Integer),
    Column("updated", Float, nullable=False),
)

# A worker about to send a new message into a match's slot (a table, a rack, a ping) holds its claim: another
# worker delivering the same match meanwhile edits what the claimer sent instead of sending a second one.
slot_claims = Table(
    "slot_claims", metadata,
    Column("match_id", Integer, primary_key=True),
    Column("platform", Text, primary_key=True),
    Column("kind", Text, primary_key=True),
    Column("seat", Integer, primary_key=True),  # -1: the match's seatless slot (the table, the lobby)
    Column("token", Text, nullable=False),
    Column("until", Float, nullable=False),
)

stats = Table(
    "stats", metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("game", Text, primary_key=True),
    Column("mode", Text, primary_key=True),
    Column("played", Integer, nullable=False),
    Column("won", Integer, nullable=False),
    Column("drawn", Integer, nullable=False),
    Column("points", Integer, nullable=False),
)

coins = Table(
    "coins", metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("balance", Integer, nullable=False),
    Column("grant_day", Text, nullable=False),
)

coin_ledger = Table(
    "coin_ledger", metadata,
    Column("id", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("match_id", Integer, ForeignKey("matches.id")),
    Column("delta", Integer, nullable=False),
    Column("reason", Text, nullable=False),
    Column("at", Float, nullable=False),
)

rated_results = Table(
    "rated_results", metadata,
    Column("match_id", Integer, ForeignKey("matches.id"), primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("game", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("side", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("abandoned", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("rating_before", Integer, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
)

ratings = Table(
    "ratings", metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("game", Text, primary_key=True),
    Column("mode", Text, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("rating", Integer, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("draws", Integer, nullable=False),
    Column("losses", Integer, nullable=False),
    Column("points", Integer, nullable=False),
    Column("streak", Integer, nullable=False),
    Column("best_streak", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)

achievements = Table(
    "achievements", metadata,
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("code", Text, primary_key=True),
    Column("match_id", Integer, ForeignKey("matches.id")),
    Column("at", Float, nullable=False),
)

tournaments = Table(
    "tournaments", metadata,
    Column("id", Integer, primary_key=True),
    Column("platform", Text, nullable=False),
    Column("chat_id", Text, nullable=False),
    Column("game", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("options", Text, nullable=False),
    Column("team_size", Integer, nullable=False),
    Column("opens", Float, nullable=False),
    Column("closes", Float, nullable=False),
    Column("starts", Float, nullable=False),
    Column("grace", Float, nullable=False),
    Column("prize", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("champion", Integer),
    Column("created_by", Integer, ForeignKey("players.id")),
    Column("created", Float, nullable=False),
)

tournament_entries = Table(
    "tournament_entries", metadata,
    Column("id", Integer, primary_key=True),
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), nullable=False),
    Column("chat_id", Text, nullable=False),
    Column("seed", Integer),
    Column("registered", Float, nullable=False),
)

tournament_members = Table(
    "tournament_members", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("entry_id", Integer, ForeignKey("tournament_entries.id"), nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), primary_key=True),
    Column("position", Integer, nullable=False),
)

tournament_games = Table(
    "tournament_games", metadata,
    Column("tournament_id", Integer, ForeignKey("tournaments.id"), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("slot", Integer, primary_key=True),
    Column("entry_a", Integer, ForeignKey("tournament_entries.id")),
    Column("entry_b", Integer, ForeignKey("tournament_entries.id")),
    Column("match_id", Integer, ForeignKey("matches.id")),
    Column("deadline", Float),
    Column("ready", Text, nullable=False),
    Column("winner", Integer, ForeignKey("tournament_entries.id")),
    Column("outcome", Text),
)

recent_sends = Table(
    "recent_sends", metadata,
    Column("platform", Text, nullable=False),
    Column("chat_id", Text, nullable=False),
    Column("at", Float, nullable=False),
)

queue_entries = Table(
    "queue_entries", metadata,
    Column("id", Integer, primary_key=True),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False, unique=True),
    Column("platform", Text, nullable=False),
    Column("game", Text, nullable=False),
    Column("mode", Text, nullable=False),
    Column("ordinal", Float, nullable=False),
    Column("queued", Float, nullable=False),
    Column("chat_id", Text),
    Column("message_id", Text),
    Column("group_chat", Text),  # a group's own queue (/play in a group); NULL: the global queue
)
