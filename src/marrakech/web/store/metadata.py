"""The store's one SQLAlchemy :class:`~sqlalchemy.MetaData`: every table is declared on
it (:mod:`.schema`, :mod:`.tournament_schema`), and the migrations are checked
against it."""

from __future__ import annotations

from sqlalchemy import MetaData

metadata = MetaData()
