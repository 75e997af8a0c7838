"""A move's `changed`: what the store changed in its text as received (characters no store can
hold, replaced), so the game's record can say so; NULL when the text was stored as received.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("arena_moves") as batch:  # batch: SQLite's ALTER TABLE is limited
        batch.add_column(sa.Column("changed", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("arena_moves") as batch:
        batch.drop_column("changed")
