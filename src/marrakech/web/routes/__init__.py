"""The app's routes by concern, assembled by :func:`marrakech.web.app.create_app`:

- :mod:`~marrakech.web.routes.pages`: the page (``/``, ``/g/{id}``, ``/r/{id}``...);
- :mod:`~marrakech.web.routes.api`: the HTTP API of the lobby, games and replays;
- :mod:`~marrakech.web.routes.socket`: live play over the WebSocket ``/ws/{id}``.
"""
