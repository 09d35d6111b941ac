"""Script automations (seed 003): a JavaScript function run in a sandbox that proposes
actions; the host checks each against the owner's rules and applies the survivors.

- ``scope``: which paths a script may read and change (its folder and its rules);
- ``sandbox``: one run or one compile check inside a fresh QuickJS runtime (``jsbox``),
  with reads served at once and actions queued; used only by the worker process;
- ``worker``: the process the sandbox lives in (``python -m errands.scripts.worker``), so
  an interpreter crash or a stuck native call never touches the engine;
- ``pool``: the engine's side of those workers (asyncio, killed at a hard deadline);
- ``verdicts``: the check of each proposed action; ``apply``: applying the survivors
  (file changes staged, then moved into place together);
- ``events``: the ``event`` object a run is handed.
"""
