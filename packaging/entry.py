"""The bundle's entry script: the same ``errands.cli:main`` as the installed command.

With no arguments it opens the app; with a command it runs the command line.

A hidden first argument, ``__confine__``, makes the program the confinement launcher
instead (``errands.confine``: the bundle has no Python to run that file with). It is
handled before anything else is imported: the launcher is on the start path of every
command an agent runs. Likewise ``__script_worker__`` makes it a script sandbox worker
(``errands.scripts.worker``, which the engine starts for script automations).
"""

import sys

if __name__ == "__main__" and sys.argv[1:2] == ["__confine__"]:
    from errands.confine import main as confine

    sys.exit(confine(sys.argv[2:]))

if __name__ == "__main__" and sys.argv[1:2] == ["__script_worker__"]:
    from errands.scripts.worker import main as script_worker

    sys.exit(script_worker())

from errands.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
