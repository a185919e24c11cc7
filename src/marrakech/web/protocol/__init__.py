"""The web protocol (docs/web-protocol.md), both ways, as typed models.

- :mod:`~marrakech.web.protocol.client`: what a browser sends (validated strictly, every
  fault explained), the limits, the models' strict base;
- :mod:`~marrakech.web.protocol.refusals`: the error codes and the two refusals
  (:class:`ProtocolError` on the WebSocket, :class:`ApiError` over HTTP);
- :mod:`~marrakech.web.protocol.server`: what the server sends on the WebSocket, every
  message built through its model;
- :mod:`~marrakech.web.protocol.http_answers`: what the server answers over HTTP;
- :mod:`~marrakech.web.protocol.display_names`: the players' names, checked.

Everything is importable from here: ``from marrakech.web.protocol import Welcome``. A
name is declared once, in its module and that module's ``__all__``; this package
re-exports each module's ``__all__`` (a form type checkers read), so it lists nothing
by hand.
"""

from __future__ import annotations

from marrakech.web.protocol import client, display_names, http_answers, refusals, server
from marrakech.web.protocol.client import *  # noqa: F403
from marrakech.web.protocol.display_names import *  # noqa: F403
from marrakech.web.protocol.http_answers import *  # noqa: F403
from marrakech.web.protocol.refusals import *  # noqa: F403
from marrakech.web.protocol.server import *  # noqa: F403

__all__: list[str] = []
__all__ += client.__all__
__all__ += display_names.__all__
__all__ += refusals.__all__
__all__ += http_answers.__all__
__all__ += server.__all__
