"""The tools that steer the run rather than touch the machine: ``notify``, ``ask_user``,
``finish`` and ``automate``. The agent loop carries them out itself (they park, end the run
or ask the engine), so they have specs here and no handlers."""

from __future__ import annotations

from .base import ToolSpec

NOTIFY = ToolSpec(
    "notify", "notify",
    "Tell the user something now: an item in Errands' attention list and a desktop "
    "notification. Use it for what the user must know even if they never open this run.",
    {"type": "object", "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
     "required": ["title", "body"], "additionalProperties": False,
     "examples": [{"title": "Build broken", "body": "main fails since 09:12: test_login"}]})

ASK_USER = ToolSpec(
    "ask_user", "ask",
    "Ask the user a question and wait for the answer (the run pauses until they reply; it "
    "may take hours). Offer choices when the answer is one of a few.",
    {"type": "object", "properties": {"question": {"type": "string"},
                                      "choices": {"type": "array", "items": {"type": "string"}}},
     "required": ["question"], "additionalProperties": False,
     "examples": [{"question": "Deploy now?", "choices": ["yes", "no"]}]})

FINISH = ToolSpec(
    "finish", "control",
    "End the run with a summary (the run's result). condition_met says whether what the "
    "automation watches for has happened (an automation may stop on it); notify asks for the "
    "summary to be shown to the user.",
    {"type": "object", "properties": {"summary": {"type": "string"},
                                      "condition_met": {"type": "boolean"},
                                      "notify": {"type": "boolean"}},
     "required": ["summary", "condition_met"], "additionalProperties": False,
     "examples": [{"summary": "No new releases.", "condition_met": False}]})

AUTOMATE = ToolSpec(
    "automate", "automate",
    "Create, change, pause, resume, delete, list or run Errands automations. For create give "
    "title, runner ({\"kind\": \"agent\", \"prompt\": …}, {\"kind\": \"command\", "
    "\"command\": …} or, for a reminder that only shows a message, {\"kind\": \"notify\", "
    "\"message\": …}) and schedule (\"in:10m\", \"every:1h\", \"cron:0 9 * * 1-5\", "
    "\"at:2026-12-24T09:00:00Z\" or a phrase like \"every weekday at 9am\"). A one-shot "
    "(\"in:…\" / \"at:…\") continues this conversation when it runs: use it to check back "
    "later. Other actions take id. Returns the resolved definition or an error naming the "
    "field to fix.",
    {"type": "object",
     "properties": {"action": {"type": "string", "enum": ["create", "update", "pause", "resume",
                                                          "delete", "list", "run_now"]},
                    "id": {"type": "string"}, "title": {"type": "string"},
                    "runner": {"type": "object"}, "schedule": {"type": "string"},
                    "trigger": {"type": "object"}, "continue_session": {"type": "boolean"}},
     "required": ["action"], "additionalProperties": True,
     "examples": [{"action": "create", "title": "Check the deploy again",
                   "runner": {"kind": "agent", "prompt": "Is the deploy green now?"},
                   "schedule": "in:10m"}]},
    subject="action")

SPECS = {s.name: s for s in (NOTIFY, ASK_USER, FINISH, AUTOMATE)}
