"""seat platforms: each seat carries the platform its player is shown on, so one table may seat several platforms

Revision ID: 0010
Revises: 0009
"""

from storage.revisions.ddl import run

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # NULL for a bot's seat. A table of one group (every table before matchmaking) seats its group's platform;
        # a table matched from the queue (matches.platform 'matched') seats each player on their own.
        "ALTER TABLE seats ADD COLUMN platform TEXT",
        """UPDATE seats SET platform = (SELECT players.platform FROM players WHERE players.id = seats.player_id)
           WHERE player_id IS NOT NULL""",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
