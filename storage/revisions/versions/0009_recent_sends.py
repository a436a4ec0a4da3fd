"""recent sends: the last minute's messages to each group, so a restarted bot keeps Telegram's per-group limit

Revision ID: 0009
Revises: 0008
"""

from storage.revisions.ddl import run

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # One row per request the in-process rate limiter let go to a group (its send time, unix seconds). Rows
        # older than the limit's window are deleted as new ones are written: the table holds about a minute.
        # Several workers share a Redis for this instead (MAJLIS_REDIS_URL) and never write here.
        """CREATE TABLE recent_sends (
                platform TEXT NOT NULL,
                chat_id TEXT NOT NULL,
                at {REAL} NOT NULL
            )""",
        "CREATE INDEX recent_sends_by_time ON recent_sends (at)",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
