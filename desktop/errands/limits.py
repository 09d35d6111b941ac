"""Limits shared by the definition's parser and the command line's help, in a module the
command line can load without the parser (``errands --help`` loads no definition)."""

MAX_HISTORY_LIMIT = 1_000_000  # policy.history_limit and the run_history_limit setting
