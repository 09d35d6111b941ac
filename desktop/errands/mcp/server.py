"""``errands mcp``: Errands' automations as MCP tools, over stdio.

Each tool is one call of :class:`~errands.mcp.catalogue.Catalogue`, run on a worker thread
(the catalogue is synchronous: the channel, SQLite). A refusal reaches the model as the
tool's error, worded like the command line's: the field, what was wrong, the shape
expected and an example. No tool approves a parked run.
"""

from __future__ import annotations

import functools
import json
import logging
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from ..errors import ErrandsError, InvalidInput
from ..channel import EngineUnreachable
from .catalogue import DEFINITION_EXAMPLE, Catalogue, client_name

log = logging.getLogger(__name__)
INSTRUCTIONS = (
    "Errands runs automations on this machine: a shell command, an agent prompt, a reminder "
    "or a sandboxed JavaScript script, on a schedule (cron, intervals, one-shots) or on "
    "events (folder changes, webhooks, mail, another automation's end). What you create is "
    "registered paused and shown to the person as proposed by you; they enable it. Use "
    "describe_schedule to check how a schedule phrase reads before creating. You cannot "
    "approve parked runs: list_waiting shows them, the person decides.")


# an example of each argument, for a refusal of a wrong one
EXAMPLES = {"id": "3f2a9c1e", "run_id": "7c01d5e2", "phrase": "every weekday at 9am",
            "timezone": "Europe/Berlin", "definition": DEFINITION_EXAMPLE,
            "changes": '{"title": "New title"}', "expected_revision": "3",
            "status": "paused", "offset": "100", "limit": "20", "cursor": "r120",
            "dry_run": "true", "wait": "true"}
_TYPES = {"string": "a string", "integer": "a whole number", "boolean": "true or false",
          "object": "a JSON object", "array": "a list", "null": "null"}


def _expected(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_expected(s) for s in schema["anyOf"])
    if "const" in schema:
        return json.dumps(schema["const"])
    return _TYPES.get(str(schema.get("type")), "a value of the documented shape")


def argument_problem(schema: dict[str, Any], arguments: Any) -> str | None:
    """The first wrong argument, said as Errands says it (field, problem, shape, example);
    None when they fit the tool's schema."""
    from jsonschema import Draft202012Validator
    if not isinstance(arguments, dict):
        return "arguments: expected a JSON object of the tool's arguments"
    errors = sorted(Draft202012Validator(schema).iter_errors(arguments),
                    key=lambda e: (len(e.path), list(map(str, e.path))))
    if not errors:
        return None
    error = errors[0]
    if error.validator == "required":
        field = str(error.message).split("'")[1] if "'" in error.message else "arguments"
        shape = _expected(schema.get("properties", {}).get(field, {}))
        return f"{field}: is required; expected {shape}, e.g. {EXAMPLES.get(field, '…')}"
    if error.validator == "additionalProperties":
        extra = sorted(set(arguments) - set(schema.get("properties", {})))
        return (f"{extra[0] if extra else 'arguments'}: this tool takes no such argument; "
                "expected only: " + ", ".join(sorted(schema.get("properties", {}))))
    field = str(error.path[0]) if error.path else "arguments"
    given = json.dumps(error.instance)
    given = given if len(given) <= 60 else given[:57] + "…"
    top = schema.get("properties", {}).get(field, error.schema)
    return (f"{field}: got {given}; expected {_expected(top)}, "
            f"e.g. {EXAMPLES.get(field, '…')}")


def _refusal(exc: ErrandsError) -> ToolError:
    if isinstance(exc, InvalidInput):
        text = f"{exc.field}: {exc.message}" if exc.field else exc.message
        if exc.expected:
            text += f"; expected {exc.expected}"
        if exc.example:
            text += f", e.g. {exc.example}"
        return ToolError(text)
    return ToolError(f"{getattr(exc, 'code', 'error')}: {exc}")


class Tools:
    """The tools over one data folder. The client is who ``--as`` says (the person's
    configuration), else the name it gives itself with its first call (never trusted)."""

    def __init__(self, data_dir: Path, named: str | None = None) -> None:
        self.data_dir = data_dir
        self.named = named
        self.catalogue: Catalogue | None = None

    def _for(self, ctx: Context | None) -> Catalogue:
        if self.catalogue is None:
            if self.named:
                self.catalogue = Catalogue(self.data_dir, self.named, named=True)
                return self.catalogue
            name = "an MCP client"
            try:
                params = ctx.session.client_params if ctx is not None else None
                if params is not None and params.client_info is not None:
                    name = client_name(params.client_info.name)
            except (AttributeError, ValueError):
                pass
            self.catalogue = Catalogue(self.data_dir, name)
        return self.catalogue

    async def call(self, ctx: Context | None, method: str, *args: Any) -> Any:
        catalogue = self._for(ctx)
        try:
            return await anyio.to_thread.run_sync(
                functools.partial(getattr(catalogue, method), *args))
        except ErrandsError as exc:
            raise _refusal(exc) from None
        except EngineUnreachable as exc:
            raise ToolError(f"engine: {exc}; it may have acted before it stopped: look with "
                            "list_runs before trying again") from None
        except (ValueError, TypeError, OverflowError, RecursionError) as exc:
            raise ToolError(f"the arguments could not be used: {str(exc)[:300]}") from None
        except Exception as exc:  # noqa: BLE001 (said, and logged: a defect of ours)
            log.exception("MCP tool %s failed", method)
            raise ToolError(f"internal error: {type(exc).__name__}: {str(exc)[:300]}") from None


def build(data_dir: Path, named: str | None = None) -> MCPServer:
    """The server with every tool; ``named``: the client, as the person's configuration
    names it (``errands mcp --as NAME``)."""
    from .. import __version__
    schemas: dict[str, dict[str, Any]] = {}

    async def arguments_checked(ctx: Any, call_next: Any) -> Any:
        """A wrong argument is refused as Errands refuses one, before the tool runs."""
        params = ctx.params if isinstance(ctx.params, dict) else None
        if ctx.method == "tools/call" and params is not None:
            if not schemas:   # (no argument a tool does not name is let through)
                schemas.update({t.name: {**t.input_schema, "additionalProperties": False}
                                for t in await app.list_tools()})
            schema = schemas.get(str(params.get("name")))
            if schema is not None:
                given = params.get("arguments")
                problem = argument_problem(schema, {} if given is None else given)
                if problem is not None:
                    return {"content": [{"type": "text", "text": problem}], "isError": True}
            result = await call_next(ctx)
            prefix = f"Error executing tool {params.get('name')}: "
            if isinstance(result, dict) and result.get("isError"):
                for part in result.get("content") or []:   # (the refusal, as Errands says it)
                    if isinstance(part, dict) and str(part.get("text", "")).startswith(prefix):
                        part["text"] = part["text"][len(prefix):]
            return result
        return await call_next(ctx)

    app = MCPServer(name="errands", title="Errands", version=__version__,
                    instructions=INSTRUCTIONS, log_level="WARNING",
                    middleware=[arguments_checked])
    tools = Tools(data_dir, named)

    @app.tool(description="List automations, a page of 100 at a time: id, title, status, "
                          "kind, how its schedule reads, next fire, who proposed it.")
    async def list_automations(status: Literal["active", "paused", "completed", "archived",
                                               "broken"] | None = None,
                               offset: int = 0, ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        if offset < 0:
            raise ToolError("offset: must be 0 or more; expected a whole number, e.g. 100")
        return await tools.call(ctx, "list_automations", status, offset)

    @app.tool(description="One automation: its definition (a script's source included), "
                          "status, revision, how its schedule reads, who proposed it.")
    async def get_automation(id: str, ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "get_automation", id)

    @app.tool(description="How a schedule phrase reads, and its next five fires, without "
                          "creating anything. Phrases: 'every weekday at 9am', "
                          "'every 15 minutes', 'tomorrow at 7pm', 'cron:30 9 * * MON-FRI', "
                          "'at:2026-12-24T18:00:00+01:00', 'manual'.")
    async def describe_schedule(phrase: str, timezone: str | None = None,
                                ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "describe_schedule", phrase, timezone)

    @app.tool(description="Create an automation from a definition document "
                          "({title, runner, trigger or triggers, …}; runner kinds: command, "
                          "agent, notify, script). It is registered paused, marked as "
                          "proposed by you; the person enables it.")
    async def create_automation(definition: dict[str, Any],
                                ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "create_automation", definition)

    @app.tool(description="Change some fields of an automation (only those given), if it is "
                          "still at expected_revision (get_automation's revision). Changing "
                          "what it runs pauses it for the person to look again.")
    async def update_automation(id: str, changes: dict[str, Any], expected_revision: int,
                                ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "update_automation", id, changes, expected_revision)

    @app.tool(description="Pause an automation: no automatic fires until it is resumed.")
    async def pause_automation(id: str, ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "set_paused", id, True)

    @app.tool(description="Resume a paused automation (not one you proposed: the person "
                          "enables those).")
    async def resume_automation(id: str, ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "set_paused", id, False)

    @app.tool(description="Archive an automation: it never fires again, its history is kept.")
    async def archive_automation(id: str, ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "archive", id)

    @app.tool(description="Run an automation now (also while paused). dry_run: report what "
                          "would run (a script: each action it would propose, and whether "
                          "it would apply), nothing applied. wait: until it has ended.")
    async def run_now(id: str, dry_run: bool = False, wait: bool = False,
                      ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "run_now", id, dry_run, wait)

    @app.tool(description="An automation's runs, newest first (limit 1-1000; cursor from "
                          "next_cursor for the next page).")
    async def list_runs(id: str, limit: int = 20, cursor: str | None = None,
                        ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "list_runs", id, limit, cursor)

    @app.tool(description="One run: its state, result, error, its command's output or its "
                          "agent's transcript.")
    async def get_run(run_id: str, ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "get_run", run_id)

    @app.tool(description="What waits for the person: parked runs and unread notices. Only "
                          "the person decides on a parked run.")
    async def list_waiting(ctx: Context = None) -> dict[str, Any]:  # type: ignore[assignment]
        return await tools.call(ctx, "waiting")

    return app


def serve(data_dir: Path, named: str | None = None) -> int:
    """Serve over stdio until the client hangs up."""
    app = build(data_dir, client_name(named) if named else None)
    anyio.run(app.run_stdio_async)
    return 0
