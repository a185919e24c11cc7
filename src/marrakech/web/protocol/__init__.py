"""The web protocol (docs/web-protocol.md), both ways, as typed models.

- :mod:`~marrakech.web.protocol.client`: what a browser sends (validated strictly, every
  fault explained), the limits, the error codes, the models' strict base;
- :mod:`~marrakech.web.protocol.server`: what the server sends, every WebSocket message
  and HTTP answer built through its model;
- :mod:`~marrakech.web.protocol.display_names`: the players' names, checked.

Everything is importable from here: ``from marrakech.web.protocol import Welcome``. A
name is declared once, in its module and that module's ``__all__``; this package
re-exports each module's ``__all__`` (a form type checkers read), so it lists nothing
by hand.
"""

from __future__ import annotations

from marrakech.web.protocol import client, display_names, server
from marrakech.web.protocol.client import *  # noqa: F403
from marrakech.web.protocol.display_names import *  # noqa: F403
from marrakech.web.protocol.server import *  # noqa: F403

__all__: list[str] = []
__all__ += client.__all__
__all__ += display_names.__all__
__all__ += server.__all__
