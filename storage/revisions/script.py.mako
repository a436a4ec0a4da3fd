"""${message}

Revision ID: ${up_revision}
Revises: ${down_revision | comma,n}
"""

from storage.revisions.ddl import run

revision = ${repr(up_revision)}
down_revision = ${repr(down_revision)}
branch_labels = None
depends_on = None


def upgrade() -> None:
    run((
    ))


def downgrade() -> None:
    raise NotImplementedError("Majlis migrates forward only; restore a backup to go back")
