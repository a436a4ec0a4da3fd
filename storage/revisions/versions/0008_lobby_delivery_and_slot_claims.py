"""the lobby's screen is owed like a move's (a change counter and the shown mark), and message slots are claimed
before a worker sends into them (issue 26)

Revision ID: 0008
Revises: 0007
"""

from storage.revisions.ddl import run

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # Each lobby change (seats, options, stake, start, cancel) counts up `lobby_version` in its own transaction;
        # `lobby_shown` is the count the group's lobby message shows. Below it the lobby message is owed: the
        # delivery retries it, and a restart posts it (a lobby whose first post failed is never left invisible).
        # 0 (rows from before this revision, tournament tables): the match has no lobby message to owe.
        "ALTER TABLE matches ADD COLUMN lobby_version INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE matches ADD COLUMN lobby_shown INTEGER NOT NULL DEFAULT 0",
        # A lobby open at the upgrade has its message out: it counts its changes from here.
        "UPDATE matches SET lobby_version = 1, lobby_shown = 1 WHERE status = 'lobby'",
        "CREATE INDEX matches_lobby_owed ON matches (id) WHERE lobby_shown < lobby_version",
        # A slot (match, platform, kind, seat; -1 for the seatless table and lobby) a worker is sending a new
        # message into: held until `until` (a worker killed while holding it frees it then), released when the
        # message is saved. Two workers delivering one match send one table, one rack, one ping.
        """CREATE TABLE slot_claims (
                match_id INTEGER NOT NULL,
                platform TEXT NOT NULL,
                kind TEXT NOT NULL,
                seat INTEGER NOT NULL,
                token TEXT NOT NULL,
                until {REAL} NOT NULL,
                PRIMARY KEY (match_id, platform, kind, seat)
            )""",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
