"""find a player's table and the due timers without reading every match (the hand-written runner's version 3)

Revision ID: 0003
Revises: 0002
"""

from storage.revisions.ddl import run

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        "CREATE INDEX seats_by_player ON seats (player_id)",
        "CREATE INDEX matches_due ON matches (deadline) WHERE status = 'active' AND deadline IS NOT NULL",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
