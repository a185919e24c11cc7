"""``python -m marrakech.web [--host H] [--port P] [--db PATH]``: start the web app."""

import sys

from marrakech.web.cli import main

if __name__ == "__main__":
    sys.exit(main())
