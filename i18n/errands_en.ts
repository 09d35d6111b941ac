<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
    <context>
        <name>AppShell</name>
        <message numerus="yes">
            <source>Paused %n automation</source>
            <translation>
                <numerusform>Paused %n automation</numerusform>
                <numerusform>Paused %n automation</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Paused %n automations</source>
            <translation>
                <numerusform>Paused %n automation</numerusform>
                <numerusform>Paused %n automations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Resumed %n automation</source>
            <translation>
                <numerusform>Resumed %n automation</numerusform>
                <numerusform>Resumed %n automation</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Resumed %n automations</source>
            <translation>
                <numerusform>Resumed %n automation</numerusform>
                <numerusform>Resumed %n automations</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>AutomationSidebar</name>
        <message numerus="yes">
            <source>%n runs waiting for you; review them</source>
            <translation>
                <numerusform>%n run waiting for you; review it</numerusform>
                <numerusform>%n runs waiting for you; review them</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Archived (%n)</source>
            <translation>
                <numerusform>Archived (%n)</numerusform>
                <numerusform>Archived (%n)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Inbox (%n)</source>
            <translation>
                <numerusform>Inbox (%n)</numerusform>
                <numerusform>Inbox (%n)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Inbox, %n unread</source>
            <translation>
                <numerusform>Inbox, %n unread</numerusform>
                <numerusform>Inbox, %n unread</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>No automations here: the %n archived ones are under Archived.</source>
            <translation>
                <numerusform>No automations here: the archived one is under Archived.</numerusform>
                <numerusform>No automations here: the %n archived ones are under Archived.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Show the archived automations, %n</source>
            <translation>
                <numerusform>Show the archived automations, %n</numerusform>
                <numerusform>Show the archived automations, %n</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>⚑ %n waiting</source>
            <translation>
                <numerusform>⚑ %n waiting</numerusform>
                <numerusform>⚑ %n waiting</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>CrashReporter</name>
        <message numerus="yes">
            <source>%n unexpected errors this session; details are in the log</source>
            <translation>
                <numerusform>%n unexpected error this session; details are in the log</numerusform>
                <numerusform>%n unexpected errors this session; details are in the log</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>%n running</source>
            <translation>
                <numerusform>%n running</numerusform>
                <numerusform>%n running</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>SessionView</name>
        <message numerus="yes">
            <source>%n reads</source>
            <translation>
                <numerusform>%n read</numerusform>
                <numerusform>%n reads</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n tool call</numerusform>
                <numerusform>%n tool calls</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n turn(s)</source>
            <translation>
                <numerusform>%n turn</numerusform>
                <numerusform>%n turns</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>Tray</name>
        <message numerus="yes">
            <source>%n need you</source>
            <translation>
                <numerusform>%n needs you</numerusform>
                <numerusform>%n need you</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n needs you</source>
            <translation>
                <numerusform>%n needs you</numerusform>
                <numerusform>%n needs you</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n running</source>
            <translation>
                <numerusform>%n running</numerusform>
                <numerusform>%n running</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>WindowController</name>
        <message numerus="yes">
            <source>%n already here, left as they are.</source>
            <translation>
                <numerusform>%n already here, left as it is.</numerusform>
                <numerusform>%n already here, left as they are.</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Exported %n automations to %1</source>
            <translation>
                <numerusform>Exported %n automation to %1</numerusform>
                <numerusform>Exported %n automations to %1</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Import %n new automations from %1?</source>
            <translation>
                <numerusform>Import %n new automation from %1?</numerusform>
                <numerusform>Import %n new automations from %1?</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Imported %n automations from %1</source>
            <translation>
                <numerusform>Imported %n automation from %1</numerusform>
                <numerusform>Imported %n automations from %1</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>… and %n more</source>
            <translation>
                <numerusform>… and %n more</numerusform>
                <numerusform>… and %n more</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>words</name>
        <message numerus="yes">
            <source>%1: %n new items</source>
            <translation>
                <numerusform>%1: %n new item</numerusform>
                <numerusform>%1: %n new items</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n at once</source>
            <translation>
                <numerusform>%n at once</numerusform>
                <numerusform>%n at once</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n automations need you</source>
            <translation>
                <numerusform>%n automation needs you</numerusform>
                <numerusform>%n automations need you</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n crowded minutes</source>
            <translation>
                <numerusform>%n crowded minute</numerusform>
                <numerusform>%n crowded minutes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n d ago</source>
            <translation>
                <numerusform>%n d ago</numerusform>
                <numerusform>%n d ago</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n failures in a row</source>
            <translation>
                <numerusform>%n failure in a row</numerusform>
                <numerusform>%n failures in a row</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires</source>
            <translation>
                <numerusform>%n fire</numerusform>
                <numerusform>%n fires</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires between</source>
            <translation>
                <numerusform>%n fire between</numerusform>
                <numerusform>%n fires between</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires in this minute</source>
            <translation>
                <numerusform>%n fire in this minute</numerusform>
                <numerusform>%n fires in this minute</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n h</source>
            <translation>
                <numerusform>%n h</numerusform>
                <numerusform>%n h</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n h ago</source>
            <translation>
                <numerusform>%n h ago</numerusform>
                <numerusform>%n h ago</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n lines</source>
            <translation>
                <numerusform>%n line</numerusform>
                <numerusform>%n lines</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n min</source>
            <translation>
                <numerusform>%n min</numerusform>
                <numerusform>%n min</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n min ago</source>
            <translation>
                <numerusform>%n min ago</numerusform>
                <numerusform>%n min ago</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n runs led to it</source>
            <translation>
                <numerusform>%n run led to it</numerusform>
                <numerusform>%n runs led to it</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n s</source>
            <translation>
                <numerusform>%n s</numerusform>
                <numerusform>%n s</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n waiting for you</source>
            <translation>
                <numerusform>%n waiting for you</numerusform>
                <numerusform>%n waiting for you</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Caught up once for %n missed fires</source>
            <translation>
                <numerusform>Caught up once for %n missed fire</numerusform>
                <numerusform>Caught up once for %n missed fires</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Every %n days at %1 (%2), from %3 %4</source>
            <translation>
                <numerusform>Every day at %1 (%2), from %3 %4</numerusform>
                <numerusform>Every %n days at %1 (%2), from %3 %4</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Every %n hours at %1</source>
            <translation>
                <numerusform>Every hour at %1</numerusform>
                <numerusform>Every %n hours at %1</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Every %n minutes</source>
            <translation>
                <numerusform>Every minute</numerusform>
                <numerusform>Every %n minutes</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Every %n months on %1 at %2, from %3 %4</source>
            <translation>
                <numerusform>Every month on %1 at %2, from %3 %4</numerusform>
                <numerusform>Every %n months on %1 at %2, from %3 %4</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Every %n years on %1 of %2 at %3, from %4</source>
            <translation>
                <numerusform>Every year on %1 of %2 at %3, from %4</numerusform>
                <numerusform>Every %n years on %1 of %2 at %3, from %4</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>after %n runs</source>
            <translation>
                <numerusform>after %n run</numerusform>
                <numerusform>after %n runs</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>and %n more</source>
            <translation>
                <numerusform>and %n more</numerusform>
                <numerusform>and %n more</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>from %n automations</source>
            <translation>
                <numerusform>from %n automation</numerusform>
                <numerusform>from %n automations</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>in %n h</source>
            <translation>
                <numerusform>in %n h</numerusform>
                <numerusform>in %n h</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>in %n min</source>
            <translation>
                <numerusform>in %n min</numerusform>
                <numerusform>in %n min</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>its %n runs in the history</source>
            <translation>
                <numerusform>its %n run in the history</numerusform>
                <numerusform>its %n runs in the history</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>… and %n more</source>
            <translation>
                <numerusform>… and %n more</numerusform>
                <numerusform>… and %n more</numerusform>
            </translation>
        </message>
    </context>
</TS>
