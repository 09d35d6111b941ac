"""Drafts: a sentence read into a definition that is shown before anything is saved, by the
offline phrase parser, and by a model (the scripted OpenAI-compatible server on loopback,
through the real client) when the parser cannot read it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone

from errands.timeutil import zone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errands.agent.provider import Provider, ProviderConfig, ProviderError
from errands.drafts import draft, draft_from_phrase
from errands.errors import InvalidInput
from openai_server import ScriptedServer, call, say

pytestmark = pytest.mark.catalogue_free  # opens no catalogue: one pass is enough

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=timezone.utc)
ZONE = "Europe/Berlin"

PHRASES = [
    ("every day at 9am, summarize today's email", "cron", "0 9 * * *", "agent"),
    ("every weekday at 8:30 check the build", "cron", "30 8 * * MON-FRI", "agent"),
    ("every monday at 10 write the weekly report", "cron", "0 10 * * MON", "agent"),
    ("on the 1st of every month at 9 pay the rent", "cron", "0 9 1 * *", "agent"),
    ("every hour from 9 to 5 check mail", "cron", "0 9-17 * * *", "agent"),
    ("every 5 minutes run `df -h`", "cron", "*/5 * * * *", "command"),
    ("remind me at 9am tomorrow to stretch", "at", "2026-12-04T08:00:00Z", "notify"),
    ("in 10 minutes check the deploy", "at", "2026-12-03T12:10:00Z", "agent"),
    ("tonight at 10 back up the photos", "at", "2026-12-03T21:00:00Z", "agent"),
    ("keep fixing the tests until they pass", "after", "10m", "agent"),
    ("every 90 minutes look for new releases", "every", "90m", "agent"),
]


@pytest.mark.parametrize("sentence, kind, when, runner", PHRASES)
def test_phrasings_become_drafts(sentence: str, kind: str, when: str, runner: str) -> None:
    d = draft_from_phrase(sentence, zone=ZONE, now=NOW)
    trigger = d.doc["trigger"]
    assert d.source == "phrase" and trigger["kind"] == kind
    key = {"cron": "expression", "at": "at", "after": "interval", "every": "every"}[kind]
    assert str(trigger[key]) == when, trigger
    assert d.doc["runner"]["kind"] == runner and d.definition.title == d.doc["title"]
    if kind == "cron":
        assert f"I assumed your time zone {ZONE}." in d.warnings
    if sentence.startswith("in 10"):
        assert not any("time zone" in w for w in d.warnings)  # "in 10 minutes" needs none


def test_a_backticked_task_is_a_command_and_a_plain_one_a_prompt() -> None:
    d = draft_from_phrase("every day at 7 run `git -C ~/site pull`", zone=ZONE, now=NOW)
    assert d.doc["runner"] == {"kind": "command", "command": "git -C ~/site pull"}
    d = draft_from_phrase("every day at 7 pull the site", zone=ZONE, now=NOW)
    assert d.doc["runner"] == {"kind": "agent", "prompt": "pull the site"}


@pytest.mark.parametrize("sentence, message", [
    ("remind me tomorrow at 7pm to call mom", "Call mom"),
    ("in 10 minutes remind me to stretch", "Stretch"),
    ("every day at 9 remind me that the standup moved", "The standup moved"),
    ("reminder: water the plants every sunday at 10", "Water the plants"),
    ("please remind us about the invoice on friday at 8", "The invoice"),
])
def test_a_reminder_is_a_notification_that_needs_no_model(sentence: str, message: str) -> None:
    d = draft_from_phrase(sentence, zone=ZONE, now=NOW)
    assert d.doc["runner"] == {"kind": "notify", "message": message}
    assert d.definition.title == message and d.definition.runner.kind == "notify"


def test_reminder_words_inside_a_task_leave_it_a_prompt() -> None:
    d = draft_from_phrase("every day at 9 check whether anyone asked to remind me",
                          zone=ZONE, now=NOW)
    assert d.doc["runner"]["kind"] == "agent"


def test_a_sentence_without_a_task_or_a_schedule_is_refused_in_words() -> None:
    with pytest.raises(InvalidInput) as e:
        draft_from_phrase("every day at 9am", zone=ZONE, now=NOW)
    assert e.value.field == "sentence" and "not what to do" in str(e.value)
    with pytest.raises(InvalidInput) as e:
        draft_from_phrase("   ", zone=ZONE, now=NOW)
    assert e.value.field == "sentence" and e.value.example
    with pytest.raises(InvalidInput) as e:
        draft_from_phrase("whenever the moon is full, howl", zone=ZONE, now=NOW)
    assert e.value.field in ("schedule", "sentence")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_any_sentence_drafts_or_is_refused_with_a_field(text: str) -> None:
    try:
        d = draft_from_phrase(text, zone=ZONE, now=NOW)
    except InvalidInput as exc:
        assert exc.field in ("sentence", "schedule", "title", "runner.prompt", "stop.until",
                             "trigger.at", "trigger.expression") or exc.field, exc
    else:
        assert d.definition.runner.kind in ("agent", "command")


# ------------------------------------------------------------------ model fallback

@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.close()


@pytest.fixture
async def provider(server: ScriptedServer) -> AsyncIterator[Provider]:
    p = Provider(ProviderConfig(base_url=server.base_url, model="scripted-model",
                                api_key="sk-test"))
    yield p
    await p.close()


UNREADABLE = "whenever my inbox has more than 50 unread mails, sort them into folders"


async def test_the_model_drafts_what_the_parser_cannot_read(
        server: ScriptedServer, provider: Provider) -> None:
    server.play(call("automate", {"action": "create", "title": "Sort the inbox",
                                  "runner": {"kind": "agent",
                                             "prompt": "If more than 50 mails are unread, "
                                                       "sort them into folders."},
                                  "schedule": "cron:*/30 * * * *"}))
    d = await draft(UNREADABLE, zone=ZONE, now=NOW, provider=provider)
    assert d.source == "model" and d.doc["title"] == "Sort the inbox"
    assert d.doc["trigger"] == {"kind": "cron", "expression": "*/30 * * * *",
                                "timezone": ZONE}
    assert any("model wrote this draft" in w for w in d.warnings)
    request = server.requests[-1]
    assert [t["function"]["name"] for t in request["tools"]] == ["automate"]
    assert UNREADABLE in request["messages"][-1]["content"]
    assert ZONE in request["messages"][0]["content"]


async def test_a_model_reply_that_is_not_a_usable_draft_is_refused_in_words(
        server: ScriptedServer, provider: Provider) -> None:
    server.play(say("Sure! I can help with that."),
                call("automate", {"action": "delete", "id": "x"}),
                call("automate", {"action": "create", "title": "No schedule",
                                  "prompt": "do it"}),
                call("automate", "{not json"))
    for expected in ("did not turn it into an automation (it said: Sure!",
                     "did not draft a new automation", "needs a schedule", "not usable"):
        with pytest.raises(InvalidInput) as e:
            await draft(UNREADABLE, zone=ZONE, now=NOW, provider=provider)
        assert expected in str(e.value), str(e.value)


async def test_without_a_model_the_parsers_refusal_stands() -> None:
    with pytest.raises(InvalidInput) as e:
        await draft(UNREADABLE, zone=ZONE, now=NOW, provider=None)
    assert e.value.field in ("schedule", "sentence")


async def test_a_provider_fault_passes_through(server: ScriptedServer) -> None:
    server.close()
    p = Provider(ProviderConfig(base_url=server.base_url, model="scripted-model",
                                api_key="sk-test"))
    try:
        with pytest.raises(ProviderError) as e:
            await draft(UNREADABLE, zone=ZONE, now=NOW, provider=p)
        assert e.value.code == "provider_unreachable"
    finally:
        await p.close()


@pytest.mark.parametrize("task, words, path, user_folder", [
    ("summarize /srv/site/CHANGES", "/srv/site/CHANGES", "/srv/site/CHANGES", None),
    ("tidy ~/Downloads.", "~/Downloads", "~/Downloads", None),
    ("clean up my downloads folder", "my downloads folder", None, "downloads"),
    ("sort the Documents folder", "the Documents folder", None, "documents"),
    ("run the tests in the repo", "the repo", None, None),
    ("check my project folder for TODOs", "my project folder", None, None),
    ("fix lint in the website repository and push", "the website repository", None, None),
])
def test_a_folder_the_task_names_is_found(task: str, words: str, path: str | None,
                                          user_folder: str | None) -> None:
    from errands.drafts import FolderMention, folder_mention
    assert folder_mention(task) == FolderMention(words, path, user_folder)


@pytest.mark.parametrize("task", ["summarize today's email", "read http://example.com/a/b",
                                  "compare 1/2 and 3/4", "write the project status report",
                                  "sort the documents I received",
                                  "summarize the project status for the team"])
def test_tasks_without_a_folder_name_none(task: str) -> None:
    from errands.drafts import folder_mention
    assert folder_mention(task) is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_finding_a_folder_never_fails_and_names_words_of_the_task(task: str) -> None:
    from errands.drafts import folder_mention
    found = folder_mention(task)
    assert found is None or found.words.lower() in " ".join(task.split()).lower() \
        or found.words in task


FOREIGN = [
    ("jeden Tag um 9 Uhr Mails zusammenfassen", "de", "cron", "0 9 * * *",
     "Mails zusammenfassen"),
    ("werktags um 8:30 den Build prüfen", "de", "cron", "30 8 * * MON-FRI", "den Build prüfen"),
    ("jeden Montag um 10 Uhr Wochenbericht schreiben", "de", "cron", "0 10 * * MON",
     "Wochenbericht schreiben"),
    ("jeden Monat am 1. um 9 Miete zahlen", "de", "cron", "0 9 1 * *", "Miete zahlen"),
    ("in 10 Minuten Tee aufgießen", "de", "at", "2026-12-03T12:10:00Z", "Tee aufgießen"),
    ("morgen um 19 Uhr Mama anrufen", "de", "at", "2026-12-04T18:00:00Z", "Mama anrufen"),
    ("alle 2 Stunden Preise prüfen", "de", "cron", "0 */2 * * *", "Preise prüfen"),
    ("täglich um halb 8 Zeitung lesen", "de", "cron", "30 7 * * *", "Zeitung lesen"),
    ("每天9点 总结邮件", "zh", "cron", "0 9 * * *", "总结邮件"),
    ("每天晚上8点总结邮件", "zh", "cron", "0 20 * * *", "总结邮件"),
    ("每个工作日上午8点半检查构建", "zh", "cron", "30 8 * * MON-FRI", "检查构建"),
    ("每周一10点写周报", "zh", "cron", "0 10 * * MON", "写周报"),
    ("每月1号上午9点交房租", "zh", "cron", "0 9 1 * *", "交房租"),
    ("10分钟后泡茶", "zh", "at", "2026-12-03T12:10:00Z", "泡茶"),
    ("明天晚上7点给妈妈打电话", "zh", "at", "2026-12-04T18:00:00Z", "给妈妈打电话"),
    ("每2小时检查价格", "zh", "cron", "0 */2 * * *", "检查价格"),
    ("每隔十五分钟检查服务器", "zh", "cron", "*/15 * * * *", "检查服务器"),
]


@pytest.mark.parametrize("sentence, language, kind, when, task", FOREIGN)
def test_common_german_and_chinese_forms_are_read(sentence: str, language: str, kind: str,
                                                  when: str, task: str) -> None:
    """In the window's language or not, the common forms read as their English twins;
    the task stays as typed."""
    for window in (language, None):
        d = draft_from_phrase(sentence, zone=ZONE, now=NOW, language=window)
        key = "expression" if kind == "cron" else "at"
        assert d.doc["trigger"]["kind"] == kind and d.doc["trigger"][key] == when
        assert d.doc["runner"] == {"kind": "agent", "prompt": task}
        assert d.sentence == sentence


def test_a_foreign_reminder_is_a_reminder() -> None:
    d = draft_from_phrase("erinnere mich morgen um 19 Uhr daran, Mama anzurufen", zone=ZONE,
                          now=NOW, language="de")
    assert d.doc["runner"] == {"kind": "notify", "message": "Mama anzurufen"}
    d = draft_from_phrase("提醒我明天晚上七点给妈妈打电话", zone=ZONE, now=NOW, language="zh")
    assert d.doc["runner"] == {"kind": "notify", "message": "给妈妈打电话"}


def test_a_foreign_sentence_that_cannot_be_read_is_refused_for_the_sentence_as_typed() -> None:
    with pytest.raises(InvalidInput) as refused:
        draft_from_phrase("irgendwann mal aufräumen", zone=ZONE, now=NOW, language="de")
    assert "irgendwann mal aufräumen" in str(refused.value)


def test_english_words_are_never_rewritten_as_german() -> None:
    """"Guten Morgen" in an English task stays; only a German phrase is rewritten."""
    d = draft_from_phrase("every day at 8 say Guten Morgen to the team", zone=ZONE, now=NOW,
                          language="de")
    assert d.doc["runner"]["prompt"] == "say Guten Morgen to the team"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120), st.sampled_from(("de", "zh")))
def test_rewriting_never_fails(text: str, language: str) -> None:
    from errands.phrases.foreign import to_english
    assert isinstance(to_english(text, language), str)


@pytest.mark.parametrize("task, words", [
    ("den Wochenbericht im Projektordner schreiben", "im Projektordner"),
    ("Tests in meinem Repo laufen lassen", "meinem Repo"),
    ("检查项目文件夹里的构建", "项目文件夹"),
    ("在代码仓库里运行测试", "代码仓库"),
])
def test_a_folder_named_in_german_or_chinese_is_found(task: str, words: str) -> None:
    from errands.drafts import folder_mention
    found = folder_mention(task)
    assert found is not None and found.words == words


@pytest.mark.parametrize("sentence, language, trigger, task", [
    ("每天早上7:30跑步", None, "30 7 * * *", "跑步"),
    ("每天7:30跑步", "zh", "30 7 * * *", "跑步"),
    ("täglich um 8 Uhr die Termine für morgen zusammenfassen", "de", "0 8 * * *",
     "die Termine für morgen zusammenfassen"),
    ("jeden Montag um 10 Uhr Bericht für heute schreiben", "de", "0 10 * * MON",
     "Bericht für heute schreiben"),
    ("jeden Tag um 9 Uhr in 3 Tagen fällige Rechnungen prüfen", "de", "0 9 * * *",
     "in 3 Tagen fällige Rechnungen prüfen"),
    ("jeden Tag um 9 Uhr stündlich prüfen", "de", "0 9 * * *", "stündlich prüfen"),
    ("jeden Montag um 10 Uhr prüfen, was am Freitag passiert ist", "de", "0 10 * * MON",
     "prüfen, was am Freitag passiert ist"),
    ("jeden Tag um 9 Uhr prüfen, dass der Server läuft", "de", "0 9 * * *",
     "prüfen, dass der Server läuft"),
    ("每天晚上8点总结今天的邮件", "zh", "0 20 * * *", "总结今天的邮件"),
    ("每天9点总结三个项目的进展", "zh", "0 9 * * *", "总结三个项目的进展"),
    ("每天9点总结星期一的会议", "zh", "0 9 * * *", "总结星期一的会议"),
    ("每周一三五10点健身", "zh", "0 10 * * MON,WED,FRI", "健身"),
    ("an jedem Werktag um 7 Uhr Nachrichten lesen", "de", "0 7 * * MON-FRI",
     "Nachrichten lesen"),
    ("Mails zusammenfassen jeden Tag um 9 Uhr", "de", "0 9 * * *", "Mails zusammenfassen"),
])
def test_only_the_schedule_words_are_rewritten_and_the_task_stays_as_typed(
        sentence: str, language: str | None, trigger: str, task: str) -> None:
    """The hostile review's cases: a "morgen", "heute", "星期一" or "三个" in the task is
    the task's, not the schedule's; a Chinese HH:MM time is read."""
    d = draft_from_phrase(sentence, zone=ZONE, now=NOW, language=language)
    assert d.doc["trigger"]["expression"] == trigger
    assert d.doc["runner"] == {"kind": "agent", "prompt": task}


def test_foreign_month_ends_other_weeks_midnights_and_reminders() -> None:
    d = draft_from_phrase("每月最后一天交房租", zone=ZONE, now=NOW, language="zh")
    assert d.doc["trigger"]["kind"] == "monthly" and d.doc["trigger"]["day"] == -1
    d = draft_from_phrase("jeden zweiten Montag um 9 Uhr Sprint planen", zone=ZONE, now=NOW,
                          language="de")
    assert d.doc["trigger"]["every"] == "14d" and d.doc["runner"]["prompt"] == "Sprint planen"
    d = draft_from_phrase("明天晚上12点备份", zone=ZONE, now=NOW, language="zh")
    at = datetime.fromisoformat(d.doc["trigger"]["at"].replace("Z", "+00:00"))
    assert at.astimezone(zone(ZONE)).strftime("%d %H:%M") == "05 00:00"  # tomorrow's end
    d = draft_from_phrase("Bitte erinnere mich morgen um 8 Uhr an das Meeting", zone=ZONE,
                          now=NOW, language="de")
    assert d.doc["runner"] == {"kind": "notify", "message": "Das Meeting"}


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["每天", "早上", "7:30", "上午10:00", "跑步", "jeden", "Tag",
                                 "um", "9", "Uhr", "morgen", "in", "3", "Tagen", "提醒我",
                                 "erinnere mich", "daran,", "every", "day", "at", "星期一",
                                 "每月", "最后一天", "十", "分钟后", " ", ","]),
                min_size=1, max_size=10).map(" ".join), st.sampled_from(("de", "zh", None)))
def test_mixed_sentences_are_read_or_refused_never_crash(sentence: str,
                                                         language: str | None) -> None:
    try:
        draft_from_phrase(sentence, zone=ZONE, now=NOW, language=language)
    except InvalidInput:
        pass


@pytest.mark.parametrize("task, words", [
    ("email ~bob about it", None), ("check the ~50 open PRs", None),
    ('open "/srv/my site" and tidy', "/srv/my site"), ("tidy '~/My Notes' please", "~/My Notes"),
    ("检查项目进度", None), ("总结三个项目的进展", None), ("dem Projekt-Team schreiben", None),
    ("check my downloads count", None), ("check my repo's issues", "my repo"),
    ("check the repo's CI", "the repo"),
])
def test_folder_guesses_the_hostile_review_tried(task: str, words: str | None) -> None:
    from errands.drafts import folder_mention
    found = folder_mention(task)
    assert (found.words if found else None) == words


@pytest.mark.parametrize("sentence, language, expression, task", [
    ("jeden Tag um 8 Uhr abends Bericht schreiben", "de", "0 20 * * *", "Bericht schreiben"),
    ("Bericht schreiben jeden Tag um 8 Uhr abends", "de", "0 20 * * *", "Bericht schreiben"),
    ("täglich abends um 8 Uhr Zeitung lesen", "de", "0 20 * * *", "Zeitung lesen"),
    ("summarize email every day at 9:30", "de", "30 9 * * *", "summarize email"),
    ("summarize email every day at 9:30", "zh", "30 9 * * *", "summarize email"),
])
def test_parts_of_the_day_and_english_in_a_foreign_window(sentence: str, language: str,
                                                          expression: str, task: str) -> None:
    """The code review's cases: "abends" is a part of the day, not a day; an English
    sentence in a German or Chinese window reads as English."""
    d = draft_from_phrase(sentence, zone=ZONE, now=NOW, language=language)
    assert d.doc["trigger"]["expression"] == expression
    assert d.doc["runner"]["prompt"] == task


@pytest.mark.parametrize("task", ["更新产品目录", "检查仓库库存"])
def test_a_catalogue_or_a_warehouse_is_no_folder(task: str) -> None:
    from errands.drafts import folder_mention
    assert folder_mention(task) is None
