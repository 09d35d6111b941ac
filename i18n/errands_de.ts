<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
    <context>
        <name>Adapter</name>
        <message>
            <source>Pause all</source>
            <translation>Alle pausieren</translation>
        </message>
        <message>
            <source>Resume all</source>
            <translation>Alle fortsetzen</translation>
        </message>
    </context>
    <context>
        <name>AfterDialog</name>
        <message>
            <source>&amp;When</source>
            <translation>&amp;Wenn</translation>
        </message>
        <message>
            <source>Another automation's end</source>
            <translation>Das Ende einer anderen Automatisierung</translation>
        </message>
        <message>
            <source>Automation</source>
            <translation>Automatisierung</translation>
        </message>
        <message>
            <source>There is no other automation yet.</source>
            <translation>Es gibt noch keine andere Automatisierung.</translation>
        </message>
        <message>
            <source>Tick at least one way it may end.</source>
            <translation>Wählen Sie mindestens eine Art, wie sie enden kann.</translation>
        </message>
        <message>
            <source>expires unanswered</source>
            <translation>unbeantwortet abläuft</translation>
        </message>
        <message>
            <source>fails</source>
            <translation>fehlschlägt</translation>
        </message>
        <message>
            <source>is stopped</source>
            <translation>angehalten wird</translation>
        </message>
        <message>
            <source>succeeds</source>
            <translation>gelingt</translation>
        </message>
    </context>
    <context>
        <name>AppShell</name>
        <message>
            <source>Errands is still running</source>
            <translation>Errands läuft weiter</translation>
        </message>
        <message>
            <source>Errands will not start at login</source>
            <translation>Errands startet nicht mehr bei der Anmeldung</translation>
        </message>
        <message>
            <source>Errands will start at login, in the tray</source>
            <translation>Errands startet bei der Anmeldung im Infobereich</translation>
        </message>
        <message>
            <source>It keeps running your automations from the tray. Choose Quit in the tray menu to stop it.</source>
            <translation>Errands führt Ihre Automatisierungen weiter aus dem Infobereich aus. Wählen Sie dort „Errands beenden“, um es zu beenden.</translation>
        </message>
        <message>
            <source>Keep running</source>
            <translation>Weiterlaufen lassen</translation>
        </message>
        <message numerus="yes">
            <source>Paused %n automation</source>
            <translation>
                <numerusform>%n Automatisierung pausiert</numerusform>
                <numerusform>%n Automatisierungen pausiert</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Paused %n automations</source>
            <translation>
                <numerusform>%n Automatisierung pausiert</numerusform>
                <numerusform>%n Automatisierungen pausiert</numerusform>
            </translation>
        </message>
        <message>
            <source>Pausing everything…</source>
            <translation>Alles wird pausiert…</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>Beenden</translation>
        </message>
        <message>
            <source>Quit Errands?</source>
            <translation>Errands beenden?</translation>
        </message>
        <message numerus="yes">
            <source>Resumed %n automation</source>
            <translation>
                <numerusform>%n Automatisierung fortgesetzt</numerusform>
                <numerusform>%n Automatisierungen fortgesetzt</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Resumed %n automations</source>
            <translation>
                <numerusform>%n Automatisierung fortgesetzt</numerusform>
                <numerusform>%n Automatisierungen fortgesetzt</numerusform>
            </translation>
        </message>
        <message>
            <source>Resuming everything…</source>
            <translation>Alles wird fortgesetzt…</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>Jetzt ausführen</translation>
        </message>
        <message>
            <source>Start at login: %1</source>
            <translation>Start bei der Anmeldung: %1</translation>
        </message>
        <message>
            <source>This desktop has no system tray. Quit Errands (automations stop firing), or keep it running minimised?</source>
            <translation>Dieser Desktop hat keinen Infobereich. Errands beenden (Automatisierungen werden nicht mehr ausgelöst) oder minimiert weiterlaufen lassen?</translation>
        </message>
    </context>
    <context>
        <name>ApprovalDialog</name>
        <message>
            <source>%1 of %2</source>
            <translation>%1 von %2</translation>
        </message>
        <message>
            <source>&amp;Approve once</source>
            <translation>&amp;Einmal erlauben</translation>
        </message>
        <message>
            <source>&amp;Decline</source>
            <translation>&amp;Nicht antworten</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>&amp;Ablehnen</translation>
        </message>
        <message>
            <source>&amp;Later</source>
            <translation>&amp;Später</translation>
        </message>
        <message>
            <source>&amp;Note:</source>
            <translation>&amp;Notiz:</translation>
        </message>
        <message>
            <source>* matches anything (also across /). A command matches only when every part of it (split at ; &amp;&amp; || | &amp;) matches.</source>
            <translation>* passt auf alles (auch über / hinweg). Ein Befehl passt nur, wenn jeder seiner Teile (getrennt an ; &amp;&amp; || | &amp;) passt.</translation>
        </message>
        <message>
            <source>A&amp;nswer</source>
            <translation>A&amp;ntworten</translation>
        </message>
        <message>
            <source>Action</source>
            <translation>Aktion</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Adresse</translation>
        </message>
        <message>
            <source>Al&amp;ways allow…</source>
            <translation>I&amp;mmer erlauben…</translation>
        </message>
        <message>
            <source>Allow and &amp;save rule</source>
            <translation>Erlauben und Regel &amp;speichern</translation>
        </message>
        <message>
            <source>Allow and save rule</source>
            <translation>Erlauben und Regel speichern</translation>
        </message>
        <message>
            <source>Alt+%1</source>
            <translation>Alt+%1</translation>
        </message>
        <message>
            <source>Always allow for this automation</source>
            <translation>Für diese Automatisierung immer erlauben</translation>
        </message>
        <message>
            <source>An automation that is gone</source>
            <translation>Eine nicht mehr vorhandene Automatisierung</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>Antworten</translation>
        </message>
        <message>
            <source>Answer: %1</source>
            <translation>Antwort: %1</translation>
        </message>
        <message>
            <source>Approvals</source>
            <translation>Freigaben</translation>
        </message>
        <message>
            <source>Approve once</source>
            <translation>Einmal erlauben</translation>
        </message>
        <message>
            <source>Approve, and save a rule so this automation does not ask again for calls like it</source>
            <translation>Erlauben und eine Regel speichern, damit diese Automatisierung bei ähnlichen Aufrufen nicht mehr fragt</translation>
        </message>
        <message>
            <source>Arguments:</source>
            <translation>Argumente:</translation>
        </message>
        <message>
            <source>Automation</source>
            <translation>Automatisierung</translation>
        </message>
        <message>
            <source>Back</source>
            <translation>Zurück</translation>
        </message>
        <message>
            <source>Back to the choices, no rule saved</source>
            <translation>Zurück zur Auswahl, keine Regel gespeichert</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>Befehl</translation>
        </message>
        <message>
            <source>Decline to answer</source>
            <translation>Nicht antworten</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Ablehnen</translation>
        </message>
        <message>
            <source>Does the pattern match this call</source>
            <translation>Passt das Muster auf diesen Aufruf</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>Fehler</translation>
        </message>
        <message>
            <source>File</source>
            <translation>Datei</translation>
        </message>
        <message>
            <source>Go on to the next one; this run keeps waiting</source>
            <translation>Weiter zum nächsten; dieser Lauf wartet weiter</translation>
        </message>
        <message>
            <source>Later</source>
            <translation>Später</translation>
        </message>
        <message>
            <source>Let this one call run; the next one asks again</source>
            <translation>Diesen einen Aufruf zulassen; beim nächsten wird wieder gefragt</translation>
        </message>
        <message>
            <source>Matches this call.</source>
            <translation>Passt auf diesen Aufruf.</translation>
        </message>
        <message>
            <source>Note with the denial</source>
            <translation>Notiz zur Ablehnung</translation>
        </message>
        <message>
            <source>Other arguments</source>
            <translation>Weitere Argumente</translation>
        </message>
        <message>
            <source>Other arguments:</source>
            <translation>Weitere Argumente:</translation>
        </message>
        <message>
            <source>Pattern of the rule</source>
            <translation>Muster der Regel</translation>
        </message>
        <message>
            <source>Position in the queue</source>
            <translation>Position in der Warteschlange</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>Frage</translation>
        </message>
        <message>
            <source>Refuse; the agent is told and may go on without it</source>
            <translation>Ablehnen; der Agent erfährt es und macht eventuell ohne weiter</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>Lauf</translation>
        </message>
        <message>
            <source>Run #%1 · asked %2 · waits until %3</source>
            <translation>Lauf #%1 · gefragt %2 · wartet bis %3</translation>
        </message>
        <message>
            <source>Subject</source>
            <translation>Gegenstand</translation>
        </message>
        <message>
            <source>The exact command, path or address</source>
            <translation>Der genaue Befehl, Pfad oder die Adresse</translation>
        </message>
        <message>
            <source>The rule in words</source>
            <translation>Die Regel in Worten</translation>
        </message>
        <message>
            <source>The run needs your input to go on.</source>
            <translation>Der Lauf braucht Ihre Eingabe, um weiterzumachen.</translation>
        </message>
        <message>
            <source>This rule will be added to “%1” (a new revision); narrow or widen the pattern:</source>
            <translation>Diese Regel wird zu „%1“ hinzugefügt (eine neue Revision); Muster enger oder weiter fassen:</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Werkzeug</translation>
        </message>
        <message>
            <source>Tool: %1</source>
            <translation>Werkzeug: %1</translation>
        </message>
        <message>
            <source>Type an answer first (or Decline).</source>
            <translation>Geben Sie zuerst eine Antwort ein (oder „Nicht antworten“).</translation>
        </message>
        <message>
            <source>Waiting for you</source>
            <translation>Wartet auf Sie</translation>
        </message>
        <message>
            <source>Where it would act</source>
            <translation>Wo es wirken würde</translation>
        </message>
        <message>
            <source>Where: %1</source>
            <translation>Wo: %1</translation>
        </message>
        <message>
            <source>Where: in a git worktree of %1 made for this run</source>
            <translation>Wo: in einem für diesen Lauf angelegten Git-Worktree von %1</translation>
        </message>
        <message>
            <source>Where: on the network, from this computer</source>
            <translation>Wo: im Netz, von diesem Computer aus</translation>
        </message>
        <message>
            <source>Where: the MCP server “%1”, which may do anything its tool does</source>
            <translation>Wo: der MCP-Server „%1“, der alles tun kann, was sein Werkzeug tut</translation>
        </message>
        <message>
            <source>Why (optional; the agent is told)</source>
            <translation>Warum (optional; der Agent erfährt es)</translation>
        </message>
        <message>
            <source>Why it stopped</source>
            <translation>Warum er angehalten hat</translation>
        </message>
        <message>
            <source>Your answer</source>
            <translation>Ihre Antwort</translation>
        </message>
    </context>
    <context>
        <name>AutomationForm</name>
        <message>
            <source> failures in a row</source>
            <translation> Fehlschläge in Folge</translation>
        </message>
        <message>
            <source> runs</source>
            <translation> Läufe</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> Tokens</translation>
        </message>
        <message>
            <source>%1 (this computer)</source>
            <translation>%1 (dieser Computer)</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>&amp;Befehl</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>&amp;Ordner</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>&amp;Modell</translation>
        </message>
        <message>
            <source>&amp;Notify</source>
            <translation>&amp;Benachrichtigen</translation>
        </message>
        <message>
            <source>&amp;Prompt</source>
            <translation>&amp;Prompt</translation>
        </message>
        <message>
            <source>&amp;Runs</source>
            <translation>&amp;Ausführung</translation>
        </message>
        <message>
            <source>&amp;Script</source>
            <translation>&amp;Skript</translation>
        </message>
        <message>
            <source>&amp;Title</source>
            <translation>&amp;Titel</translation>
        </message>
        <message>
            <source>A command</source>
            <translation>Ein Befehl</translation>
        </message>
        <message>
            <source>A command runs as it is, without asking: creating it is the consent. The choices below apply to agent runs.</source>
            <translation>Ein Befehl läuft so, wie er ist, ohne Nachfrage: Ihn anzulegen ist die Zustimmung. Die Auswahl unten gilt für Agent-Läufe.</translation>
        </message>
        <message>
            <source>A failed attempt is tried again, up to this many attempts in all</source>
            <translation>Ein fehlgeschlagener Versuch wird wiederholt, bis zu so vielen Versuchen insgesamt</translation>
        </message>
        <message>
            <source>A one-time or hand-run schedule needs no stop rule.</source>
            <translation>Ein einmaliger oder von Hand gestarteter Zeitplan braucht keine Stoppregel.</translation>
        </message>
        <message>
            <source>A reminder (a notification)</source>
            <translation>Eine Erinnerung (eine Benachrichtigung)</translation>
        </message>
        <message>
            <source>A script (JavaScript in a sandbox)</source>
            <translation>Ein Skript (JavaScript in einer Sandbox)</translation>
        </message>
        <message>
            <source>After</source>
            <translation>Nach</translation>
        </message>
        <message>
            <source>Agent steps</source>
            <translation>Agent-Schritte</translation>
        </message>
        <message>
            <source>An agent, following a prompt</source>
            <translation>Ein Agent, der einem Prompt folgt</translation>
        </message>
        <message>
            <source>Any computer</source>
            <translation>Jeder Computer</translation>
        </message>
        <message>
            <source>Ask me before it runs commands or changes files</source>
            <translation>Mich fragen, bevor Befehle ausgeführt oder Dateien geändert werden</translation>
        </message>
        <message>
            <source>Attempts</source>
            <translation>Versuche</translation>
        </message>
        <message>
            <source>Attempts per run</source>
            <translation>Versuche pro Lauf</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Catch up at most</source>
            <translation>Höchstens nachholen</translation>
        </message>
        <message>
            <source>Catch up within</source>
            <translation>Nachholen innerhalb von</translation>
        </message>
        <message>
            <source>Changed elsewhere</source>
            <translation>Anderswo geändert</translation>
        </message>
        <message>
            <source>Choose the project folder</source>
            <translation>Projektordner wählen</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Wählen…</translation>
        </message>
        <message>
            <source>Close without saving (Esc)</source>
            <translation>Schließen ohne zu speichern (Esc)</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>Befehl</translation>
        </message>
        <message>
            <source>Continue one conversation across runs</source>
            <translation>Ein Gespräch über alle Läufe fortführen</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>Gespräch</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>Standardmodell</translation>
        </message>
        <message>
            <source>Discard</source>
            <translation>Verwerfen</translation>
        </message>
        <message>
            <source>Discard your changes?</source>
            <translation>Änderungen verwerfen?</translation>
        </message>
        <message>
            <source>Edit “%1”</source>
            <translation>„%1“ bearbeiten</translation>
        </message>
        <message>
            <source>Editing revision %1</source>
            <translation>Revision %1 wird bearbeitet</translation>
        </message>
        <message>
            <source>Failing</source>
            <translation>Bei Fehlschlägen</translation>
        </message>
        <message>
            <source>Failures in a row before pausing</source>
            <translation>Fehlschläge in Folge vor dem Pausieren</translation>
        </message>
        <message>
            <source>History budget</source>
            <translation>Verlaufsbudget</translation>
        </message>
        <message>
            <source>History kept</source>
            <translation>Behaltener Verlauf</translation>
        </message>
        <message>
            <source>How much of the conversation a continuing run keeps</source>
            <translation>Wie viel vom Gespräch ein fortgesetzter Lauf behält</translation>
        </message>
        <message>
            <source>In plain words</source>
            <translation>In Worten</translation>
        </message>
        <message>
            <source>Its own folder in Errands' data</source>
            <translation>Ein eigener Ordner in den Daten von Errands</translation>
        </message>
        <message>
            <source>Its stored definition no longer loads (%1). Saving replaces it with what this form shows.</source>
            <translation>Die gespeicherte Definition lässt sich nicht mehr laden (%1). Speichern ersetzt sie durch das, was dieses Formular zeigt.</translation>
        </message>
        <message>
            <source>Keep editing</source>
            <translation>Weiter bearbeiten</translation>
        </message>
        <message>
            <source>Let it do anything without asking, commands included</source>
            <translation>Alles ohne Nachfrage erlauben, auch Befehle</translation>
        </message>
        <message>
            <source>Let it use the tools ticked below without asking</source>
            <translation>Die unten angehakten Werkzeuge ohne Nachfrage verwenden lassen</translation>
        </message>
        <message>
            <source>M&amp;essage</source>
            <translation>&amp;Nachricht</translation>
        </message>
        <message>
            <source>MCP ser&amp;vers</source>
            <translation>MCP-Ser&amp;ver</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP-Server</translation>
        </message>
        <message>
            <source>MCP servers whose tools this agent may use, one a line: name=command or name=https://…/mcp (each call asks first; servers for every run are in Settings)</source>
            <translation>MCP-Server, deren Werkzeuge dieser Agent nutzen darf, einer pro Zeile: name=Befehl oder name=https://…/mcp (jeder Aufruf fragt zuerst; Server für jeden Lauf stehen in den Einstellungen)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Nachricht</translation>
        </message>
        <message>
            <source>Missed runs</source>
            <translation>Verpasste Läufe</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Most steps an agent run takes</source>
            <translation>Höchstzahl der Schritte eines Agent-Laufs</translation>
        </message>
        <message>
            <source>New automation</source>
            <translation>Neue Automatisierung</translation>
        </message>
        <message>
            <source>Nothing is ticked: it asks before every tool.</source>
            <translation>Nichts angehakt: Vor jedem Werkzeug wird gefragt.</translation>
        </message>
        <message>
            <source>Notifications</source>
            <translation>Benachrichtigungen</translation>
        </message>
        <message>
            <source>Number of runs</source>
            <translation>Anzahl der Läufe</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Am</translation>
        </message>
        <message>
            <source>Only shows its message: it runs nothing and uses no model</source>
            <translation>Zeigt nur seine Nachricht: führt nichts aus und nutzt kein Modell</translation>
        </message>
        <message>
            <source>Pause itself after</source>
            <translation>Selbst pausieren nach</translation>
        </message>
        <message>
            <source>Pause itself after failures</source>
            <translation>Nach Fehlschlägen selbst pausieren</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>Berechtigungen</translation>
        </message>
        <message>
            <source>Policies</source>
            <translation>Regeln</translation>
        </message>
        <message>
            <source>Problem</source>
            <translation>Problem</translation>
        </message>
        <message>
            <source>Project folder</source>
            <translation>Projektordner</translation>
        </message>
        <message>
            <source>Prompt</source>
            <translation>Prompt</translation>
        </message>
        <message>
            <source>Quietly: results wait in the history</source>
            <translation>Still: Ergebnisse warten im Verlauf</translation>
        </message>
        <message>
            <source>Reload</source>
            <translation>Neu laden</translation>
        </message>
        <message>
            <source>Reload, discarding my changes</source>
            <translation>Neu laden und meine Änderungen verwerfen</translation>
        </message>
        <message>
            <source>Revision</source>
            <translation>Revision</translation>
        </message>
        <message>
            <source>Run once when Errands is back</source>
            <translation>Einmal ausführen, wenn Errands wieder läuft</translation>
        </message>
        <message>
            <source>Runs &amp;on</source>
            <translation>&amp;Läuft auf</translation>
        </message>
        <message>
            <source>Runs commands without asking.</source>
            <translation>Führt Befehle ohne Nachfrage aus.</translation>
        </message>
        <message>
            <source>Runs its command without asking (creating it was the consent)</source>
            <translation>Führt seinen Befehl ohne Nachfrage aus (das Anlegen war die Zustimmung)</translation>
        </message>
        <message>
            <source>Runs its script in a sandbox: it proposes, Errands checks each action against its folder and rules before applying it</source>
            <translation>Führt sein Skript in einer Sandbox aus: Es schlägt vor, Errands prüft jede Aktion gegen seinen Ordner und seine Regeln, bevor es sie anwendet</translation>
        </message>
        <message>
            <source>Runs missed while Errands was closed or the computer slept</source>
            <translation>Läufe, die verpasst wurden, während Errands geschlossen war oder der Computer schlief</translation>
        </message>
        <message>
            <source>Runs on</source>
            <translation>Läuft auf</translation>
        </message>
        <message>
            <source>Runs until you pause or delete it, unless you tick a rule below.</source>
            <translation>Läuft, bis Sie es pausieren oder löschen, außer Sie haken unten eine Regel an.</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Speichern</translation>
        </message>
        <message>
            <source>Save (Ctrl+Return)</source>
            <translation>Speichern (Strg+Eingabe)</translation>
        </message>
        <message>
            <source>Save anyway</source>
            <translation>Trotzdem speichern</translation>
        </message>
        <message>
            <source>Save anyway, overwriting the other change</source>
            <translation>Trotzdem speichern und die andere Änderung überschreiben</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>Wird gespeichert…</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>Zeitplan</translation>
        </message>
        <message>
            <source>Sections</source>
            <translation>Abschnitte</translation>
        </message>
        <message>
            <source>Sections of the form</source>
            <translation>Abschnitte des Formulars</translation>
        </message>
        <message>
            <source>Skip the new run</source>
            <translation>Den neuen Lauf überspringen</translation>
        </message>
        <message>
            <source>Skip them (noted in the history)</source>
            <translation>Überspringen (im Verlauf vermerkt)</translation>
        </message>
        <message>
            <source>Spread</source>
            <translation>Streuung</translation>
        </message>
        <message>
            <source>Spread the start</source>
            <translation>Start streuen</translation>
        </message>
        <message>
            <source>Spread the start by up to</source>
            <translation>Start streuen um bis zu</translation>
        </message>
        <message>
            <source>Start</source>
            <translation>Start</translation>
        </message>
        <message>
            <source>Start each run fresh</source>
            <translation>Jeden Lauf neu beginnen</translation>
        </message>
        <message>
            <source>Start it when the running one ends (one waits at most)</source>
            <translation>Starten, wenn der laufende endet (höchstens einer wartet)</translation>
        </message>
        <message>
            <source>Still running</source>
            <translation>Läuft noch</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Stopp</translation>
        </message>
        <message>
            <source>Stop after a number of runs</source>
            <translation>Nach einer Anzahl von Läufen stoppen</translation>
        </message>
        <message>
            <source>Stop at a date and time</source>
            <translation>Zu einem Zeitpunkt stoppen</translation>
        </message>
        <message>
            <source>Stop date and time</source>
            <translation>Datum und Uhrzeit des Stopps</translation>
        </message>
        <message>
            <source>Stop the running one and start anew</source>
            <translation>Den laufenden stoppen und neu beginnen</translation>
        </message>
        <message>
            <source>Stop when a run says its condition is met</source>
            <translation>Stoppen, wenn ein Lauf meldet, dass seine Bedingung erfüllt ist</translation>
        </message>
        <message>
            <source>Stops at whichever comes first:</source>
            <translation>Stoppt bei dem, was zuerst eintritt:</translation>
        </message>
        <message>
            <source>Task</source>
            <translation>Aufgabe</translation>
        </message>
        <message>
            <source>Tell me after</source>
            <translation>Mich benachrichtigen nach</translation>
        </message>
        <message>
            <source>Tell me after every run</source>
            <translation>Mich nach jedem Lauf benachrichtigen</translation>
        </message>
        <message>
            <source>Tell me after this many failures in a row</source>
            <translation>Mich nach so vielen Fehlschlägen in Folge benachrichtigen</translation>
        </message>
        <message>
            <source>Tell me when the result changes</source>
            <translation>Mich benachrichtigen, wenn sich das Ergebnis ändert</translation>
        </message>
        <message>
            <source>The computer whose Errands runs it. A command or a folder belongs to one computer; an agent or a reminder can run on any.</source>
            <translation>Der Computer, dessen Errands sie ausführt. Ein Befehl oder ein Ordner gehört zu einem Computer; ein Agent oder eine Erinnerung kann auf jedem laufen.</translation>
        </message>
        <message>
            <source>This automation was changed elsewhere (now revision %1) after you opened it. Your changes are still here. Reload shows the other version and discards yours; Save anyway replaces it with yours.</source>
            <translation>Diese Automatisierung wurde anderswo geändert (jetzt Revision %1), nachdem Sie sie geöffnet haben. Ihre Änderungen sind noch da. „Neu laden“ zeigt die andere Fassung und verwirft Ihre; „Trotzdem speichern“ ersetzt sie durch Ihre.</translation>
        </message>
        <message>
            <source>This form has changes that are not saved.</source>
            <translation>Dieses Formular hat Änderungen, die nicht gespeichert sind.</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>Zeitlimit</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Titel</translation>
        </message>
        <message>
            <source>Tools it may use without asking</source>
            <translation>Werkzeuge, die es ohne Nachfrage verwenden darf</translation>
        </message>
        <message>
            <source>What runs without asking</source>
            <translation>Was ohne Nachfrage läuft</translation>
        </message>
        <message>
            <source>What the agent should do, e.g. Summarize today's email</source>
            <translation>Was der Agent tun soll, z. B. Fasse die E-Mails von heute zusammen</translation>
        </message>
        <message>
            <source>What the notification says, e.g. Call mom</source>
            <translation>Was die Benachrichtigung sagt, z. B. Mama anrufen</translation>
        </message>
        <message>
            <source>What to run</source>
            <translation>Was ausgeführt wird</translation>
        </message>
        <message>
            <source>When a run is still going</source>
            <translation>Wenn ein Lauf noch läuft</translation>
        </message>
        <message>
            <source>When a run says its condition is met</source>
            <translation>Wenn ein Lauf meldet, dass seine Bedingung erfüllt ist</translation>
        </message>
        <message>
            <source>When it stops</source>
            <translation>Wann es stoppt</translation>
        </message>
        <message>
            <source>a time zone from the list</source>
            <translation>eine Zeitzone aus der Liste</translation>
        </message>
        <message>
            <source>e.g. ./backup.sh --quiet</source>
            <translation>z. B. ./backup.sh --quiet</translation>
        </message>
        <message>
            <source>e.g. Morning briefing</source>
            <translation>z. B. Morgenbriefing</translation>
        </message>
        <message>
            <source>unknown time zone</source>
            <translation>unbekannte Zeitzone</translation>
        </message>
    </context>
    <context>
        <name>AutomationSidebar</name>
        <message numerus="yes">
            <source>%n runs waiting for you; review them</source>
            <translation>
                <numerusform>%n Lauf wartet auf Sie; prüfen</numerusform>
                <numerusform>%n Läufe warten auf Sie; prüfen</numerusform>
            </translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>Archiviert</translation>
        </message>
        <message numerus="yes">
            <source>Archived (%n)</source>
            <translation>
                <numerusform>Archiviert (%n)</numerusform>
                <numerusform>Archiviert (%n)</numerusform>
            </translation>
        </message>
        <message>
            <source>Automations</source>
            <translation>Automatisierungen</translation>
        </message>
        <message>
            <source>Clear the filter</source>
            <translation>Filter leeren</translation>
        </message>
        <message>
            <source>Create a new automation</source>
            <translation>Eine neue Automatisierung anlegen</translation>
        </message>
        <message>
            <source>Filter automations</source>
            <translation>Automatisierungen filtern</translation>
        </message>
        <message>
            <source>Filter…</source>
            <translation>Filtern…</translation>
        </message>
        <message>
            <source>Inbox</source>
            <translation>Eingang</translation>
        </message>
        <message numerus="yes">
            <source>Inbox (%n)</source>
            <translation>
                <numerusform>Eingang (%n)</numerusform>
                <numerusform>Eingang (%n)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Inbox, %n unread</source>
            <translation>
                <numerusform>Eingang, %n ungelesen</numerusform>
                <numerusform>Eingang, %n ungelesen</numerusform>
            </translation>
        </message>
        <message>
            <source>Inbox, nothing unread</source>
            <translation>Eingang, nichts ungelesen</translation>
        </message>
        <message>
            <source>Last run</source>
            <translation>Letzter Lauf</translation>
        </message>
        <message>
            <source>Loading automations…</source>
            <translation>Automatisierungen werden geladen…</translation>
        </message>
        <message>
            <source>New automation</source>
            <translation>Neue Automatisierung</translation>
        </message>
        <message>
            <source>New automation (Ctrl+N)</source>
            <translation>Neue Automatisierung (Strg+N)</translation>
        </message>
        <message>
            <source>New automation…</source>
            <translation>Neue Automatisierung…</translation>
        </message>
        <message>
            <source>Next fire</source>
            <translation>Nächster Termin</translation>
        </message>
        <message>
            <source>No archived automation matches “%1”.</source>
            <translation>Keine archivierte Automatisierung passt zu „%1“.</translation>
        </message>
        <message>
            <source>No archived automations. Archive one (in its ⋯ menu) to stop it for good and keep its runs.</source>
            <translation>Keine archivierten Automatisierungen. Archivieren Sie eine (in ihrem ⋯-Menü), um sie endgültig anzuhalten und ihre Läufe zu behalten.</translation>
        </message>
        <message>
            <source>No automation matches “%1”.</source>
            <translation>Keine Automatisierung passt zu „%1“.</translation>
        </message>
        <message numerus="yes">
            <source>No automations here: the %n archived ones are under Archived.</source>
            <translation>
                <numerusform>Keine Automatisierungen hier: Die archivierte finden Sie unter „Archiviert“.</numerusform>
                <numerusform>Keine Automatisierungen hier: Die %n archivierten finden Sie unter „Archiviert“.</numerusform>
            </translation>
        </message>
        <message>
            <source>No automations yet — press Ctrl+N to create one.

While Errands is closed nothing runs; missed fires are noted in the history, never all at once when it opens.</source>
            <translation>Noch keine Automatisierungen – drücken Sie Strg+N, um eine anzulegen.

Solange Errands geschlossen ist, läuft nichts; verpasste Termine werden im Verlauf vermerkt, nie alle auf einmal beim Öffnen nachgeholt.</translation>
        </message>
        <message>
            <source>Runs waiting for your approval or answer</source>
            <translation>Läufe, die auf Ihre Freigabe oder Antwort warten</translation>
        </message>
        <message>
            <source>Show all automations</source>
            <translation>Alle Automatisierungen zeigen</translation>
        </message>
        <message>
            <source>Show archived</source>
            <translation>Archivierte zeigen</translation>
        </message>
        <message>
            <source>Show only the archived automations (View ▸ Show archived)</source>
            <translation>Nur die archivierten Automatisierungen zeigen (Ansicht ▸ Archivierte zeigen)</translation>
        </message>
        <message>
            <source>Show the archived automations</source>
            <translation>Die archivierten Automatisierungen zeigen</translation>
        </message>
        <message numerus="yes">
            <source>Show the archived automations, %n</source>
            <translation>
                <numerusform>Die archivierten Automatisierungen zeigen, %n</numerusform>
                <numerusform>Die archivierten Automatisierungen zeigen, %n</numerusform>
            </translation>
        </message>
        <message>
            <source>Sort automations by</source>
            <translation>Automatisierungen sortieren nach</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Titel</translation>
        </message>
        <message>
            <source>Upcoming</source>
            <translation>Demnächst</translation>
        </message>
        <message>
            <source>Upcoming fires</source>
            <translation>Anstehende Termine</translation>
        </message>
        <message numerus="yes">
            <source>⚑ %n waiting</source>
            <translation>
                <numerusform>⚑ %n wartet</numerusform>
                <numerusform>⚑ %n warten</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>BackBar</name>
        <message>
            <source>Back (Esc)</source>
            <translation>Zurück (Esc)</translation>
        </message>
        <message>
            <source>Back to the automation</source>
            <translation>Zurück zur Automatisierung</translation>
        </message>
        <message>
            <source>← Back</source>
            <translation>← Zurück</translation>
        </message>
    </context>
    <context>
        <name>CatalogueEditor</name>
        <message>
            <source>A password is kept in the keyring.</source>
            <translation>Ein Passwort liegt im Schlüsselbund.</translation>
        </message>
        <message>
            <source>Automations and their runs are kept in this computer's own file, or in a PostgreSQL database that several computers share. One computer's Errands serves a shared catalogue at a time; the command line of the others hands it their changes.</source>
            <translation>Automatisierungen und ihre Läufe liegen in einer eigenen Datei dieses Computers oder in einer PostgreSQL-Datenbank, die mehrere Computer teilen. Einen geteilten Katalog bedient jeweils das Errands eines Computers; die Befehlszeile der anderen reicht ihm ihre Änderungen weiter.</translation>
        </message>
        <message>
            <source>Catalogue in use</source>
            <translation>Katalog in Verwendung</translation>
        </message>
        <message>
            <source>ERRANDS_DATABASE_URL chooses the catalogue for this session; what is saved here applies where it is not set.</source>
            <translation>ERRANDS_DATABASE_URL wählt den Katalog für diese Sitzung; was hier gespeichert ist, gilt, wo es nicht gesetzt ist.</translation>
        </message>
        <message>
            <source>Empty: this computer's own file. Used from the next start; never with a password in it.</source>
            <translation>Leer: die eigene Datei dieses Computers. Gilt ab dem nächsten Start; nie mit einem Passwort darin.</translation>
        </message>
        <message>
            <source>Give the shared catalogue's URL first.</source>
            <translation>Geben Sie zuerst die URL des geteilten Katalogs an.</translation>
        </message>
        <message>
            <source>In use:</source>
            <translation>In Verwendung:</translation>
        </message>
        <message>
            <source>No password is kept in the keyring (the server may not need one).</source>
            <translation>Im Schlüsselbund liegt kein Passwort (der Server braucht vielleicht keins).</translation>
        </message>
        <message>
            <source>Password of the shared catalogue</source>
            <translation>Passwort des geteilten Katalogs</translation>
        </message>
        <message>
            <source>Password:</source>
            <translation>Passwort:</translation>
        </message>
        <message>
            <source>Save password</source>
            <translation>Passwort speichern</translation>
        </message>
        <message>
            <source>Save the password in the keyring</source>
            <translation>Das Passwort im Schlüsselbund speichern</translation>
        </message>
        <message>
            <source>Shared catalogue URL</source>
            <translation>URL des geteilten Katalogs</translation>
        </message>
        <message>
            <source>Shared catalogue:</source>
            <translation>Geteilter Katalog:</translation>
        </message>
        <message>
            <source>Shared: %1</source>
            <translation>Geteilt: %1</translation>
        </message>
        <message>
            <source>The URL holds a password: leave it out, and save the password below (it is kept in the keyring).</source>
            <translation>Die URL enthält ein Passwort: Lassen Sie es weg und speichern Sie das Passwort unten (es liegt dann im Schlüsselbund).</translation>
        </message>
        <message>
            <source>This computer: %1</source>
            <translation>Dieser Computer: %1</translation>
        </message>
    </context>
    <context>
        <name>ConfirmationCard</name>
        <message>
            <source>(later runs shift by how long each run takes)</source>
            <translation>(spätere Läufe verschieben sich um die Dauer jedes Laufs)</translation>
        </message>
        <message>
            <source>An agent follows this prompt:</source>
            <translation>Ein Agent folgt diesem Prompt:</translation>
        </message>
        <message>
            <source>C&amp;hoose…</source>
            <translation>&amp;Wählen…</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Check these</source>
            <translation>Bitte prüfen</translation>
        </message>
        <message>
            <source>Choose the folder it works in</source>
            <translation>Den Ordner wählen, in dem sie arbeitet</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>Kontext</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>Anlegen</translation>
        </message>
        <message>
            <source>Create this automation</source>
            <translation>Diese Automatisierung anlegen</translation>
        </message>
        <message>
            <source>Creating…</source>
            <translation>Wird angelegt…</translation>
        </message>
        <message>
            <source>Edit in form</source>
            <translation>Im Formular bearbeiten</translation>
        </message>
        <message>
            <source>Edit in form…</source>
            <translation>Im Formular bearbeiten…</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>Ordner</translation>
        </message>
        <message>
            <source>Its own folder in Errands' data</source>
            <translation>Ein eigener Ordner in den Daten von Errands</translation>
        </message>
        <message>
            <source>Needs a model</source>
            <translation>Braucht ein Modell</translation>
        </message>
        <message>
            <source>Needs a model: an agent follows this prompt, and no model is set up yet. Its runs fail until you set one up.</source>
            <translation>Braucht ein Modell: Ein Agent folgt diesem Prompt, und es ist noch kein Modell eingerichtet. Seine Läufe schlagen fehl, bis Sie eines einrichten.</translation>
        </message>
        <message>
            <source>Next runs</source>
            <translation>Nächste Läufe</translation>
        </message>
        <message>
            <source>No runs ahead.</source>
            <translation>Keine Läufe geplant.</translation>
        </message>
        <message>
            <source>Not created</source>
            <translation>Nicht angelegt</translation>
        </message>
        <message>
            <source>Only when you run it.</source>
            <translation>Nur wenn Sie es starten.</translation>
        </message>
        <message>
            <source>Open the full form with this filled in</source>
            <translation>Das vollständige Formular mit diesen Angaben öffnen</translation>
        </message>
        <message>
            <source>Open the settings at the model provider</source>
            <translation>Die Einstellungen beim Modellanbieter öffnen</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>Berechtigungen</translation>
        </message>
        <message>
            <source>Reminds you with a notification:</source>
            <translation>Erinnert Sie mit einer Benachrichtigung:</translation>
        </message>
        <message>
            <source>Runs a command:</source>
            <translation>Führt einen Befehl aus:</translation>
        </message>
        <message>
            <source>Runs commands without asking.</source>
            <translation>Führt Befehle ohne Nachfrage aus.</translation>
        </message>
        <message>
            <source>Runs this script in a sandbox:</source>
            <translation>Führt dieses Skript in einer Sandbox aus:</translation>
        </message>
        <message>
            <source>Set up a &amp;model…</source>
            <translation>&amp;Modell einrichten…</translation>
        </message>
        <message>
            <source>Set up a model</source>
            <translation>Modell einrichten</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>Alles zeigen</translation>
        </message>
        <message>
            <source>Show all of what it runs</source>
            <translation>Alles zeigen, was es ausführt</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>Weniger zeigen</translation>
        </message>
        <message>
            <source>Show less of what it runs</source>
            <translation>Weniger davon zeigen, was es ausführt</translation>
        </message>
        <message>
            <source>Stops</source>
            <translation>Stoppt</translation>
        </message>
        <message>
            <source>The folder it works in</source>
            <translation>Der Ordner, in dem sie arbeitet</translation>
        </message>
        <message>
            <source>The task names “%1”: choose the folder it works in, or leave this empty for its own folder in Errands' data.</source>
            <translation>Die Aufgabe nennt „%1“: Wählen Sie den Ordner, in dem sie arbeitet, oder lassen Sie das Feld leer für ihren eigenen Ordner in den Daten von Errands.</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Titel</translation>
        </message>
        <message>
            <source>Warnings</source>
            <translation>Warnungen</translation>
        </message>
        <message>
            <source>What it runs</source>
            <translation>Was es ausführt</translation>
        </message>
        <message>
            <source>What runs</source>
            <translation>Was läuft</translation>
        </message>
        <message>
            <source>What will be created</source>
            <translation>Was angelegt wird</translation>
        </message>
        <message>
            <source>When</source>
            <translation>Wann</translation>
        </message>
        <message>
            <source>Where it came from</source>
            <translation>Woher es stammt</translation>
        </message>
        <message>
            <source>Write the whole path, from / or ~, e.g. %1</source>
            <translation>Schreiben Sie den ganzen Pfad, ab / oder ~, z. B. %1</translation>
        </message>
    </context>
    <context>
        <name>CrashReporter</name>
        <message numerus="yes">
            <source>%n unexpected errors this session; details are in the log</source>
            <translation>
                <numerusform>%n unerwarteter Fehler in dieser Sitzung; Details stehen im Protokoll</numerusform>
                <numerusform>%n unerwartete Fehler in dieser Sitzung; Details stehen im Protokoll</numerusform>
            </translation>
        </message>
        <message>
            <source>Copy details</source>
            <translation>Details kopieren</translation>
        </message>
        <message>
            <source>Copy the error details</source>
            <translation>Die Fehlerdetails kopieren</translation>
        </message>
        <message>
            <source>Errands hit an error it did not expect. Your automations keep running; what you were doing may not have finished.</source>
            <translation>Errands ist auf einen unerwarteten Fehler gestoßen. Ihre Automatisierungen laufen weiter; was Sie gerade getan haben, ist womöglich nicht abgeschlossen.</translation>
        </message>
        <message>
            <source>Something went wrong</source>
            <translation>Etwas ist schiefgegangen</translation>
        </message>
    </context>
    <context>
        <name>DetailPane</name>
        <message>
            <source>&amp;Enable</source>
            <translation>&amp;Aktivieren</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>Archivieren</translation>
        </message>
        <message>
            <source>Archive instead</source>
            <translation>Stattdessen archivieren</translation>
        </message>
        <message>
            <source>Archive instead to stop it for good and keep all of it: its runs, conversations, revisions and logs.</source>
            <translation>Archivieren Sie sie stattdessen, um sie endgültig anzuhalten und alles zu behalten: ihre Läufe, Gespräche, Revisionen und Protokolle.</translation>
        </message>
        <message>
            <source>Bring it back, paused; resume it to fire again (Ctrl+Shift+A)</source>
            <translation>Pausiert zurückholen; setzen Sie sie fort, damit sie wieder auslöst (Strg+Umschalt+A)</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>Kontext</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>Delete automation</source>
            <translation>Automatisierung löschen</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>Löschen…</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>Probelauf</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Duplizieren</translation>
        </message>
        <message>
            <source>Edit the automation (Ctrl+E)</source>
            <translation>Automatisierung bearbeiten (Strg+E)</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>Bearbeiten…</translation>
        </message>
        <message>
            <source>Enable the proposed automation</source>
            <translation>Die vorgeschlagene Automatisierung aktivieren</translation>
        </message>
        <message>
            <source>Failures in a row</source>
            <translation>Fehlschläge in Folge</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>Ordner</translation>
        </message>
        <message>
            <source>Let it fire on its schedule from now on</source>
            <translation>Ab jetzt nach ihrem Zeitplan auslösen lassen</translation>
        </message>
        <message>
            <source>Missed fires</source>
            <translation>Verpasste Termine</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>Weitere Aktionen</translation>
        </message>
        <message>
            <source>New web address token…</source>
            <translation>Neues Token für die Webadresse…</translation>
        </message>
        <message>
            <source>Next fires</source>
            <translation>Nächste Termine</translation>
        </message>
        <message>
            <source>Opening as soon as the engine has started…</source>
            <translation>Wird geöffnet, sobald die Engine gestartet ist…</translation>
        </message>
        <message>
            <source>Overlap</source>
            <translation>Überschneidung</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Pausieren</translation>
        </message>
        <message>
            <source>Pause or resume its schedule (Space)</source>
            <translation>Zeitplan pausieren oder fortsetzen (Leertaste)</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>Berechtigungen</translation>
        </message>
        <message>
            <source>Proposed by %1, waiting for you. It would run: %2. Read what it runs below; Enable lets it fire.</source>
            <translation>Vorgeschlagen von %1, wartet auf Sie. Sie würde laufen: %2. Lesen Sie unten, was sie ausführt; Aktivieren lässt sie auslösen.</translation>
        </message>
        <message>
            <source>Proposed by another agent</source>
            <translation>Von einem anderen Agenten vorgeschlagen</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Fortsetzen</translation>
        </message>
        <message>
            <source>Run history</source>
            <translation>Laufverlauf</translation>
        </message>
        <message>
            <source>Run it now (Ctrl+R)</source>
            <translation>Jetzt ausführen (Strg+R)</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>Jetzt ausführen</translation>
        </message>
        <message>
            <source>Run over the files already there…</source>
            <translation>Über die schon vorhandenen Dateien laufen…</translation>
        </message>
        <message>
            <source>Runs</source>
            <translation>Läufe</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>Zeitplan</translation>
        </message>
        <message>
            <source>Select an automation on the left to see what it runs, when, and how its runs went — or press Ctrl+N to create one.</source>
            <translation>Wählen Sie links eine Automatisierung, um zu sehen, was sie ausführt, wann und wie ihre Läufe verliefen – oder drücken Sie Strg+N, um eine anzulegen.</translation>
        </message>
        <message>
            <source>Show what a run would do, without effects</source>
            <translation>Zeigen, was ein Lauf täte, ohne Auswirkungen</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>Status</translation>
        </message>
        <message>
            <source>Stop it for good and keep its runs, conversations and logs (Ctrl+Shift+A)</source>
            <translation>Endgültig anhalten und ihre Läufe, Gespräche und Protokolle behalten (Strg+Umschalt+A)</translation>
        </message>
        <message>
            <source>Stop run</source>
            <translation>Lauf stoppen</translation>
        </message>
        <message>
            <source>Stop the run going on now</source>
            <translation>Den laufenden Lauf stoppen</translation>
        </message>
        <message>
            <source>Stops</source>
            <translation>Stoppt</translation>
        </message>
        <message>
            <source>This automation could not be read: %1

It is read again when it changes, or when you select it again.</source>
            <translation>Diese Automatisierung konnte nicht gelesen werden: %1

Sie wird erneut gelesen, sobald sie sich ändert oder wenn Sie sie erneut auswählen.</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>Aus dem Archiv holen</translation>
        </message>
        <message>
            <source>What it runs</source>
            <translation>Was es ausführt</translation>
        </message>
        <message>
            <source>another agent</source>
            <translation>einem anderen Agenten</translation>
        </message>
        <message>
            <source>proposed by %1</source>
            <translation>vorgeschlagen von %1</translation>
        </message>
    </context>
    <context>
        <name>EventTriggers</name>
        <message>
            <source>Add a folder to watch</source>
            <translation>Einen zu beobachtenden Ordner hinzufügen</translation>
        </message>
        <message>
            <source>Add a web address that starts it</source>
            <translation>Eine Webadresse hinzufügen, die sie startet</translation>
        </message>
        <message>
            <source>Add another automation's end as a trigger</source>
            <translation>Das Ende einer anderen Automatisierung als Auslöser hinzufügen</translation>
        </message>
        <message>
            <source>Add new mail as a trigger</source>
            <translation>Neue E-Mail als Auslöser hinzufügen</translation>
        </message>
        <message>
            <source>Add:</source>
            <translation>Hinzufügen:</translation>
        </message>
        <message>
            <source>Also when something happens</source>
            <translation>Auch wenn etwas passiert</translation>
        </message>
        <message>
            <source>Another automation…</source>
            <translation>Andere Automatisierung…</translation>
        </message>
        <message>
            <source>Event triggers</source>
            <translation>Ereignis-Auslöser</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>Ordner…</translation>
        </message>
        <message>
            <source>Mail…</source>
            <translation>E-Mail…</translation>
        </message>
        <message>
            <source>Nothing else starts it. Add a folder to watch, a web address, mail or another automation's end.</source>
            <translation>Sonst startet sie nichts. Fügen Sie einen zu beobachtenden Ordner, eine Webadresse, E-Mail oder das Ende einer anderen Automatisierung hinzu.</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>Remove the chosen event trigger</source>
            <translation>Den gewählten Ereignis-Auslöser entfernen</translation>
        </message>
        <message>
            <source>Web address</source>
            <translation>Webadresse</translation>
        </message>
    </context>
    <context>
        <name>FillPage</name>
        <message>
            <source>(optional)</source>
            <translation>(optional)</translation>
        </message>
        <message>
            <source>Blanks</source>
            <translation>Lücken</translation>
        </message>
        <message>
            <source>Fill in the blanks</source>
            <translation>Die Lücken ausfüllen</translation>
        </message>
    </context>
    <context>
        <name>FolderDialog</name>
        <message>
            <source>&amp;Folder</source>
            <translation>&amp;Ordner</translation>
        </message>
        <message>
            <source>&amp;Only files like</source>
            <translation>&amp;Nur Dateien wie</translation>
        </message>
        <message>
            <source>/home/me/Downloads</source>
            <translation>/home/ich/Downloads</translation>
        </message>
        <message>
            <source>Choose a folder that exists.</source>
            <translation>Wählen Sie einen Ordner, den es gibt.</translation>
        </message>
        <message>
            <source>Choose the folder to watch</source>
            <translation>Den zu beobachtenden Ordner wählen</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Wählen…</translation>
        </message>
        <message>
            <source>Folder to watch</source>
            <translation>Zu beobachtender Ordner</translation>
        </message>
        <message>
            <source>Only files like</source>
            <translation>Nur Dateien wie</translation>
        </message>
        <message>
            <source>Only when a file is added</source>
            <translation>Nur wenn eine Datei hinzukommt</translation>
        </message>
        <message>
            <source>Watch a folder</source>
            <translation>Einen Ordner beobachten</translation>
        </message>
        <message>
            <source>every file; or e.g. *.pdf *.csv</source>
            <translation>jede Datei; oder z. B. *.pdf *.csv</translation>
        </message>
    </context>
    <context>
        <name>InboxView</name>
        <message>
            <source>%1 unread</source>
            <translation>%1 ungelesen</translation>
        </message>
        <message>
            <source>Inbox</source>
            <translation>Eingang</translation>
        </message>
        <message>
            <source>Inbox is empty</source>
            <translation>Der Eingang ist leer</translation>
        </message>
        <message>
            <source>Inbox items</source>
            <translation>Einträge im Eingang</translation>
        </message>
        <message>
            <source>Mark all read</source>
            <translation>Alle als gelesen markieren</translation>
        </message>
        <message>
            <source>Mark every item read</source>
            <translation>Jeden Eintrag als gelesen markieren</translation>
        </message>
        <message>
            <source>Mark read</source>
            <translation>Als gelesen markieren</translation>
        </message>
        <message>
            <source>Mark the selected item read</source>
            <translation>Den gewählten Eintrag als gelesen markieren</translation>
        </message>
        <message>
            <source>Nothing needs you. Failures, parked runs and results you asked to hear about appear here.</source>
            <translation>Nichts braucht Sie. Fehlschläge, wartende Läufe und Ergebnisse, über die Sie informiert werden wollten, erscheinen hier.</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>Open the item's run</source>
            <translation>Den Lauf des Eintrags öffnen</translation>
        </message>
        <message>
            <source>Show the run (or automation) this item is about (Enter)</source>
            <translation>Den Lauf (oder die Automatisierung) dieses Eintrags zeigen (Eingabe)</translation>
        </message>
        <message>
            <source>Unread items</source>
            <translation>Ungelesene Einträge</translation>
        </message>
        <message>
            <source>the newest %1 shown</source>
            <translation>die neuesten %1 angezeigt</translation>
        </message>
    </context>
    <context>
        <name>MailDialog</name>
        <message>
            <source>&amp;Account</source>
            <translation>&amp;Konto</translation>
        </message>
        <message>
            <source>How the test went</source>
            <translation>Wie der Test verlief</translation>
        </message>
        <message>
            <source>It does not work: %1</source>
            <translation>Es funktioniert nicht: %1</translation>
        </message>
        <message>
            <source>It works: %1</source>
            <translation>Es funktioniert: %1</translation>
        </message>
        <message>
            <source>Logging in…</source>
            <translation>Anmelden…</translation>
        </message>
        <message>
            <source>Mail account</source>
            <translation>E-Mail-Konto</translation>
        </message>
        <message>
            <source>New mail</source>
            <translation>Neue E-Mail</translation>
        </message>
        <message>
            <source>No mail account is set up yet. Add one in a terminal with: errands mail add NAME --address ME --imap-host HOST</source>
            <translation>Es ist noch kein E-Mail-Konto eingerichtet. Fügen Sie in einem Terminal eines hinzu mit: errands mail add NAME --address ICH --imap-host HOST</translation>
        </message>
        <message>
            <source>Only &amp;subjects with</source>
            <translation>Nur &amp;Betreffe mit</translation>
        </message>
        <message>
            <source>Only mail &amp;from</source>
            <translation>Nur E-Mail &amp;von</translation>
        </message>
        <message>
            <source>Only mail from</source>
            <translation>Nur E-Mail von</translation>
        </message>
        <message>
            <source>Only subjects with</source>
            <translation>Nur Betreffe mit</translation>
        </message>
        <message>
            <source>Test</source>
            <translation>Testen</translation>
        </message>
        <message>
            <source>Test the mail account</source>
            <translation>Das E-Mail-Konto testen</translation>
        </message>
        <message>
            <source>any subject; or e.g. Invoice</source>
            <translation>jeder Betreff; oder z. B. Rechnung</translation>
        </message>
        <message>
            <source>anyone; or e.g. billing@example.com</source>
            <translation>jeder; oder z. B. billing@example.com</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>%n running</source>
            <translation>
                <numerusform>%n läuft</numerusform>
                <numerusform>%n laufen</numerusform>
            </translation>
        </message>
        <message>
            <source>&amp;Automation</source>
            <translation>&amp;Automatisierung</translation>
        </message>
        <message>
            <source>&amp;Close window</source>
            <translation>Fenster s&amp;chließen</translation>
        </message>
        <message>
            <source>&amp;Dark</source>
            <translation>&amp;Dunkel</translation>
        </message>
        <message>
            <source>&amp;Delete…</source>
            <translation>&amp;Löschen…</translation>
        </message>
        <message>
            <source>&amp;Describe it…</source>
            <translation>In &amp;Worten beschreiben…</translation>
        </message>
        <message>
            <source>&amp;Edit…</source>
            <translation>&amp;Bearbeiten…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>&amp;Datei</translation>
        </message>
        <message>
            <source>&amp;Find…</source>
            <translation>&amp;Suchen…</translation>
        </message>
        <message>
            <source>&amp;Import…</source>
            <translation>&amp;Importieren…</translation>
        </message>
        <message>
            <source>&amp;Light</source>
            <translation>&amp;Hell</translation>
        </message>
        <message>
            <source>&amp;New automation…</source>
            <translation>&amp;Neue Automatisierung…</translation>
        </message>
        <message>
            <source>&amp;Pause / Resume</source>
            <translation>&amp;Pausieren / Fortsetzen</translation>
        </message>
        <message>
            <source>&amp;Quit Errands</source>
            <translation>Errands &amp;beenden</translation>
        </message>
        <message>
            <source>&amp;Run now</source>
            <translation>&amp;Jetzt ausführen</translation>
        </message>
        <message>
            <source>&amp;Settings…</source>
            <translation>&amp;Einstellungen…</translation>
        </message>
        <message>
            <source>&amp;Theme</source>
            <translation>&amp;Design</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>&amp;Ansicht</translation>
        </message>
        <message>
            <source>Add the automations of an export file</source>
            <translation>Die Automatisierungen einer Exportdatei hinzufügen</translation>
        </message>
        <message>
            <source>Ar&amp;chive</source>
            <translation>Ar&amp;chivieren</translation>
        </message>
        <message>
            <source>Archive the selected automation: it stops for good and keeps its runs; or bring an archived one back, paused</source>
            <translation>Die gewählte Automatisierung archivieren: Sie hält endgültig an und behält ihre Läufe; oder eine archivierte pausiert zurückholen</translation>
        </message>
        <message>
            <source>Automations

(the list of automations goes here)</source>
            <translation>Automatisierungen

(hier steht die Liste der Automatisierungen)</translation>
        </message>
        <message>
            <source>Automations and detail</source>
            <translation>Automatisierungen und Details</translation>
        </message>
        <message>
            <source>Back</source>
            <translation>Zurück</translation>
        </message>
        <message>
            <source>Back to the list of automations</source>
            <translation>Zurück zur Liste der Automatisierungen</translation>
        </message>
        <message>
            <source>Catalogue unreachable</source>
            <translation>Katalog nicht erreichbar</translation>
        </message>
        <message>
            <source>Close the window; Errands keeps running</source>
            <translation>Fenster schließen; Errands läuft weiter</translation>
        </message>
        <message>
            <source>Create a new automation with the full form</source>
            <translation>Eine neue Automatisierung mit dem vollständigen Formular anlegen</translation>
        </message>
        <message>
            <source>Delete the selected automation</source>
            <translation>Die gewählte Automatisierung löschen</translation>
        </message>
        <message>
            <source>E&amp;xport…</source>
            <translation>E&amp;xportieren…</translation>
        </message>
        <message>
            <source>Edit the selected automation</source>
            <translation>Die gewählte Automatisierung bearbeiten</translation>
        </message>
        <message>
            <source>Engine %1</source>
            <translation>Engine: %1</translation>
        </message>
        <message>
            <source>Engine running</source>
            <translation>Engine läuft</translation>
        </message>
        <message>
            <source>Engine state</source>
            <translation>Zustand der Engine</translation>
        </message>
        <message>
            <source>Engine stopped</source>
            <translation>Engine angehalten</translation>
        </message>
        <message>
            <source>Engine stopped: another Errands engine took this computer's place on the shared catalogue, or this computer's clock is off; the log says which</source>
            <translation>Engine angehalten: eine andere Errands-Engine hat den Platz dieses Computers im geteilten Katalog übernommen, oder die Uhr dieses Computers geht falsch; das Protokoll sagt, was davon</translation>
        </message>
        <message>
            <source>Engine stopped: served elsewhere</source>
            <translation>Engine angehalten: anderswo bedient</translation>
        </message>
        <message>
            <source>Engine stopping…</source>
            <translation>Engine wird angehalten…</translation>
        </message>
        <message>
            <source>Errands</source>
            <translation>Errands</translation>
        </message>
        <message>
            <source>Filter the automations</source>
            <translation>Die Automatisierungen filtern</translation>
        </message>
        <message>
            <source>Follow the &amp;system</source>
            <translation>Dem &amp;System folgen</translation>
        </message>
        <message>
            <source>List only the archived automations instead of the others</source>
            <translation>Nur die archivierten Automatisierungen statt der anderen auflisten</translation>
        </message>
        <message>
            <source>New from &amp;template…</source>
            <translation>Neu aus &amp;Vorlage…</translation>
        </message>
        <message>
            <source>No system tray on this desktop: Errands runs while this window is open</source>
            <translation>Kein Infobereich auf diesem Desktop: Errands läuft, solange dieses Fenster offen ist</translation>
        </message>
        <message>
            <source>Open the settings</source>
            <translation>Die Einstellungen öffnen</translation>
        </message>
        <message>
            <source>Pause or resume the selected automation</source>
            <translation>Die gewählte Automatisierung pausieren oder fortsetzen</translation>
        </message>
        <message>
            <source>Run the selected automation now</source>
            <translation>Die gewählte Automatisierung jetzt ausführen</translation>
        </message>
        <message>
            <source>Runs going now</source>
            <translation>Laufende Läufe</translation>
        </message>
        <message>
            <source>Save every automation's definition to a file (no secrets, no history)</source>
            <translation>Die Definition jeder Automatisierung in einer Datei speichern (ohne Geheimnisse, ohne Verlauf)</translation>
        </message>
        <message>
            <source>Say what and when in a sentence; see it before it is created</source>
            <translation>In einem Satz sagen, was und wann; vor dem Anlegen sehen Sie es</translation>
        </message>
        <message>
            <source>Select an automation to see what it runs, when, and its history.</source>
            <translation>Wählen Sie eine Automatisierung, um zu sehen, was sie ausführt, wann, und ihren Verlauf.</translation>
        </message>
        <message>
            <source>Shared catalogue unreachable: nothing runs until it is back (retrying)</source>
            <translation>Geteilter Katalog nicht erreichbar: nichts läuft, bis er wieder da ist (neuer Versuch läuft)</translation>
        </message>
        <message>
            <source>Show &amp;archived</source>
            <translation>&amp;Archivierte zeigen</translation>
        </message>
        <message>
            <source>Start from a ready-made automation</source>
            <translation>Mit einer fertigen Automatisierung beginnen</translation>
        </message>
        <message>
            <source>Starting the engine…</source>
            <translation>Engine wird gestartet…</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>Status</translation>
        </message>
        <message>
            <source>Stop the engine and quit</source>
            <translation>Die Engine anhalten und beenden</translation>
        </message>
        <message>
            <source>System tray</source>
            <translation>Infobereich</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Design</translation>
        </message>
        <message>
            <source>Un&amp;archive</source>
            <translation>Aus dem &amp;Archiv holen</translation>
        </message>
        <message>
            <source>← Automations</source>
            <translation>← Automatisierungen</translation>
        </message>
    </context>
    <context>
        <name>PickPage</name>
        <message>
            <source>A ready-made automation with a few blanks to fill in.</source>
            <translation>Eine fertige Automatisierung mit ein paar Lücken zum Ausfüllen.</translation>
        </message>
        <message>
            <source>No template matches.</source>
            <translation>Keine Vorlage passt.</translation>
        </message>
        <message>
            <source>Pick a template</source>
            <translation>Eine Vorlage wählen</translation>
        </message>
        <message>
            <source>Search templates</source>
            <translation>Vorlagen durchsuchen</translation>
        </message>
        <message>
            <source>Templates</source>
            <translation>Vorlagen</translation>
        </message>
        <message>
            <source>Templates left out</source>
            <translation>Ausgelassene Vorlagen</translation>
        </message>
        <message>
            <source>needs a model</source>
            <translation>braucht ein Modell</translation>
        </message>
        <message>
            <source>no model needed</source>
            <translation>kein Modell nötig</translation>
        </message>
    </context>
    <context>
        <name>QuickCreateDialog</name>
        <message>
            <source>&amp;Describe it: when, and what to do</source>
            <translation>&amp;Beschreiben Sie es: wann, und was zu tun ist</translation>
        </message>
        <message>
            <source>Asking the model</source>
            <translation>Das Modell wird gefragt</translation>
        </message>
        <message>
            <source>Blank &amp;form…</source>
            <translation>Leeres &amp;Formular…</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Choose the time in the &amp;form…</source>
            <translation>Zeit im &amp;Formular wählen…</translation>
        </message>
        <message>
            <source>Choose the time in the form</source>
            <translation>Zeit im Formular wählen</translation>
        </message>
        <message>
            <source>Close without creating anything (Esc)</source>
            <translation>Schließen, ohne etwas anzulegen (Esc)</translation>
        </message>
        <message>
            <source>Could not read it</source>
            <translation>Nicht verstanden</translation>
        </message>
        <message>
            <source>Describe the automation</source>
            <translation>Die Automatisierung beschreiben</translation>
        </message>
        <message>
            <source>Draft</source>
            <translation>Entwurf</translation>
        </message>
        <message>
            <source>Draft it</source>
            <translation>Entwerfen</translation>
        </message>
        <message>
            <source>Example: %1</source>
            <translation>Beispiel: %1</translation>
        </message>
        <message>
            <source>Examples:</source>
            <translation>Beispiele:</translation>
        </message>
        <message>
            <source>From a &amp;template…</source>
            <translation>Aus einer &amp;Vorlage…</translation>
        </message>
        <message>
            <source>Open the form with this as the task, at its schedule</source>
            <translation>Das Formular mit diesem Text als Aufgabe öffnen, beim Zeitplan</translation>
        </message>
        <message>
            <source>Open the full form</source>
            <translation>Das vollständige Formular öffnen</translation>
        </message>
        <message>
            <source>Pick a ready-made automation and fill in its blanks</source>
            <translation>Eine fertige Automatisierung wählen und ihre Lücken ausfüllen</translation>
        </message>
        <message>
            <source>Quick create</source>
            <translation>Schnell anlegen</translation>
        </message>
        <message>
            <source>Read the sentence (Enter)</source>
            <translation>Den Satz lesen (Eingabe)</translation>
        </message>
        <message>
            <source>Say when and what in one sentence, e.g. “%1”</source>
            <translation>Sagen Sie in einem Satz, wann und was, z. B. „%1“</translation>
        </message>
        <message>
            <source>Say when and what in one sentence, then press Enter</source>
            <translation>Sagen Sie in einem Satz, wann und was, dann drücken Sie die Eingabetaste</translation>
        </message>
        <message>
            <source>Set every field yourself</source>
            <translation>Jedes Feld selbst festlegen</translation>
        </message>
        <message>
            <source>Start from a template</source>
            <translation>Mit einer Vorlage beginnen</translation>
        </message>
        <message>
            <source>The draft</source>
            <translation>Der Entwurf</translation>
        </message>
        <message>
            <source>The sentence did not read as a schedule: asking the model to draft it…</source>
            <translation>Der Satz ließ sich nicht als Zeitplan lesen: Das Modell wird um einen Entwurf gebeten…</translation>
        </message>
        <message>
            <source>Use this example</source>
            <translation>Dieses Beispiel verwenden</translation>
        </message>
        <message>
            <source>e.g. %1</source>
            <translation>z. B. %1</translation>
        </message>
    </context>
    <context>
        <name>QuickCreateFlow</name>
        <message>
            <source>Not understood: %1</source>
            <translation>Nicht verstanden: %1</translation>
        </message>
        <message>
            <source>The model could not be asked: %1</source>
            <translation>Das Modell konnte nicht gefragt werden: %1</translation>
        </message>
        <message>
            <source>The model could not draft it: %1</source>
            <translation>Das Modell konnte keinen Entwurf erstellen: %1</translation>
        </message>
        <message>
            <source>There is no folder at %1</source>
            <translation>Unter %1 gibt es keinen Ordner</translation>
        </message>
        <message>
            <source>This sentence could not be read. Besides English, these forms are read: every day at 9, every weekday at 8:30, every Monday at 10, every month on the 1st, in 10 minutes, tomorrow at 7pm, every 2 hours, remind me to … . Write the time in one of them, or choose it in the form.</source>
            <translation>Dieser Satz wurde nicht verstanden. Außer Englisch werden diese Formen gelesen: jeden Tag um 9 Uhr, werktags um 8:30, jeden Montag um 10 Uhr, jeden Monat am 1., in 10 Minuten, morgen um 19 Uhr, alle 2 Stunden, erinnere mich daran, … . Schreiben Sie die Zeit in einer dieser Formen, oder wählen Sie sie im Formular.</translation>
        </message>
    </context>
    <context>
        <name>ReviewPage</name>
        <message>
            <source>From the template “%1”</source>
            <translation>Aus der Vorlage „%1“</translation>
        </message>
        <message>
            <source>Nothing is created until you press Create.</source>
            <translation>Nichts wird angelegt, bevor Sie „Anlegen“ drücken.</translation>
        </message>
        <message>
            <source>Problem</source>
            <translation>Problem</translation>
        </message>
        <message>
            <source>Review</source>
            <translation>Überprüfen</translation>
        </message>
        <message>
            <source>What will be created</source>
            <translation>Was angelegt wird</translation>
        </message>
    </context>
    <context>
        <name>RulesEditor</name>
        <message>
            <source>Action</source>
            <translation>Aktion</translation>
        </message>
        <message>
            <source>Action of rule {0}</source>
            <translation>Aktion von Regel {0}</translation>
        </message>
        <message>
            <source>Add a permission rule</source>
            <translation>Eine Berechtigungsregel hinzufügen</translation>
        </message>
        <message>
            <source>Add rule</source>
            <translation>Regel hinzufügen</translation>
        </message>
        <message>
            <source>Pattern</source>
            <translation>Muster</translation>
        </message>
        <message>
            <source>Permission rules</source>
            <translation>Berechtigungsregeln</translation>
        </message>
        <message>
            <source>Remove rule</source>
            <translation>Regel entfernen</translation>
        </message>
        <message>
            <source>Remove the selected permission rules</source>
            <translation>Die gewählten Berechtigungsregeln entfernen</translation>
        </message>
        <message>
            <source>Rule {0}: {1}</source>
            <translation>Regel {0}: {1}</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>Werkzeug</translation>
        </message>
        <message>
            <source>Tool of rule {0}</source>
            <translation>Werkzeug von Regel {0}</translation>
        </message>
    </context>
    <context>
        <name>RunStrip</name>
        <message>
            <source>No runs yet</source>
            <translation>Noch keine Läufe</translation>
        </message>
        <message>
            <source>Recent runs</source>
            <translation>Letzte Läufe</translation>
        </message>
    </context>
    <context>
        <name>SavedApprovalsView</name>
        <message>
            <source>None yet. When you choose “Always allow” for a run, the rule it adds is listed here, and can be revoked.</source>
            <translation>Noch keine. Wenn Sie bei einem Lauf „Immer erlauben“ wählen, wird die hinzugefügte Regel hier aufgeführt und kann widerrufen werden.</translation>
        </message>
        <message>
            <source>Remove this rule (an edit, with a new revision); the next such call asks again</source>
            <translation>Diese Regel entfernen (eine Bearbeitung mit neuer Revision); der nächste solche Aufruf fragt wieder</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>Widerrufen</translation>
        </message>
        <message>
            <source>Revoke: %1</source>
            <translation>Widerrufen: %1</translation>
        </message>
        <message>
            <source>Saved approvals</source>
            <translation>Gespeicherte Freigaben</translation>
        </message>
    </context>
    <context>
        <name>SchedulePage</name>
        <message>
            <source>Permissions</source>
            <translation>Berechtigungen</translation>
        </message>
        <message>
            <source>Runs commands without asking.</source>
            <translation>Führt Befehle ohne Nachfrage aus.</translation>
        </message>
        <message>
            <source>Schedule and permissions</source>
            <translation>Zeitplan und Berechtigungen</translation>
        </message>
        <message>
            <source>The template's schedule; change it if you like.</source>
            <translation>Der Zeitplan der Vorlage; ändern Sie ihn nach Belieben.</translation>
        </message>
        <message>
            <source>These come with the template; change them in the automation's form after creating it.</source>
            <translation>Diese gehören zur Vorlage; ändern Sie sie nach dem Anlegen im Formular der Automatisierung.</translation>
        </message>
        <message>
            <source>What it may do without asking</source>
            <translation>Was es ohne Nachfrage tun darf</translation>
        </message>
        <message>
            <source>When it runs, and what it may do</source>
            <translation>Wann es läuft und was es tun darf</translation>
        </message>
    </context>
    <context>
        <name>SchedulePicker</name>
        <message>
            <source> from the end</source>
            <translation> vom Ende</translation>
        </message>
        <message>
            <source>%1 does not exist on that day in %2: the clocks change then</source>
            <translation>%1 gibt es an diesem Tag in %2 nicht: Dann wird die Uhr umgestellt</translation>
        </message>
        <message>
            <source>(later runs shift by how long each run takes)</source>
            <translation>(spätere Läufe verschieben sich um die Dauer jedes Laufs)</translation>
        </message>
        <message>
            <source>1: every month; 3: every quarter; 12: every year; 24: every other year</source>
            <translation>1: jeden Monat; 3: jedes Quartal; 12: jedes Jahr; 24: jedes zweite Jahr</translation>
        </message>
        <message>
            <source>A weekday of the month</source>
            <translation>Ein Wochentag des Monats</translation>
        </message>
        <message>
            <source>Advanced: a cron expression</source>
            <translation>Erweitert: ein Cron-Ausdruck</translation>
        </message>
        <message>
            <source>Again after each run finishes, after a wait</source>
            <translation>Erneut nach jedem Lauf, nach einer Wartezeit</translation>
        </message>
        <message>
            <source>As it is: %1</source>
            <translation>Wie bisher: %1</translation>
        </message>
        <message>
            <source>At</source>
            <translation>Um</translation>
        </message>
        <message>
            <source>Cannot work out the runs: %1</source>
            <translation>Die Läufe lassen sich nicht bestimmen: %1</translation>
        </message>
        <message>
            <source>Cron expression</source>
            <translation>Cron-Ausdruck</translation>
        </message>
        <message>
            <source>Date and time</source>
            <translation>Datum und Uhrzeit</translation>
        </message>
        <message>
            <source>Day</source>
            <translation>Tag</translation>
        </message>
        <message>
            <source>Day counted from the end</source>
            <translation>Tag vom Monatsende gezählt</translation>
        </message>
        <message>
            <source>Day of the month</source>
            <translation>Tag des Monats</translation>
        </message>
        <message>
            <source>Days</source>
            <translation>Tage</translation>
        </message>
        <message>
            <source>Every</source>
            <translation>Alle</translation>
        </message>
        <message>
            <source>Every day at…</source>
            <translation>Täglich um…</translation>
        </message>
        <message>
            <source>Every few minutes or hours</source>
            <translation>Alle paar Minuten oder Stunden</translation>
        </message>
        <message>
            <source>Every weekday (Monday to Friday) at…</source>
            <translation>Werktags (Montag bis Freitag) um…</translation>
        </message>
        <message>
            <source>Expression</source>
            <translation>Ausdruck</translation>
        </message>
        <message>
            <source>Five fields: minute hour day-of-month month day-of-week</source>
            <translation>Fünf Felder: Minute Stunde Tag-des-Monats Monat Wochentag</translation>
        </message>
        <message>
            <source>Five fields: minute hour day-of-month month day-of-week, e.g. 30 9 * * MON-FRI</source>
            <translation>Fünf Felder: Minute Stunde Tag-des-Monats Monat Wochentag, z. B. 30 9 * * MON-FRI</translation>
        </message>
        <message>
            <source>Fri</source>
            <translation>Fr</translation>
        </message>
        <message>
            <source>Friday</source>
            <translation>Freitag</translation>
        </message>
        <message>
            <source>How often</source>
            <translation>Wie oft</translation>
        </message>
        <message>
            <source>Mon</source>
            <translation>Mo</translation>
        </message>
        <message>
            <source>Monday</source>
            <translation>Montag</translation>
        </message>
        <message>
            <source>Months apart</source>
            <translation>Monate Abstand</translation>
        </message>
        <message>
            <source>Months without this day are skipped.</source>
            <translation>Monate ohne diesen Tag werden übersprungen.</translation>
        </message>
        <message>
            <source>Next runs</source>
            <translation>Nächste Läufe</translation>
        </message>
        <message>
            <source>No runs ahead.</source>
            <translation>Keine Läufe geplant.</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Am</translation>
        </message>
        <message>
            <source>On a day of the month at…</source>
            <translation>An einem Tag des Monats um…</translation>
        </message>
        <message>
            <source>On chosen days of the week at…</source>
            <translation>An gewählten Wochentagen um…</translation>
        </message>
        <message>
            <source>Once, at a date and time</source>
            <translation>Einmal, zu einem Zeitpunkt</translation>
        </message>
        <message>
            <source>Only when I run it</source>
            <translation>Nur wenn ich es starte</translation>
        </message>
        <message>
            <source>Runs</source>
            <translation>Läufe</translation>
        </message>
        <message>
            <source>Runs in this month and every so many months after it</source>
            <translation>Läuft in diesem Monat und danach alle so vielen Monate</translation>
        </message>
        <message>
            <source>Runs only when you start it.</source>
            <translation>Läuft nur, wenn Sie es starten.</translation>
        </message>
        <message>
            <source>Sat</source>
            <translation>Sa</translation>
        </message>
        <message>
            <source>Saturday</source>
            <translation>Samstag</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>Zeitplan</translation>
        </message>
        <message>
            <source>Sun</source>
            <translation>So</translation>
        </message>
        <message>
            <source>Sunday</source>
            <translation>Sonntag</translation>
        </message>
        <message>
            <source>The first month counted</source>
            <translation>Der erste gezählte Monat</translation>
        </message>
        <message>
            <source>The last day</source>
            <translation>Der letzte Tag</translation>
        </message>
        <message>
            <source>The schedule as it is</source>
            <translation>Der Zeitplan wie bisher</translation>
        </message>
        <message>
            <source>Thu</source>
            <translation>Do</translation>
        </message>
        <message>
            <source>Thursday</source>
            <translation>Donnerstag</translation>
        </message>
        <message>
            <source>Time of day</source>
            <translation>Uhrzeit</translation>
        </message>
        <message>
            <source>Time zone</source>
            <translation>Zeitzone</translation>
        </message>
        <message>
            <source>Tue</source>
            <translation>Di</translation>
        </message>
        <message>
            <source>Tuesday</source>
            <translation>Dienstag</translation>
        </message>
        <message>
            <source>Wait</source>
            <translation>Wartezeit</translation>
        </message>
        <message>
            <source>Wed</source>
            <translation>Mi</translation>
        </message>
        <message>
            <source>Wednesday</source>
            <translation>Mittwoch</translation>
        </message>
        <message>
            <source>Weekday</source>
            <translation>Wochentag</translation>
        </message>
        <message>
            <source>What the expression means</source>
            <translation>Was der Ausdruck bedeutet</translation>
        </message>
        <message>
            <source>Which day of the month</source>
            <translation>Welcher Tag des Monats</translation>
        </message>
        <message>
            <source>Which one in the month</source>
            <translation>Der wievielte im Monat</translation>
        </message>
        <message>
            <source>a time that exists that day</source>
            <translation>eine Uhrzeit, die es an diesem Tag gibt</translation>
        </message>
        <message>
            <source>a time zone from the list</source>
            <translation>eine Zeitzone aus der Liste</translation>
        </message>
        <message>
            <source>after each run finishes</source>
            <translation>nach dem Ende jedes Laufs</translation>
        </message>
        <message>
            <source>choose at least one day</source>
            <translation>wählen Sie mindestens einen Tag</translation>
        </message>
        <message>
            <source>fifth</source>
            <translation>fünfte</translation>
        </message>
        <message>
            <source>fifth to last</source>
            <translation>fünftletzte</translation>
        </message>
        <message>
            <source>first</source>
            <translation>erste</translation>
        </message>
        <message>
            <source>fourth</source>
            <translation>vierte</translation>
        </message>
        <message>
            <source>fourth to last</source>
            <translation>viertletzte</translation>
        </message>
        <message>
            <source>from</source>
            <translation>ab</translation>
        </message>
        <message>
            <source>last</source>
            <translation>letzte</translation>
        </message>
        <message>
            <source>month(s) apart</source>
            <translation>Monat(e) Abstand</translation>
        </message>
        <message>
            <source>one or more days of the week</source>
            <translation>ein oder mehrere Wochentage</translation>
        </message>
        <message>
            <source>second</source>
            <translation>zweite</translation>
        </message>
        <message>
            <source>second to last</source>
            <translation>vorletzte</translation>
        </message>
        <message>
            <source>third</source>
            <translation>dritte</translation>
        </message>
        <message>
            <source>third to last</source>
            <translation>drittletzte</translation>
        </message>
        <message>
            <source>unknown time zone “%1”</source>
            <translation>unbekannte Zeitzone „%1“</translation>
        </message>
        <message>
            <source>working day (Monday to Friday)</source>
            <translation>Werktag (Montag bis Freitag)</translation>
        </message>
    </context>
    <context>
        <name>ScriptEditor</name>
        <message>
            <source>&amp;Try it</source>
            <translation>&amp;Ausprobieren</translation>
        </message>
        <message>
            <source>JavaScript: a default export that proposes actions</source>
            <translation>JavaScript: ein Default-Export, der Aktionen vorschlägt</translation>
        </message>
        <message>
            <source>Runs the script now without applying anything (Ctrl+Enter)</source>
            <translation>Führt das Skript jetzt aus, ohne etwas anzuwenden (Strg+Eingabe)</translation>
        </message>
        <message>
            <source>Script</source>
            <translation>Skript</translation>
        </message>
        <message>
            <source>Try the script: a dry run</source>
            <translation>Das Skript ausprobieren: ein Probelauf</translation>
        </message>
        <message>
            <source>Trying…</source>
            <translation>Wird ausprobiert…</translation>
        </message>
    </context>
    <context>
        <name>SessionView</name>
        <message>
            <source>%1 ms</source>
            <translation>%1 ms</translation>
        </message>
        <message>
            <source>%1 prompt tokens, %2 completion tokens</source>
            <translation>%1 Prompt-Tokens, %2 Antwort-Tokens</translation>
        </message>
        <message>
            <source>%1 tokens</source>
            <translation>%1 Tokens</translation>
        </message>
        <message numerus="yes">
            <source>%n reads</source>
            <translation>
                <numerusform>%n Lesezugriff</numerusform>
                <numerusform>%n Lesezugriffe</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n Werkzeugaufruf</numerusform>
                <numerusform>%n Werkzeugaufrufe</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n turn(s)</source>
            <translation>
                <numerusform>%n Runde</numerusform>
                <numerusform>%n Runden</numerusform>
            </translation>
        </message>
        <message>
            <source>(cut here)</source>
            <translation>(hier abgeschnitten)</translation>
        </message>
        <message>
            <source>(no output was kept)</source>
            <translation>(keine Ausgabe aufbewahrt)</translation>
        </message>
        <message>
            <source>(no output yet)</source>
            <translation>(noch keine Ausgabe)</translation>
        </message>
        <message>
            <source>(no question text)</source>
            <translation>(kein Fragetext)</translation>
        </message>
        <message>
            <source>(none yet)</source>
            <translation>(noch keine)</translation>
        </message>
        <message>
            <source>(the command printed nothing)</source>
            <translation>(der Befehl hat nichts ausgegeben)</translation>
        </message>
        <message>
            <source>1 tool call</source>
            <translation>1 Werkzeugaufruf</translation>
        </message>
        <message>
            <source>About run #%1</source>
            <translation>Über Lauf #%1</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>Agent</translation>
        </message>
        <message>
            <source>Agent — answer</source>
            <translation>Agent – Antwort</translation>
        </message>
        <message>
            <source>Answer the agent's question… (Ctrl+Return sends)</source>
            <translation>Beantworten Sie die Frage des Agenten… (Strg+Eingabe sendet)</translation>
        </message>
        <message>
            <source>Answer what the run waits for first; then you can follow up here.</source>
            <translation>Beantworten Sie zuerst, worauf der Lauf wartet; dann können Sie hier nachfassen.</translation>
        </message>
        <message>
            <source>Applied?</source>
            <translation>Angewendet?</translation>
        </message>
        <message>
            <source>Approve</source>
            <translation>Erlauben</translation>
        </message>
        <message>
            <source>Approve or deny the call above first.</source>
            <translation>Erlauben oder verweigern Sie zuerst den Aufruf oben.</translation>
        </message>
        <message>
            <source>Approve the call the discussion waits for</source>
            <translation>Den Aufruf erlauben, auf den die Diskussion wartet</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Argumente</translation>
        </message>
        <message>
            <source>Arguments of the waiting call</source>
            <translation>Argumente des wartenden Aufrufs</translation>
        </message>
        <message>
            <source>Ask a follow-up… (Ctrl+Return sends)</source>
            <translation>Eine weitere Frage stellen… (Strg+Eingabe sendet)</translation>
        </message>
        <message>
            <source>Ask the agent about run #%1… (Ctrl+Return sends)</source>
            <translation>Fragen Sie den Agenten zu Lauf #%1… (Strg+Eingabe sendet)</translation>
        </message>
        <message>
            <source>Ask the agent about this run in a separate conversation: nothing of it goes into the automation's history</source>
            <translation>Den Agenten in einem eigenen Gespräch zu diesem Lauf befragen: nichts davon geht in den Verlauf der Automation ein</translation>
        </message>
        <message>
            <source>Choices: %1</source>
            <translation>Auswahl: %1</translation>
        </message>
        <message>
            <source>Close all tool calls</source>
            <translation>Alle Werkzeugaufrufe zuklappen</translation>
        </message>
        <message>
            <source>Command output</source>
            <translation>Ausgabe des Befehls</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>Gespräch</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Verweigern</translation>
        </message>
        <message>
            <source>Deny the call the discussion waits for</source>
            <translation>Den Aufruf verweigern, auf den die Diskussion wartet</translation>
        </message>
        <message>
            <source>Discuss this run with its agent</source>
            <translation>Diesen Lauf mit seinem Agenten besprechen</translation>
        </message>
        <message>
            <source>Discuss this run…</source>
            <translation>Diesen Lauf besprechen…</translation>
        </message>
        <message>
            <source>Discussion</source>
            <translation>Diskussion</translation>
        </message>
        <message>
            <source>Discussion — the agent is answering…</source>
            <translation>Diskussion – der Agent antwortet…</translation>
        </message>
        <message>
            <source>Discussions of this run</source>
            <translation>Diskussionen dieses Laufs</translation>
        </message>
        <message>
            <source>Discussions of this run: %1</source>
            <translation>Diskussionen dieses Laufs: %1</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>Probelauf</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>Fehler</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>Exit status</source>
            <translation>Exit-Status</translation>
        </message>
        <message>
            <source>Follow up: tell the agent what to do next… (Ctrl+Return sends)</source>
            <translation>Nachfassen: Sagen Sie dem Agenten, was er als Nächstes tun soll… (Strg+Eingabe sendet)</translation>
        </message>
        <message>
            <source>Follow-up problem</source>
            <translation>Problem beim Nachfassen</translation>
        </message>
        <message>
            <source>Follow-up to the agent</source>
            <translation>Nachricht an den Agenten</translation>
        </message>
        <message>
            <source>Hide the event</source>
            <translation>Ereignis ausblenden</translation>
        </message>
        <message>
            <source>How the script ran</source>
            <translation>Wie das Skript lief</translation>
        </message>
        <message>
            <source>It proposed nothing.</source>
            <translation>Es hat nichts vorgeschlagen.</translation>
        </message>
        <message>
            <source>It waits until %1, then expires.</source>
            <translation>Er wartet bis %1 und verfällt dann.</translation>
        </message>
        <message>
            <source>No tool calls</source>
            <translation>Keine Werkzeugaufrufe</translation>
        </message>
        <message>
            <source>Not sent: %1</source>
            <translation>Nicht gesendet: %1</translation>
        </message>
        <message>
            <source>Open all tool calls</source>
            <translation>Alle Werkzeugaufrufe aufklappen</translation>
        </message>
        <message>
            <source>Output (standard output and standard error, as printed; the last 64 KiB)</source>
            <translation>Ausgabe (Standardausgabe und Standardfehler, wie ausgegeben; die letzten 64 KiB)</translation>
        </message>
        <message>
            <source>Prompt</source>
            <translation>Prompt</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>Ergebnis</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>Lauf</translation>
        </message>
        <message>
            <source>Run #%1</source>
            <translation>Lauf #%1</translation>
        </message>
        <message>
            <source>Run state</source>
            <translation>Zustand des Laufs</translation>
        </message>
        <message>
            <source>Select a run to see its output or conversation.</source>
            <translation>Wählen Sie einen Lauf, um seine Ausgabe oder sein Gespräch zu sehen.</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Senden</translation>
        </message>
        <message>
            <source>Send follow-up</source>
            <translation>Nachricht senden</translation>
        </message>
        <message>
            <source>Send the follow-up (Ctrl+Return)</source>
            <translation>Nachricht senden (Strg+Eingabe)</translation>
        </message>
        <message>
            <source>Show every tool call's arguments and result</source>
            <translation>Argumente und Ergebnis jedes Werkzeugaufrufs zeigen</translation>
        </message>
        <message>
            <source>Show or hide the arguments and the result</source>
            <translation>Argumente und Ergebnis zeigen oder verbergen</translation>
        </message>
        <message>
            <source>Show the event</source>
            <translation>Ereignis zeigen</translation>
        </message>
        <message>
            <source>Show the event that started this run</source>
            <translation>Das Ereignis zeigen, das diesen Lauf gestartet hat</translation>
        </message>
        <message>
            <source>System</source>
            <translation>System</translation>
        </message>
        <message>
            <source>The actions it proposed</source>
            <translation>Die vorgeschlagenen Aktionen</translation>
        </message>
        <message>
            <source>The agent is answering…</source>
            <translation>Der Agent antwortet…</translation>
        </message>
        <message>
            <source>The agent wants to %1 (%2).</source>
            <translation>Der Agent möchte %1 (%2).</translation>
        </message>
        <message>
            <source>The conversation is empty so far.</source>
            <translation>Das Gespräch ist bisher leer.</translation>
        </message>
        <message>
            <source>The event, as received (untrusted)</source>
            <translation>Das Ereignis, wie empfangen (nicht vertrauenswürdig)</translation>
        </message>
        <message>
            <source>The script's log</source>
            <translation>Das Protokoll des Skripts</translation>
        </message>
        <message>
            <source>Token usage</source>
            <translation>Token-Verbrauch</translation>
        </message>
        <message>
            <source>Waiting for your answer</source>
            <translation>Wartet auf Ihre Antwort</translation>
        </message>
        <message>
            <source>Waiting for your permission</source>
            <translation>Wartet auf Ihre Erlaubnis</translation>
        </message>
        <message>
            <source>What it waits for</source>
            <translation>Worauf er wartet</translation>
        </message>
        <message>
            <source>What started this run</source>
            <translation>Was diesen Lauf gestartet hat</translation>
        </message>
        <message>
            <source>You</source>
            <translation>Sie</translation>
        </message>
        <message>
            <source>You can follow up once this run has ended.</source>
            <translation>Sie können nachfassen, sobald dieser Lauf beendet ist.</translation>
        </message>
        <message>
            <source>a read was cut to its row limit</source>
            <translation>ein Lesezugriff wurde auf seine Zeilengrenze gekürzt</translation>
        </message>
        <message>
            <source>an earlier turn</source>
            <translation>eine frühere Runde</translation>
        </message>
        <message>
            <source>apart from the automation's history; its folder is read-only here</source>
            <translation>getrennt vom Verlauf der Automation; ihr Ordner ist hier schreibgeschützt</translation>
        </message>
        <message>
            <source>attempt %1</source>
            <translation>Versuch %1</translation>
        </message>
        <message>
            <source>discussion</source>
            <translation>Diskussion</translation>
        </message>
        <message>
            <source>memory peak %1 KB</source>
            <translation>Speicherspitze %1 KB</translation>
        </message>
        <message>
            <source>no result</source>
            <translation>kein Ergebnis</translation>
        </message>
        <message>
            <source>run #%1 of the automation</source>
            <translation>Lauf #%1 der Automation</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>läuft…</translation>
        </message>
        <message>
            <source>started %1</source>
            <translation>gestartet %1</translation>
        </message>
        <message>
            <source>this run</source>
            <translation>dieser Lauf</translation>
        </message>
        <message>
            <source>took %1</source>
            <translation>dauerte %1</translation>
        </message>
        <message>
            <source>waiting for your answer</source>
            <translation>wartet auf Ihre Antwort</translation>
        </message>
        <message>
            <source>waiting for your permission</source>
            <translation>wartet auf Ihre Erlaubnis</translation>
        </message>
        <message>
            <source>waits for you</source>
            <translation>wartet auf Sie</translation>
        </message>
    </context>
    <context>
        <name>Settings</name>
        <message>
            <source>Page</source>
            <translation>Seite</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>A key is stored in the system keyring.</source>
            <translation>Ein Schlüssel ist im Schlüsselbund des Systems gespeichert.</translation>
        </message>
        <message>
            <source>A new language applies the next time Errands starts.</source>
            <translation>Eine neue Sprache gilt ab dem nächsten Start von Errands.</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API-Schlüssel</translation>
        </message>
        <message>
            <source>API key:</source>
            <translation>API-Schlüssel:</translation>
        </message>
        <message>
            <source>Agent runs talk to an OpenAI-compatible API: a local server such as Ollama, or a hosted one.</source>
            <translation>Agent-Läufe sprechen mit einer OpenAI-kompatiblen API: einem lokalen Server wie Ollama oder einem gehosteten.</translation>
        </message>
        <message>
            <source>Base URL:</source>
            <translation>Basis-URL:</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Catalogue</source>
            <translation>Katalog</translation>
        </message>
        <message>
            <source>Close without saving</source>
            <translation>Schließen ohne zu speichern</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>Dunkel</translation>
        </message>
        <message>
            <source>English</source>
            <translation>Englisch</translation>
        </message>
        <message>
            <source>Errands keeps each automation's newest runs and output logs; older ones are deleted as new runs end.</source>
            <translation>Errands behält von jeder Automatisierung die neuesten Läufe und Ausgabeprotokolle; ältere werden gelöscht, sobald neue Läufe enden.</translation>
        </message>
        <message>
            <source>General</source>
            <translation>Allgemein</translation>
        </message>
        <message>
            <source>Grace window:</source>
            <translation>Toleranzfenster:</translation>
        </message>
        <message>
            <source>History</source>
            <translation>Verlauf</translation>
        </message>
        <message>
            <source>How late a due fire may still run normally, e.g. 2m.</source>
            <translation>Wie spät ein fälliger Termin noch normal laufen darf, z. B. 2m.</translation>
        </message>
        <message>
            <source>How long a run waiting for your decision waits before it expires, e.g. 24h.</source>
            <translation>Wie lange ein Lauf, der auf Ihre Entscheidung wartet, wartet, bevor er verfällt, z. B. 24h.</translation>
        </message>
        <message>
            <source>How long an automation's runs may wait for a decision nobody gives before the automation is paused, e.g. 7d.</source>
            <translation>Wie lange die Läufe einer Automatisierung auf eine Entscheidung warten dürfen, die niemand trifft, bevor die Automatisierung pausiert wird, z. B. 7d.</translation>
        </message>
        <message>
            <source>How long one model request may take, e.g. 2m.</source>
            <translation>Wie lange eine Anfrage an das Modell dauern darf, z. B. 2m.</translation>
        </message>
        <message>
            <source>How many ended runs each automation keeps, 1 to 1,000,000; older ones are deleted with their output and conversations. An automation's own history limit overrides it.</source>
            <translation>Wie viele beendete Läufe jede Automatisierung behält, 1 bis 1.000.000; ältere werden mit ihrer Ausgabe und ihren Gesprächen gelöscht. Ein eigenes Verlaufslimit der Automatisierung hat Vorrang.</translation>
        </message>
        <message>
            <source>How many runs may be active at the same time (1 to 1000).</source>
            <translation>Wie viele Läufe gleichzeitig aktiv sein dürfen (1 bis 1000).</translation>
        </message>
        <message>
            <source>How much run output each automation keeps on disk, e.g. 50MB (1KB to 1TB); its oldest logs are deleted first.</source>
            <translation>Wie viel Laufausgabe jede Automatisierung auf dem Datenträger behält, z. B. 50MB (1KB bis 1TB); ihre ältesten Protokolle werden zuerst gelöscht.</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>Sprache</translation>
        </message>
        <message>
            <source>Language:</source>
            <translation>Sprache:</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>Hell</translation>
        </message>
        <message>
            <source>Limits</source>
            <translation>Grenzen</translation>
        </message>
        <message>
            <source>MCP servers whose tools every agent run may use, beside its own. Give a command that starts one (npx -y @modelcontextprotocol/server-filesystem ~/notes) or the URL of one that runs elsewhere. Each call of their tools asks you first unless a permission rule for mcp allows it (pattern server.tool).</source>
            <translation>MCP-Server, deren Werkzeuge jeder Agentenlauf neben seinen eigenen nutzen darf. Geben Sie einen Befehl an, der einen startet (npx -y @modelcontextprotocol/server-filesystem ~/notes), oder die URL eines Servers, der anderswo läuft. Jeder Aufruf ihrer Werkzeuge fragt Sie zuerst, außer eine Berechtigungsregel für mcp erlaubt ihn (Muster server.tool).</translation>
        </message>
        <message>
            <source>Minimum interval:</source>
            <translation>Mindestabstand:</translation>
        </message>
        <message>
            <source>Model provider</source>
            <translation>Modellanbieter</translation>
        </message>
        <message>
            <source>Model:</source>
            <translation>Modell:</translation>
        </message>
        <message>
            <source>No key is stored. Local providers need none.</source>
            <translation>Kein Schlüssel gespeichert. Lokale Anbieter brauchen keinen.</translation>
        </message>
        <message>
            <source>Output kept:</source>
            <translation>Behaltene Ausgabe:</translation>
        </message>
        <message>
            <source>Parked runs expire after:</source>
            <translation>Wartende Läufe verfallen nach:</translation>
        </message>
        <message>
            <source>Paste the provider's API key</source>
            <translation>Den API-Schlüssel des Anbieters einfügen</translation>
        </message>
        <message>
            <source>Pause if unanswered for:</source>
            <translation>Pausieren, wenn so lange unbeantwortet:</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>Berechtigungen</translation>
        </message>
        <message>
            <source>Remove key</source>
            <translation>Schlüssel entfernen</translation>
        </message>
        <message>
            <source>Remove the API key from the keyring</source>
            <translation>Den API-Schlüssel aus dem Schlüsselbund entfernen</translation>
        </message>
        <message>
            <source>Request timeout:</source>
            <translation>Zeitlimit für Anfragen:</translation>
        </message>
        <message>
            <source>Runs at once:</source>
            <translation>Läufe gleichzeitig:</translation>
        </message>
        <message>
            <source>Runs kept:</source>
            <translation>Behaltene Läufe:</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>Speichern</translation>
        </message>
        <message>
            <source>Save key</source>
            <translation>Schlüssel speichern</translation>
        </message>
        <message>
            <source>Save the API key in the keyring</source>
            <translation>Den API-Schlüssel im Schlüsselbund speichern</translation>
        </message>
        <message>
            <source>Save the settings</source>
            <translation>Die Einstellungen speichern</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>Wird gespeichert…</translation>
        </message>
        <message>
            <source>Sections of the settings</source>
            <translation>Abschnitte der Einstellungen</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Einstellungen</translation>
        </message>
        <message>
            <source>Settings sections</source>
            <translation>Einstellungsabschnitte</translation>
        </message>
        <message>
            <source>Start Errands when I log in</source>
            <translation>Errands bei der Anmeldung starten</translation>
        </message>
        <message>
            <source>Start at login</source>
            <translation>Bei der Anmeldung starten</translation>
        </message>
        <message>
            <source>Start at login:</source>
            <translation>Bei der Anmeldung starten:</translation>
        </message>
        <message>
            <source>System</source>
            <translation>System</translation>
        </message>
        <message>
            <source>System default</source>
            <translation>Systemstandard</translation>
        </message>
        <message>
            <source>Test</source>
            <translation>Testen</translation>
        </message>
        <message>
            <source>Test result</source>
            <translation>Testergebnis</translation>
        </message>
        <message>
            <source>Test the model provider</source>
            <translation>Den Modellanbieter testen</translation>
        </message>
        <message>
            <source>Testing the provider…</source>
            <translation>Anbieter wird getestet…</translation>
        </message>
        <message>
            <source>The API root; the chat path is added to it.</source>
            <translation>Die Wurzel der API; der Chat-Pfad wird angehängt.</translation>
        </message>
        <message>
            <source>The shortest gap allowed between two fires, e.g. 60s or 5m.</source>
            <translation>Der kürzeste erlaubte Abstand zwischen zwei Terminen, z. B. 60s oder 5m.</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Design</translation>
        </message>
        <message>
            <source>Theme:</source>
            <translation>Design:</translation>
        </message>
        <message>
            <source>Tool servers</source>
            <translation>Werkzeugserver</translation>
        </message>
        <message>
            <source>Type a new key to replace it</source>
            <translation>Geben Sie einen neuen Schlüssel ein, um ihn zu ersetzen</translation>
        </message>
        <message>
            <source>Used by agent runs unless an automation names its own.</source>
            <translation>Wird von Agent-Läufen verwendet, sofern eine Automatisierung kein eigenes nennt.</translation>
        </message>
        <message>
            <source>What agent runs may do without asking. A rule names a tool (or an effect such as write, or * for all), a pattern for the path, command or URL (* for every call) and an action. The last rule that matches a call decides; a deny here cannot be lifted by an automation.</source>
            <translation>Was Agent-Läufe ohne Nachfrage tun dürfen. Eine Regel nennt ein Werkzeug (oder eine Wirkung wie write, oder * für alle), ein Muster für Pfad, Befehl oder URL (* für jeden Aufruf) und eine Aktion. Die letzte Regel, die auf einen Aufruf passt, entscheidet; ein deny hier kann keine Automatisierung aufheben.</translation>
        </message>
    </context>
    <context>
        <name>SettingsFlow</name>
        <message>
            <source>A password is kept in the keyring.</source>
            <translation>Ein Passwort liegt im Schlüsselbund.</translation>
        </message>
        <message>
            <source>Cannot test: {0}</source>
            <translation>Test nicht möglich: {0}</translation>
        </message>
        <message>
            <source>Errands uses this catalogue from its next start.</source>
            <translation>Errands verwendet diesen Katalog ab dem nächsten Start.</translation>
        </message>
        <message>
            <source>Give a base URL and a model first.</source>
            <translation>Geben Sie zuerst eine Basis-URL und ein Modell an.</translation>
        </message>
        <message>
            <source>It works: the provider answered, accepted the key, has the model, and the model calls tools.</source>
            <translation>Es funktioniert: Der Anbieter hat geantwortet, den Schlüssel akzeptiert, hat das Modell, und das Modell ruft Werkzeuge auf.</translation>
        </message>
        <message>
            <source>The header value of “{0}” is kept in the system keyring.</source>
            <translation>Der Header-Wert von „{0}“ liegt im Schlüsselbund des Systems.</translation>
        </message>
        <message>
            <source>The key was refused</source>
            <translation>Der Schlüssel wurde abgelehnt</translation>
        </message>
        <message>
            <source>The keyring refused the password: %1</source>
            <translation>Der Schlüsselbund hat das Passwort abgelehnt: %1</translation>
        </message>
        <message>
            <source>The model does not call tools</source>
            <translation>Das Modell ruft keine Werkzeuge auf</translation>
        </message>
        <message>
            <source>The model is not there</source>
            <translation>Das Modell ist nicht vorhanden</translation>
        </message>
        <message>
            <source>The system keyring could not keep it: {0}</source>
            <translation>Der Schlüsselbund des Systems konnte ihn nicht speichern: {0}</translation>
        </message>
        <message>
            <source>Unreachable</source>
            <translation>Nicht erreichbar</translation>
        </message>
    </context>
    <context>
        <name>Startup</name>
        <message>
            <source>Errands cannot open</source>
            <translation>Errands kann nicht öffnen</translation>
        </message>
        <message>
            <source>Errands cannot open its data.</source>
            <translation>Errands kann seine Daten nicht öffnen.</translation>
        </message>
    </context>
    <context>
        <name>TemplateCard</name>
        <message>
            <source>Needs a model</source>
            <translation>Braucht ein Modell</translation>
        </message>
        <message>
            <source>No model needed</source>
            <translation>Kein Modell nötig</translation>
        </message>
    </context>
    <context>
        <name>TemplateWizard</name>
        <message>
            <source>Back</source>
            <translation>Zurück</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>Anlegen</translation>
        </message>
        <message>
            <source>New from template</source>
            <translation>Neu aus Vorlage</translation>
        </message>
        <message>
            <source>Next</source>
            <translation>Weiter</translation>
        </message>
    </context>
    <context>
        <name>Timeline</name>
        <message>
            <source>Nothing is due in this window.</source>
            <translation>In diesem Zeitraum ist nichts fällig.</translation>
        </message>
        <message>
            <source>Upcoming fires on a timeline</source>
            <translation>Anstehende Termine auf einer Zeitleiste</translation>
        </message>
    </context>
    <context>
        <name>TokenDialog</name>
        <message>
            <source>A command that calls trigger %1</source>
            <translation>Ein Befehl, der den Auslöser %1 aufruft</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Adresse</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>Kopieren</translation>
        </message>
        <message>
            <source>Copy %1</source>
            <translation>%1 kopieren</translation>
        </message>
        <message>
            <source>Example</source>
            <translation>Beispiel</translation>
        </message>
        <message>
            <source>Its web address</source>
            <translation>Ihre Webadresse</translation>
        </message>
        <message>
            <source>Send a POST with a JSON body to this address to start it, with the header “Authorization: Bearer TOKEN”. The token is shown only now: copy it before closing.</source>
            <translation>Senden Sie ein POST mit JSON-Inhalt an diese Adresse, um sie zu starten, mit dem Header „Authorization: Bearer TOKEN“. Das Token wird nur jetzt gezeigt: Kopieren Sie es vor dem Schließen.</translation>
        </message>
        <message>
            <source>Token</source>
            <translation>Token</translation>
        </message>
        <message>
            <source>Token of trigger %1</source>
            <translation>Token des Auslösers %1</translation>
        </message>
        <message>
            <source>Web address of trigger %1</source>
            <translation>Webadresse des Auslösers %1</translation>
        </message>
    </context>
    <context>
        <name>ToolServersEditor</name>
        <message>
            <source>Add an MCP server</source>
            <translation>Einen MCP-Server hinzufügen</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>Server hinzufügen</translation>
        </message>
        <message>
            <source>Command or URL</source>
            <translation>Befehl oder URL</translation>
        </message>
        <message>
            <source>Its answers are not treated as text from outside (which makes later commands ask)</source>
            <translation>Seine Antworten gelten nicht als Text von außen (nach dem spätere Befehle fragen)</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP-Server</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Name</translation>
        </message>
        <message>
            <source>Remove server</source>
            <translation>Server entfernen</translation>
        </message>
        <message>
            <source>Remove the selected MCP servers</source>
            <translation>Die gewählten MCP-Server entfernen</translation>
        </message>
        <message>
            <source>Secret header</source>
            <translation>Geheimer Header</translation>
        </message>
        <message>
            <source>Secret header value</source>
            <translation>Geheimer Header-Wert</translation>
        </message>
        <message>
            <source>Server {0}: {1}</source>
            <translation>Server {0}: {1}</translation>
        </message>
        <message>
            <source>Set header value…</source>
            <translation>Header-Wert festlegen…</translation>
        </message>
        <message>
            <source>Set the secret header value of the selected server</source>
            <translation>Den geheimen Header-Wert des gewählten Servers festlegen</translation>
        </message>
        <message>
            <source>The value of the {0} header for “{1}” (kept in the system keyring, never shown again):</source>
            <translation>Der Wert des Headers {0} für „{1}“ (im Schlüsselbund des Systems gespeichert, nie wieder angezeigt):</translation>
        </message>
        <message>
            <source>Trusted</source>
            <translation>Vertrauenswürdig</translation>
        </message>
    </context>
    <context>
        <name>Tray</name>
        <message numerus="yes">
            <source>%n need you</source>
            <translation>
                <numerusform>%n braucht Sie</numerusform>
                <numerusform>%n brauchen Sie</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n needs you</source>
            <translation>
                <numerusform>%n braucht Sie</numerusform>
                <numerusform>%n brauchen Sie</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n running</source>
            <translation>
                <numerusform>%n läuft</numerusform>
                <numerusform>%n laufen</numerusform>
            </translation>
        </message>
        <message>
            <source>Errands tray menu</source>
            <translation>Errands-Menü im Infobereich</translation>
        </message>
        <message>
            <source>New automation…</source>
            <translation>Neue Automatisierung…</translation>
        </message>
        <message>
            <source>No automations yet</source>
            <translation>Noch keine Automatisierungen</translation>
        </message>
        <message>
            <source>Open Errands</source>
            <translation>Errands öffnen</translation>
        </message>
        <message>
            <source>Pause all</source>
            <translation>Alle pausieren</translation>
        </message>
        <message>
            <source>Quit Errands</source>
            <translation>Errands beenden</translation>
        </message>
        <message>
            <source>Resume all</source>
            <translation>Alle fortsetzen</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>Jetzt ausführen</translation>
        </message>
        <message>
            <source>Run now: recent automations</source>
            <translation>Jetzt ausführen: zuletzt verwendete Automatisierungen</translation>
        </message>
        <message>
            <source>everything paused</source>
            <translation>alles pausiert</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>untätig</translation>
        </message>
    </context>
    <context>
        <name>TrialDialog</name>
        <message>
            <source>Dry run of “%1”</source>
            <translation>Probelauf von „%1“</translation>
        </message>
        <message>
            <source>Running it in its sandbox…</source>
            <translation>Läuft in seiner Sandbox…</translation>
        </message>
    </context>
    <context>
        <name>TrialView</name>
        <message>
            <source>(line %1)</source>
            <translation>(Zeile %1)</translation>
        </message>
        <message>
            <source>It proposes nothing.</source>
            <translation>Es schlägt nichts vor.</translation>
        </message>
        <message>
            <source>It would apply %1 of %2 actions.</source>
            <translation>Es würde %1 von %2 Aktionen anwenden.</translation>
        </message>
        <message>
            <source>Log: %1</source>
            <translation>Protokoll: %1</translation>
        </message>
        <message>
            <source>Nothing was applied.</source>
            <translation>Nichts wurde angewendet.</translation>
        </message>
        <message>
            <source>Proposed actions</source>
            <translation>Vorgeschlagene Aktionen</translation>
        </message>
        <message>
            <source>Try it runs the script in its sandbox and lists what it would do; nothing is applied.</source>
            <translation>Ausprobieren führt das Skript in seiner Sandbox aus und listet, was es tun würde; nichts wird angewendet.</translation>
        </message>
        <message>
            <source>What the dry run found</source>
            <translation>Was der Probelauf ergab</translation>
        </message>
        <message>
            <source>Would it apply?</source>
            <translation>Würde es angewendet?</translation>
        </message>
    </context>
    <context>
        <name>UpcomingView</name>
        <message>
            <source>Listed up to %1 only: this window holds more fires than one list can show. Choose the shorter window to see them all.</source>
            <translation>Nur bis %1 aufgeführt: Dieser Zeitraum enthält mehr Termine, als eine Liste zeigen kann. Wählen Sie den kürzeren Zeitraum, um alle zu sehen.</translation>
        </message>
        <message>
            <source>Next 24 hours</source>
            <translation>Nächste 24 Stunden</translation>
        </message>
        <message>
            <source>Next 7 days</source>
            <translation>Nächste 7 Tage</translation>
        </message>
        <message>
            <source>Nothing is due in this window. Manual and paused automations do not fire on their own.</source>
            <translation>In diesem Zeitraum ist nichts fällig. Manuelle und pausierte Automatisierungen werden nicht von selbst ausgelöst.</translation>
        </message>
        <message>
            <source>Upcoming</source>
            <translation>Demnächst</translation>
        </message>
        <message>
            <source>Upcoming fires</source>
            <translation>Anstehende Termine</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Blank form…</source>
            <translation>Leeres Formular…</translation>
        </message>
        <message>
            <source>Describe it in words…</source>
            <translation>In Worten beschreiben…</translation>
        </message>
        <message>
            <source>From a template…</source>
            <translation>Aus einer Vorlage…</translation>
        </message>
        <message>
            <source>Getting started</source>
            <translation>Erste Schritte</translation>
        </message>
        <message>
            <source>No model is set up yet: automations that ask an AI agent need one. These templates work without: %1.</source>
            <translation>Noch kein Modell eingerichtet: Automatisierungen, die einen KI-Agenten fragen, brauchen eines. Diese Vorlagen funktionieren ohne: %1.</translation>
        </message>
        <message>
            <source>No model is set up yet: automations that ask an AI agent need one; shell commands work without.</source>
            <translation>Noch kein Modell eingerichtet: Automatisierungen, die einen KI-Agenten fragen, brauchen eines; Shell-Befehle funktionieren ohne.</translation>
        </message>
        <message>
            <source>Nothing to run yet. Start with one of these:</source>
            <translation>Noch nichts zu tun. Beginnen Sie so:</translation>
        </message>
        <message>
            <source>Pick a ready-made automation and fill in a few blanks.</source>
            <translation>Eine fertige Automatisierung wählen und ein paar Lücken füllen.</translation>
        </message>
        <message>
            <source>Say what should happen and when, e.g. “every weekday at 9am check the disk”; you confirm it on a card.</source>
            <translation>Sagen Sie, was wann geschehen soll, z. B. „every weekday at 9am check the disk“ (Sätze werden auf Englisch gelesen); Sie bestätigen es auf einer Karte.</translation>
        </message>
        <message>
            <source>Set every field yourself: what runs, when, and its rules.</source>
            <translation>Jedes Feld selbst festlegen: was läuft, wann, und nach welchen Regeln.</translation>
        </message>
        <message>
            <source>Set up a model for agent automations</source>
            <translation>Ein Modell für Agenten-Automatisierungen einrichten</translation>
        </message>
        <message>
            <source>Set up a model…</source>
            <translation>Modell einrichten…</translation>
        </message>
    </context>
    <context>
        <name>WindowController</name>
        <message>
            <source>%1 cannot be imported: %2</source>
            <translation>%1 kann nicht importiert werden: %2</translation>
        </message>
        <message numerus="yes">
            <source>%n already here, left as they are.</source>
            <translation>
                <numerusform>%n ist schon vorhanden und bleibt, wie sie ist.</numerusform>
                <numerusform>%n sind schon vorhanden und bleiben, wie sie sind.</numerusform>
            </translation>
        </message>
        <message>
            <source>Approval revoked</source>
            <translation>Freigabe widerrufen</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>Archivieren</translation>
        </message>
        <message>
            <source>Archived “%1”: it no longer fires; its runs are kept. View ▸ Show archived lists it.</source>
            <translation>„%1“ archiviert: Sie löst nicht mehr aus; ihre Läufe bleiben erhalten. Ansicht ▸ Archivierte zeigen listet sie.</translation>
        </message>
        <message>
            <source>Automation created</source>
            <translation>Automatisierung angelegt</translation>
        </message>
        <message>
            <source>Automation deleted</source>
            <translation>Automatisierung gelöscht</translation>
        </message>
        <message>
            <source>Automations this run created</source>
            <translation>Von diesem Lauf angelegte Automatisierungen</translation>
        </message>
        <message>
            <source>Blank form…</source>
            <translation>Leeres Formular…</translation>
        </message>
        <message>
            <source>Copy of %1</source>
            <translation>Kopie von %1</translation>
        </message>
        <message>
            <source>Created by this run’s agent</source>
            <translation>Vom Agenten dieses Laufs angelegt</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>Describe it in a sentence…</source>
            <translation>In einem Satz beschreiben…</translation>
        </message>
        <message>
            <source>Discussion of run %1</source>
            <translation>Diskussion über Lauf %1</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>Probelauf</translation>
        </message>
        <message>
            <source>Dry run started</source>
            <translation>Probelauf gestartet</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>Duplizieren</translation>
        </message>
        <message>
            <source>Edit</source>
            <translation>Bearbeiten</translation>
        </message>
        <message>
            <source>Errands export (*.json)</source>
            <translation>Errands-Export (*.json)</translation>
        </message>
        <message>
            <source>Every automation in %1 is here already.</source>
            <translation>Jede Automatisierung aus %1 ist schon vorhanden.</translation>
        </message>
        <message>
            <source>Export automations</source>
            <translation>Automatisierungen exportieren</translation>
        </message>
        <message>
            <source>Export failed</source>
            <translation>Export fehlgeschlagen</translation>
        </message>
        <message>
            <source>Exported</source>
            <translation>Exportiert</translation>
        </message>
        <message numerus="yes">
            <source>Exported %n automations to %1</source>
            <translation>
                <numerusform>%n Automatisierung nach %1 exportiert</numerusform>
                <numerusform>%n Automatisierungen nach %1 exportiert</numerusform>
            </translation>
        </message>
        <message>
            <source>From a template…</source>
            <translation>Aus einer Vorlage…</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importieren</translation>
        </message>
        <message numerus="yes">
            <source>Import %n new automations from %1?</source>
            <translation>
                <numerusform>%n neue Automatisierung aus %1 importieren?</numerusform>
                <numerusform>%n neue Automatisierungen aus %1 importieren?</numerusform>
            </translation>
        </message>
        <message>
            <source>Import automations</source>
            <translation>Automatisierungen importieren</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n automations from %1</source>
            <translation>
                <numerusform>%n Automatisierung aus %1 importiert</numerusform>
                <numerusform>%n Automatisierungen aus %1 importiert</numerusform>
            </translation>
        </message>
        <message>
            <source>Make a new token</source>
            <translation>Neues Token erstellen</translation>
        </message>
        <message>
            <source>Make a new token for its web address? Whatever calls it with the old token is refused from now on.</source>
            <translation>Ein neues Token für ihre Webadresse erstellen? Wer sie mit dem alten Token aufruft, wird von nun an abgewiesen.</translation>
        </message>
        <message>
            <source>Mark all read</source>
            <translation>Alle als gelesen markieren</translation>
        </message>
        <message>
            <source>Mark read</source>
            <translation>Als gelesen markieren</translation>
        </message>
        <message>
            <source>New automation</source>
            <translation>Neue Automatisierung</translation>
        </message>
        <message>
            <source>New automation: in a sentence, from a template or with the form</source>
            <translation>Neue Automatisierung: in einem Satz, aus einer Vorlage oder mit dem Formular</translation>
        </message>
        <message>
            <source>New web address token</source>
            <translation>Neues Token für die Webadresse</translation>
        </message>
        <message>
            <source>Nothing to import</source>
            <translation>Nichts zu importieren</translation>
        </message>
        <message>
            <source>Nothing was imported</source>
            <translation>Nichts wurde importiert</translation>
        </message>
        <message>
            <source>Open it</source>
            <translation>Öffnen</translation>
        </message>
        <message>
            <source>Open the automation this run created</source>
            <translation>Die von diesem Lauf angelegte Automatisierung öffnen</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Pausieren</translation>
        </message>
        <message>
            <source>Ran over %1 files</source>
            <translation>Über %1 Dateien gelaufen</translation>
        </message>
        <message>
            <source>Ran over %1 of %2 files…</source>
            <translation>Über %1 von %2 Dateien gelaufen…</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Fortsetzen</translation>
        </message>
        <message>
            <source>Review what this run waits for</source>
            <translation>Prüfen, worauf dieser Lauf wartet</translation>
        </message>
        <message>
            <source>Review…</source>
            <translation>Prüfen…</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>Widerrufen</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>Lauf</translation>
        </message>
        <message>
            <source>Run %1</source>
            <translation>Lauf %1</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>Jetzt ausführen</translation>
        </message>
        <message>
            <source>Run over the files already there</source>
            <translation>Über die schon vorhandenen Dateien laufen</translation>
        </message>
        <message>
            <source>Run over them</source>
            <translation>Darüber laufen</translation>
        </message>
        <message>
            <source>Run started</source>
            <translation>Lauf gestartet</translation>
        </message>
        <message>
            <source>Run “%1” once for each file already in its folder, as if each had just arrived? Each is a real run, and what it proposes is applied.</source>
            <translation>„%1“ einmal für jede Datei ausführen, die schon in seinem Ordner liegt, als wäre sie gerade angekommen? Jeder ist ein echter Lauf, und was er vorschlägt, wird angewendet.</translation>
        </message>
        <message>
            <source>Save or discard the open form first</source>
            <translation>Speichern oder verwerfen Sie zuerst das offene Formular</translation>
        </message>
        <message>
            <source>Saved “%1”</source>
            <translation>„%1“ gespeichert</translation>
        </message>
        <message>
            <source>Stop run</source>
            <translation>Lauf stoppen</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>Aus dem Archiv holen</translation>
        </message>
        <message>
            <source>Unarchived “%1”: it has completed, as before.</source>
            <translation>„%1“ aus dem Archiv geholt: Sie ist abgeschlossen, wie zuvor.</translation>
        </message>
        <message>
            <source>Unarchived “%1”: it is paused; resume it to fire again.</source>
            <translation>„%1“ aus dem Archiv geholt: Sie ist pausiert; setzen Sie sie fort, damit sie wieder auslöst.</translation>
        </message>
        <message>
            <source>a broken automation cannot be duplicated; repair it first</source>
            <translation>eine defekte Automatisierung kann nicht dupliziert werden; reparieren Sie sie zuerst</translation>
        </message>
        <message>
            <source>“%1” is archived: unarchive it to edit it</source>
            <translation>„%1“ ist archiviert: Holen Sie sie aus dem Archiv, um sie zu bearbeiten</translation>
        </message>
        <message numerus="yes">
            <source>… and %n more</source>
            <translation>
                <numerusform>… und %n weitere</numerusform>
                <numerusform>… und %n weitere</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>words</name>
        <message>
            <source> and </source>
            <translation> und </translation>
        </message>
        <message>
            <source> or </source>
            <translation> oder </translation>
        </message>
        <message>
            <source>%1 %2</source>
            <comment>day month</comment>
            <translation>%1. %2</translation>
        </message>
        <message>
            <source>%1 %2 %3</source>
            <comment>day month year</comment>
            <translation>%1. %2 %3</translation>
        </message>
        <message>
            <source>%1 %2 · %3 here</source>
            <translation>%1 %2 · %3 hier</translation>
        </message>
        <message>
            <source>%1 (anything)</source>
            <translation>%1 (alles)</translation>
        </message>
        <message>
            <source>%1 and %2</source>
            <translation>%1 und %2</translation>
        </message>
        <message>
            <source>%1 asks: %2</source>
            <translation>%1 fragt: %2</translation>
        </message>
        <message>
            <source>%1 automations</source>
            <translation>Automatisierungen %1</translation>
        </message>
        <message>
            <source>%1 does not exist on %2 (the clocks move forward): it runs at %3.</source>
            <translation>%1 gibt es am %2 nicht (die Uhren werden vorgestellt): Es läuft um %3.</translation>
        </message>
        <message>
            <source>%1 h %2 min</source>
            <translation>%1 h %2 min</translation>
        </message>
        <message>
            <source>%1 happens twice on %2 (the clocks move back): it runs at the first.</source>
            <translation>%1 gibt es am %2 zweimal (die Uhren werden zurückgestellt): Es läuft beim ersten Mal.</translation>
        </message>
        <message>
            <source>%1 has already passed; choose a later time.</source>
            <translation>%1 ist schon vorbei; wählen Sie eine spätere Zeit.</translation>
        </message>
        <message>
            <source>%1 min %2 s</source>
            <translation>%1 min %2 s</translation>
        </message>
        <message>
            <source>%1 templates could not be loaded:</source>
            <translation>%1 Vorlagen konnten nicht geladen werden:</translation>
        </message>
        <message>
            <source>%1 wants to %2</source>
            <translation>%1 möchte %2</translation>
        </message>
        <message>
            <source>%1 wants to edit %2</source>
            <translation>%1 möchte %2 bearbeiten</translation>
        </message>
        <message>
            <source>%1 wants to open %2</source>
            <translation>%1 möchte %2 öffnen</translation>
        </message>
        <message>
            <source>%1 wants to read %2</source>
            <translation>%1 möchte %2 lesen</translation>
        </message>
        <message>
            <source>%1 wants to run %2</source>
            <translation>%1 möchte %2 ausführen</translation>
        </message>
        <message>
            <source>%1 wants to write %2</source>
            <translation>%1 möchte %2 schreiben</translation>
        </message>
        <message>
            <source>%1 · %2 fires at once</source>
            <translation>%1 · %2 Termine gleichzeitig</translation>
        </message>
        <message numerus="yes">
            <source>%1: %n new items</source>
            <translation>
                <numerusform>%1: %n neuer Eintrag</numerusform>
                <numerusform>%1: %n neue Einträge</numerusform>
            </translation>
        </message>
        <message>
            <source>%1nd</source>
            <comment>day of the month</comment>
            <translation>%1.</translation>
        </message>
        <message>
            <source>%1rd</source>
            <comment>day of the month</comment>
            <translation>%1.</translation>
        </message>
        <message>
            <source>%1st</source>
            <comment>day of the month</comment>
            <translation>%1.</translation>
        </message>
        <message>
            <source>%1th</source>
            <comment>day of the month</comment>
            <translation>%1.</translation>
        </message>
        <message numerus="yes">
            <source>%n at once</source>
            <translation>
                <numerusform>%n gleichzeitig</numerusform>
                <numerusform>%n gleichzeitig</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n automations need you</source>
            <translation>
                <numerusform>%n Automatisierung braucht Sie</numerusform>
                <numerusform>%n Automatisierungen brauchen Sie</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n crowded minutes</source>
            <translation>
                <numerusform>%n volle Minute</numerusform>
                <numerusform>%n volle Minuten</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n d ago</source>
            <translation>
                <numerusform>vor %n Tag</numerusform>
                <numerusform>vor %n Tagen</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n failures in a row</source>
            <translation>
                <numerusform>%n Fehlschlag in Folge</numerusform>
                <numerusform>%n Fehlschläge in Folge</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires</source>
            <translation>
                <numerusform>%n Termin</numerusform>
                <numerusform>%n Termine</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires between</source>
            <translation>
                <numerusform>%n Termin zwischen</numerusform>
                <numerusform>%n Termine zwischen</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires in this minute</source>
            <translation>
                <numerusform>%n Termin in dieser Minute</numerusform>
                <numerusform>%n Termine in dieser Minute</numerusform>
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
                <numerusform>vor %n h</numerusform>
                <numerusform>vor %n h</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n lines</source>
            <translation>
                <numerusform>%n Zeile</numerusform>
                <numerusform>%n Zeilen</numerusform>
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
                <numerusform>vor %n min</numerusform>
                <numerusform>vor %n min</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n runs led to it</source>
            <translation>
                <numerusform>%n Lauf führte dazu</numerusform>
                <numerusform>%n Läufe führten dazu</numerusform>
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
                <numerusform>%n wartet auf Sie</numerusform>
                <numerusform>%n warten auf Sie</numerusform>
            </translation>
        </message>
        <message>
            <source>(%1 of %2)</source>
            <translation>(%1 von %2)</translation>
        </message>
        <message>
            <source>(attempt %1 of %2)</source>
            <translation>(Versuch %1 von %2)</translation>
        </message>
        <message>
            <source>(busiest: %1 fires, %2)</source>
            <translation>(am vollsten: %1 Termine, %2)</translation>
        </message>
        <message>
            <source>, </source>
            <comment>list</comment>
            <translation>, </translation>
        </message>
        <message>
            <source>, or </source>
            <translation> oder </translation>
        </message>
        <message>
            <source>1 template could not be loaded: %1</source>
            <translation>1 Vorlage konnte nicht geladen werden: %1</translation>
        </message>
        <message>
            <source>29 February only comes in leap years.</source>
            <translation>Den 29. Februar gibt es nur in Schaltjahren.</translation>
        </message>
        <message>
            <source>A command with $(…), backquotes or redirections is never allowed by a pattern; approve it once instead.</source>
            <translation>Ein Befehl mit $(…), Backquotes oder Umleitungen wird nie durch ein Muster erlaubt; erlauben Sie ihn stattdessen einmal.</translation>
        </message>
        <message>
            <source>A fire while the previous run is still going cancels it and starts anew</source>
            <translation>Ein Termin, während der vorige Lauf noch läuft, bricht diesen ab und beginnt neu</translation>
        </message>
        <message>
            <source>A fire while the previous run is still going is skipped</source>
            <translation>Ein Termin, während der vorige Lauf noch läuft, wird übersprungen</translation>
        </message>
        <message>
            <source>A fire while the previous run is still going waits for it (one at most)</source>
            <translation>Ein Termin, während der vorige Lauf noch läuft, wartet auf ihn (höchstens einer)</translation>
        </message>
        <message>
            <source>A trigger cannot work</source>
            <translation>Ein Auslöser kann nicht arbeiten</translation>
        </message>
        <message>
            <source>Action</source>
            <translation>Aktion</translation>
        </message>
        <message>
            <source>Active</source>
            <translation>Aktiv</translation>
        </message>
        <message>
            <source>Added %1 in an edit (revision %2)</source>
            <translation>Hinzugefügt %1 bei einer Bearbeitung (Revision %2)</translation>
        </message>
        <message>
            <source>Added %1 when you chose “Always allow” for run %2</source>
            <translation>Hinzugefügt %1, als Sie für Lauf %2 „Immer erlauben“ gewählt haben</translation>
        </message>
        <message>
            <source>Again %n days after each run finishes, first at %1</source>
            <translation>Erneut %n Tage nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again %n hours after each run finishes, first at %1</source>
            <translation>Erneut %n Stunden nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again %n minutes after each run finishes, first at %1</source>
            <translation>Erneut %n Minuten nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again %n seconds after each run finishes, first at %1</source>
            <translation>Erneut %n Sekunden nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again day after each run finishes, first at %1</source>
            <translation>Erneut einen Tag nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again hour after each run finishes, first at %1</source>
            <translation>Erneut eine Stunde nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again minute after each run finishes, first at %1</source>
            <translation>Erneut eine Minute nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Again second after each run finishes, first at %1</source>
            <translation>Erneut eine Sekunde nach dem Ende jedes Laufs, zuerst am %1</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>Agent</translation>
        </message>
        <message>
            <source>Allowed without asking</source>
            <translation>Ohne Nachfrage erlaubt</translation>
        </message>
        <message>
            <source>Already so</source>
            <translation>Schon so</translation>
        </message>
        <message>
            <source>Amount</source>
            <translation>Menge</translation>
        </message>
        <message>
            <source>An automation</source>
            <translation>Eine Automatisierung</translation>
        </message>
        <message>
            <source>An existing folder, e.g. %1</source>
            <translation>Ein vorhandener Ordner, z. B. %1</translation>
        </message>
        <message>
            <source>Another automation was using the folder</source>
            <translation>Eine andere Automatisierung arbeitete im Ordner</translation>
        </message>
        <message>
            <source>Answered: %1</source>
            <translation>Beantwortet: %1</translation>
        </message>
        <message>
            <source>Append to a file</source>
            <translation>An eine Datei anhängen</translation>
        </message>
        <message>
            <source>Approved once</source>
            <translation>Einmal erlaubt</translation>
        </message>
        <message>
            <source>Approved, and allowed from now on</source>
            <translation>Erlaubt, auch künftig</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>Archiviert</translation>
        </message>
        <message>
            <source>Archived: it never fires and cannot be run. Its runs, conversations, revisions and output logs are kept; unarchive it to use it again.</source>
            <translation>Archiviert: Sie löst nie aus und kann nicht ausgeführt werden. Ihre Läufe, Gespräche, Revisionen und Ausgabeprotokolle bleiben erhalten; holen Sie sie aus dem Archiv, um sie wieder zu verwenden.</translation>
        </message>
        <message>
            <source>Asks before it may %1%2</source>
            <translation>Fragt, bevor es%2 %1 darf</translation>
        </message>
        <message>
            <source>Asks first</source>
            <translation>Fragt zuerst</translation>
        </message>
        <message>
            <source>Asks you before anything else</source>
            <translation>Fragt Sie vor allem anderen</translation>
        </message>
        <message>
            <source>Asks you before running commands or changing files</source>
            <translation>Fragt Sie, bevor Befehle ausgeführt oder Dateien geändert werden</translation>
        </message>
        <message>
            <source>At most {max_kib} KiB.</source>
            <translation>Höchstens {max_kib} KiB.</translation>
        </message>
        <message>
            <source>At most {max} characters; this has {length}.</source>
            <translation>Höchstens {max} Zeichen; hier sind es {length}.</translation>
        </message>
        <message>
            <source>At most {max} of these.</source>
            <translation>Höchstens {max} davon.</translation>
        </message>
        <message>
            <source>Attempt %1 failed (%2) · retrying at %3</source>
            <translation>Versuch %1 fehlgeschlagen (%2) · neuer Versuch um %3</translation>
        </message>
        <message>
            <source>Attempts</source>
            <translation>Versuche</translation>
        </message>
        <message>
            <source>Automation</source>
            <translation>Automatisierung</translation>
        </message>
        <message>
            <source>By an event</source>
            <translation>Durch ein Ereignis</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>Abgebrochen</translation>
        </message>
        <message>
            <source>Cancelled: replaced by the next run</source>
            <translation>Abgebrochen: durch den nächsten Lauf ersetzt</translation>
        </message>
        <message>
            <source>Cannot run</source>
            <translation>Kann nicht laufen</translation>
        </message>
        <message>
            <source>Catch-up</source>
            <translation>Nachgeholt</translation>
        </message>
        <message numerus="yes">
            <source>Caught up once for %n missed fires</source>
            <translation>
                <numerusform>Einmal nachgeholt für %n verpassten Termin</numerusform>
                <numerusform>Einmal nachgeholt für %n verpasste Termine</numerusform>
            </translation>
        </message>
        <message>
            <source>Caught up once when Errands is back (if newer than %1)</source>
            <translation>Einmal nachgeholt, wenn Errands wieder läuft (wenn jünger als %1)</translation>
        </message>
        <message>
            <source>Choose %1</source>
            <translation>%1 wählen</translation>
        </message>
        <message>
            <source>Choose a whole number from {low} to {high}.</source>
            <translation>Wählen Sie eine ganze Zahl von {low} bis {high}.</translation>
        </message>
        <message>
            <source>Choose one of: {options}.</source>
            <translation>Wählen Sie eines von: {options}.</translation>
        </message>
        <message>
            <source>Choose the folder for %1</source>
            <translation>Den Ordner für %1 wählen</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Wählen…</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>Befehl</translation>
        </message>
        <message>
            <source>Continues one conversation (keeps up to %1 tokens of history)</source>
            <translation>Führt ein Gespräch fort (behält bis zu %1 Tokens Verlauf)</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>Unterhaltung</translation>
        </message>
        <message>
            <source>Cron "%1"</source>
            <translation>Cron „%1“</translation>
        </message>
        <message>
            <source>Delete a file</source>
            <translation>Eine Datei löschen</translation>
        </message>
        <message>
            <source>Delete “%1”?

Removed: its definition and revisions, %2, its conversations and its inbox items. A run going on now is stopped first.

Kept: the run logs in the data folder and the audit trail of its changes.</source>
            <translation>„%1“ löschen?

Entfernt werden: ihre Definition und Revisionen, %2, ihre Gespräche und ihre Einträge im Eingang. Ein laufender Lauf wird zuerst gestoppt.

Behalten werden: die Laufprotokolle im Datenordner und das Änderungsprotokoll.</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Abgelehnt</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Fertig</translation>
        </message>
        <message>
            <source>Done — it will not fire again.</source>
            <translation>Fertig – wird nicht mehr ausgelöst.</translation>
        </message>
        <message>
            <source>Drafted by the model</source>
            <translation>Vom Modell entworfen</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>Probelauf</translation>
        </message>
        <message>
            <source>Duration</source>
            <translation>Dauer</translation>
        </message>
        <message>
            <source>Each run starts a fresh conversation</source>
            <translation>Jeder Lauf beginnt ein neues Gespräch</translation>
        </message>
        <message>
            <source>Each run starts fresh</source>
            <translation>Jeder Lauf beginnt neu</translation>
        </message>
        <message>
            <source>Ended before anyone decided</source>
            <translation>Beendet, bevor jemand entschieden hat</translation>
        </message>
        <message>
            <source>Ended by a signal</source>
            <translation>Durch ein Signal beendet</translation>
        </message>
        <message>
            <source>Errands stopped while it ran</source>
            <translation>Errands wurde beendet, während es lief</translation>
        </message>
        <message>
            <source>Errands was not running</source>
            <translation>Errands lief nicht</translation>
        </message>
        <message>
            <source>Errands' own workspace for this automation</source>
            <translation>Eigener Arbeitsbereich von Errands für diese Automatisierung</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>Fehler</translation>
        </message>
        <message>
            <source>Every %1 at %2</source>
            <translation>Jeden %1 um %2</translation>
        </message>
        <message numerus="yes">
            <source>Every %n days at %1 (%2), from %3 %4</source>
            <translation>
                <numerusform>Alle %n Tage um %1 (%2), ab %3, %4</numerusform>
                <numerusform>Alle %n Tage um %1 (%2), ab %3, %4</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n days from %1</source>
            <translation>Alle %n Tage ab %1</translation>
        </message>
        <message numerus="yes">
            <source>Every %n hours at %1</source>
            <translation>
                <numerusform>Alle %n Stunden um %1</numerusform>
                <numerusform>Alle %n Stunden um %1</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n hours from %1</source>
            <translation>Alle %n Stunden ab %1</translation>
        </message>
        <message numerus="yes">
            <source>Every %n minutes</source>
            <translation>
                <numerusform>Alle %n Minuten</numerusform>
                <numerusform>Alle %n Minuten</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n minutes from %1</source>
            <translation>Alle %n Minuten ab %1</translation>
        </message>
        <message numerus="yes">
            <source>Every %n months on %1 at %2, from %3 %4</source>
            <translation>
                <numerusform>Jeden Monat am %1 um %2, ab %3 %4</numerusform>
                <numerusform>Alle %n Monate am %1 um %2, ab %3 %4</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n seconds from %1</source>
            <translation>Alle %n Sekunden ab %1</translation>
        </message>
        <message numerus="yes">
            <source>Every %n years on %1 of %2 at %3, from %4</source>
            <translation>
                <numerusform>Jedes Jahr am %1 im %2 um %3, ab %4</numerusform>
                <numerusform>Alle %n Jahre am %1 im %2 um %3, ab %4</numerusform>
            </translation>
        </message>
        <message>
            <source>Every Saturday and Sunday at %1</source>
            <translation>Jeden Samstag und Sonntag um %1</translation>
        </message>
        <message>
            <source>Every day at %1</source>
            <translation>Täglich um %1</translation>
        </message>
        <message>
            <source>Every day at %1 (%2), from %3 %4</source>
            <translation>Täglich um %1 (%2), ab %3, %4</translation>
        </message>
        <message>
            <source>Every day from %1</source>
            <translation>Täglich ab %1</translation>
        </message>
        <message>
            <source>Every hour at %1</source>
            <translation>Stündlich um %1</translation>
        </message>
        <message>
            <source>Every hour from %1</source>
            <translation>Stündlich ab %1</translation>
        </message>
        <message>
            <source>Every minute</source>
            <translation>Jede Minute</translation>
        </message>
        <message>
            <source>Every minute from %1</source>
            <translation>Jede Minute ab %1</translation>
        </message>
        <message>
            <source>Every month on %1 at %2</source>
            <translation>Jeden Monat am %1 um %2</translation>
        </message>
        <message>
            <source>Every second from %1</source>
            <translation>Jede Sekunde ab %1</translation>
        </message>
        <message>
            <source>Every weekday at %1</source>
            <translation>Werktags um %1</translation>
        </message>
        <message>
            <source>Every year on %1 of %2 at %3</source>
            <translation>Jedes Jahr am %1 im %2 um %3</translation>
        </message>
        <message>
            <source>Exit status %1</source>
            <translation>Exit-Status %1</translation>
        </message>
        <message>
            <source>Exit status 0</source>
            <translation>Exit-Status 0</translation>
        </message>
        <message>
            <source>Expired</source>
            <translation>Verfallen</translation>
        </message>
        <message>
            <source>Expired unanswered</source>
            <translation>Unbeantwortet verfallen</translation>
        </message>
        <message>
            <source>Expired: nobody answered in time</source>
            <translation>Verfallen: niemand hat rechtzeitig geantwortet</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Fehlgeschlagen</translation>
        </message>
        <message>
            <source>Failed: %1</source>
            <translation>Fehlgeschlagen: %1</translation>
        </message>
        <message>
            <source>Failing again and again</source>
            <translation>Schlägt immer wieder fehl</translation>
        </message>
        <message>
            <source>Fired by its trigger “%1”</source>
            <translation>Ausgelöst durch seinen Auslöser „%1“</translation>
        </message>
        <message>
            <source>Fires again %1 after this run ends.</source>
            <translation>Läuft wieder %1 nach dem Ende dieses Laufs.</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>Ordner</translation>
        </message>
        <message>
            <source>From a template</source>
            <translation>Aus einer Vorlage</translation>
        </message>
        <message>
            <source>From the template “%1”</source>
            <translation>Aus der Vorlage „%1“</translation>
        </message>
        <message>
            <source>Give a pattern (* allows every call of this tool).</source>
            <translation>Geben Sie ein Muster an (* erlaubt jeden Aufruf dieses Werkzeugs).</translation>
        </message>
        <message>
            <source>Give one trigger or a list of triggers, not both.</source>
            <translation>Geben Sie einen Auslöser oder eine Liste von Auslösern an, nicht beides.</translation>
        </message>
        <message>
            <source>I assumed your time zone %1.</source>
            <translation>Ich habe Ihre Zeitzone %1 angenommen.</translation>
        </message>
        <message>
            <source>In</source>
            <translation>In</translation>
        </message>
        <message>
            <source>Interrupted</source>
            <translation>Unterbrochen</translation>
        </message>
        <message>
            <source>Interrupted: Errands stopped while it ran</source>
            <translation>Unterbrochen: Errands wurde beendet, während es lief</translation>
        </message>
        <message>
            <source>It failed.</source>
            <translation>Fehlgeschlagen.</translation>
        </message>
        <message>
            <source>It finished.</source>
            <translation>Fertig.</translation>
        </message>
        <message>
            <source>It holds a character that is not allowed here ({char}); use plain text.</source>
            <translation>Es enthält ein Zeichen, das hier nicht erlaubt ist ({char}); verwenden Sie einfachen Text.</translation>
        </message>
        <message>
            <source>It ran out of time.</source>
            <translation>Die Zeit ist abgelaufen.</translation>
        </message>
        <message>
            <source>It ran.</source>
            <translation>Es lief.</translation>
        </message>
        <message>
            <source>It waits for your decision in Errands.</source>
            <translation>Sie wartet in Errands auf Ihre Entscheidung.</translation>
        </message>
        <message>
            <source>It waits for your decision.</source>
            <translation>Wartet auf Ihre Entscheidung.</translation>
        </message>
        <message>
            <source>It was rejected: it went over a budget.</source>
            <translation>Es wurde abgelehnt: Es hat ein Budget überschritten.</translation>
        </message>
        <message>
            <source>Limit reached: %1.</source>
            <translation>Grenze erreicht: %1.</translation>
        </message>
        <message>
            <source>Mail me</source>
            <translation>Mir mailen</translation>
        </message>
        <message>
            <source>Mail not sent</source>
            <translation>E-Mail nicht gesendet</translation>
        </message>
        <message>
            <source>May %1%2 without asking</source>
            <translation>Darf%2 ohne Nachfrage %1</translation>
        </message>
        <message>
            <source>May never %1%2</source>
            <translation>Darf%2 nie %1</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Nachricht</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Months without day %1 are skipped.</source>
            <translation>Monate ohne den %1. werden übersprungen.</translation>
        </message>
        <message>
            <source>Move a file</source>
            <translation>Eine Datei verschieben</translation>
        </message>
        <message>
            <source>Name it with lower-case letters, digits, - or _.</source>
            <translation>Benennen Sie es mit Kleinbuchstaben, Ziffern, - oder _.</translation>
        </message>
        <message>
            <source>Never allowed</source>
            <translation>Nie erlaubt</translation>
        </message>
        <message>
            <source>Next: %1</source>
            <translation>Nächster: %1</translation>
        </message>
        <message>
            <source>No day of the month given: it runs on the 1st.</source>
            <translation>Kein Tag im Monat angegeben: Es läuft am 1.</translation>
        </message>
        <message>
            <source>No fires while paused.</source>
            <translation>Keine Termine, solange pausiert.</translation>
        </message>
        <message>
            <source>No model provider is set up</source>
            <translation>Kein Modellanbieter eingerichtet</translation>
        </message>
        <message>
            <source>No more fires.</source>
            <translation>Keine weiteren Termine.</translation>
        </message>
        <message>
            <source>No reason recorded</source>
            <translation>Kein Grund vermerkt</translation>
        </message>
        <message>
            <source>No runs yet</source>
            <translation>Noch keine Läufe</translation>
        </message>
        <message>
            <source>No time of day given: it runs at %1.</source>
            <translation>Keine Uhrzeit angegeben: Es läuft um %1.</translation>
        </message>
        <message>
            <source>No weekday given: it runs on Mondays.</source>
            <translation>Kein Wochentag angegeben: Es läuft montags.</translation>
        </message>
        <message>
            <source>No: %1</source>
            <translation>Nein: %1</translation>
        </message>
        <message>
            <source>Notify</source>
            <translation>Benachrichtigen</translation>
        </message>
        <message>
            <source>On</source>
            <translation>Betrifft</translation>
        </message>
        <message>
            <source>On schedule</source>
            <translation>Nach Zeitplan</translation>
        </message>
        <message>
            <source>On the %1 at %2</source>
            <translation>Am %1 um %2</translation>
        </message>
        <message>
            <source>Once at %1</source>
            <translation>Einmal am %1</translation>
        </message>
        <message>
            <source>Only shows its message: it runs nothing and uses no model</source>
            <translation>Zeigt nur seine Nachricht: führt nichts aus und nutzt kein Modell</translation>
        </message>
        <message>
            <source>Only when run by hand</source>
            <translation>Nur von Hand</translation>
        </message>
        <message>
            <source>Part of the automation as written</source>
            <translation>Teil der Automatisierung, wie geschrieben</translation>
        </message>
        <message>
            <source>Paused</source>
            <translation>Pausiert</translation>
        </message>
        <message>
            <source>Paused (%1)</source>
            <translation>Pausiert (%1)</translation>
        </message>
        <message>
            <source>Paused after failures</source>
            <translation>Nach Fehlschlägen pausiert</translation>
        </message>
        <message>
            <source>Paused: nobody answered</source>
            <translation>Pausiert: niemand hat geantwortet</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>Berechtigungen</translation>
        </message>
        <message>
            <source>Policies</source>
            <translation>Regeln</translation>
        </message>
        <message>
            <source>Prompt</source>
            <translation>Prompt</translation>
        </message>
        <message>
            <source>Proposed by an agent</source>
            <translation>Von einem Agenten vorgeschlagen</translation>
        </message>
        <message>
            <source>Queued</source>
            <translation>In der Warteschlange</translation>
        </message>
        <message>
            <source>Read from your sentence</source>
            <translation>Aus Ihrem Satz gelesen</translation>
        </message>
        <message>
            <source>Reads and changes files only in %1</source>
            <translation>Liest und ändert Dateien nur in %1</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>Merken</translation>
        </message>
        <message>
            <source>Reminder</source>
            <translation>Erinnerung</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>Ergebnis</translation>
        </message>
        <message>
            <source>Run %1: %2</source>
            <translation>Lauf %1: %2</translation>
        </message>
        <message>
            <source>Run an automation</source>
            <translation>Eine Automatisierung ausführen</translation>
        </message>
        <message>
            <source>Run by hand</source>
            <translation>Von Hand</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>Läuft</translation>
        </message>
        <message>
            <source>Running for %1</source>
            <translation>Läuft seit %1</translation>
        </message>
        <message>
            <source>Running now</source>
            <translation>Läuft gerade</translation>
        </message>
        <message>
            <source>Runs commands and uses every tool without asking</source>
            <translation>Führt Befehle aus und verwendet jedes Werkzeug ohne Nachfrage</translation>
        </message>
        <message>
            <source>Runs its command without asking (creating it was the consent)</source>
            <translation>Führt seinen Befehl ohne Nachfrage aus (das Anlegen war die Zustimmung)</translation>
        </message>
        <message>
            <source>Runs its script in a sandbox: it proposes, Errands checks each action against its folder and rules before applying it</source>
            <translation>Führt sein Skript in einer Sandbox aus: Es schlägt vor, Errands prüft jede Aktion gegen seinen Ordner und seine Regeln, bevor es sie anwendet</translation>
        </message>
        <message>
            <source>Runs once</source>
            <translation>Läuft einmal</translation>
        </message>
        <message>
            <source>Runs only when you press Run now.</source>
            <translation>Läuft nur, wenn Sie „Jetzt ausführen“ drücken.</translation>
        </message>
        <message>
            <source>Runs until you pause or delete it</source>
            <translation>Läuft, bis Sie es pausieren oder löschen</translation>
        </message>
        <message>
            <source>Same minute</source>
            <translation>Gleiche Minute</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>Zeitplan</translation>
        </message>
        <message>
            <source>Scheduled</source>
            <translation>Geplant</translation>
        </message>
        <message>
            <source>Script</source>
            <translation>Skript</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>Alle auswählen</translation>
        </message>
        <message>
            <source>Skipped</source>
            <translation>Übersprungen</translation>
        </message>
        <message>
            <source>Skipped and noted in the history</source>
            <translation>Übersprungen und im Verlauf vermerkt</translation>
        </message>
        <message>
            <source>Skipped: %1</source>
            <translation>Übersprungen: %1</translation>
        </message>
        <message>
            <source>Started</source>
            <translation>Gestartet</translation>
        </message>
        <message>
            <source>Started by a call to its web address (trigger “%1”)</source>
            <translation>Gestartet durch einen Aufruf seiner Webadresse (Auslöser „%1“)</translation>
        </message>
        <message>
            <source>Started by another automation's end (trigger “%1”)</source>
            <translation>Gestartet durch das Ende einer anderen Automatisierung (Auslöser „%1“)</translation>
        </message>
        <message>
            <source>Started by changed files (trigger “%1”)</source>
            <translation>Gestartet durch geänderte Dateien (Auslöser „%1“)</translation>
        </message>
        <message>
            <source>Started by new mail (trigger “%1”)</source>
            <translation>Gestartet durch neue E-Mail (Auslöser „%1“)</translation>
        </message>
        <message>
            <source>State</source>
            <translation>Zustand</translation>
        </message>
        <message>
            <source>Still running</source>
            <translation>Läuft noch</translation>
        </message>
        <message>
            <source>Stops</source>
            <translation>Endet</translation>
        </message>
        <message>
            <source>Stops %1</source>
            <translation>Stoppt %1</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>Erfolgreich</translation>
        </message>
        <message>
            <source>That runs more often than Errands allows (at least {min} apart, in the settings); choose a longer interval.</source>
            <translation>Das läuft öfter, als Errands erlaubt (mindestens {min} Abstand, in den Einstellungen); wählen Sie einen längeren Abstand.</translation>
        </message>
        <message>
            <source>The agent asks you a question and waits for your answer.</source>
            <translation>Der Agent stellt Ihnen eine Frage und wartet auf Ihre Antwort.</translation>
        </message>
        <message>
            <source>The agent wants to %1, which this automation does not allow without asking.</source>
            <translation>Der Agent möchte %1, was diese Automatisierung nicht ohne Nachfrage erlaubt.</translation>
        </message>
        <message>
            <source>The agent wants to %1; that needs your approval unless a rule allows it.</source>
            <translation>Der Agent möchte %1; das braucht Ihre Freigabe, außer eine Regel erlaubt es.</translation>
        </message>
        <message>
            <source>The agent wants to use a tool that needs your approval.</source>
            <translation>Der Agent möchte ein Werkzeug verwenden, das Ihre Freigabe braucht.</translation>
        </message>
        <message>
            <source>The automation was paused</source>
            <translation>Die Automatisierung war pausiert</translation>
        </message>
        <message>
            <source>The computer was asleep</source>
            <translation>Der Computer schlief</translation>
        </message>
        <message>
            <source>The last run each day is at %1, not %2.</source>
            <translation>Der letzte Lauf jeden Tag ist um %1, nicht um %2.</translation>
        </message>
        <message>
            <source>The model wrote this draft; check it before you create it.</source>
            <translation>Das Modell hat diesen Entwurf geschrieben; prüfen Sie ihn, bevor Sie ihn anlegen.</translation>
        </message>
        <message>
            <source>The pattern starts or ends with a space.</source>
            <translation>Das Muster beginnt oder endet mit einem Leerzeichen.</translation>
        </message>
        <message>
            <source>The previous run is waiting for you</source>
            <translation>Der vorige Lauf wartet auf Sie</translation>
        </message>
        <message>
            <source>The previous run was still going</source>
            <translation>Der vorige Lauf lief noch</translation>
        </message>
        <message>
            <source>The shared catalogue could not be reached</source>
            <translation>Der geteilte Katalog war nicht erreichbar</translation>
        </message>
        <message>
            <source>There is no such automation; choose one from the list.</source>
            <translation>Diese Automatisierung gibt es nicht; wählen Sie eine aus der Liste.</translation>
        </message>
        <message>
            <source>There is no such mail account; set one up with “errands mail add”.</source>
            <translation>Dieses E-Mail-Konto gibt es nicht; richten Sie eines mit „errands mail add“ ein.</translation>
        </message>
        <message>
            <source>This automation cannot run: %1</source>
            <translation>Diese Automatisierung kann nicht laufen: %1</translation>
        </message>
        <message>
            <source>This is needed.</source>
            <translation>Das wird benötigt.</translation>
        </message>
        <message>
            <source>This is not a date and time Errands can read.</source>
            <translation>Das ist kein Datum mit Uhrzeit, das Errands lesen kann.</translation>
        </message>
        <message>
            <source>This is the wrong kind of value.</source>
            <translation>Das ist die falsche Art von Wert.</translation>
        </message>
        <message>
            <source>This pattern does not match this call, so it would not allow it.</source>
            <translation>Dieses Muster passt nicht auf diesen Aufruf und würde ihn daher nicht erlauben.</translation>
        </message>
        <message>
            <source>This pattern does not match this call: every part of the command (split at ;, &amp;&amp;, ||, | and &amp;) must match it.</source>
            <translation>Dieses Muster passt nicht auf diesen Aufruf: Jeder Teil des Befehls (getrennt an ;, &amp;&amp;, ||, | und &amp;) muss passen.</translation>
        </message>
        <message>
            <source>This run has read content from the web, so it asks before it may %1.</source>
            <translation>Dieser Lauf hat Inhalte aus dem Web gelesen und fragt daher, bevor er %1 darf.</translation>
        </message>
        <message>
            <source>This says when but not what to do; add the task.</source>
            <translation>Hier steht, wann, aber nicht, was zu tun ist; ergänzen Sie die Aufgabe.</translation>
        </message>
        <message>
            <source>This schedule can never run: none of its months has that day.</source>
            <translation>Dieser Zeitplan kann nie laufen: Keiner seiner Monate hat diesen Tag.</translation>
        </message>
        <message>
            <source>This tool cannot be allowed by a rule.</source>
            <translation>Dieses Werkzeug kann nicht durch eine Regel erlaubt werden.</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>Zeitüberschreitung</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>Titel</translation>
        </message>
        <message>
            <source>To review</source>
            <translation>Zu prüfen</translation>
        </message>
        <message>
            <source>Too old to catch up</source>
            <translation>Zu alt zum Nachholen</translation>
        </message>
        <message>
            <source>Trigger</source>
            <translation>Auslöser</translation>
        </message>
        <message>
            <source>Trusts content from the web for: %1</source>
            <translation>Vertraut Inhalten aus dem Web für: %1</translation>
        </message>
        <message>
            <source>Two triggers have this name; give each its own.</source>
            <translation>Zwei Auslöser tragen diesen Namen; geben Sie jedem einen eigenen.</translation>
        </message>
        <message>
            <source>Unread</source>
            <translation>Ungelesen</translation>
        </message>
        <message>
            <source>Waiting for the folder</source>
            <translation>Wartet auf den Ordner</translation>
        </message>
        <message>
            <source>Waiting for you</source>
            <translation>Wartet auf Sie</translation>
        </message>
        <message>
            <source>Waiting for you; fires again after you decide.</source>
            <translation>Wartet auf Sie; läuft wieder, sobald Sie entschieden haben.</translation>
        </message>
        <message>
            <source>When</source>
            <translation>Wann</translation>
        </message>
        <message>
            <source>When a file changes in %1</source>
            <translation>Wenn sich eine Datei in %1 ändert</translation>
        </message>
        <message>
            <source>When a file is added to %1</source>
            <translation>Wenn eine Datei zu %1 hinzukommt</translation>
        </message>
        <message>
            <source>When a file is removed from %1</source>
            <translation>Wenn eine Datei aus %1 entfernt wird</translation>
        </message>
        <message>
            <source>When its web address is called</source>
            <translation>Wenn seine Webadresse aufgerufen wird</translation>
        </message>
        <message>
            <source>When mail arrives for %1</source>
            <translation>Wenn E-Mail für %1 ankommt</translation>
        </message>
        <message>
            <source>When “%1” %2</source>
            <translation>Wenn „%1“ %2</translation>
        </message>
        <message>
            <source>When “%1” ends</source>
            <translation>Wenn „%1“ endet</translation>
        </message>
        <message>
            <source>Without asking: %1</source>
            <translation>Ohne Nachfrage: %1</translation>
        </message>
        <message>
            <source>Write a file</source>
            <translation>Eine Datei schreiben</translation>
        </message>
        <message>
            <source>Write a file name pattern such as *.pdf.</source>
            <translation>Schreiben Sie ein Dateinamensmuster wie *.pdf.</translation>
        </message>
        <message>
            <source>Write a length of time such as 30s, 15m, 2h or 1d (at most 366 days).</source>
            <translation>Schreiben Sie eine Zeitspanne wie 30s, 15m, 2h oder 1d (höchstens 366 Tage).</translation>
        </message>
        <message>
            <source>Write something here.</source>
            <translation>Schreiben Sie hier etwas hinein.</translation>
        </message>
        <message>
            <source>Write the whole path, starting at /.</source>
            <translation>Schreiben Sie den ganzen Pfad, beginnend mit /.</translation>
        </message>
        <message>
            <source>Yes</source>
            <translation>Ja</translation>
        </message>
        <message>
            <source>actions</source>
            <translation>Aktionen</translation>
        </message>
        <message numerus="yes">
            <source>after %n runs</source>
            <translation>
                <numerusform>nach %n Lauf</numerusform>
                <numerusform>nach %n Läufen</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>and %n more</source>
            <translation>
                <numerusform>und %n weiterer</numerusform>
                <numerusform>und %n weitere</numerusform>
            </translation>
        </message>
        <message>
            <source>answered: %1</source>
            <translation>beantwortet: %1</translation>
        </message>
        <message>
            <source>ask you</source>
            <translation>Sie fragen</translation>
        </message>
        <message>
            <source>at %1</source>
            <translation>am %1</translation>
        </message>
        <message>
            <source>by you</source>
            <translation>von Ihnen</translation>
        </message>
        <message>
            <source>cannot run: %1</source>
            <translation>kann nicht laufen: %1</translation>
        </message>
        <message>
            <source>change any automation</source>
            <translation>jede Automatisierung ändern</translation>
        </message>
        <message>
            <source>create automations</source>
            <translation>Automatisierungen anlegen</translation>
        </message>
        <message>
            <source>day</source>
            <translation>Tag</translation>
        </message>
        <message>
            <source>days</source>
            <translation>Tage</translation>
        </message>
        <message>
            <source>denied</source>
            <translation>abgelehnt</translation>
        </message>
        <message>
            <source>dry run</source>
            <translation>Probelauf</translation>
        </message>
        <message>
            <source>edit %1</source>
            <translation>%1 bearbeiten</translation>
        </message>
        <message>
            <source>edit files</source>
            <translation>Dateien bearbeiten</translation>
        </message>
        <message>
            <source>error: %1</source>
            <translation>Fehler: %1</translation>
        </message>
        <message>
            <source>exit %1</source>
            <translation>Exit %1</translation>
        </message>
        <message>
            <source>expires unanswered</source>
            <translation>unbeantwortet abläuft</translation>
        </message>
        <message>
            <source>fails</source>
            <translation>fehlschlägt</translation>
        </message>
        <message>
            <source>fetch %1</source>
            <translation>%1 abrufen</translation>
        </message>
        <message>
            <source>fetch any address</source>
            <translation>jede Adresse abrufen</translation>
        </message>
        <message>
            <source>fetch web pages</source>
            <translation>Webseiten abrufen</translation>
        </message>
        <message>
            <source>finish</source>
            <translation>abschließen</translation>
        </message>
        <message>
            <source>from %1</source>
            <translation>von %1</translation>
        </message>
        <message numerus="yes">
            <source>from %n automations</source>
            <translation>
                <numerusform>von %n Automatisierung</numerusform>
                <numerusform>von %n Automatisierungen</numerusform>
            </translation>
        </message>
        <message>
            <source>hour</source>
            <translation>Stunde</translation>
        </message>
        <message>
            <source>hours</source>
            <translation>Stunden</translation>
        </message>
        <message>
            <source>in %1</source>
            <translation>in %1</translation>
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
        <message>
            <source>is stopped</source>
            <translation>angehalten wird</translation>
        </message>
        <message numerus="yes">
            <source>its %n runs in the history</source>
            <translation>
                <numerusform>ihr %n Lauf im Verlauf</numerusform>
                <numerusform>ihre %n Läufe im Verlauf</numerusform>
            </translation>
        </message>
        <message>
            <source>its run history</source>
            <translation>ihr Laufverlauf</translation>
        </message>
        <message>
            <source>just now</source>
            <translation>gerade eben</translation>
        </message>
        <message>
            <source>last run: %1</source>
            <translation>letzter Lauf: %1</translation>
        </message>
        <message>
            <source>list %1</source>
            <translation>%1 auflisten</translation>
        </message>
        <message>
            <source>list files</source>
            <translation>Dateien auflisten</translation>
        </message>
        <message>
            <source>list mail</source>
            <translation>E-Mails auflisten</translation>
        </message>
        <message>
            <source>memory</source>
            <translation>Speicher</translation>
        </message>
        <message>
            <source>minute</source>
            <translation>Minute</translation>
        </message>
        <message>
            <source>minutes</source>
            <translation>Minuten</translation>
        </message>
        <message>
            <source>next %1</source>
            <translation>nächster %1</translation>
        </message>
        <message>
            <source>no output</source>
            <translation>keine Ausgabe</translation>
        </message>
        <message>
            <source>notify you</source>
            <translation>Sie benachrichtigen</translation>
        </message>
        <message>
            <source>now</source>
            <translation>jetzt</translation>
        </message>
        <message>
            <source>read %1</source>
            <translation>%1 lesen</translation>
        </message>
        <message>
            <source>read files</source>
            <translation>Dateien lesen</translation>
        </message>
        <message>
            <source>read mail</source>
            <translation>E-Mails lesen</translation>
        </message>
        <message>
            <source>reads</source>
            <translation>Lesezugriffe</translation>
        </message>
        <message>
            <source>recursion depth</source>
            <translation>Rekursionstiefe</translation>
        </message>
        <message>
            <source>run %1</source>
            <translation>%1 ausführen</translation>
        </message>
        <message>
            <source>run any command</source>
            <translation>jeden Befehl ausführen</translation>
        </message>
        <message>
            <source>run commands</source>
            <translation>Befehle ausführen</translation>
        </message>
        <message>
            <source>running</source>
            <translation>läuft</translation>
        </message>
        <message>
            <source>search %1</source>
            <translation>%1 durchsuchen</translation>
        </message>
        <message>
            <source>search files</source>
            <translation>Dateien durchsuchen</translation>
        </message>
        <message>
            <source>second</source>
            <translation>Sekunde</translation>
        </message>
        <message>
            <source>seconds</source>
            <translation>Sekunden</translation>
        </message>
        <message>
            <source>send mail</source>
            <translation>E-Mails senden</translation>
        </message>
        <message>
            <source>subject has “%1”</source>
            <translation>Betreff enthält „%1“</translation>
        </message>
        <message>
            <source>succeeds</source>
            <translation>gelingt</translation>
        </message>
        <message>
            <source>the %1</source>
            <comment>day of the month</comment>
            <translation>%1</translation>
        </message>
        <message>
            <source>the %1 %2</source>
            <comment>the 2nd Friday</comment>
            <translation>%1 %2</translation>
        </message>
        <message>
            <source>the %1-to-last %2</source>
            <comment>the 2nd-to-last Friday</comment>
            <translation>%3.-letzten %2</translation>
        </message>
        <message>
            <source>the %1-to-last day</source>
            <translation>%2.-letzten Tag</translation>
        </message>
        <message>
            <source>the fire at %1</source>
            <translation>der Termin am %1</translation>
        </message>
        <message>
            <source>the last %1</source>
            <comment>the last Friday</comment>
            <translation>letzten %1</translation>
        </message>
        <message>
            <source>the last day</source>
            <translation>letzten Tag</translation>
        </message>
        <message>
            <source>then %1</source>
            <translation>dann %1</translation>
        </message>
        <message>
            <source>time</source>
            <translation>Zeit</translation>
        </message>
        <message>
            <source>today %1</source>
            <translation>heute %1</translation>
        </message>
        <message>
            <source>tomorrow %1</source>
            <translation>morgen %1</translation>
        </message>
        <message>
            <source>unit</source>
            <translation>Einheit</translation>
        </message>
        <message>
            <source>use %1 of the MCP server %2</source>
            <translation>%1 des MCP-Servers %2 verwenden</translation>
        </message>
        <message>
            <source>use MCP servers' tools</source>
            <translation>Werkzeuge von MCP-Servern verwenden</translation>
        </message>
        <message>
            <source>when the run says its condition is met</source>
            <translation>wenn der Lauf meldet, dass seine Bedingung erfüllt ist</translation>
        </message>
        <message>
            <source>working day</source>
            <translation>Werktag</translation>
        </message>
        <message>
            <source>write %1</source>
            <translation>%1 schreiben</translation>
        </message>
        <message>
            <source>write files</source>
            <translation>Dateien schreiben</translation>
        </message>
        <message>
            <source>yesterday %1</source>
            <translation>gestern %1</translation>
        </message>
        <message>
            <source>“%1” counts from %2.</source>
            <translation>„%1“ zählt ab %2.</translation>
        </message>
        <message>
            <source>“%1” counts the months from January.</source>
            <translation>„%1“ zählt die Monate ab Januar.</translation>
        </message>
        <message>
            <source>“%1” has passed today: read as tomorrow.</source>
            <translation>„%1“ ist heute schon vorbei: gelesen als morgen.</translation>
        </message>
        <message>
            <source>“%1” read as %2.</source>
            <translation>„%1“ gelesen als %2.</translation>
        </message>
        <message>
            <source>“%1” read as that weekday's second in each month; for every other week, say “every other”.</source>
            <translation>„%1“ gelesen als der zweite dieses Wochentags in jedem Monat; für jede zweite Woche sagen Sie „jeden zweiten“.</translation>
        </message>
        <message>
            <source>“%1” stays in the task; it does not change the schedule.</source>
            <translation>„%1“ bleibt in der Aufgabe; es ändert den Zeitplan nicht.</translation>
        </message>
        <message>
            <source>“quarterly” runs in January, April, July and October.</source>
            <translation>„vierteljährlich“ läuft im Januar, April, Juli und Oktober.</translation>
        </message>
        <message>
            <source>“{zone}” is not a time zone; choose one from the list.</source>
            <translation>„{zone}“ ist keine Zeitzone; wählen Sie eine aus der Liste.</translation>
        </message>
        <message numerus="yes">
            <source>… and %n more</source>
            <translation>
                <numerusform>… und %n weiterer</numerusform>
                <numerusform>… und %n weitere</numerusform>
            </translation>
        </message>
    </context>
</TS>
