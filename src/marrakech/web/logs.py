"""``marrakech serve --log-format json``: the log as one JSON object a line.

Each line has ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``; a
request's line from uvicorn's access log adds its fields (``client``, ``method``,
``path``, ``http_version``, ``status``), and so does a WebSocket handshake's (status
101 when accepted); a failure adds ``exception`` (the traceback);
and fields given to a log call with ``extra=`` come along. uvicorn's own loggers, the
app's (``marrakech.*``) and Python's warnings all go through it::

    >>> import logging
    >>> record = logging.LogRecord(
    ...     "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
    ...     ("127.0.0.1:5000", "GET", "/api/health", "1.1", 200), None)
    >>> record.created = 0.0
    >>> print(JsonFormatter().format(record))  # doctest: +NORMALIZE_WHITESPACE
    {"time": "1970-01-01T00:00:00.000Z", "level": "INFO", "logger": "uvicorn.access",
     "message": "127.0.0.1:5000 - \\"GET /api/health HTTP/1.1\\" 200",
     "client": "127.0.0.1:5000", "method": "GET", "path": "/api/health",
     "http_version": "1.1", "status": 200}
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from typing import Any

#: A record's own attributes: anything else on it came with ``extra=`` and is a field.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "color_message",
    "taskName",
}

#: uvicorn's line of a WebSocket handshake (on ``uvicorn.error``): client, path[, status].
_WEBSOCKET = re.compile(r'%s - "WebSocket %s" ')
#: The fields of uvicorn's access-log line, in the order of its arguments.
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class JsonFormatter(logging.Formatter):
    """A log record as one line of JSON (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        line: dict[str, Any] = {
            "time": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        args = record.args
        if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
            line.update(zip(_ACCESS_FIELDS, args, strict=True))
        elif _WEBSOCKET.match(str(record.msg)) and isinstance(args, tuple) and len(args) >= 2:
            # uvicorn's line of a WebSocket's handshake: accepted (101), or refused.
            status = args[2] if len(args) > 2 else 101 if "accepted" in str(record.msg) else 403
            line.update(client=args[0], method="GET", path=args[1], status=status)
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def json_log_config(level: str) -> dict[str, Any]:
    """The logging configuration (``logging.config.dictConfig``) of ``--log-format
    json`` at ``level`` (``info``...): every logger, uvicorn's included, writes JSON
    lines to stderr; Python's warnings are logged too."""
    logging.captureWarnings(True)
    upper = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            name: {"handlers": [], "propagate": True, "level": upper}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")
        },
        "root": {"handlers": ["stderr"], "level": upper},
    }


__all__ = ["JsonFormatter", "json_log_config"]
