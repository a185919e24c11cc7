"""The one :class:`~sqlalchemy.MetaData` every stored table is declared on
(:mod:`marrakech.web.store.schema` and :mod:`marrakech.web.store.player_tables`), and the
dialects the stores speak."""

from __future__ import annotations

from typing import Literal

from sqlalchemy import MetaData

Dialects = Literal["sqlite", "postgresql"]

metadata = MetaData()

__all__ = ["Dialects", "metadata"]
