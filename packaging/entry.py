"""The bundle's entry script: the same ``errands.cli:main`` as the installed command.

With no arguments it opens the app; with a command it runs the command line.
"""

import sys

from errands.cli import main

if __name__ == "__main__":
    sys.exit(main())
