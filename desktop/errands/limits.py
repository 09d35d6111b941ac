"""Limits and forms shared by the parsers and the command line's help, in a module the
command line can load without them (``errands --help`` loads no definition, no schedule)."""

MAX_HISTORY_LIMIT = 1_000_000  # policy.history_limit and the run_history_limit setting
MAX_INTEGER = 2**63 - 1  # what SQLite stores

# the schedule forms ``--schedule`` takes (``schedule_spec``)
SPEC_EXAMPLE = "every weekday at 9am"
SPEC_FORMS = ("manual, at:INSTANT, in:DURATION, every:DURATION, after:DURATION, cron:EXPR, "
              "or a phrase such as \"every weekday at 9am\"")
