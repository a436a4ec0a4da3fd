"""match queue: players waiting to be seated at a table with no group (/play)

Revision ID: 0011
Revises: 0010
"""

from storage.revisions.ddl import run

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # One row per waiting player (the unique player: one queue entry each). `ordinal` is the player's openskill
        # ordinal in the queue's game and mode when they joined (placement players as new ones); `chat_id` and
        # `message_id` the private message that shows their place and carries "Leave queue".
        """CREATE TABLE queue_entries (
                id {ID},
                player_id INTEGER NOT NULL UNIQUE REFERENCES players (id),
                platform TEXT NOT NULL,
                game TEXT NOT NULL,
                mode TEXT NOT NULL,
                ordinal {REAL} NOT NULL,
                queued {REAL} NOT NULL,
                chat_id TEXT,
                message_id TEXT
            )""",
        "CREATE INDEX queue_entries_by_queue ON queue_entries (game, mode, queued)",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
