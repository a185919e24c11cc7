"""The app's routes by concern, assembled by :func:`marrakech.web.app.create_app`:

- :mod:`~marrakech.web.routes.pages`: the page (``/``, ``/g/{id}``, ``/r/{id}``...);
- :mod:`~marrakech.web.routes.api`: the HTTP API of the lobby, games and replays;
- :mod:`~marrakech.web.routes.socket`: live play over the WebSocket ``/ws/{id}``;
- :mod:`~marrakech.web.routes.learn`: the tutorial's lessons;
- :mod:`~marrakech.web.routes.players`: the leaderboard and the players' profiles;
- :mod:`~marrakech.web.routes.my_games`: "My games", the games of a device and account;
- :mod:`~marrakech.web.routes.reminders`: the email reminders' API and the pages their
  links open.
"""
