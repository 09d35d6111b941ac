"""Archive instead of destroy: an archived automation never fires, is never armed, cannot be
run, paused, resumed or edited, and keeps its runs, transcripts, revisions and logs; it
stays archived across a restart; unarchiving brings it back paused. Under a fake clock
(the engine's own parts) and through the facade, as the window and the channel use it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from errands.engine.api import Api
from errands.engine.operations import perform
from errands.errors import Conflict, InvalidInput
from errands.records import Decision
from errands.store import Store
from engine_support import START, api, h, Harness, fail, ok  # noqa: F401 (fixtures)
from test_lifecycle import ParkingRunner

H = timedelta(hours=1)
M = timedelta(minutes=1)


def trail(store: Store, automation_id: str) -> list[tuple[str, int | None, Any]]:
    return [(e.action, e.revision, e.detail) for e in store.audit(automation_id)]


# ------------------------------------------------------------------ the engine

async def test_an_archived_automation_does_not_fire_when_its_time_comes(h: Harness) -> None:
    a = await h.add("hourly", {"kind": "every", "every": "1h"})
    await h.clock.advance(10 * M)
    assert h.states(a) == ["succeeded"]
    archived, changed = await h.engine.commands.set_archived(a, True)
    assert changed and archived.status == "archived" and archived.next_fire_at is None
    assert archived.revision == 1  # the definition did not change: no revision
    assert h.engine.slots[a].due is None  # never armed
    await h.clock.advance(timedelta(days=2))
    assert h.states(a) == ["succeeded"]  # its time came 48 times: nothing fired
    assert len(h.runner.calls) == 1
    stored = h.store.get(a)
    assert stored.status == "archived" and stored.run_count == 1
    assert [n for n, _, _ in h.store.revision_docs(a)] == [1]
    assert trail(h.store, a)[-1] == ("archived", 1, {"status": "active"})
    again, changed = await h.engine.commands.set_archived(a, True)  # twice: nothing changes
    assert not changed and again.status == "archived"
    assert [e[0] for e in trail(h.store, a)].count("archived") == 1


async def test_archived_survives_a_restart_and_misses_nothing_meanwhile(h: Harness) -> None:
    a = await h.add("hourly", {"kind": "every", "every": "1h"}, misfire="run_once")
    await h.clock.advance(10 * M)
    await h.engine.commands.set_archived(a, True)
    await h.restart(offline=timedelta(hours=6))
    stored = h.store.get(a)
    assert stored.status == "archived" and stored.next_fire_at is None
    assert h.engine.slots[a].automation.status == "archived"
    await h.clock.advance(timedelta(hours=3))
    assert h.states(a) == ["succeeded"]  # no catch-up, no skipped record: not its time
    with pytest.raises(Conflict) as refused:
        await h.engine.commands.run_now(a)
    assert refused.value.code == "archived" and "unarchive" in str(refused.value)


async def test_an_archived_automation_cannot_be_run_paused_resumed_or_edited(
        h: Harness) -> None:
    a = await h.add("manual", {"kind": "manual"})
    await h.engine.commands.set_archived(a, True)
    doc = h.store.get(a).definition.to_dict()  # type: ignore[union-attr]
    attempts = [
        lambda: h.engine.commands.run_now(a),
        lambda: h.engine.commands.run_now(a, dry_run=True),
        lambda: h.engine.commands.set_paused(a, True),
        lambda: h.engine.commands.set_paused(a, False),
        lambda: h.engine.commands.revise(a, {**doc, "title": "renamed"}),
    ]
    for attempt in attempts:
        with pytest.raises(Conflict) as refused:
            await attempt()
        assert refused.value.code == "archived" and refused.value.exit_code == 4
        assert "unarchive" in str(refused.value)
    assert h.states(a) == [] and h.store.get(a).title == "manual"


async def test_unarchive_brings_it_back_paused_and_a_resume_rearms_from_then(
        h: Harness) -> None:
    a = await h.add("hourly", {"kind": "every", "every": "1h"})
    await h.clock.advance(10 * M)
    await h.engine.commands.set_archived(a, True)
    await h.clock.advance(5 * H)
    back, changed = await h.engine.commands.set_archived(a, False)
    assert changed and back.status == "paused" and back.next_fire_at is None
    assert back.definition is not None and back.definition.paused  # as a pause leaves it
    assert back.revision == 2  # the one revision: the definition's paused flag
    assert trail(h.store, a)[-2:] == [("archived", 1, {"status": "active"}),
                                      ("unarchived", 2, {"status": "paused"})]
    await h.clock.advance(3 * H)
    assert h.states(a) == ["succeeded"]  # paused: still nothing fires
    resumed = await h.engine.commands.set_paused(a, False)
    assert resumed.status == "active"
    assert resumed.next_fire_at == START + 9 * H  # the next grid fire from now on
    await h.clock.advance(H)
    assert [r.scheduled_for for r in h.runs(a)] == [START, START + 9 * H]
    assert "skipped" not in h.states(a)  # the archived time is never caught up
    again, changed = await h.engine.commands.set_archived(a, False)  # not archived: nothing
    assert not changed and again.status == "active"


async def test_a_paused_one_comes_back_paused_with_no_revision_and_a_completed_one_completed(
        h: Harness) -> None:
    paused = await h.add("paused", {"kind": "every", "every": "1h"}, paused=True)
    await h.engine.commands.set_archived(paused, True)
    back, _ = await h.engine.commands.set_archived(paused, False)
    assert back.status == "paused" and back.revision == 1
    assert [e[:2] for e in trail(h.store, paused)] == [
        ("created", 1), ("archived", 1), ("unarchived", 1)]

    once = await h.add("once", {"kind": "at", "at": (START + M).isoformat()})
    await h.clock.advance(2 * M)
    assert h.store.get(once).status == "completed"
    await h.engine.commands.set_archived(once, True)
    back, _ = await h.engine.commands.set_archived(once, False)
    assert back.status == "completed" and back.revision == 1
    with pytest.raises(Conflict) as refused:
        await h.engine.commands.set_paused(once, False)
    assert refused.value.code == "completed"


async def test_archiving_lets_the_running_attempt_finish_and_drops_what_waits(
        h: Harness) -> None:
    h.runner.script("q", (90 * 60, ok("long one")))
    a = await h.add("q", {"kind": "every", "every": "1h"}, overlap="queue_one")
    await h.clock.advance(H + M)
    assert h.states(a) == ["running", "scheduled"]
    await h.engine.commands.set_archived(a, True)
    await h.clock.advance(2 * H)
    first, queued = h.runs(a)
    assert (first.state, first.result) == ("succeeded", "long one")  # it finished
    assert (queued.state, queued.error_code) == ("cancelled", "archived")
    assert queued.error_message == "ended because the automation was archived"
    assert h.states(a) == ["succeeded", "cancelled"]  # and nothing fired since


async def test_archiving_drops_a_pending_retry_even_of_a_run_by_hand(h: Harness) -> None:
    h.runner.script("r", (0, fail()), (0, fail()))
    a = await h.add("r", {"kind": "manual"})
    await h.engine.commands.run_now(a)
    await h.clock.advance(10)
    assert h.runs(a)[0].state == "scheduled" and h.runs(a)[0].retry_at is not None
    await h.engine.commands.set_archived(a, True)
    await h.clock.advance(H)
    run = h.runs(a)[0]
    assert (run.state, run.error_code) == ("cancelled", "archived")
    assert len(h.runner.calls) == 1


async def test_a_failure_after_archiving_is_not_retried(h: Harness) -> None:
    h.runner.script("f", (60, fail("late")))
    a = await h.add("f", {"kind": "manual"})
    await h.engine.commands.run_now(a)
    await h.clock.advance(10)
    await h.engine.commands.set_archived(a, True)
    await h.clock.advance(H)
    run = h.runs(a)[0]
    assert (run.state, run.attempt, run.error_message) == ("failed", 1, "late")
    assert len(h.runner.calls) == 1


async def test_archiving_ends_a_parked_run_and_keeps_its_transcript(tmp_path: Path) -> None:
    h = Harness(tmp_path, max_sleep=3600)
    h.engine.runners["command"] = ParkingRunner()
    await h.engine.start()
    try:
        a = await h.add("parks", {"kind": "manual"})
        run = await h.engine.commands.run_now(a)
        await h.clock.advance(1)
        assert h.store.get_run(run.id).state == "awaiting_input"
        await h.engine.commands.set_archived(a, True)
        ended = h.store.get_run(run.id)
        assert (ended.state, ended.error_code) == ("cancelled", "archived")
        assert h.store.parked(a) == []
        assert [i.read for i in h.store.attention() if i.kind == "awaiting_input"] == [True]
        with pytest.raises(Conflict) as refused:
            await h.engine.commands.decide(run.id, Decision(kind="approve_once"))
        assert refused.value.code == "not_parked"
        assert ended.session_id is not None  # the transcript stays readable
        texts = [m.content.get("content") for m in h.store.messages(ended.session_id)]
        assert "I need to delete build/" in texts
    finally:
        await h.stop()


# ------------------------------------------------------------------ the facade

def doc(title: str, trigger: dict[str, Any], command: str = "echo done") -> dict[str, Any]:
    return {"title": title, "runner": {"kind": "command", "command": command},
            "trigger": trigger}


async def test_archive_and_unarchive_through_the_facade_keep_everything(api: Api) -> None:
    kept = (await api.create(doc("Report", {"kind": "manual"}, "echo the report"))).value[0]
    other = (await api.create(doc("Poll", {"kind": "every", "every": "1h"}))).value[0]
    run = (await api.run_now(kept.id, wait=True)).value
    await api.edit(kept.id, doc("Report v2", {"kind": "manual"}, "echo the report"))

    archived, changed = (await api.archive(kept.id)).value
    assert changed and archived.status == "archived" and archived.revision == 2
    # listed under its own status, left out of none (the window and the CLI choose)
    assert [s.id for s in (await api.summaries(status="archived")).value[0]] == [kept.id]
    assert {s.id for s in (await api.summaries()).value[0]} == {kept.id, other.id}
    assert (await api.summaries(status="active")).value[1] == 1
    # everything it had is still there to read
    runs, _ = (await api.runs(kept.id)).value
    assert [r.id for r in runs] == [run.id]
    assert "the report" in (await api.run(run.id)).value["output_tail"]
    revisions, audit = (await api.history(kept.id)).value
    assert [r.revision for r in revisions] == [1, 2]
    assert [e.action for e in audit][-1] == "archived"
    assert (await api.automation(kept.id)).value.status == "archived"
    assert (await api.next_fires(kept.id)).value == []
    upcoming = (await api.upcoming(hours=24)).value
    assert kept.id not in {ident for _, ident, _ in upcoming}

    for refused in (api.run_now(kept.id), api.pause(kept.id), api.resume(kept.id),
                    api.edit(kept.id, doc("Report v3", {"kind": "manual"}))):
        with pytest.raises(Conflict) as info:
            await refused
        assert info.value.code == "archived"

    back, changed = (await api.unarchive(kept.id)).value
    assert changed and back.status == "paused" and back.revision == 3
    assert (await api.summaries(status="archived")).value[1] == 0
    rerun = (await api.run_now(kept.id, wait=True)).value  # run now works while paused
    assert rerun.state == "succeeded" and rerun.index == 2
    resumed = (await api.resume(kept.id)).value
    assert resumed.status == "active"


async def test_the_channel_accepts_archive_and_unarchive_and_delete_counts(
        api: Api) -> None:
    made = (await api.create(doc("Report", {"kind": "manual"}))).value[0]
    await api.run_now(made.id, wait=True)
    answer = await perform(api, "archive", {"id": made.id, "actor": "agent"})
    assert answer["changed"] is True and answer["automation"]["status"] == "archived"
    assert set(answer["stamp"]) == {"epoch", "revision"}
    answer = await perform(api, "archive", {"id": made.id})
    assert answer["changed"] is False
    listed = await perform(api, "summaries", {"status": "archived"})
    assert [i["id"] for i in listed["items"]] == [made.id]
    answer = await perform(api, "unarchive", {"id": made.id})
    assert answer["changed"] is True and answer["automation"]["status"] == "paused"
    with pytest.raises(InvalidInput) as wrong:
        await perform(api, "archive", {"id": 12})
    assert wrong.value.field == "id"
    with pytest.raises(InvalidInput) as wrong:
        await perform(api, "unarchive", {"id": made.id, "wait": True})
    assert wrong.value.field == "wait"
    trail_ = (await api.history(made.id)).value[1]
    assert [(e.action, e.actor) for e in trail_][-2:] == [("archived", "agent"),
                                                          ("unarchived", "user")]
    deleted = await perform(api, "delete", {"id": made.id})
    assert deleted["deleted"] == made.id
    assert deleted["destroyed"] == {"runs": 1, "transcripts": 0, "revisions": 2}
