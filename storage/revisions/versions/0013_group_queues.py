"""a group's own matchmaking queue: queue entries may belong to one group chat (/play typed in a group)

Revision ID: 0013
Revises: 0012
"""

from storage.revisions.ddl import run

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
        # The group chat (on the entry's platform) whose own Quick queue the player waits in; NULL: the global
        # queue of players from anywhere. The unique player still allows one entry each, in either kind.
        "ALTER TABLE queue_entries ADD COLUMN group_chat TEXT",
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
