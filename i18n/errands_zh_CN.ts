<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>Adapter</name>
        <message>
            <source>Pause all</source>
            <translation>全部暂停</translation>
        </message>
        <message>
            <source>Resume all</source>
            <translation>全部恢复</translation>
        </message>
    </context>
    <context>
        <name>AfterDialog</name>
        <message>
            <source>&amp;When</source>
            <translation>何时(&amp;W)</translation>
        </message>
        <message>
            <source>Another automation's end</source>
            <translation>另一个自动化的结束</translation>
        </message>
        <message>
            <source>Automation</source>
            <translation>自动化</translation>
        </message>
        <message>
            <source>There is no other automation yet.</source>
            <translation>还没有其他自动化。</translation>
        </message>
        <message>
            <source>Tick at least one way it may end.</source>
            <translation>请至少勾选一种结束方式。</translation>
        </message>
        <message>
            <source>expires unanswered</source>
            <translation>无人应答而过期</translation>
        </message>
        <message>
            <source>fails</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>is stopped</source>
            <translation>被停止</translation>
        </message>
        <message>
            <source>succeeds</source>
            <translation>成功</translation>
        </message>
    </context>
    <context>
        <name>AppShell</name>
        <message>
            <source>Errands is still running</source>
            <translation>Errands 仍在运行</translation>
        </message>
        <message>
            <source>Errands will not start at login</source>
            <translation>Errands 将不会在登录时启动</translation>
        </message>
        <message>
            <source>Errands will start at login, in the tray</source>
            <translation>Errands 将在登录时启动并驻留在托盘中</translation>
        </message>
        <message>
            <source>It keeps running your automations from the tray. Choose Quit in the tray menu to stop it.</source>
            <translation>它会在系统托盘中继续运行您的自动化任务。要停止它，请在托盘菜单中选择“退出 Errands”。</translation>
        </message>
        <message>
            <source>Keep running</source>
            <translation>保持运行</translation>
        </message>
        <message numerus="yes">
            <source>Paused %n automation</source>
            <translation>
                <numerusform>已暂停 %n 个自动化任务</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Paused %n automations</source>
            <translation>
                <numerusform>已暂停 %n 个自动化任务</numerusform>
            </translation>
        </message>
        <message>
            <source>Pausing everything…</source>
            <translation>正在全部暂停…</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
        </message>
        <message>
            <source>Quit Errands?</source>
            <translation>退出 Errands？</translation>
        </message>
        <message numerus="yes">
            <source>Resumed %n automation</source>
            <translation>
                <numerusform>已恢复 %n 个自动化任务</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Resumed %n automations</source>
            <translation>
                <numerusform>已恢复 %n 个自动化任务</numerusform>
            </translation>
        </message>
        <message>
            <source>Resuming everything…</source>
            <translation>正在全部恢复…</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>立即运行</translation>
        </message>
        <message>
            <source>Start at login: %1</source>
            <translation>登录时启动：%1</translation>
        </message>
        <message>
            <source>This desktop has no system tray. Quit Errands (automations stop firing), or keep it running minimised?</source>
            <translation>此桌面没有系统托盘。要退出 Errands（自动化任务将不再触发），还是最小化并保持运行？</translation>
        </message>
    </context>
    <context>
        <name>ApprovalDialog</name>
        <message>
            <source>%1 of %2</source>
            <translation>第 %1 个，共 %2 个</translation>
        </message>
        <message>
            <source>&amp;Approve once</source>
            <translation>批准一次(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Decline</source>
            <translation>拒绝回答(&amp;D)</translation>
        </message>
        <message>
            <source>&amp;Deny</source>
            <translation>拒绝(&amp;D)</translation>
        </message>
        <message>
            <source>&amp;Later</source>
            <translation>稍后(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;Note:</source>
            <translation>备注(&amp;N)：</translation>
        </message>
        <message>
            <source>* matches anything (also across /). A command matches only when every part of it (split at ; &amp;&amp; || | &amp;) matches.</source>
            <translation>* 匹配任意内容（也可跨越 /）。只有当命令的每一部分（以 ; &amp;&amp; || | &amp; 分隔）都匹配时，命令才算匹配。</translation>
        </message>
        <message>
            <source>A&amp;nswer</source>
            <translation>回答(&amp;N)</translation>
        </message>
        <message>
            <source>Action</source>
            <translation>操作</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>地址</translation>
        </message>
        <message>
            <source>Al&amp;ways allow…</source>
            <translation>始终允许(&amp;W)…</translation>
        </message>
        <message>
            <source>Allow and &amp;save rule</source>
            <translation>允许并保存规则(&amp;S)</translation>
        </message>
        <message>
            <source>Allow and save rule</source>
            <translation>允许并保存规则</translation>
        </message>
        <message>
            <source>Alt+%1</source>
            <translation>Alt+%1</translation>
        </message>
        <message>
            <source>Always allow for this automation</source>
            <translation>对此自动化任务始终允许</translation>
        </message>
        <message>
            <source>An automation that is gone</source>
            <translation>已不存在的自动化任务</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>回答</translation>
        </message>
        <message>
            <source>Answer: %1</source>
            <translation>回答：%1</translation>
        </message>
        <message>
            <source>Approvals</source>
            <translation>批准</translation>
        </message>
        <message>
            <source>Approve once</source>
            <translation>批准一次</translation>
        </message>
        <message>
            <source>Approve, and save a rule so this automation does not ask again for calls like it</source>
            <translation>批准，并保存一条规则，使此自动化任务对类似调用不再询问</translation>
        </message>
        <message>
            <source>Arguments:</source>
            <translation>参数：</translation>
        </message>
        <message>
            <source>Automation</source>
            <translation>自动化任务</translation>
        </message>
        <message>
            <source>Back</source>
            <translation>返回</translation>
        </message>
        <message>
            <source>Back to the choices, no rule saved</source>
            <translation>返回选项，不保存规则</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>Decline to answer</source>
            <translation>拒绝回答</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Does the pattern match this call</source>
            <translation>该模式是否匹配此调用</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>File</source>
            <translation>文件</translation>
        </message>
        <message>
            <source>Go on to the next one; this run keeps waiting</source>
            <translation>转到下一个；此运行继续等待</translation>
        </message>
        <message>
            <source>Later</source>
            <translation>稍后</translation>
        </message>
        <message>
            <source>Let this one call run; the next one asks again</source>
            <translation>允许这一次调用；下一次仍会询问</translation>
        </message>
        <message>
            <source>Matches this call.</source>
            <translation>匹配此调用。</translation>
        </message>
        <message>
            <source>Note with the denial</source>
            <translation>拒绝时附带的备注</translation>
        </message>
        <message>
            <source>Other arguments</source>
            <translation>其他参数</translation>
        </message>
        <message>
            <source>Other arguments:</source>
            <translation>其他参数：</translation>
        </message>
        <message>
            <source>Pattern of the rule</source>
            <translation>规则的模式</translation>
        </message>
        <message>
            <source>Position in the queue</source>
            <translation>在队列中的位置</translation>
        </message>
        <message>
            <source>Question</source>
            <translation>问题</translation>
        </message>
        <message>
            <source>Refuse; the agent is told and may go on without it</source>
            <translation>拒绝；智能体会收到通知，并可能在没有它的情况下继续</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Run #%1 · asked %2 · waits until %3</source>
            <translation>运行 #%1 · 询问于 %2 · 等待至 %3</translation>
        </message>
        <message>
            <source>Subject</source>
            <translation>对象</translation>
        </message>
        <message>
            <source>The exact command, path or address</source>
            <translation>确切的命令、路径或地址</translation>
        </message>
        <message>
            <source>The rule in words</source>
            <translation>规则说明</translation>
        </message>
        <message>
            <source>The run needs your input to go on.</source>
            <translation>此运行需要您的输入才能继续。</translation>
        </message>
        <message>
            <source>This rule will be added to “%1” (a new revision); narrow or widen the pattern:</source>
            <translation>此规则将添加到“%1”（生成新的修订版本）；可收窄或放宽模式：</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Tool: %1</source>
            <translation>工具：%1</translation>
        </message>
        <message>
            <source>Type an answer first (or Decline).</source>
            <translation>请先输入回答（或选择“拒绝回答”）。</translation>
        </message>
        <message>
            <source>Waiting for you</source>
            <translation>等待您处理</translation>
        </message>
        <message>
            <source>Where it would act</source>
            <translation>作用位置</translation>
        </message>
        <message>
            <source>Where: %1</source>
            <translation>位置：%1</translation>
        </message>
        <message>
            <source>Where: in a git worktree of %1 made for this run</source>
            <translation>位置：为此运行创建的 %1 的 git 工作树中</translation>
        </message>
        <message>
            <source>Where: on the network, from this computer</source>
            <translation>位置：网络上，从这台电脑发出</translation>
        </message>
        <message>
            <source>Where: the MCP server “%1”, which may do anything its tool does</source>
            <translation>位置：MCP 服务器“%1”，其工具能做的它都可能做</translation>
        </message>
        <message>
            <source>Why (optional; the agent is told)</source>
            <translation>原因（可选；会告知智能体）</translation>
        </message>
        <message>
            <source>Why it stopped</source>
            <translation>停止的原因</translation>
        </message>
        <message>
            <source>Your answer</source>
            <translation>您的回答</translation>
        </message>
    </context>
    <context>
        <name>AutomationForm</name>
        <message>
            <source> failures in a row</source>
            <translation> 次连续失败</translation>
        </message>
        <message>
            <source> runs</source>
            <translation> 次运行</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> 个词元</translation>
        </message>
        <message>
            <source>%1 (this computer)</source>
            <translation>%1（本机）</translation>
        </message>
        <message>
            <source>&amp;Command</source>
            <translation>命令(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Folder</source>
            <translation>文件夹(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation>模型(&amp;M)</translation>
        </message>
        <message>
            <source>&amp;Notify</source>
            <translation>通知(&amp;N)</translation>
        </message>
        <message>
            <source>&amp;Prompt</source>
            <translation>提示词(&amp;P)</translation>
        </message>
        <message>
            <source>&amp;Runs</source>
            <translation>运行方式(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Script</source>
            <translation>脚本(&amp;S)</translation>
        </message>
        <message>
            <source>&amp;Title</source>
            <translation>标题(&amp;T)</translation>
        </message>
        <message>
            <source>A command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>A command runs as it is, without asking: creating it is the consent. The choices below apply to agent runs.</source>
            <translation>命令会按原样运行，无需询问：创建它即表示同意。下面的选项适用于智能体运行。</translation>
        </message>
        <message>
            <source>A failed attempt is tried again, up to this many attempts in all</source>
            <translation>失败的尝试会重试，总共最多尝试这么多次</translation>
        </message>
        <message>
            <source>A one-time or hand-run schedule needs no stop rule.</source>
            <translation>一次性或手动运行的计划不需要停止规则。</translation>
        </message>
        <message>
            <source>A reminder (a notification)</source>
            <translation>提醒（一条通知）</translation>
        </message>
        <message>
            <source>A script (JavaScript in a sandbox)</source>
            <translation>脚本（沙箱中的 JavaScript）</translation>
        </message>
        <message>
            <source>After</source>
            <translation>达到</translation>
        </message>
        <message>
            <source>Agent steps</source>
            <translation>智能体步数</translation>
        </message>
        <message>
            <source>An agent, following a prompt</source>
            <translation>智能体，按提示词执行</translation>
        </message>
        <message>
            <source>Any computer</source>
            <translation>任意计算机</translation>
        </message>
        <message>
            <source>Ask me before it runs commands or changes files</source>
            <translation>运行命令或修改文件前先询问我</translation>
        </message>
        <message>
            <source>Attempts</source>
            <translation>尝试次数</translation>
        </message>
        <message>
            <source>Attempts per run</source>
            <translation>每次运行的尝试次数</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Catch up at most</source>
            <translation>最多补运行</translation>
        </message>
        <message>
            <source>Catch up within</source>
            <translation>补运行期限</translation>
        </message>
        <message>
            <source>Changed elsewhere</source>
            <translation>已在别处更改</translation>
        </message>
        <message>
            <source>Choose the project folder</source>
            <translation>选择项目文件夹</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Close without saving (Esc)</source>
            <translation>关闭且不保存 (Esc)</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>Continue one conversation across runs</source>
            <translation>在多次运行之间延续同一个对话</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Default model</source>
            <translation>默认模型</translation>
        </message>
        <message>
            <source>Discard</source>
            <translation>放弃</translation>
        </message>
        <message>
            <source>Discard your changes?</source>
            <translation>放弃您的更改？</translation>
        </message>
        <message>
            <source>Edit “%1”</source>
            <translation>编辑“%1”</translation>
        </message>
        <message>
            <source>Editing revision %1</source>
            <translation>正在编辑修订版本 %1</translation>
        </message>
        <message>
            <source>Failing</source>
            <translation>失败时</translation>
        </message>
        <message>
            <source>Failures in a row before pausing</source>
            <translation>暂停前的连续失败次数</translation>
        </message>
        <message>
            <source>History budget</source>
            <translation>历史预算</translation>
        </message>
        <message>
            <source>History kept</source>
            <translation>保留的历史</translation>
        </message>
        <message>
            <source>How much of the conversation a continuing run keeps</source>
            <translation>延续对话的运行保留多少对话内容</translation>
        </message>
        <message>
            <source>In plain words</source>
            <translation>用文字描述</translation>
        </message>
        <message>
            <source>Its own folder in Errands' data</source>
            <translation>Errands 数据中它自己的文件夹</translation>
        </message>
        <message>
            <source>Its stored definition no longer loads (%1). Saving replaces it with what this form shows.</source>
            <translation>它保存的定义已无法加载（%1）。保存会用此表单显示的内容替换它。</translation>
        </message>
        <message>
            <source>Keep editing</source>
            <translation>继续编辑</translation>
        </message>
        <message>
            <source>Let it do anything without asking, commands included</source>
            <translation>允许它不经询问做任何事，包括运行命令</translation>
        </message>
        <message>
            <source>Let it use the tools ticked below without asking</source>
            <translation>允许它不经询问使用下面勾选的工具</translation>
        </message>
        <message>
            <source>M&amp;essage</source>
            <translation>消息(&amp;E)</translation>
        </message>
        <message>
            <source>MCP ser&amp;vers</source>
            <translation>MCP 服务器(&amp;V)</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>MCP servers whose tools this agent may use, one a line: name=command or name=https://…/mcp (each call asks first; servers for every run are in Settings)</source>
            <translation>此智能体可使用其工具的 MCP 服务器，每行一个：name=命令 或 name=https://…/mcp（每次调用前都会询问；适用于所有运行的服务器在设置中）</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Missed runs</source>
            <translation>错过的运行</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Most steps an agent run takes</source>
            <translation>智能体运行的最多步数</translation>
        </message>
        <message>
            <source>New automation</source>
            <translation>新建自动化任务</translation>
        </message>
        <message>
            <source>Nothing is ticked: it asks before every tool.</source>
            <translation>未勾选任何工具：每次使用工具前都会询问。</translation>
        </message>
        <message>
            <source>Notifications</source>
            <translation>通知</translation>
        </message>
        <message>
            <source>Number of runs</source>
            <translation>运行次数</translation>
        </message>
        <message>
            <source>On</source>
            <translation>于</translation>
        </message>
        <message>
            <source>Only shows its message: it runs nothing and uses no model</source>
            <translation>只显示消息：不运行任何东西，也不使用模型</translation>
        </message>
        <message>
            <source>Pause itself after</source>
            <translation>自动暂停的条件</translation>
        </message>
        <message>
            <source>Pause itself after failures</source>
            <translation>失败后自动暂停</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Policies</source>
            <translation>策略</translation>
        </message>
        <message>
            <source>Problem</source>
            <translation>问题</translation>
        </message>
        <message>
            <source>Project folder</source>
            <translation>项目文件夹</translation>
        </message>
        <message>
            <source>Prompt</source>
            <translation>提示词</translation>
        </message>
        <message>
            <source>Quietly: results wait in the history</source>
            <translation>静默：结果保存在历史中</translation>
        </message>
        <message>
            <source>Reload</source>
            <translation>重新加载</translation>
        </message>
        <message>
            <source>Reload, discarding my changes</source>
            <translation>重新加载，放弃我的更改</translation>
        </message>
        <message>
            <source>Revision</source>
            <translation>修订版本</translation>
        </message>
        <message>
            <source>Run once when Errands is back</source>
            <translation>Errands 恢复后运行一次</translation>
        </message>
        <message>
            <source>Runs &amp;on</source>
            <translation>运行于(&amp;O)</translation>
        </message>
        <message>
            <source>Runs commands without asking.</source>
            <translation>不经询问运行命令。</translation>
        </message>
        <message>
            <source>Runs its command without asking (creating it was the consent)</source>
            <translation>不经询问运行其命令（创建它即表示同意）</translation>
        </message>
        <message>
            <source>Runs its script in a sandbox: it proposes, Errands checks each action against its folder and rules before applying it</source>
            <translation>在沙箱中运行脚本：脚本提出操作，Errands 按其文件夹和规则逐一检查后再执行</translation>
        </message>
        <message>
            <source>Runs missed while Errands was closed or the computer slept</source>
            <translation>Errands 关闭或电脑休眠期间错过的运行</translation>
        </message>
        <message>
            <source>Runs on</source>
            <translation>运行于</translation>
        </message>
        <message>
            <source>Runs until you pause or delete it, unless you tick a rule below.</source>
            <translation>会一直运行，直到您暂停或删除它，除非您在下面勾选一条规则。</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Save (Ctrl+Return)</source>
            <translation>保存 (Ctrl+Return)</translation>
        </message>
        <message>
            <source>Save anyway</source>
            <translation>仍然保存</translation>
        </message>
        <message>
            <source>Save anyway, overwriting the other change</source>
            <translation>仍然保存，覆盖另一处更改</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>正在保存…</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Sections</source>
            <translation>分区</translation>
        </message>
        <message>
            <source>Sections of the form</source>
            <translation>表单分区</translation>
        </message>
        <message>
            <source>Skip the new run</source>
            <translation>跳过新的运行</translation>
        </message>
        <message>
            <source>Skip them (noted in the history)</source>
            <translation>跳过（记录在历史中）</translation>
        </message>
        <message>
            <source>Spread</source>
            <translation>随机延迟</translation>
        </message>
        <message>
            <source>Spread the start</source>
            <translation>随机延迟开始</translation>
        </message>
        <message>
            <source>Spread the start by up to</source>
            <translation>开始时间随机延迟最多</translation>
        </message>
        <message>
            <source>Start</source>
            <translation>开始</translation>
        </message>
        <message>
            <source>Start each run fresh</source>
            <translation>每次运行都重新开始</translation>
        </message>
        <message>
            <source>Start it when the running one ends (one waits at most)</source>
            <translation>在当前运行结束后开始（最多等待一个）</translation>
        </message>
        <message>
            <source>Still running</source>
            <translation>仍在运行</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop after a number of runs</source>
            <translation>运行一定次数后停止</translation>
        </message>
        <message>
            <source>Stop at a date and time</source>
            <translation>在指定日期和时间停止</translation>
        </message>
        <message>
            <source>Stop date and time</source>
            <translation>停止的日期和时间</translation>
        </message>
        <message>
            <source>Stop the running one and start anew</source>
            <translation>停止当前运行并重新开始</translation>
        </message>
        <message>
            <source>Stop when a run says its condition is met</source>
            <translation>当运行报告其条件已满足时停止</translation>
        </message>
        <message>
            <source>Stops at whichever comes first:</source>
            <translation>以先到者为准停止：</translation>
        </message>
        <message>
            <source>Task</source>
            <translation>任务</translation>
        </message>
        <message>
            <source>Tell me after</source>
            <translation>通知我的条件</translation>
        </message>
        <message>
            <source>Tell me after every run</source>
            <translation>每次运行后通知我</translation>
        </message>
        <message>
            <source>Tell me after this many failures in a row</source>
            <translation>连续失败这么多次后通知我</translation>
        </message>
        <message>
            <source>Tell me when the result changes</source>
            <translation>结果变化时通知我</translation>
        </message>
        <message>
            <source>The computer whose Errands runs it. A command or a folder belongs to one computer; an agent or a reminder can run on any.</source>
            <translation>由哪台计算机上的 Errands 运行它。命令或文件夹属于一台计算机；智能体或提醒可在任意计算机上运行。</translation>
        </message>
        <message>
            <source>This automation was changed elsewhere (now revision %1) after you opened it. Your changes are still here. Reload shows the other version and discards yours; Save anyway replaces it with yours.</source>
            <translation>您打开此自动化任务后，它已在别处被更改（现在是修订版本 %1）。您的更改仍在这里。“重新加载”会显示另一个版本并放弃您的更改；“仍然保存”会用您的版本替换它。</translation>
        </message>
        <message>
            <source>This form has changes that are not saved.</source>
            <translation>此表单有尚未保存的更改。</translation>
        </message>
        <message>
            <source>Time limit</source>
            <translation>时间限制</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>Tools it may use without asking</source>
            <translation>可不经询问使用的工具</translation>
        </message>
        <message>
            <source>What runs without asking</source>
            <translation>哪些操作无需询问</translation>
        </message>
        <message>
            <source>What the agent should do, e.g. Summarize today's email</source>
            <translation>智能体应做什么，例如：总结今天的电子邮件</translation>
        </message>
        <message>
            <source>What the notification says, e.g. Call mom</source>
            <translation>通知的内容，例如：给妈妈打电话</translation>
        </message>
        <message>
            <source>What to run</source>
            <translation>运行什么</translation>
        </message>
        <message>
            <source>When a run is still going</source>
            <translation>当上一次运行仍在进行时</translation>
        </message>
        <message>
            <source>When a run says its condition is met</source>
            <translation>当运行报告其条件已满足时</translation>
        </message>
        <message>
            <source>When it stops</source>
            <translation>何时停止</translation>
        </message>
        <message>
            <source>a time zone from the list</source>
            <translation>列表中的时区</translation>
        </message>
        <message>
            <source>e.g. ./backup.sh --quiet</source>
            <translation>例如 ./backup.sh --quiet</translation>
        </message>
        <message>
            <source>e.g. Morning briefing</source>
            <translation>例如：晨间简报</translation>
        </message>
        <message>
            <source>unknown time zone</source>
            <translation>未知时区</translation>
        </message>
    </context>
    <context>
        <name>AutomationSidebar</name>
        <message numerus="yes">
            <source>%n runs waiting for you; review them</source>
            <translation>
                <numerusform>%n 个运行在等待您；去查看</numerusform>
            </translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>已归档</translation>
        </message>
        <message numerus="yes">
            <source>Archived (%n)</source>
            <translation>
                <numerusform>已归档（%n）</numerusform>
            </translation>
        </message>
        <message>
            <source>Automations</source>
            <translation>自动化任务</translation>
        </message>
        <message>
            <source>Clear the filter</source>
            <translation>清除筛选</translation>
        </message>
        <message>
            <source>Create a new automation</source>
            <translation>新建一个自动化任务</translation>
        </message>
        <message>
            <source>Filter automations</source>
            <translation>筛选自动化任务</translation>
        </message>
        <message>
            <source>Filter…</source>
            <translation>筛选…</translation>
        </message>
        <message>
            <source>Inbox</source>
            <translation>收件箱</translation>
        </message>
        <message numerus="yes">
            <source>Inbox (%n)</source>
            <translation>
                <numerusform>收件箱 (%n)</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>Inbox, %n unread</source>
            <translation>
                <numerusform>收件箱，%n 条未读</numerusform>
            </translation>
        </message>
        <message>
            <source>Inbox, nothing unread</source>
            <translation>收件箱，没有未读</translation>
        </message>
        <message>
            <source>Last run</source>
            <translation>上次运行</translation>
        </message>
        <message>
            <source>Loading automations…</source>
            <translation>正在加载自动化任务…</translation>
        </message>
        <message>
            <source>New automation</source>
            <translation>新建自动化任务</translation>
        </message>
        <message>
            <source>New automation (Ctrl+N)</source>
            <translation>新建自动化任务 (Ctrl+N)</translation>
        </message>
        <message>
            <source>New automation…</source>
            <translation>新建自动化任务…</translation>
        </message>
        <message>
            <source>Next fire</source>
            <translation>下次触发</translation>
        </message>
        <message>
            <source>No archived automation matches “%1”.</source>
            <translation>没有与“%1”匹配的已归档自动化任务。</translation>
        </message>
        <message>
            <source>No archived automations. Archive one (in its ⋯ menu) to stop it for good and keep its runs.</source>
            <translation>没有已归档的自动化任务。归档一个（在其 ⋯ 菜单中）可将其永久停止并保留其运行记录。</translation>
        </message>
        <message>
            <source>No automation matches “%1”.</source>
            <translation>没有与“%1”匹配的自动化任务。</translation>
        </message>
        <message numerus="yes">
            <source>No automations here: the %n archived ones are under Archived.</source>
            <translation>
                <numerusform>这里没有自动化任务：%n 个已归档的任务在“已归档”中。</numerusform>
            </translation>
        </message>
        <message>
            <source>No automations yet — press Ctrl+N to create one.

While Errands is closed nothing runs; missed fires are noted in the history, never all at once when it opens.</source>
            <translation>还没有自动化任务——按 Ctrl+N 创建一个。

Errands 关闭期间不会运行任何任务；错过的触发会记录在历史中，打开时绝不会一次性全部补运行。</translation>
        </message>
        <message>
            <source>Runs waiting for your approval or answer</source>
            <translation>等待您批准或回答的运行</translation>
        </message>
        <message>
            <source>Show all automations</source>
            <translation>显示所有自动化任务</translation>
        </message>
        <message>
            <source>Show archived</source>
            <translation>显示已归档</translation>
        </message>
        <message>
            <source>Show only the archived automations (View ▸ Show archived)</source>
            <translation>只显示已归档的自动化任务（视图 ▸ 显示已归档）</translation>
        </message>
        <message>
            <source>Show the archived automations</source>
            <translation>显示已归档的自动化任务</translation>
        </message>
        <message numerus="yes">
            <source>Show the archived automations, %n</source>
            <translation>
                <numerusform>显示已归档的自动化任务，%n 个</numerusform>
            </translation>
        </message>
        <message>
            <source>Sort automations by</source>
            <translation>自动化任务排序方式</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>Upcoming</source>
            <translation>即将触发</translation>
        </message>
        <message>
            <source>Upcoming fires</source>
            <translation>即将到来的触发</translation>
        </message>
        <message numerus="yes">
            <source>⚑ %n waiting</source>
            <translation>
                <numerusform>⚑ %n 个等待中</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>BackBar</name>
        <message>
            <source>Back (Esc)</source>
            <translation>返回 (Esc)</translation>
        </message>
        <message>
            <source>Back to the automation</source>
            <translation>返回自动化任务</translation>
        </message>
        <message>
            <source>← Back</source>
            <translation>← 返回</translation>
        </message>
    </context>
    <context>
        <name>CatalogueEditor</name>
        <message>
            <source>A password is kept in the keyring.</source>
            <translation>密码已保存在密钥环中。</translation>
        </message>
        <message>
            <source>Automations and their runs are kept in this computer's own file, or in a PostgreSQL database that several computers share. One computer's Errands serves a shared catalogue at a time; the command line of the others hands it their changes.</source>
            <translation>自动化任务及其运行记录保存在本机自己的文件中，或保存在多台计算机共享的 PostgreSQL 数据库中。共享目录同一时间只由一台计算机上的 Errands 提供服务；其他计算机的命令行会把它们的更改交给它。</translation>
        </message>
        <message>
            <source>Catalogue in use</source>
            <translation>正在使用的目录</translation>
        </message>
        <message>
            <source>ERRANDS_DATABASE_URL chooses the catalogue for this session; what is saved here applies where it is not set.</source>
            <translation>本次会话的目录由 ERRANDS_DATABASE_URL 决定；在未设置它的地方，使用此处保存的设置。</translation>
        </message>
        <message>
            <source>Empty: this computer's own file. Used from the next start; never with a password in it.</source>
            <translation>留空：使用本机自己的文件。下次启动时生效；其中不得包含密码。</translation>
        </message>
        <message>
            <source>Give the shared catalogue's URL first.</source>
            <translation>请先填写共享目录的 URL。</translation>
        </message>
        <message>
            <source>In use:</source>
            <translation>正在使用：</translation>
        </message>
        <message>
            <source>No password is kept in the keyring (the server may not need one).</source>
            <translation>密钥环中没有保存密码（服务器可能不需要）。</translation>
        </message>
        <message>
            <source>Password of the shared catalogue</source>
            <translation>共享目录的密码</translation>
        </message>
        <message>
            <source>Password:</source>
            <translation>密码：</translation>
        </message>
        <message>
            <source>Save password</source>
            <translation>保存密码</translation>
        </message>
        <message>
            <source>Save the password in the keyring</source>
            <translation>将密码保存到密钥环</translation>
        </message>
        <message>
            <source>Shared catalogue URL</source>
            <translation>共享目录 URL</translation>
        </message>
        <message>
            <source>Shared catalogue:</source>
            <translation>共享目录：</translation>
        </message>
        <message>
            <source>Shared: %1</source>
            <translation>共享：%1</translation>
        </message>
        <message>
            <source>The URL holds a password: leave it out, and save the password below (it is kept in the keyring).</source>
            <translation>该 URL 中含有密码：请将其去掉，并在下方保存密码（密码将保存在密钥环中）。</translation>
        </message>
        <message>
            <source>This computer: %1</source>
            <translation>本机：%1</translation>
        </message>
    </context>
    <context>
        <name>ConfirmationCard</name>
        <message>
            <source>(later runs shift by how long each run takes)</source>
            <translation>（之后的运行会按每次运行所用时间顺延）</translation>
        </message>
        <message>
            <source>An agent follows this prompt:</source>
            <translation>智能体按此提示词执行：</translation>
        </message>
        <message>
            <source>C&amp;hoose…</source>
            <translation>选择(&amp;H)…</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Check these</source>
            <translation>请检查这些</translation>
        </message>
        <message>
            <source>Choose the folder it works in</source>
            <translation>选择它工作的文件夹</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>上下文</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>创建</translation>
        </message>
        <message>
            <source>Create this automation</source>
            <translation>创建此自动化任务</translation>
        </message>
        <message>
            <source>Creating…</source>
            <translation>正在创建…</translation>
        </message>
        <message>
            <source>Edit in form</source>
            <translation>在表单中编辑</translation>
        </message>
        <message>
            <source>Edit in form…</source>
            <translation>在表单中编辑…</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>文件夹</translation>
        </message>
        <message>
            <source>Its own folder in Errands' data</source>
            <translation>Errands 数据中它自己的文件夹</translation>
        </message>
        <message>
            <source>Needs a model</source>
            <translation>需要模型</translation>
        </message>
        <message>
            <source>Needs a model: an agent follows this prompt, and no model is set up yet. Its runs fail until you set one up.</source>
            <translation>需要模型：由代理执行此提示，但尚未设置模型。在设置模型之前，它的运行都会失败。</translation>
        </message>
        <message>
            <source>Next runs</source>
            <translation>接下来的运行</translation>
        </message>
        <message>
            <source>No runs ahead.</source>
            <translation>之后没有运行。</translation>
        </message>
        <message>
            <source>Not created</source>
            <translation>未创建</translation>
        </message>
        <message>
            <source>Only when you run it.</source>
            <translation>仅在您运行时。</translation>
        </message>
        <message>
            <source>Open the full form with this filled in</source>
            <translation>打开已填好这些内容的完整表单</translation>
        </message>
        <message>
            <source>Open the settings at the model provider</source>
            <translation>打开设置中的模型提供方</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Reminds you with a notification:</source>
            <translation>用一条通知提醒你：</translation>
        </message>
        <message>
            <source>Runs a command:</source>
            <translation>运行命令：</translation>
        </message>
        <message>
            <source>Runs commands without asking.</source>
            <translation>不经询问运行命令。</translation>
        </message>
        <message>
            <source>Runs this script in a sandbox:</source>
            <translation>在沙箱中运行此脚本：</translation>
        </message>
        <message>
            <source>Set up a &amp;model…</source>
            <translation>设置模型(&amp;M)…</translation>
        </message>
        <message>
            <source>Set up a model</source>
            <translation>设置模型</translation>
        </message>
        <message>
            <source>Show all</source>
            <translation>全部显示</translation>
        </message>
        <message>
            <source>Show all of what it runs</source>
            <translation>显示它运行的全部内容</translation>
        </message>
        <message>
            <source>Show less</source>
            <translation>收起</translation>
        </message>
        <message>
            <source>Show less of what it runs</source>
            <translation>少显示一些它运行的内容</translation>
        </message>
        <message>
            <source>Stops</source>
            <translation>停止条件</translation>
        </message>
        <message>
            <source>The folder it works in</source>
            <translation>它工作的文件夹</translation>
        </message>
        <message>
            <source>The task names “%1”: choose the folder it works in, or leave this empty for its own folder in Errands' data.</source>
            <translation>任务提到了“%1”：请选择它工作的文件夹，或留空以使用它在 Errands 数据中的专属文件夹。</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>Warnings</source>
            <translation>警告</translation>
        </message>
        <message>
            <source>What it runs</source>
            <translation>运行内容</translation>
        </message>
        <message>
            <source>What runs</source>
            <translation>运行什么</translation>
        </message>
        <message>
            <source>What will be created</source>
            <translation>将创建的内容</translation>
        </message>
        <message>
            <source>When</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>Where it came from</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Write the whole path, from / or ~, e.g. %1</source>
            <translation>请写出完整路径，从 / 或 ~ 开始，例如 %1</translation>
        </message>
    </context>
    <context>
        <name>CrashReporter</name>
        <message numerus="yes">
            <source>%n unexpected errors this session; details are in the log</source>
            <translation>
                <numerusform>本次会话发生了 %n 个意外错误；详情见日志</numerusform>
            </translation>
        </message>
        <message>
            <source>Copy details</source>
            <translation>复制详情</translation>
        </message>
        <message>
            <source>Copy the error details</source>
            <translation>复制错误详情</translation>
        </message>
        <message>
            <source>Errands hit an error it did not expect. Your automations keep running; what you were doing may not have finished.</source>
            <translation>Errands 遇到了一个意外错误。您的自动化任务会继续运行；您刚才进行的操作可能没有完成。</translation>
        </message>
        <message>
            <source>Something went wrong</source>
            <translation>出错了</translation>
        </message>
    </context>
    <context>
        <name>DetailPane</name>
        <message>
            <source>&amp;Enable</source>
            <translation>启用(&amp;E)</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>归档</translation>
        </message>
        <message>
            <source>Archive instead</source>
            <translation>改为归档</translation>
        </message>
        <message>
            <source>Archive instead to stop it for good and keep all of it: its runs, conversations, revisions and logs.</source>
            <translation>改为归档可将其永久停止并保留全部内容：运行记录、对话、修订版本和日志。</translation>
        </message>
        <message>
            <source>Bring it back, paused; resume it to fire again (Ctrl+Shift+A)</source>
            <translation>以暂停状态取回；恢复后才会再次触发 (Ctrl+Shift+A)</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>上下文</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Delete automation</source>
            <translation>删除自动化任务</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>删除…</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>试运行</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>创建副本</translation>
        </message>
        <message>
            <source>Edit the automation (Ctrl+E)</source>
            <translation>编辑自动化任务 (Ctrl+E)</translation>
        </message>
        <message>
            <source>Edit…</source>
            <translation>编辑…</translation>
        </message>
        <message>
            <source>Enable the proposed automation</source>
            <translation>启用提议的自动化</translation>
        </message>
        <message>
            <source>Failures in a row</source>
            <translation>连续失败次数</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>文件夹</translation>
        </message>
        <message>
            <source>Let it fire on its schedule from now on</source>
            <translation>从现在起按计划触发</translation>
        </message>
        <message>
            <source>Missed fires</source>
            <translation>错过的触发</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>更多操作</translation>
        </message>
        <message>
            <source>New web address token…</source>
            <translation>新的网址令牌…</translation>
        </message>
        <message>
            <source>Next fires</source>
            <translation>接下来的触发</translation>
        </message>
        <message>
            <source>Opening as soon as the engine has started…</source>
            <translation>引擎启动后立即打开…</translation>
        </message>
        <message>
            <source>Overlap</source>
            <translation>重叠</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Pause or resume its schedule (Space)</source>
            <translation>暂停或恢复其计划（空格键）</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Proposed by %1, waiting for you. It would run: %2. Read what it runs below; Enable lets it fire.</source>
            <translation>由 %1 提议，等待你确认。它将运行：%2。请先阅读下方它运行的内容；点击“启用”后它才会触发。</translation>
        </message>
        <message>
            <source>Proposed by another agent</source>
            <translation>由其他智能体提议</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Run history</source>
            <translation>运行历史</translation>
        </message>
        <message>
            <source>Run it now (Ctrl+R)</source>
            <translation>立即运行 (Ctrl+R)</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>立即运行</translation>
        </message>
        <message>
            <source>Run over the files already there…</source>
            <translation>对已有文件运行…</translation>
        </message>
        <message>
            <source>Runs</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Select an automation on the left to see what it runs, when, and how its runs went — or press Ctrl+N to create one.</source>
            <translation>在左侧选择一个自动化任务，查看它运行什么、何时运行以及运行情况——或按 Ctrl+N 新建一个。</translation>
        </message>
        <message>
            <source>Show what a run would do, without effects</source>
            <translation>显示一次运行会做什么，但不产生实际效果</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Stop it for good and keep its runs, conversations and logs (Ctrl+Shift+A)</source>
            <translation>永久停止并保留其运行记录、对话和日志 (Ctrl+Shift+A)</translation>
        </message>
        <message>
            <source>Stop run</source>
            <translation>停止运行</translation>
        </message>
        <message>
            <source>Stop the run going on now</source>
            <translation>停止正在进行的运行</translation>
        </message>
        <message>
            <source>Stops</source>
            <translation>停止条件</translation>
        </message>
        <message>
            <source>This automation could not be read: %1

It is read again when it changes, or when you select it again.</source>
            <translation>无法读取此自动化任务：%1

它发生变化或您再次选中它时会重新读取。</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>取消归档</translation>
        </message>
        <message>
            <source>What it runs</source>
            <translation>运行内容</translation>
        </message>
        <message>
            <source>another agent</source>
            <translation>其他智能体</translation>
        </message>
        <message>
            <source>proposed by %1</source>
            <translation>由 %1 提议</translation>
        </message>
    </context>
    <context>
        <name>EventTriggers</name>
        <message>
            <source>Add a folder to watch</source>
            <translation>添加要监视的文件夹</translation>
        </message>
        <message>
            <source>Add a web address that starts it</source>
            <translation>添加启动它的网址</translation>
        </message>
        <message>
            <source>Add another automation's end as a trigger</source>
            <translation>将另一个自动化的结束添加为触发器</translation>
        </message>
        <message>
            <source>Add new mail as a trigger</source>
            <translation>将新邮件添加为触发器</translation>
        </message>
        <message>
            <source>Add:</source>
            <translation>添加：</translation>
        </message>
        <message>
            <source>Also when something happens</source>
            <translation>当发生某事时也运行</translation>
        </message>
        <message>
            <source>Another automation…</source>
            <translation>另一个自动化…</translation>
        </message>
        <message>
            <source>Event triggers</source>
            <translation>事件触发器</translation>
        </message>
        <message>
            <source>Folder…</source>
            <translation>文件夹…</translation>
        </message>
        <message>
            <source>Mail…</source>
            <translation>邮件…</translation>
        </message>
        <message>
            <source>Nothing else starts it. Add a folder to watch, a web address, mail or another automation's end.</source>
            <translation>没有其他方式启动它。可添加要监视的文件夹、网址、邮件或另一个自动化的结束。</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Remove the chosen event trigger</source>
            <translation>移除所选的事件触发器</translation>
        </message>
        <message>
            <source>Web address</source>
            <translation>网址</translation>
        </message>
    </context>
    <context>
        <name>FillPage</name>
        <message>
            <source>(optional)</source>
            <translation>（可选）</translation>
        </message>
        <message>
            <source>Blanks</source>
            <translation>空白项</translation>
        </message>
        <message>
            <source>Fill in the blanks</source>
            <translation>填写空白项</translation>
        </message>
    </context>
    <context>
        <name>FolderDialog</name>
        <message>
            <source>&amp;Folder</source>
            <translation>文件夹(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Only files like</source>
            <translation>仅限文件(&amp;O)</translation>
        </message>
        <message>
            <source>/home/me/Downloads</source>
            <translation>/home/me/Downloads</translation>
        </message>
        <message>
            <source>Choose a folder that exists.</source>
            <translation>请选择一个存在的文件夹。</translation>
        </message>
        <message>
            <source>Choose the folder to watch</source>
            <translation>选择要监视的文件夹</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Folder to watch</source>
            <translation>要监视的文件夹</translation>
        </message>
        <message>
            <source>Only files like</source>
            <translation>仅限文件</translation>
        </message>
        <message>
            <source>Only when a file is added</source>
            <translation>仅在添加文件时</translation>
        </message>
        <message>
            <source>Watch a folder</source>
            <translation>监视文件夹</translation>
        </message>
        <message>
            <source>every file; or e.g. *.pdf *.csv</source>
            <translation>所有文件；或例如 *.pdf *.csv</translation>
        </message>
    </context>
    <context>
        <name>InboxView</name>
        <message>
            <source>%1 unread</source>
            <translation>%1 条未读</translation>
        </message>
        <message>
            <source>Inbox</source>
            <translation>收件箱</translation>
        </message>
        <message>
            <source>Inbox is empty</source>
            <translation>收件箱为空</translation>
        </message>
        <message>
            <source>Inbox items</source>
            <translation>收件箱条目</translation>
        </message>
        <message>
            <source>Mark all read</source>
            <translation>全部标为已读</translation>
        </message>
        <message>
            <source>Mark every item read</source>
            <translation>将所有条目标为已读</translation>
        </message>
        <message>
            <source>Mark read</source>
            <translation>标为已读</translation>
        </message>
        <message>
            <source>Mark the selected item read</source>
            <translation>将所选条目标为已读</translation>
        </message>
        <message>
            <source>Nothing needs you. Failures, parked runs and results you asked to hear about appear here.</source>
            <translation>没有需要您处理的事项。失败、等待中的运行以及您想了解的结果会显示在这里。</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Open the item's run</source>
            <translation>打开条目对应的运行</translation>
        </message>
        <message>
            <source>Show the run (or automation) this item is about (Enter)</source>
            <translation>显示此条目相关的运行（或自动化任务）(Enter)</translation>
        </message>
        <message>
            <source>Unread items</source>
            <translation>未读条目</translation>
        </message>
        <message>
            <source>the newest %1 shown</source>
            <translation>显示最新的 %1 条</translation>
        </message>
    </context>
    <context>
        <name>MailDialog</name>
        <message>
            <source>&amp;Account</source>
            <translation>账户(&amp;A)</translation>
        </message>
        <message>
            <source>How the test went</source>
            <translation>测试结果</translation>
        </message>
        <message>
            <source>It does not work: %1</source>
            <translation>无法使用：%1</translation>
        </message>
        <message>
            <source>It works: %1</source>
            <translation>可以使用：%1</translation>
        </message>
        <message>
            <source>Logging in…</source>
            <translation>正在登录…</translation>
        </message>
        <message>
            <source>Mail account</source>
            <translation>邮件账户</translation>
        </message>
        <message>
            <source>New mail</source>
            <translation>新邮件</translation>
        </message>
        <message>
            <source>No mail account is set up yet. Add one in a terminal with: errands mail add NAME --address ME --imap-host HOST</source>
            <translation>尚未设置邮件账户。请在终端中添加：errands mail add NAME --address ME --imap-host HOST</translation>
        </message>
        <message>
            <source>Only &amp;subjects with</source>
            <translation>仅限主题包含(&amp;S)</translation>
        </message>
        <message>
            <source>Only mail &amp;from</source>
            <translation>仅限发件人(&amp;F)</translation>
        </message>
        <message>
            <source>Only mail from</source>
            <translation>仅限发件人</translation>
        </message>
        <message>
            <source>Only subjects with</source>
            <translation>仅限主题包含</translation>
        </message>
        <message>
            <source>Test</source>
            <translation>测试</translation>
        </message>
        <message>
            <source>Test the mail account</source>
            <translation>测试邮件账户</translation>
        </message>
        <message>
            <source>any subject; or e.g. Invoice</source>
            <translation>任意主题；或例如 发票</translation>
        </message>
        <message>
            <source>anyone; or e.g. billing@example.com</source>
            <translation>任何人；或例如 billing@example.com</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message numerus="yes">
            <source>%n running</source>
            <translation>
                <numerusform>%n 个正在运行</numerusform>
            </translation>
        </message>
        <message>
            <source>&amp;Automation</source>
            <translation>自动化任务(&amp;A)</translation>
        </message>
        <message>
            <source>&amp;Close window</source>
            <translation>关闭窗口(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Dark</source>
            <translation>深色(&amp;D)</translation>
        </message>
        <message>
            <source>&amp;Delete…</source>
            <translation>删除(&amp;D)…</translation>
        </message>
        <message>
            <source>&amp;Describe it…</source>
            <translation>用一句话描述(&amp;D)…</translation>
        </message>
        <message>
            <source>&amp;Edit…</source>
            <translation>编辑(&amp;E)…</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Find…</source>
            <translation>查找(&amp;F)…</translation>
        </message>
        <message>
            <source>&amp;Import…</source>
            <translation>导入(&amp;I)…</translation>
        </message>
        <message>
            <source>&amp;Light</source>
            <translation>浅色(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;New automation…</source>
            <translation>新建自动化任务(&amp;N)…</translation>
        </message>
        <message>
            <source>&amp;Pause / Resume</source>
            <translation>暂停 / 恢复(&amp;P)</translation>
        </message>
        <message>
            <source>&amp;Quit Errands</source>
            <translation>退出 Errands(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Run now</source>
            <translation>立即运行(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Settings…</source>
            <translation>设置(&amp;S)…</translation>
        </message>
        <message>
            <source>&amp;Theme</source>
            <translation>主题(&amp;T)</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <source>Add the automations of an export file</source>
            <translation>添加导出文件中的自动化任务</translation>
        </message>
        <message>
            <source>Ar&amp;chive</source>
            <translation>归档(&amp;C)</translation>
        </message>
        <message>
            <source>Archive the selected automation: it stops for good and keeps its runs; or bring an archived one back, paused</source>
            <translation>归档所选自动化任务：永久停止并保留其运行记录；或将已归档的任务以暂停状态取回</translation>
        </message>
        <message>
            <source>Automations

(the list of automations goes here)</source>
            <translation>自动化任务

（自动化任务列表显示在这里）</translation>
        </message>
        <message>
            <source>Automations and detail</source>
            <translation>自动化任务和详情</translation>
        </message>
        <message>
            <source>Back</source>
            <translation>返回</translation>
        </message>
        <message>
            <source>Back to the list of automations</source>
            <translation>返回自动化任务列表</translation>
        </message>
        <message>
            <source>Catalogue unreachable</source>
            <translation>目录无法访问</translation>
        </message>
        <message>
            <source>Close the window; Errands keeps running</source>
            <translation>关闭窗口；Errands 继续运行</translation>
        </message>
        <message>
            <source>Create a new automation with the full form</source>
            <translation>用完整表单新建自动化任务</translation>
        </message>
        <message>
            <source>Delete the selected automation</source>
            <translation>删除所选自动化任务</translation>
        </message>
        <message>
            <source>E&amp;xport…</source>
            <translation>导出(&amp;X)…</translation>
        </message>
        <message>
            <source>Edit the selected automation</source>
            <translation>编辑所选自动化任务</translation>
        </message>
        <message>
            <source>Engine %1</source>
            <translation>引擎：%1</translation>
        </message>
        <message>
            <source>Engine running</source>
            <translation>引擎运行中</translation>
        </message>
        <message>
            <source>Engine state</source>
            <translation>引擎状态</translation>
        </message>
        <message>
            <source>Engine stopped</source>
            <translation>引擎已停止</translation>
        </message>
        <message>
            <source>Engine stopped: another Errands engine took this computer's place on the shared catalogue, or this computer's clock is off; the log says which</source>
            <translation>引擎已停止：另一个 Errands 引擎接替了这台计算机在共享目录中的位置，或者这台计算机的时钟不准；日志中写明了是哪一种</translation>
        </message>
        <message>
            <source>Engine stopped: served elsewhere</source>
            <translation>引擎已停止：由别处提供服务</translation>
        </message>
        <message>
            <source>Engine stopping…</source>
            <translation>引擎正在停止…</translation>
        </message>
        <message>
            <source>Errands</source>
            <translation>Errands</translation>
        </message>
        <message>
            <source>Filter the automations</source>
            <translation>筛选自动化任务</translation>
        </message>
        <message>
            <source>Follow the &amp;system</source>
            <translation>跟随系统(&amp;S)</translation>
        </message>
        <message>
            <source>List only the archived automations instead of the others</source>
            <translation>只列出已归档的自动化任务，而不是其他任务</translation>
        </message>
        <message>
            <source>New from &amp;template…</source>
            <translation>从模板新建(&amp;T)…</translation>
        </message>
        <message>
            <source>No system tray on this desktop: Errands runs while this window is open</source>
            <translation>此桌面没有系统托盘：仅在此窗口打开时 Errands 才会运行</translation>
        </message>
        <message>
            <source>Open the settings</source>
            <translation>打开设置</translation>
        </message>
        <message>
            <source>Pause or resume the selected automation</source>
            <translation>暂停或恢复所选自动化任务</translation>
        </message>
        <message>
            <source>Run the selected automation now</source>
            <translation>立即运行所选自动化任务</translation>
        </message>
        <message>
            <source>Runs going now</source>
            <translation>正在进行的运行</translation>
        </message>
        <message>
            <source>Save every automation's definition to a file (no secrets, no history)</source>
            <translation>将每个自动化任务的定义保存到文件（不含密钥，不含历史）</translation>
        </message>
        <message>
            <source>Say what and when in a sentence; see it before it is created</source>
            <translation>用一句话说明做什么、何时做；创建前会先给您确认</translation>
        </message>
        <message>
            <source>Select an automation to see what it runs, when, and its history.</source>
            <translation>选择一个自动化任务，查看它运行什么、何时运行以及它的历史。</translation>
        </message>
        <message>
            <source>Shared catalogue unreachable: nothing runs until it is back (retrying)</source>
            <translation>无法访问共享目录：恢复之前不会运行任何任务（正在重试）</translation>
        </message>
        <message>
            <source>Show &amp;archived</source>
            <translation>显示已归档(&amp;A)</translation>
        </message>
        <message>
            <source>Start from a ready-made automation</source>
            <translation>从现成的自动化任务开始</translation>
        </message>
        <message>
            <source>Starting the engine…</source>
            <translation>正在启动引擎…</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Stop the engine and quit</source>
            <translation>停止引擎并退出</translation>
        </message>
        <message>
            <source>System tray</source>
            <translation>系统托盘</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Un&amp;archive</source>
            <translation>取消归档(&amp;A)</translation>
        </message>
        <message>
            <source>← Automations</source>
            <translation>← 自动化任务</translation>
        </message>
    </context>
    <context>
        <name>PickPage</name>
        <message>
            <source>A ready-made automation with a few blanks to fill in.</source>
            <translation>一个现成的自动化任务，只需填写几个空白项。</translation>
        </message>
        <message>
            <source>No template matches.</source>
            <translation>没有匹配的模板。</translation>
        </message>
        <message>
            <source>Pick a template</source>
            <translation>选择模板</translation>
        </message>
        <message>
            <source>Search templates</source>
            <translation>搜索模板</translation>
        </message>
        <message>
            <source>Templates</source>
            <translation>模板</translation>
        </message>
        <message>
            <source>Templates left out</source>
            <translation>未载入的模板</translation>
        </message>
        <message>
            <source>needs a model</source>
            <translation>需要模型</translation>
        </message>
        <message>
            <source>no model needed</source>
            <translation>无需模型</translation>
        </message>
    </context>
    <context>
        <name>QuickCreateDialog</name>
        <message>
            <source>&amp;Describe it: when, and what to do</source>
            <translation>描述一下(&amp;D)：何时，做什么</translation>
        </message>
        <message>
            <source>Asking the model</source>
            <translation>正在询问模型</translation>
        </message>
        <message>
            <source>Blank &amp;form…</source>
            <translation>空白表单(&amp;F)…</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Choose the time in the &amp;form…</source>
            <translation>在表单中选择时间(&amp;F)…</translation>
        </message>
        <message>
            <source>Choose the time in the form</source>
            <translation>在表单中选择时间</translation>
        </message>
        <message>
            <source>Close without creating anything (Esc)</source>
            <translation>关闭且不创建任何内容 (Esc)</translation>
        </message>
        <message>
            <source>Could not read it</source>
            <translation>无法理解</translation>
        </message>
        <message>
            <source>Describe the automation</source>
            <translation>描述自动化任务</translation>
        </message>
        <message>
            <source>Draft</source>
            <translation>草稿</translation>
        </message>
        <message>
            <source>Draft it</source>
            <translation>生成草稿</translation>
        </message>
        <message>
            <source>Example: %1</source>
            <translation>示例：%1</translation>
        </message>
        <message>
            <source>Examples:</source>
            <translation>示例：</translation>
        </message>
        <message>
            <source>From a &amp;template…</source>
            <translation>从模板(&amp;T)…</translation>
        </message>
        <message>
            <source>Open the form with this as the task, at its schedule</source>
            <translation>打开表单，以此作为任务，并定位到计划</translation>
        </message>
        <message>
            <source>Open the full form</source>
            <translation>打开完整表单</translation>
        </message>
        <message>
            <source>Pick a ready-made automation and fill in its blanks</source>
            <translation>选择一个现成的自动化任务并填写空白项</translation>
        </message>
        <message>
            <source>Quick create</source>
            <translation>快速创建</translation>
        </message>
        <message>
            <source>Read the sentence (Enter)</source>
            <translation>解析这句话 (Enter)</translation>
        </message>
        <message>
            <source>Say when and what in one sentence, e.g. “%1”</source>
            <translation>用一句话说明何时做什么，例如“%1”</translation>
        </message>
        <message>
            <source>Say when and what in one sentence, then press Enter</source>
            <translation>用一句话说明何时做什么，然后按 Enter</translation>
        </message>
        <message>
            <source>Set every field yourself</source>
            <translation>自己设置每个字段</translation>
        </message>
        <message>
            <source>Start from a template</source>
            <translation>从模板开始</translation>
        </message>
        <message>
            <source>The draft</source>
            <translation>草稿</translation>
        </message>
        <message>
            <source>The sentence did not read as a schedule: asking the model to draft it…</source>
            <translation>这句话无法解析为计划：正在请模型起草…</translation>
        </message>
        <message>
            <source>Use this example</source>
            <translation>使用此示例</translation>
        </message>
        <message>
            <source>e.g. %1</source>
            <translation>例如 %1</translation>
        </message>
    </context>
    <context>
        <name>QuickCreateFlow</name>
        <message>
            <source>Not understood: %1</source>
            <translation>未理解：%1</translation>
        </message>
        <message>
            <source>The model could not be asked: %1</source>
            <translation>无法询问模型：%1</translation>
        </message>
        <message>
            <source>The model could not draft it: %1</source>
            <translation>模型无法起草：%1</translation>
        </message>
        <message>
            <source>There is no folder at %1</source>
            <translation>%1 处没有文件夹</translation>
        </message>
        <message>
            <source>This sentence could not be read. Besides English, these forms are read: every day at 9, every weekday at 8:30, every Monday at 10, every month on the 1st, in 10 minutes, tomorrow at 7pm, every 2 hours, remind me to … . Write the time in one of them, or choose it in the form.</source>
            <translation>无法理解这句话。除英语外，还能理解这些说法：每天9点、每个工作日8点半、每周一10点、每月1号、10分钟后、明天晚上7点、每2小时、提醒我…。请用其中一种说法写出时间，或在表单中选择。</translation>
        </message>
    </context>
    <context>
        <name>ReviewPage</name>
        <message>
            <source>From the template “%1”</source>
            <translation>来自模板“%1”</translation>
        </message>
        <message>
            <source>Nothing is created until you press Create.</source>
            <translation>在您按下“创建”之前不会创建任何内容。</translation>
        </message>
        <message>
            <source>Problem</source>
            <translation>问题</translation>
        </message>
        <message>
            <source>Review</source>
            <translation>确认</translation>
        </message>
        <message>
            <source>What will be created</source>
            <translation>将创建的内容</translation>
        </message>
    </context>
    <context>
        <name>RulesEditor</name>
        <message>
            <source>Action</source>
            <translation>操作</translation>
        </message>
        <message>
            <source>Action of rule {0}</source>
            <translation>规则 {0} 的操作</translation>
        </message>
        <message>
            <source>Add a permission rule</source>
            <translation>添加一条权限规则</translation>
        </message>
        <message>
            <source>Add rule</source>
            <translation>添加规则</translation>
        </message>
        <message>
            <source>Pattern</source>
            <translation>模式</translation>
        </message>
        <message>
            <source>Permission rules</source>
            <translation>权限规则</translation>
        </message>
        <message>
            <source>Remove rule</source>
            <translation>删除规则</translation>
        </message>
        <message>
            <source>Remove the selected permission rules</source>
            <translation>删除所选权限规则</translation>
        </message>
        <message>
            <source>Rule {0}: {1}</source>
            <translation>规则 {0}：{1}</translation>
        </message>
        <message>
            <source>Tool</source>
            <translation>工具</translation>
        </message>
        <message>
            <source>Tool of rule {0}</source>
            <translation>规则 {0} 的工具</translation>
        </message>
    </context>
    <context>
        <name>RunStrip</name>
        <message>
            <source>No runs yet</source>
            <translation>尚无运行</translation>
        </message>
        <message>
            <source>Recent runs</source>
            <translation>最近的运行</translation>
        </message>
    </context>
    <context>
        <name>SavedApprovalsView</name>
        <message>
            <source>None yet. When you choose “Always allow” for a run, the rule it adds is listed here, and can be revoked.</source>
            <translation>暂无。当您为某次运行选择“始终允许”时，它添加的规则会列在这里，并可撤销。</translation>
        </message>
        <message>
            <source>Remove this rule (an edit, with a new revision); the next such call asks again</source>
            <translation>删除此规则（一次编辑，生成新的修订版本）；下次类似调用会再次询问</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Revoke: %1</source>
            <translation>撤销：%1</translation>
        </message>
        <message>
            <source>Saved approvals</source>
            <translation>已保存的批准</translation>
        </message>
    </context>
    <context>
        <name>SchedulePage</name>
        <message>
            <source>Permissions</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Runs commands without asking.</source>
            <translation>不经询问运行命令。</translation>
        </message>
        <message>
            <source>Schedule and permissions</source>
            <translation>计划和权限</translation>
        </message>
        <message>
            <source>The template's schedule; change it if you like.</source>
            <translation>模板的计划；可按需修改。</translation>
        </message>
        <message>
            <source>These come with the template; change them in the automation's form after creating it.</source>
            <translation>这些随模板提供；创建后可在自动化任务的表单中修改。</translation>
        </message>
        <message>
            <source>What it may do without asking</source>
            <translation>可以不经询问做什么</translation>
        </message>
        <message>
            <source>When it runs, and what it may do</source>
            <translation>何时运行，可以做什么</translation>
        </message>
    </context>
    <context>
        <name>SchedulePicker</name>
        <message>
            <source> from the end</source>
            <translation>（倒数）</translation>
        </message>
        <message>
            <source>%1 does not exist on that day in %2: the clocks change then</source>
            <translation>%2 在那天没有 %1：那时时钟会调整</translation>
        </message>
        <message>
            <source>(later runs shift by how long each run takes)</source>
            <translation>（之后的运行会按每次运行所用时间顺延）</translation>
        </message>
        <message>
            <source>1: every month; 3: every quarter; 12: every year; 24: every other year</source>
            <translation>1：每月；3：每季度；12：每年；24：每两年</translation>
        </message>
        <message>
            <source>A weekday of the month</source>
            <translation>月中的某个星期几</translation>
        </message>
        <message>
            <source>Advanced: a cron expression</source>
            <translation>高级：cron 表达式</translation>
        </message>
        <message>
            <source>Again after each run finishes, after a wait</source>
            <translation>每次运行结束后，等待一段时间再次运行</translation>
        </message>
        <message>
            <source>As it is: %1</source>
            <translation>保持原样：%1</translation>
        </message>
        <message>
            <source>At</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>Cannot work out the runs: %1</source>
            <translation>无法推算运行时间：%1</translation>
        </message>
        <message>
            <source>Cron expression</source>
            <translation>Cron 表达式</translation>
        </message>
        <message>
            <source>Date and time</source>
            <translation>日期和时间</translation>
        </message>
        <message>
            <source>Day</source>
            <translation>日</translation>
        </message>
        <message>
            <source>Day counted from the end</source>
            <translation>从月末倒数的某天</translation>
        </message>
        <message>
            <source>Day of the month</source>
            <translation>每月的日期</translation>
        </message>
        <message>
            <source>Days</source>
            <translation>星期</translation>
        </message>
        <message>
            <source>Every</source>
            <translation>每隔</translation>
        </message>
        <message>
            <source>Every day at…</source>
            <translation>每天的…</translation>
        </message>
        <message>
            <source>Every few minutes or hours</source>
            <translation>每隔几分钟或几小时</translation>
        </message>
        <message>
            <source>Every weekday (Monday to Friday) at…</source>
            <translation>每个工作日（周一至周五）的…</translation>
        </message>
        <message>
            <source>Expression</source>
            <translation>表达式</translation>
        </message>
        <message>
            <source>Five fields: minute hour day-of-month month day-of-week</source>
            <translation>五个字段：分 时 日 月 星期</translation>
        </message>
        <message>
            <source>Five fields: minute hour day-of-month month day-of-week, e.g. 30 9 * * MON-FRI</source>
            <translation>五个字段：分 时 日 月 星期，例如 30 9 * * MON-FRI</translation>
        </message>
        <message>
            <source>Fri</source>
            <translation>周五</translation>
        </message>
        <message>
            <source>Friday</source>
            <translation>星期五</translation>
        </message>
        <message>
            <source>How often</source>
            <translation>频率</translation>
        </message>
        <message>
            <source>Mon</source>
            <translation>周一</translation>
        </message>
        <message>
            <source>Monday</source>
            <translation>星期一</translation>
        </message>
        <message>
            <source>Months apart</source>
            <translation>间隔月数</translation>
        </message>
        <message>
            <source>Months without this day are skipped.</source>
            <translation>没有这一天的月份会被跳过。</translation>
        </message>
        <message>
            <source>Next runs</source>
            <translation>接下来的运行</translation>
        </message>
        <message>
            <source>No runs ahead.</source>
            <translation>之后没有运行。</translation>
        </message>
        <message>
            <source>On</source>
            <translation>于</translation>
        </message>
        <message>
            <source>On a day of the month at…</source>
            <translation>在每月的某一天…</translation>
        </message>
        <message>
            <source>On chosen days of the week at…</source>
            <translation>每周选定日期的…</translation>
        </message>
        <message>
            <source>Once, at a date and time</source>
            <translation>一次，在指定日期和时间</translation>
        </message>
        <message>
            <source>Only when I run it</source>
            <translation>仅在我运行时</translation>
        </message>
        <message>
            <source>Runs</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Runs in this month and every so many months after it</source>
            <translation>在这个月运行，之后每隔这么多个月运行一次</translation>
        </message>
        <message>
            <source>Runs only when you start it.</source>
            <translation>仅在您启动时运行。</translation>
        </message>
        <message>
            <source>Sat</source>
            <translation>周六</translation>
        </message>
        <message>
            <source>Saturday</source>
            <translation>星期六</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Sun</source>
            <translation>周日</translation>
        </message>
        <message>
            <source>Sunday</source>
            <translation>星期日</translation>
        </message>
        <message>
            <source>The first month counted</source>
            <translation>起算的第一个月</translation>
        </message>
        <message>
            <source>The last day</source>
            <translation>最后一天</translation>
        </message>
        <message>
            <source>The schedule as it is</source>
            <translation>保持原计划</translation>
        </message>
        <message>
            <source>Thu</source>
            <translation>周四</translation>
        </message>
        <message>
            <source>Thursday</source>
            <translation>星期四</translation>
        </message>
        <message>
            <source>Time of day</source>
            <translation>时刻</translation>
        </message>
        <message>
            <source>Time zone</source>
            <translation>时区</translation>
        </message>
        <message>
            <source>Tue</source>
            <translation>周二</translation>
        </message>
        <message>
            <source>Tuesday</source>
            <translation>星期二</translation>
        </message>
        <message>
            <source>Wait</source>
            <translation>等待</translation>
        </message>
        <message>
            <source>Wed</source>
            <translation>周三</translation>
        </message>
        <message>
            <source>Wednesday</source>
            <translation>星期三</translation>
        </message>
        <message>
            <source>Weekday</source>
            <translation>星期几</translation>
        </message>
        <message>
            <source>What the expression means</source>
            <translation>表达式的含义</translation>
        </message>
        <message>
            <source>Which day of the month</source>
            <translation>每月的哪一天</translation>
        </message>
        <message>
            <source>Which one in the month</source>
            <translation>月中的第几个</translation>
        </message>
        <message>
            <source>a time that exists that day</source>
            <translation>当天存在的时间</translation>
        </message>
        <message>
            <source>a time zone from the list</source>
            <translation>列表中的时区</translation>
        </message>
        <message>
            <source>after each run finishes</source>
            <translation>每次运行结束后</translation>
        </message>
        <message>
            <source>choose at least one day</source>
            <translation>请至少选择一天</translation>
        </message>
        <message>
            <source>fifth</source>
            <translation>第五个</translation>
        </message>
        <message>
            <source>fifth to last</source>
            <translation>倒数第五个</translation>
        </message>
        <message>
            <source>first</source>
            <translation>第一个</translation>
        </message>
        <message>
            <source>fourth</source>
            <translation>第四个</translation>
        </message>
        <message>
            <source>fourth to last</source>
            <translation>倒数第四个</translation>
        </message>
        <message>
            <source>from</source>
            <translation>从</translation>
        </message>
        <message>
            <source>last</source>
            <translation>最后一个</translation>
        </message>
        <message>
            <source>month(s) apart</source>
            <translation>个月一次</translation>
        </message>
        <message>
            <source>one or more days of the week</source>
            <translation>一周中的一天或几天</translation>
        </message>
        <message>
            <source>second</source>
            <translation>第二个</translation>
        </message>
        <message>
            <source>second to last</source>
            <translation>倒数第二个</translation>
        </message>
        <message>
            <source>third</source>
            <translation>第三个</translation>
        </message>
        <message>
            <source>third to last</source>
            <translation>倒数第三个</translation>
        </message>
        <message>
            <source>unknown time zone “%1”</source>
            <translation>未知时区“%1”</translation>
        </message>
        <message>
            <source>working day (Monday to Friday)</source>
            <translation>工作日（周一至周五）</translation>
        </message>
    </context>
    <context>
        <name>ScriptEditor</name>
        <message>
            <source>&amp;Try it</source>
            <translation>试运行(&amp;T)</translation>
        </message>
        <message>
            <source>JavaScript: a default export that proposes actions</source>
            <translation>JavaScript：一个提出操作的默认导出函数</translation>
        </message>
        <message>
            <source>Runs the script now without applying anything (Ctrl+Enter)</source>
            <translation>立即运行脚本，但不执行任何操作（Ctrl+Enter）</translation>
        </message>
        <message>
            <source>Script</source>
            <translation>脚本</translation>
        </message>
        <message>
            <source>Try the script: a dry run</source>
            <translation>试运行脚本</translation>
        </message>
        <message>
            <source>Trying…</source>
            <translation>正在试运行…</translation>
        </message>
    </context>
    <context>
        <name>SessionView</name>
        <message>
            <source>%1 ms</source>
            <translation>%1 毫秒</translation>
        </message>
        <message>
            <source>%1 prompt tokens, %2 completion tokens</source>
            <translation>提示 %1 个词元，生成 %2 个词元</translation>
        </message>
        <message>
            <source>%1 tokens</source>
            <translation>%1 个词元</translation>
        </message>
        <message numerus="yes">
            <source>%n reads</source>
            <translation>
                <numerusform>%n 次读取</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n 次工具调用</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n turn(s)</source>
            <translation>
                <numerusform>%n 轮</numerusform>
            </translation>
        </message>
        <message>
            <source>(cut here)</source>
            <translation>（在此截断）</translation>
        </message>
        <message>
            <source>(no output was kept)</source>
            <translation>（未保留输出）</translation>
        </message>
        <message>
            <source>(no output yet)</source>
            <translation>（尚无输出）</translation>
        </message>
        <message>
            <source>(no question text)</source>
            <translation>（没有问题文本）</translation>
        </message>
        <message>
            <source>(none yet)</source>
            <translation>（尚无）</translation>
        </message>
        <message>
            <source>(the command printed nothing)</source>
            <translation>（命令没有输出任何内容）</translation>
        </message>
        <message>
            <source>1 tool call</source>
            <translation>1 次工具调用</translation>
        </message>
        <message>
            <source>About run #%1</source>
            <translation>关于运行 #%1</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>智能体</translation>
        </message>
        <message>
            <source>Agent — answer</source>
            <translation>智能体——回答</translation>
        </message>
        <message>
            <source>Answer the agent's question… (Ctrl+Return sends)</source>
            <translation>回答智能体的问题…（Ctrl+Return 发送）</translation>
        </message>
        <message>
            <source>Answer what the run waits for first; then you can follow up here.</source>
            <translation>请先回答此运行正在等待的内容，然后才能在这里继续跟进。</translation>
        </message>
        <message>
            <source>Applied?</source>
            <translation>已执行？</translation>
        </message>
        <message>
            <source>Approve</source>
            <translation>批准</translation>
        </message>
        <message>
            <source>Approve or deny the call above first.</source>
            <translation>请先批准或拒绝上面的调用。</translation>
        </message>
        <message>
            <source>Approve the call the discussion waits for</source>
            <translation>批准讨论正在等待的调用</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>参数</translation>
        </message>
        <message>
            <source>Arguments of the waiting call</source>
            <translation>等待中调用的参数</translation>
        </message>
        <message>
            <source>Ask a follow-up… (Ctrl+Return sends)</source>
            <translation>继续提问…（Ctrl+Return 发送）</translation>
        </message>
        <message>
            <source>Ask the agent about run #%1… (Ctrl+Return sends)</source>
            <translation>向智能体询问运行 #%1…（Ctrl+Return 发送）</translation>
        </message>
        <message>
            <source>Ask the agent about this run in a separate conversation: nothing of it goes into the automation's history</source>
            <translation>在单独的对话中向智能体询问此次运行：其中内容不会进入自动化的历史</translation>
        </message>
        <message>
            <source>Choices: %1</source>
            <translation>选项：%1</translation>
        </message>
        <message>
            <source>Close all tool calls</source>
            <translation>收起所有工具调用</translation>
        </message>
        <message>
            <source>Command output</source>
            <translation>命令输出</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Deny the call the discussion waits for</source>
            <translation>拒绝讨论正在等待的调用</translation>
        </message>
        <message>
            <source>Discuss this run with its agent</source>
            <translation>与其智能体讨论此次运行</translation>
        </message>
        <message>
            <source>Discuss this run…</source>
            <translation>讨论此次运行…</translation>
        </message>
        <message>
            <source>Discussion</source>
            <translation>讨论</translation>
        </message>
        <message>
            <source>Discussion — the agent is answering…</source>
            <translation>讨论 — 智能体正在回答…</translation>
        </message>
        <message>
            <source>Discussions of this run</source>
            <translation>此次运行的讨论</translation>
        </message>
        <message>
            <source>Discussions of this run: %1</source>
            <translation>此次运行的讨论：%1</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>试运行</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Error: %1</source>
            <translation>错误：%1</translation>
        </message>
        <message>
            <source>Exit status</source>
            <translation>退出状态</translation>
        </message>
        <message>
            <source>Follow up: tell the agent what to do next… (Ctrl+Return sends)</source>
            <translation>跟进：告诉智能体下一步做什么…（Ctrl+Return 发送）</translation>
        </message>
        <message>
            <source>Follow-up problem</source>
            <translation>跟进出现问题</translation>
        </message>
        <message>
            <source>Follow-up to the agent</source>
            <translation>发给智能体的跟进</translation>
        </message>
        <message>
            <source>Hide the event</source>
            <translation>隐藏事件</translation>
        </message>
        <message>
            <source>How the script ran</source>
            <translation>脚本的运行情况</translation>
        </message>
        <message>
            <source>It proposed nothing.</source>
            <translation>它没有提出任何操作。</translation>
        </message>
        <message>
            <source>It waits until %1, then expires.</source>
            <translation>它会等待至 %1，然后过期。</translation>
        </message>
        <message>
            <source>No tool calls</source>
            <translation>没有工具调用</translation>
        </message>
        <message>
            <source>Not sent: %1</source>
            <translation>未发送：%1</translation>
        </message>
        <message>
            <source>Open all tool calls</source>
            <translation>展开所有工具调用</translation>
        </message>
        <message>
            <source>Output (standard output and standard error, as printed; the last 64 KiB)</source>
            <translation>输出（标准输出和标准错误，按打印顺序；最后 64 KiB）</translation>
        </message>
        <message>
            <source>Prompt</source>
            <translation>提示词</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>结果</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Run #%1</source>
            <translation>运行 #%1</translation>
        </message>
        <message>
            <source>Run state</source>
            <translation>运行状态</translation>
        </message>
        <message>
            <source>Select a run to see its output or conversation.</source>
            <translation>选择一次运行，查看它的输出或对话。</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>Send follow-up</source>
            <translation>发送跟进</translation>
        </message>
        <message>
            <source>Send the follow-up (Ctrl+Return)</source>
            <translation>发送跟进 (Ctrl+Return)</translation>
        </message>
        <message>
            <source>Show every tool call's arguments and result</source>
            <translation>显示每次工具调用的参数和结果</translation>
        </message>
        <message>
            <source>Show or hide the arguments and the result</source>
            <translation>显示或隐藏参数和结果</translation>
        </message>
        <message>
            <source>Show the event</source>
            <translation>显示事件</translation>
        </message>
        <message>
            <source>Show the event that started this run</source>
            <translation>显示启动此次运行的事件</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>The actions it proposed</source>
            <translation>它提出的操作</translation>
        </message>
        <message>
            <source>The agent is answering…</source>
            <translation>智能体正在回答…</translation>
        </message>
        <message>
            <source>The agent wants to %1 (%2).</source>
            <translation>智能体想要%1（%2）。</translation>
        </message>
        <message>
            <source>The conversation is empty so far.</source>
            <translation>对话目前为空。</translation>
        </message>
        <message>
            <source>The event, as received (untrusted)</source>
            <translation>收到的事件（不可信）</translation>
        </message>
        <message>
            <source>The script's log</source>
            <translation>脚本的日志</translation>
        </message>
        <message>
            <source>Token usage</source>
            <translation>词元用量</translation>
        </message>
        <message>
            <source>Waiting for your answer</source>
            <translation>等待您的回答</translation>
        </message>
        <message>
            <source>Waiting for your permission</source>
            <translation>等待您的许可</translation>
        </message>
        <message>
            <source>What it waits for</source>
            <translation>它在等待什么</translation>
        </message>
        <message>
            <source>What started this run</source>
            <translation>启动此次运行的原因</translation>
        </message>
        <message>
            <source>You</source>
            <translation>您</translation>
        </message>
        <message>
            <source>You can follow up once this run has ended.</source>
            <translation>此运行结束后，您可以继续跟进。</translation>
        </message>
        <message>
            <source>a read was cut to its row limit</source>
            <translation>一次读取被截断到行数上限</translation>
        </message>
        <message>
            <source>an earlier turn</source>
            <translation>较早的一轮</translation>
        </message>
        <message>
            <source>apart from the automation's history; its folder is read-only here</source>
            <translation>独立于自动化的历史；其文件夹在此为只读</translation>
        </message>
        <message>
            <source>attempt %1</source>
            <translation>第 %1 次尝试</translation>
        </message>
        <message>
            <source>discussion</source>
            <translation>讨论</translation>
        </message>
        <message>
            <source>memory peak %1 KB</source>
            <translation>内存峰值 %1 KB</translation>
        </message>
        <message>
            <source>no result</source>
            <translation>没有结果</translation>
        </message>
        <message>
            <source>run #%1 of the automation</source>
            <translation>自动化的运行 #%1</translation>
        </message>
        <message>
            <source>running…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <source>started %1</source>
            <translation>开始于 %1</translation>
        </message>
        <message>
            <source>this run</source>
            <translation>本次运行</translation>
        </message>
        <message>
            <source>took %1</source>
            <translation>耗时 %1</translation>
        </message>
        <message>
            <source>waiting for your answer</source>
            <translation>等待您的回答</translation>
        </message>
        <message>
            <source>waiting for your permission</source>
            <translation>等待您的许可</translation>
        </message>
        <message>
            <source>waits for you</source>
            <translation>等待你处理</translation>
        </message>
    </context>
    <context>
        <name>Settings</name>
        <message>
            <source>Page</source>
            <translation>页面</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>A key is stored in the system keyring.</source>
            <translation>密钥已保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>A new language applies the next time Errands starts.</source>
            <translation>新语言将在下次启动 Errands 时生效。</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API 密钥</translation>
        </message>
        <message>
            <source>API key:</source>
            <translation>API 密钥：</translation>
        </message>
        <message>
            <source>Agent runs talk to an OpenAI-compatible API: a local server such as Ollama, or a hosted one.</source>
            <translation>智能体运行通过兼容 OpenAI 的 API 通信：可以是 Ollama 这样的本地服务器，也可以是托管服务。</translation>
        </message>
        <message>
            <source>Base URL:</source>
            <translation>基础 URL：</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Catalogue</source>
            <translation>目录</translation>
        </message>
        <message>
            <source>Close without saving</source>
            <translation>关闭且不保存</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>English</source>
            <translation>英语</translation>
        </message>
        <message>
            <source>Errands keeps each automation's newest runs and output logs; older ones are deleted as new runs end.</source>
            <translation>Errands 为每个自动化任务保留最新的运行和输出日志；新的运行结束时，较早的会被删除。</translation>
        </message>
        <message>
            <source>General</source>
            <translation>常规</translation>
        </message>
        <message>
            <source>Grace window:</source>
            <translation>宽限时间：</translation>
        </message>
        <message>
            <source>History</source>
            <translation>历史</translation>
        </message>
        <message>
            <source>How late a due fire may still run normally, e.g. 2m.</source>
            <translation>到期的触发最多可以延迟多久仍正常运行，例如 2m。</translation>
        </message>
        <message>
            <source>How long a run waiting for your decision waits before it expires, e.g. 24h.</source>
            <translation>等待您决定的运行在过期前等待多久，例如 24h。</translation>
        </message>
        <message>
            <source>How long an automation's runs may wait for a decision nobody gives before the automation is paused, e.g. 7d.</source>
            <translation>自动化任务的运行等待无人作出的决定多久后，该自动化任务会被暂停，例如 7d。</translation>
        </message>
        <message>
            <source>How long one model request may take, e.g. 2m.</source>
            <translation>单次模型请求最长可用时间，例如 2m。</translation>
        </message>
        <message>
            <source>How many ended runs each automation keeps, 1 to 1,000,000; older ones are deleted with their output and conversations. An automation's own history limit overrides it.</source>
            <translation>每个自动化任务保留多少个已结束的运行，1 到 1,000,000；较早的运行会连同其输出和对话一起删除。自动化任务自身的历史上限优先。</translation>
        </message>
        <message>
            <source>How many runs may be active at the same time (1 to 1000).</source>
            <translation>最多可同时进行多少个运行（1 到 1000）。</translation>
        </message>
        <message>
            <source>How much run output each automation keeps on disk, e.g. 50MB (1KB to 1TB); its oldest logs are deleted first.</source>
            <translation>每个自动化任务在磁盘上保留多少运行输出，例如 50MB（1KB 到 1TB）；最早的日志最先删除。</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>Language:</source>
            <translation>语言：</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Limits</source>
            <translation>限制</translation>
        </message>
        <message>
            <source>MCP servers whose tools every agent run may use, beside its own. Give a command that starts one (npx -y @modelcontextprotocol/server-filesystem ~/notes) or the URL of one that runs elsewhere. Each call of their tools asks you first unless a permission rule for mcp allows it (pattern server.tool).</source>
            <translation>每次智能体运行除自身工具外都可使用其工具的 MCP 服务器。填写启动它的命令（npx -y @modelcontextprotocol/server-filesystem ~/notes），或在别处运行的服务器的 URL。调用其工具前都会先询问你，除非有针对 mcp 的权限规则允许（模式 server.tool）。</translation>
        </message>
        <message>
            <source>Minimum interval:</source>
            <translation>最短间隔：</translation>
        </message>
        <message>
            <source>Model provider</source>
            <translation>模型提供方</translation>
        </message>
        <message>
            <source>Model:</source>
            <translation>模型：</translation>
        </message>
        <message>
            <source>No key is stored. Local providers need none.</source>
            <translation>未保存密钥。本地提供方不需要密钥。</translation>
        </message>
        <message>
            <source>Output kept:</source>
            <translation>保留的输出：</translation>
        </message>
        <message>
            <source>Parked runs expire after:</source>
            <translation>等待中的运行过期时间：</translation>
        </message>
        <message>
            <source>Paste the provider's API key</source>
            <translation>粘贴提供方的 API 密钥</translation>
        </message>
        <message>
            <source>Pause if unanswered for:</source>
            <translation>无人答复多久后暂停：</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Remove key</source>
            <translation>删除密钥</translation>
        </message>
        <message>
            <source>Remove the API key from the keyring</source>
            <translation>从密钥环中删除 API 密钥</translation>
        </message>
        <message>
            <source>Request timeout:</source>
            <translation>请求超时：</translation>
        </message>
        <message>
            <source>Runs at once:</source>
            <translation>同时运行数：</translation>
        </message>
        <message>
            <source>Runs kept:</source>
            <translation>保留的运行数：</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Save key</source>
            <translation>保存密钥</translation>
        </message>
        <message>
            <source>Save the API key in the keyring</source>
            <translation>将 API 密钥保存到密钥环</translation>
        </message>
        <message>
            <source>Save the settings</source>
            <translation>保存设置</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>正在保存…</translation>
        </message>
        <message>
            <source>Sections of the settings</source>
            <translation>设置的分区</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Settings sections</source>
            <translation>设置分区</translation>
        </message>
        <message>
            <source>Start Errands when I log in</source>
            <translation>登录时启动 Errands</translation>
        </message>
        <message>
            <source>Start at login</source>
            <translation>登录时启动</translation>
        </message>
        <message>
            <source>Start at login:</source>
            <translation>登录时启动：</translation>
        </message>
        <message>
            <source>System</source>
            <translation>系统</translation>
        </message>
        <message>
            <source>System default</source>
            <translation>系统默认</translation>
        </message>
        <message>
            <source>Test</source>
            <translation>测试</translation>
        </message>
        <message>
            <source>Test result</source>
            <translation>测试结果</translation>
        </message>
        <message>
            <source>Test the model provider</source>
            <translation>测试模型提供方</translation>
        </message>
        <message>
            <source>Testing the provider…</source>
            <translation>正在测试提供方…</translation>
        </message>
        <message>
            <source>The API root; the chat path is added to it.</source>
            <translation>API 根地址；会在其后加上聊天路径。</translation>
        </message>
        <message>
            <source>The shortest gap allowed between two fires, e.g. 60s or 5m.</source>
            <translation>两次触发之间允许的最短间隔，例如 60s 或 5m。</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Theme:</source>
            <translation>主题：</translation>
        </message>
        <message>
            <source>Tool servers</source>
            <translation>工具服务器</translation>
        </message>
        <message>
            <source>Type a new key to replace it</source>
            <translation>输入新密钥以替换它</translation>
        </message>
        <message>
            <source>Used by agent runs unless an automation names its own.</source>
            <translation>供智能体运行使用，除非自动化任务指定了自己的模型。</translation>
        </message>
        <message>
            <source>What agent runs may do without asking. A rule names a tool (or an effect such as write, or * for all), a pattern for the path, command or URL (* for every call) and an action. The last rule that matches a call decides; a deny here cannot be lifted by an automation.</source>
            <translation>智能体运行可以不经询问做什么。一条规则指定一个工具（或一种效果，如 write，或 * 表示全部）、路径/命令/URL 的模式（* 表示所有调用）以及一个操作。最后一条匹配调用的规则起决定作用；此处的 deny 不能被自动化任务解除。</translation>
        </message>
    </context>
    <context>
        <name>SettingsFlow</name>
        <message>
            <source>A password is kept in the keyring.</source>
            <translation>密码已保存在密钥环中。</translation>
        </message>
        <message>
            <source>Cannot test: {0}</source>
            <translation>无法测试：{0}</translation>
        </message>
        <message>
            <source>Errands uses this catalogue from its next start.</source>
            <translation>Errands 将在下次启动时使用此目录。</translation>
        </message>
        <message>
            <source>Give a base URL and a model first.</source>
            <translation>请先填写基础 URL 和模型。</translation>
        </message>
        <message>
            <source>It works: the provider answered, accepted the key, has the model, and the model calls tools.</source>
            <translation>正常：提供方已响应、接受了密钥、拥有该模型，且该模型会调用工具。</translation>
        </message>
        <message>
            <source>The header value of “{0}” is kept in the system keyring.</source>
            <translation>“{0}”的请求头值已保存在系统密钥环中。</translation>
        </message>
        <message>
            <source>The key was refused</source>
            <translation>密钥被拒绝</translation>
        </message>
        <message>
            <source>The keyring refused the password: %1</source>
            <translation>密钥环拒绝了该密码：%1</translation>
        </message>
        <message>
            <source>The model does not call tools</source>
            <translation>该模型不会调用工具</translation>
        </message>
        <message>
            <source>The model is not there</source>
            <translation>该模型不存在</translation>
        </message>
        <message>
            <source>The system keyring could not keep it: {0}</source>
            <translation>系统密钥环无法保存它：{0}</translation>
        </message>
        <message>
            <source>Unreachable</source>
            <translation>无法连接</translation>
        </message>
    </context>
    <context>
        <name>Startup</name>
        <message>
            <source>Errands cannot open</source>
            <translation>Errands 无法打开</translation>
        </message>
        <message>
            <source>Errands cannot open its data.</source>
            <translation>Errands 无法打开其数据。</translation>
        </message>
    </context>
    <context>
        <name>TemplateCard</name>
        <message>
            <source>Needs a model</source>
            <translation>需要模型</translation>
        </message>
        <message>
            <source>No model needed</source>
            <translation>无需模型</translation>
        </message>
    </context>
    <context>
        <name>TemplateWizard</name>
        <message>
            <source>Back</source>
            <translation>上一步</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>创建</translation>
        </message>
        <message>
            <source>New from template</source>
            <translation>从模板新建</translation>
        </message>
        <message>
            <source>Next</source>
            <translation>下一步</translation>
        </message>
    </context>
    <context>
        <name>Timeline</name>
        <message>
            <source>Nothing is due in this window.</source>
            <translation>此时间段内没有到期的任务。</translation>
        </message>
        <message>
            <source>Upcoming fires on a timeline</source>
            <translation>时间线上的即将到来的触发</translation>
        </message>
    </context>
    <context>
        <name>TokenDialog</name>
        <message>
            <source>A command that calls trigger %1</source>
            <translation>调用触发器 %1 的命令</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>地址</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Copy %1</source>
            <translation>复制%1</translation>
        </message>
        <message>
            <source>Example</source>
            <translation>示例</translation>
        </message>
        <message>
            <source>Its web address</source>
            <translation>它的网址</translation>
        </message>
        <message>
            <source>Send a POST with a JSON body to this address to start it, with the header “Authorization: Bearer TOKEN”. The token is shown only now: copy it before closing.</source>
            <translation>向此地址发送带 JSON 正文的 POST 请求即可启动它，请附上请求头“Authorization: Bearer TOKEN”。令牌只在此刻显示：关闭前请复制。</translation>
        </message>
        <message>
            <source>Token</source>
            <translation>令牌</translation>
        </message>
        <message>
            <source>Token of trigger %1</source>
            <translation>触发器 %1 的令牌</translation>
        </message>
        <message>
            <source>Web address of trigger %1</source>
            <translation>触发器 %1 的网址</translation>
        </message>
    </context>
    <context>
        <name>ToolServersEditor</name>
        <message>
            <source>Add an MCP server</source>
            <translation>添加 MCP 服务器</translation>
        </message>
        <message>
            <source>Add server</source>
            <translation>添加服务器</translation>
        </message>
        <message>
            <source>Command or URL</source>
            <translation>命令或 URL</translation>
        </message>
        <message>
            <source>Its answers are not treated as text from outside (which makes later commands ask)</source>
            <translation>其回答不视为外部文本（外部文本会使之后的命令需要询问）</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP 服务器</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Remove server</source>
            <translation>移除服务器</translation>
        </message>
        <message>
            <source>Remove the selected MCP servers</source>
            <translation>移除所选 MCP 服务器</translation>
        </message>
        <message>
            <source>Secret header</source>
            <translation>机密请求头</translation>
        </message>
        <message>
            <source>Secret header value</source>
            <translation>机密请求头值</translation>
        </message>
        <message>
            <source>Server {0}: {1}</source>
            <translation>服务器 {0}：{1}</translation>
        </message>
        <message>
            <source>Set header value…</source>
            <translation>设置请求头值…</translation>
        </message>
        <message>
            <source>Set the secret header value of the selected server</source>
            <translation>设置所选服务器的机密请求头值</translation>
        </message>
        <message>
            <source>The value of the {0} header for “{1}” (kept in the system keyring, never shown again):</source>
            <translation>“{1}”的 {0} 请求头的值（保存在系统密钥环中，不会再次显示）：</translation>
        </message>
        <message>
            <source>Trusted</source>
            <translation>可信</translation>
        </message>
    </context>
    <context>
        <name>Tray</name>
        <message numerus="yes">
            <source>%n need you</source>
            <translation>
                <numerusform>%n 个需要您处理</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n needs you</source>
            <translation>
                <numerusform>%n 个需要您处理</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n running</source>
            <translation>
                <numerusform>%n 个正在运行</numerusform>
            </translation>
        </message>
        <message>
            <source>Errands tray menu</source>
            <translation>Errands 托盘菜单</translation>
        </message>
        <message>
            <source>New automation…</source>
            <translation>新建自动化任务…</translation>
        </message>
        <message>
            <source>No automations yet</source>
            <translation>还没有自动化任务</translation>
        </message>
        <message>
            <source>Open Errands</source>
            <translation>打开 Errands</translation>
        </message>
        <message>
            <source>Pause all</source>
            <translation>全部暂停</translation>
        </message>
        <message>
            <source>Quit Errands</source>
            <translation>退出 Errands</translation>
        </message>
        <message>
            <source>Resume all</source>
            <translation>全部恢复</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>立即运行</translation>
        </message>
        <message>
            <source>Run now: recent automations</source>
            <translation>立即运行：最近的自动化任务</translation>
        </message>
        <message>
            <source>everything paused</source>
            <translation>全部已暂停</translation>
        </message>
        <message>
            <source>idle</source>
            <translation>空闲</translation>
        </message>
    </context>
    <context>
        <name>TrialDialog</name>
        <message>
            <source>Dry run of “%1”</source>
            <translation>“%1”的试运行</translation>
        </message>
        <message>
            <source>Running it in its sandbox…</source>
            <translation>正在沙箱中运行…</translation>
        </message>
    </context>
    <context>
        <name>TrialView</name>
        <message>
            <source>(line %1)</source>
            <translation>（第 %1 行）</translation>
        </message>
        <message>
            <source>It proposes nothing.</source>
            <translation>它没有提出任何操作。</translation>
        </message>
        <message>
            <source>It would apply %1 of %2 actions.</source>
            <translation>将执行 %2 个操作中的 %1 个。</translation>
        </message>
        <message>
            <source>Log: %1</source>
            <translation>日志：%1</translation>
        </message>
        <message>
            <source>Nothing was applied.</source>
            <translation>未执行任何操作。</translation>
        </message>
        <message>
            <source>Proposed actions</source>
            <translation>提出的操作</translation>
        </message>
        <message>
            <source>Try it runs the script in its sandbox and lists what it would do; nothing is applied.</source>
            <translation>试运行会在沙箱中运行脚本并列出它将做的事；不会执行任何操作。</translation>
        </message>
        <message>
            <source>What the dry run found</source>
            <translation>试运行的结果</translation>
        </message>
        <message>
            <source>Would it apply?</source>
            <translation>会执行吗？</translation>
        </message>
    </context>
    <context>
        <name>UpcomingView</name>
        <message>
            <source>Listed up to %1 only: this window holds more fires than one list can show. Choose the shorter window to see them all.</source>
            <translation>仅列出到 %1：此时间段内的触发次数超过一个列表能显示的数量。选择较短的时间段可查看全部。</translation>
        </message>
        <message>
            <source>Next 24 hours</source>
            <translation>接下来 24 小时</translation>
        </message>
        <message>
            <source>Next 7 days</source>
            <translation>接下来 7 天</translation>
        </message>
        <message>
            <source>Nothing is due in this window. Manual and paused automations do not fire on their own.</source>
            <translation>此时间段内没有到期的任务。手动和已暂停的自动化任务不会自行触发。</translation>
        </message>
        <message>
            <source>Upcoming</source>
            <translation>即将触发</translation>
        </message>
        <message>
            <source>Upcoming fires</source>
            <translation>即将到来的触发</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Blank form…</source>
            <translation>空白表单…</translation>
        </message>
        <message>
            <source>Describe it in words…</source>
            <translation>用文字描述…</translation>
        </message>
        <message>
            <source>From a template…</source>
            <translation>从模板创建…</translation>
        </message>
        <message>
            <source>Getting started</source>
            <translation>开始使用</translation>
        </message>
        <message>
            <source>No model is set up yet: automations that ask an AI agent need one. These templates work without: %1.</source>
            <translation>尚未设置模型：需要 AI 代理的自动化任务必须有模型。以下模板无需模型即可使用：%1。</translation>
        </message>
        <message>
            <source>No model is set up yet: automations that ask an AI agent need one; shell commands work without.</source>
            <translation>尚未设置模型：需要 AI 代理的自动化任务必须有模型；Shell 命令无需模型。</translation>
        </message>
        <message>
            <source>Nothing to run yet. Start with one of these:</source>
            <translation>还没有任何任务。从以下方式开始：</translation>
        </message>
        <message>
            <source>Pick a ready-made automation and fill in a few blanks.</source>
            <translation>选择一个现成的自动化任务，填写几处空白。</translation>
        </message>
        <message>
            <source>Say what should happen and when, e.g. “every weekday at 9am check the disk”; you confirm it on a card.</source>
            <translation>说明要做什么、何时做，例如 “every weekday at 9am check the disk”（目前只能读懂英文句子）；您在卡片上确认。</translation>
        </message>
        <message>
            <source>Set every field yourself: what runs, when, and its rules.</source>
            <translation>自己设置每个字段：运行什么、何时运行及其规则。</translation>
        </message>
        <message>
            <source>Set up a model for agent automations</source>
            <translation>为代理自动化任务设置模型</translation>
        </message>
        <message>
            <source>Set up a model…</source>
            <translation>设置模型…</translation>
        </message>
    </context>
    <context>
        <name>WindowController</name>
        <message>
            <source>%1 cannot be imported: %2</source>
            <translation>无法导入 %1：%2</translation>
        </message>
        <message numerus="yes">
            <source>%n already here, left as they are.</source>
            <translation>
                <numerusform>%n 个已存在，保持不变。</numerusform>
            </translation>
        </message>
        <message>
            <source>Approval revoked</source>
            <translation>批准已撤销</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>归档</translation>
        </message>
        <message>
            <source>Archived “%1”: it no longer fires; its runs are kept. View ▸ Show archived lists it.</source>
            <translation>已归档“%1”：它不再触发，运行记录已保留。可在 视图 ▸ 显示已归档 中找到它。</translation>
        </message>
        <message>
            <source>Automation created</source>
            <translation>自动化任务已创建</translation>
        </message>
        <message>
            <source>Automation deleted</source>
            <translation>自动化任务已删除</translation>
        </message>
        <message>
            <source>Automations this run created</source>
            <translation>此运行创建的自动化任务</translation>
        </message>
        <message>
            <source>Blank form…</source>
            <translation>空白表单…</translation>
        </message>
        <message>
            <source>Copy of %1</source>
            <translation>%1 的副本</translation>
        </message>
        <message>
            <source>Created by this run’s agent</source>
            <translation>由此运行的智能体创建</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Describe it in a sentence…</source>
            <translation>用一句话描述…</translation>
        </message>
        <message>
            <source>Discussion of run %1</source>
            <translation>关于运行 %1 的讨论</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>试运行</translation>
        </message>
        <message>
            <source>Dry run started</source>
            <translation>试运行已开始</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>创建副本</translation>
        </message>
        <message>
            <source>Edit</source>
            <translation>编辑</translation>
        </message>
        <message>
            <source>Errands export (*.json)</source>
            <translation>Errands 导出文件 (*.json)</translation>
        </message>
        <message>
            <source>Every automation in %1 is here already.</source>
            <translation>%1 中的每个自动化任务都已存在。</translation>
        </message>
        <message>
            <source>Export automations</source>
            <translation>导出自动化任务</translation>
        </message>
        <message>
            <source>Export failed</source>
            <translation>导出失败</translation>
        </message>
        <message>
            <source>Exported</source>
            <translation>已导出</translation>
        </message>
        <message numerus="yes">
            <source>Exported %n automations to %1</source>
            <translation>
                <numerusform>已将 %n 个自动化任务导出到 %1</numerusform>
            </translation>
        </message>
        <message>
            <source>From a template…</source>
            <translation>从模板…</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>导入</translation>
        </message>
        <message numerus="yes">
            <source>Import %n new automations from %1?</source>
            <translation>
                <numerusform>从 %1 导入 %n 个新的自动化任务？</numerusform>
            </translation>
        </message>
        <message>
            <source>Import automations</source>
            <translation>导入自动化任务</translation>
        </message>
        <message numerus="yes">
            <source>Imported %n automations from %1</source>
            <translation>
                <numerusform>已从 %1 导入 %n 个自动化任务</numerusform>
            </translation>
        </message>
        <message>
            <source>Make a new token</source>
            <translation>生成新令牌</translation>
        </message>
        <message>
            <source>Make a new token for its web address? Whatever calls it with the old token is refused from now on.</source>
            <translation>要为它的网址生成新令牌吗？此后使用旧令牌的调用都会被拒绝。</translation>
        </message>
        <message>
            <source>Mark all read</source>
            <translation>全部标为已读</translation>
        </message>
        <message>
            <source>Mark read</source>
            <translation>标为已读</translation>
        </message>
        <message>
            <source>New automation</source>
            <translation>新建自动化任务</translation>
        </message>
        <message>
            <source>New automation: in a sentence, from a template or with the form</source>
            <translation>新建自动化任务：用一句话、从模板或用表单</translation>
        </message>
        <message>
            <source>New web address token</source>
            <translation>新的网址令牌</translation>
        </message>
        <message>
            <source>Nothing to import</source>
            <translation>没有可导入的内容</translation>
        </message>
        <message>
            <source>Nothing was imported</source>
            <translation>未导入任何内容</translation>
        </message>
        <message>
            <source>Open it</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Open the automation this run created</source>
            <translation>打开此运行创建的自动化任务</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <source>Ran over %1 files</source>
            <translation>已对 %1 个文件运行</translation>
        </message>
        <message>
            <source>Ran over %1 of %2 files…</source>
            <translation>已对 %2 个文件中的 %1 个运行…</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Review what this run waits for</source>
            <translation>查看此运行在等待什么</translation>
        </message>
        <message>
            <source>Review…</source>
            <translation>查看…</translation>
        </message>
        <message>
            <source>Revoke</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Run</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Run %1</source>
            <translation>运行 %1</translation>
        </message>
        <message>
            <source>Run now</source>
            <translation>立即运行</translation>
        </message>
        <message>
            <source>Run over the files already there</source>
            <translation>对已有文件运行</translation>
        </message>
        <message>
            <source>Run over them</source>
            <translation>运行</translation>
        </message>
        <message>
            <source>Run started</source>
            <translation>运行已开始</translation>
        </message>
        <message>
            <source>Run “%1” once for each file already in its folder, as if each had just arrived? Each is a real run, and what it proposes is applied.</source>
            <translation>对其文件夹中已有的每个文件运行一次“%1”，就像文件刚刚到达一样？每次都是真实运行，它提出的操作会被执行。</translation>
        </message>
        <message>
            <source>Save or discard the open form first</source>
            <translation>请先保存或放弃已打开的表单</translation>
        </message>
        <message>
            <source>Saved “%1”</source>
            <translation>已保存“%1”</translation>
        </message>
        <message>
            <source>Stop run</source>
            <translation>停止运行</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>取消归档</translation>
        </message>
        <message>
            <source>Unarchived “%1”: it has completed, as before.</source>
            <translation>已取消归档“%1”：它和之前一样已完成。</translation>
        </message>
        <message>
            <source>Unarchived “%1”: it is paused; resume it to fire again.</source>
            <translation>已取消归档“%1”：它已暂停；恢复后才会再次触发。</translation>
        </message>
        <message>
            <source>a broken automation cannot be duplicated; repair it first</source>
            <translation>损坏的自动化任务无法创建副本；请先修复它</translation>
        </message>
        <message>
            <source>“%1” is archived: unarchive it to edit it</source>
            <translation>“%1”已归档：取消归档后才能编辑</translation>
        </message>
        <message numerus="yes">
            <source>… and %n more</source>
            <translation>
                <numerusform>……还有 %n 个</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>words</name>
        <message>
            <source> and </source>
            <translation>和</translation>
        </message>
        <message>
            <source> or </source>
            <translation>或</translation>
        </message>
        <message>
            <source>%1 %2</source>
            <comment>day month</comment>
            <translation>%2%1日</translation>
        </message>
        <message>
            <source>%1 %2 %3</source>
            <comment>day month year</comment>
            <translation>%3年%2%1日</translation>
        </message>
        <message>
            <source>%1 %2 · %3 here</source>
            <translation>%1 %2 · 本地 %3</translation>
        </message>
        <message>
            <source>%1 (anything)</source>
            <translation>%1（任意）</translation>
        </message>
        <message>
            <source>%1 and %2</source>
            <translation>%1 和 %2 之间</translation>
        </message>
        <message>
            <source>%1 asks: %2</source>
            <translation>%1 询问：%2</translation>
        </message>
        <message>
            <source>%1 automations</source>
            <translation>%1 自动化任务</translation>
        </message>
        <message>
            <source>%1 does not exist on %2 (the clocks move forward): it runs at %3.</source>
            <translation>%2 没有 %1（时钟拨快）：在 %3 运行。</translation>
        </message>
        <message>
            <source>%1 h %2 min</source>
            <translation>%1 小时 %2 分钟</translation>
        </message>
        <message>
            <source>%1 happens twice on %2 (the clocks move back): it runs at the first.</source>
            <translation>%2 的 %1 出现两次（时钟拨慢）：在第一次运行。</translation>
        </message>
        <message>
            <source>%1 has already passed; choose a later time.</source>
            <translation>%1 已经过去；请选择更晚的时间。</translation>
        </message>
        <message>
            <source>%1 min %2 s</source>
            <translation>%1 分钟 %2 秒</translation>
        </message>
        <message>
            <source>%1 templates could not be loaded:</source>
            <translation>%1 个模板无法加载：</translation>
        </message>
        <message>
            <source>%1 wants to %2</source>
            <translation>%1 想要%2</translation>
        </message>
        <message>
            <source>%1 wants to edit %2</source>
            <translation>%1 想要编辑 %2</translation>
        </message>
        <message>
            <source>%1 wants to open %2</source>
            <translation>%1 想要打开 %2</translation>
        </message>
        <message>
            <source>%1 wants to read %2</source>
            <translation>%1 想要读取 %2</translation>
        </message>
        <message>
            <source>%1 wants to run %2</source>
            <translation>%1 想要运行 %2</translation>
        </message>
        <message>
            <source>%1 wants to write %2</source>
            <translation>%1 想要写入 %2</translation>
        </message>
        <message>
            <source>%1 · %2 fires at once</source>
            <translation>%1 · %2 次触发同时发生</translation>
        </message>
        <message numerus="yes">
            <source>%1: %n new items</source>
            <translation>
                <numerusform>%1：%n 条新条目</numerusform>
            </translation>
        </message>
        <message>
            <source>%1nd</source>
            <comment>day of the month</comment>
            <translation>%1日</translation>
        </message>
        <message>
            <source>%1rd</source>
            <comment>day of the month</comment>
            <translation>%1日</translation>
        </message>
        <message>
            <source>%1st</source>
            <comment>day of the month</comment>
            <translation>%1日</translation>
        </message>
        <message>
            <source>%1th</source>
            <comment>day of the month</comment>
            <translation>%1日</translation>
        </message>
        <message numerus="yes">
            <source>%n at once</source>
            <translation>
                <numerusform>%n 个同时</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n automations need you</source>
            <translation>
                <numerusform>%n 个自动化任务需要您处理</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n crowded minutes</source>
            <translation>
                <numerusform>%n 个拥挤的分钟</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n d ago</source>
            <translation>
                <numerusform>%n 天前</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n failures in a row</source>
            <translation>
                <numerusform>连续失败 %n 次</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires</source>
            <translation>
                <numerusform>%n 次触发</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires between</source>
            <translation>
                <numerusform>%n 次触发，介于</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n fires in this minute</source>
            <translation>
                <numerusform>这一分钟内有 %n 次触发</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n h</source>
            <translation>
                <numerusform>%n 小时</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n h ago</source>
            <translation>
                <numerusform>%n 小时前</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n lines</source>
            <translation>
                <numerusform>%n 行</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n min</source>
            <translation>
                <numerusform>%n 分钟</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n min ago</source>
            <translation>
                <numerusform>%n 分钟前</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n runs led to it</source>
            <translation>
                <numerusform>由 %n 次运行引发</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n s</source>
            <translation>
                <numerusform>%n 秒</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>%n waiting for you</source>
            <translation>
                <numerusform>%n 个等待您处理</numerusform>
            </translation>
        </message>
        <message>
            <source>(%1 of %2)</source>
            <translation>（第 %1 次，共 %2 次）</translation>
        </message>
        <message>
            <source>(attempt %1 of %2)</source>
            <translation>（第 %1 次尝试，共 %2 次）</translation>
        </message>
        <message>
            <source>(busiest: %1 fires, %2)</source>
            <translation>（最繁忙：%1 次触发，%2）</translation>
        </message>
        <message>
            <source>, </source>
            <comment>list</comment>
            <translation>、</translation>
        </message>
        <message>
            <source>, or </source>
            <translation>，或</translation>
        </message>
        <message>
            <source>1 template could not be loaded: %1</source>
            <translation>1 个模板无法加载：%1</translation>
        </message>
        <message>
            <source>29 February only comes in leap years.</source>
            <translation>2 月 29 日只在闰年出现。</translation>
        </message>
        <message>
            <source>A command with $(…), backquotes or redirections is never allowed by a pattern; approve it once instead.</source>
            <translation>包含 $(…)、反引号或重定向的命令永远不能通过模式允许；请改为批准一次。</translation>
        </message>
        <message>
            <source>A fire while the previous run is still going cancels it and starts anew</source>
            <translation>上一次运行仍在进行时触发，会取消它并重新开始</translation>
        </message>
        <message>
            <source>A fire while the previous run is still going is skipped</source>
            <translation>上一次运行仍在进行时触发，会被跳过</translation>
        </message>
        <message>
            <source>A fire while the previous run is still going waits for it (one at most)</source>
            <translation>上一次运行仍在进行时触发，会等待它结束（最多一个）</translation>
        </message>
        <message>
            <source>A trigger cannot work</source>
            <translation>触发器无法工作</translation>
        </message>
        <message>
            <source>Action</source>
            <translation>操作</translation>
        </message>
        <message>
            <source>Active</source>
            <translation>活动</translation>
        </message>
        <message>
            <source>Added %1 in an edit (revision %2)</source>
            <translation>于 %1 在一次编辑中添加（修订版本 %2）</translation>
        </message>
        <message>
            <source>Added %1 when you chose “Always allow” for run %2</source>
            <translation>于 %1 在您为运行 %2 选择“始终允许”时添加</translation>
        </message>
        <message>
            <source>Again %n days after each run finishes, first at %1</source>
            <translation>每次运行结束后 %n 天再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again %n hours after each run finishes, first at %1</source>
            <translation>每次运行结束后 %n 小时再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again %n minutes after each run finishes, first at %1</source>
            <translation>每次运行结束后 %n 分钟再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again %n seconds after each run finishes, first at %1</source>
            <translation>每次运行结束后 %n 秒再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again day after each run finishes, first at %1</source>
            <translation>每次运行结束后一天再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again hour after each run finishes, first at %1</source>
            <translation>每次运行结束后一小时再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again minute after each run finishes, first at %1</source>
            <translation>每次运行结束后一分钟再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Again second after each run finishes, first at %1</source>
            <translation>每次运行结束后一秒再次运行，首次于 %1</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>智能体</translation>
        </message>
        <message>
            <source>Allowed without asking</source>
            <translation>无需询问即可允许</translation>
        </message>
        <message>
            <source>Already so</source>
            <translation>已是如此</translation>
        </message>
        <message>
            <source>Amount</source>
            <translation>数量</translation>
        </message>
        <message>
            <source>An automation</source>
            <translation>某个自动化任务</translation>
        </message>
        <message>
            <source>An existing folder, e.g. %1</source>
            <translation>一个已存在的文件夹，例如 %1</translation>
        </message>
        <message>
            <source>Another automation was using the folder</source>
            <translation>另一个自动化任务正在使用该文件夹</translation>
        </message>
        <message>
            <source>Answered: %1</source>
            <translation>已回答：%1</translation>
        </message>
        <message>
            <source>Append to a file</source>
            <translation>追加到文件</translation>
        </message>
        <message>
            <source>Approved once</source>
            <translation>已批准一次</translation>
        </message>
        <message>
            <source>Approved, and allowed from now on</source>
            <translation>已批准，今后一律允许</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>已归档</translation>
        </message>
        <message>
            <source>Archived: it never fires and cannot be run. Its runs, conversations, revisions and output logs are kept; unarchive it to use it again.</source>
            <translation>已归档：它不会触发，也无法运行。其运行记录、对话、修订版本和输出日志均已保留；取消归档后即可再次使用。</translation>
        </message>
        <message>
            <source>Asks before it may %1%2</source>
            <translation>%2%1前先询问</translation>
        </message>
        <message>
            <source>Asks first</source>
            <translation>先询问</translation>
        </message>
        <message>
            <source>Asks you before anything else</source>
            <translation>其他任何操作前都先询问您</translation>
        </message>
        <message>
            <source>Asks you before running commands or changing files</source>
            <translation>运行命令或修改文件前先询问您</translation>
        </message>
        <message>
            <source>At most {max_kib} KiB.</source>
            <translation>最多 {max_kib} KiB。</translation>
        </message>
        <message>
            <source>At most {max} characters; this has {length}.</source>
            <translation>最多 {max} 个字符；这里有 {length} 个。</translation>
        </message>
        <message>
            <source>At most {max} of these.</source>
            <translation>最多 {max} 个。</translation>
        </message>
        <message>
            <source>Attempt %1 failed (%2) · retrying at %3</source>
            <translation>第 %1 次尝试失败（%2）· 将于 %3 重试</translation>
        </message>
        <message>
            <source>Attempts</source>
            <translation>尝试次数</translation>
        </message>
        <message>
            <source>Automation</source>
            <translation>自动化任务</translation>
        </message>
        <message>
            <source>By an event</source>
            <translation>由事件触发</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>已取消</translation>
        </message>
        <message>
            <source>Cancelled: replaced by the next run</source>
            <translation>已取消：被下一次运行取代</translation>
        </message>
        <message>
            <source>Cannot run</source>
            <translation>无法运行</translation>
        </message>
        <message>
            <source>Catch-up</source>
            <translation>补运行</translation>
        </message>
        <message numerus="yes">
            <source>Caught up once for %n missed fires</source>
            <translation>
                <numerusform>为 %n 次错过的触发补运行了一次</numerusform>
            </translation>
        </message>
        <message>
            <source>Caught up once when Errands is back (if newer than %1)</source>
            <translation>Errands 恢复后补运行一次（如果距今不超过 %1）</translation>
        </message>
        <message>
            <source>Choose %1</source>
            <translation>选择%1</translation>
        </message>
        <message>
            <source>Choose a whole number from {low} to {high}.</source>
            <translation>请选择 {low} 到 {high} 之间的整数。</translation>
        </message>
        <message>
            <source>Choose one of: {options}.</source>
            <translation>请选择其中之一：{options}。</translation>
        </message>
        <message>
            <source>Choose the folder for %1</source>
            <translation>选择 %1 的文件夹</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Command</source>
            <translation>命令</translation>
        </message>
        <message>
            <source>Continues one conversation (keeps up to %1 tokens of history)</source>
            <translation>延续同一个对话（最多保留 %1 个词元的历史）</translation>
        </message>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Cron "%1"</source>
            <translation>Cron “%1”</translation>
        </message>
        <message>
            <source>Delete a file</source>
            <translation>删除文件</translation>
        </message>
        <message>
            <source>Delete “%1”?

Removed: its definition and revisions, %2, its conversations and its inbox items. A run going on now is stopped first.

Kept: the run logs in the data folder and the audit trail of its changes.</source>
            <translation>删除“%1”？

将删除：它的定义和修订版本、%2、它的对话和收件箱条目。正在进行的运行会先被停止。

将保留：数据文件夹中的运行日志，以及它的变更审计记录。</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>已完成</translation>
        </message>
        <message>
            <source>Done — it will not fire again.</source>
            <translation>已完成——不会再触发。</translation>
        </message>
        <message>
            <source>Drafted by the model</source>
            <translation>由模型起草</translation>
        </message>
        <message>
            <source>Dry run</source>
            <translation>试运行</translation>
        </message>
        <message>
            <source>Duration</source>
            <translation>时长</translation>
        </message>
        <message>
            <source>Each run starts a fresh conversation</source>
            <translation>每次运行都开始新的对话</translation>
        </message>
        <message>
            <source>Each run starts fresh</source>
            <translation>每次运行都重新开始</translation>
        </message>
        <message>
            <source>Ended before anyone decided</source>
            <translation>在做出决定前已结束</translation>
        </message>
        <message>
            <source>Ended by a signal</source>
            <translation>被信号终止</translation>
        </message>
        <message>
            <source>Errands stopped while it ran</source>
            <translation>运行期间 Errands 停止了</translation>
        </message>
        <message>
            <source>Errands was not running</source>
            <translation>Errands 未在运行</translation>
        </message>
        <message>
            <source>Errands' own workspace for this automation</source>
            <translation>Errands 为此自动化任务准备的工作区</translation>
        </message>
        <message>
            <source>Error</source>
            <translation>错误</translation>
        </message>
        <message>
            <source>Every %1 at %2</source>
            <translation>每%1 %2</translation>
        </message>
        <message numerus="yes">
            <source>Every %n days at %1 (%2), from %3 %4</source>
            <translation>
                <numerusform>每 %n 天 %1（%2），自 %4 %3 起</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n days from %1</source>
            <translation>每 %n 天一次，自 %1 起</translation>
        </message>
        <message numerus="yes">
            <source>Every %n hours at %1</source>
            <translation>
                <numerusform>每 %n 小时，于 %1</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n hours from %1</source>
            <translation>每 %n 小时一次，自 %1 起</translation>
        </message>
        <message numerus="yes">
            <source>Every %n minutes</source>
            <translation>
                <numerusform>每 %n 分钟</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n minutes from %1</source>
            <translation>每 %n 分钟一次，自 %1 起</translation>
        </message>
        <message numerus="yes">
            <source>Every %n months on %1 at %2, from %3 %4</source>
            <translation>
                <numerusform>每 %n 个月的%1 %2，从 %4 年%3起</numerusform>
            </translation>
        </message>
        <message>
            <source>Every %n seconds from %1</source>
            <translation>每 %n 秒一次，自 %1 起</translation>
        </message>
        <message numerus="yes">
            <source>Every %n years on %1 of %2 at %3, from %4</source>
            <translation>
                <numerusform>每 %n 年%2的%1 %3，从 %4 年起</numerusform>
            </translation>
        </message>
        <message>
            <source>Every Saturday and Sunday at %1</source>
            <translation>每周六和周日 %1</translation>
        </message>
        <message>
            <source>Every day at %1</source>
            <translation>每天 %1</translation>
        </message>
        <message>
            <source>Every day at %1 (%2), from %3 %4</source>
            <translation>每天 %1（%2），自 %4 %3 起</translation>
        </message>
        <message>
            <source>Every day from %1</source>
            <translation>每天一次，自 %1 起</translation>
        </message>
        <message>
            <source>Every hour at %1</source>
            <translation>每小时 %1</translation>
        </message>
        <message>
            <source>Every hour from %1</source>
            <translation>每小时一次，自 %1 起</translation>
        </message>
        <message>
            <source>Every minute</source>
            <translation>每分钟</translation>
        </message>
        <message>
            <source>Every minute from %1</source>
            <translation>每分钟一次，自 %1 起</translation>
        </message>
        <message>
            <source>Every month on %1 at %2</source>
            <translation>每月%1 %2</translation>
        </message>
        <message>
            <source>Every second from %1</source>
            <translation>每秒一次，自 %1 起</translation>
        </message>
        <message>
            <source>Every weekday at %1</source>
            <translation>每个工作日 %1</translation>
        </message>
        <message>
            <source>Every year on %1 of %2 at %3</source>
            <translation>每年%2的%1 %3</translation>
        </message>
        <message>
            <source>Exit status %1</source>
            <translation>退出状态 %1</translation>
        </message>
        <message>
            <source>Exit status 0</source>
            <translation>退出状态 0</translation>
        </message>
        <message>
            <source>Expired</source>
            <translation>已过期</translation>
        </message>
        <message>
            <source>Expired unanswered</source>
            <translation>未回答已过期</translation>
        </message>
        <message>
            <source>Expired: nobody answered in time</source>
            <translation>已过期：无人及时回答</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>Failed: %1</source>
            <translation>失败：%1</translation>
        </message>
        <message>
            <source>Failing again and again</source>
            <translation>反复失败</translation>
        </message>
        <message>
            <source>Fired by its trigger “%1”</source>
            <translation>由其触发器“%1”触发</translation>
        </message>
        <message>
            <source>Fires again %1 after this run ends.</source>
            <translation>本次运行结束 %1 后再次触发。</translation>
        </message>
        <message>
            <source>Folder</source>
            <translation>文件夹</translation>
        </message>
        <message>
            <source>From a template</source>
            <translation>来自模板</translation>
        </message>
        <message>
            <source>From the template “%1”</source>
            <translation>来自模板“%1”</translation>
        </message>
        <message>
            <source>Give a pattern (* allows every call of this tool).</source>
            <translation>请填写一个模式（* 允许此工具的所有调用）。</translation>
        </message>
        <message>
            <source>Give one trigger or a list of triggers, not both.</source>
            <translation>请给出一个触发器或一组触发器，不要两者都给。</translation>
        </message>
        <message>
            <source>I assumed your time zone %1.</source>
            <translation>已假定您的时区为 %1。</translation>
        </message>
        <message>
            <source>In</source>
            <translation>距今</translation>
        </message>
        <message>
            <source>Interrupted</source>
            <translation>已中断</translation>
        </message>
        <message>
            <source>Interrupted: Errands stopped while it ran</source>
            <translation>已中断：运行期间 Errands 停止了</translation>
        </message>
        <message>
            <source>It failed.</source>
            <translation>运行失败。</translation>
        </message>
        <message>
            <source>It finished.</source>
            <translation>运行完成。</translation>
        </message>
        <message>
            <source>It holds a character that is not allowed here ({char}); use plain text.</source>
            <translation>其中含有此处不允许的字符（{char}）；请使用纯文本。</translation>
        </message>
        <message>
            <source>It ran out of time.</source>
            <translation>超时了。</translation>
        </message>
        <message>
            <source>It ran.</source>
            <translation>已运行。</translation>
        </message>
        <message>
            <source>It waits for your decision in Errands.</source>
            <translation>它正在 Errands 中等待您的决定。</translation>
        </message>
        <message>
            <source>It waits for your decision.</source>
            <translation>正在等待您的决定。</translation>
        </message>
        <message>
            <source>It was rejected: it went over a budget.</source>
            <translation>被拒绝：超出了预算。</translation>
        </message>
        <message>
            <source>Limit reached: %1.</source>
            <translation>达到上限：%1。</translation>
        </message>
        <message>
            <source>Mail me</source>
            <translation>给我发邮件</translation>
        </message>
        <message>
            <source>Mail not sent</source>
            <translation>邮件未发送</translation>
        </message>
        <message>
            <source>May %1%2 without asking</source>
            <translation>可以无需询问地%2%1</translation>
        </message>
        <message>
            <source>May never %1%2</source>
            <translation>永远不可%2%1</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Months without day %1 are skipped.</source>
            <translation>没有 %1 日的月份会被跳过。</translation>
        </message>
        <message>
            <source>Move a file</source>
            <translation>移动文件</translation>
        </message>
        <message>
            <source>Name it with lower-case letters, digits, - or _.</source>
            <translation>请用小写字母、数字、- 或 _ 命名。</translation>
        </message>
        <message>
            <source>Never allowed</source>
            <translation>永不允许</translation>
        </message>
        <message>
            <source>Next: %1</source>
            <translation>下次：%1</translation>
        </message>
        <message>
            <source>No day of the month given: it runs on the 1st.</source>
            <translation>未指定日期：在每月 1 日运行。</translation>
        </message>
        <message>
            <source>No fires while paused.</source>
            <translation>暂停期间不会触发。</translation>
        </message>
        <message>
            <source>No model provider is set up</source>
            <translation>未设置模型提供方</translation>
        </message>
        <message>
            <source>No more fires.</source>
            <translation>不再有触发。</translation>
        </message>
        <message>
            <source>No reason recorded</source>
            <translation>未记录原因</translation>
        </message>
        <message>
            <source>No runs yet</source>
            <translation>尚无运行</translation>
        </message>
        <message>
            <source>No time of day given: it runs at %1.</source>
            <translation>未指定时间：在 %1 运行。</translation>
        </message>
        <message>
            <source>No weekday given: it runs on Mondays.</source>
            <translation>未指定星期几：在每周一运行。</translation>
        </message>
        <message>
            <source>No: %1</source>
            <translation>否：%1</translation>
        </message>
        <message>
            <source>Notify</source>
            <translation>通知</translation>
        </message>
        <message>
            <source>On</source>
            <translation>对象</translation>
        </message>
        <message>
            <source>On schedule</source>
            <translation>按计划</translation>
        </message>
        <message>
            <source>On the %1 at %2</source>
            <translation>每月%1 %2</translation>
        </message>
        <message>
            <source>Once at %1</source>
            <translation>一次，于 %1</translation>
        </message>
        <message>
            <source>Only shows its message: it runs nothing and uses no model</source>
            <translation>只显示消息：不运行任何东西，也不使用模型</translation>
        </message>
        <message>
            <source>Only when run by hand</source>
            <translation>仅手动运行</translation>
        </message>
        <message>
            <source>Part of the automation as written</source>
            <translation>自动化任务定义中的一部分</translation>
        </message>
        <message>
            <source>Paused</source>
            <translation>已暂停</translation>
        </message>
        <message>
            <source>Paused (%1)</source>
            <translation>已暂停（%1）</translation>
        </message>
        <message>
            <source>Paused after failures</source>
            <translation>因失败而暂停</translation>
        </message>
        <message>
            <source>Paused: nobody answered</source>
            <translation>因无人回应而暂停</translation>
        </message>
        <message>
            <source>Permissions</source>
            <translation>权限</translation>
        </message>
        <message>
            <source>Policies</source>
            <translation>策略</translation>
        </message>
        <message>
            <source>Prompt</source>
            <translation>提示</translation>
        </message>
        <message>
            <source>Proposed by an agent</source>
            <translation>由智能体提议</translation>
        </message>
        <message>
            <source>Queued</source>
            <translation>排队中</translation>
        </message>
        <message>
            <source>Read from your sentence</source>
            <translation>从您的句子解析</translation>
        </message>
        <message>
            <source>Reads and changes files only in %1</source>
            <translation>只读取和更改 %1 中的文件</translation>
        </message>
        <message>
            <source>Remember</source>
            <translation>记住</translation>
        </message>
        <message>
            <source>Reminder</source>
            <translation>提醒</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>结果</translation>
        </message>
        <message>
            <source>Run %1: %2</source>
            <translation>运行 %1：%2</translation>
        </message>
        <message>
            <source>Run an automation</source>
            <translation>运行自动化</translation>
        </message>
        <message>
            <source>Run by hand</source>
            <translation>手动运行</translation>
        </message>
        <message>
            <source>Running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>Running for %1</source>
            <translation>已运行 %1</translation>
        </message>
        <message>
            <source>Running now</source>
            <translation>正在运行</translation>
        </message>
        <message>
            <source>Runs commands and uses every tool without asking</source>
            <translation>不经询问运行命令并使用所有工具</translation>
        </message>
        <message>
            <source>Runs its command without asking (creating it was the consent)</source>
            <translation>不经询问运行其命令（创建它即表示同意）</translation>
        </message>
        <message>
            <source>Runs its script in a sandbox: it proposes, Errands checks each action against its folder and rules before applying it</source>
            <translation>在沙箱中运行脚本：脚本提出操作，Errands 按其文件夹和规则逐一检查后再执行</translation>
        </message>
        <message>
            <source>Runs once</source>
            <translation>只运行一次</translation>
        </message>
        <message>
            <source>Runs only when you press Run now.</source>
            <translation>仅在您按下“立即运行”时运行。</translation>
        </message>
        <message>
            <source>Runs until you pause or delete it</source>
            <translation>会一直运行，直到您暂停或删除它</translation>
        </message>
        <message>
            <source>Same minute</source>
            <translation>同一分钟</translation>
        </message>
        <message>
            <source>Schedule</source>
            <translation>计划</translation>
        </message>
        <message>
            <source>Scheduled</source>
            <translation>计划时间</translation>
        </message>
        <message>
            <source>Script</source>
            <translation>脚本</translation>
        </message>
        <message>
            <source>Select all</source>
            <translation>全选</translation>
        </message>
        <message>
            <source>Skipped</source>
            <translation>已跳过</translation>
        </message>
        <message>
            <source>Skipped and noted in the history</source>
            <translation>跳过并记录在历史中</translation>
        </message>
        <message>
            <source>Skipped: %1</source>
            <translation>已跳过：%1</translation>
        </message>
        <message>
            <source>Started</source>
            <translation>开始时间</translation>
        </message>
        <message>
            <source>Started by a call to its web address (trigger “%1”)</source>
            <translation>由对其网址的调用启动（触发器“%1”）</translation>
        </message>
        <message>
            <source>Started by another automation's end (trigger “%1”)</source>
            <translation>由另一个自动化的结束启动（触发器“%1”）</translation>
        </message>
        <message>
            <source>Started by changed files (trigger “%1”)</source>
            <translation>由文件变化启动（触发器“%1”）</translation>
        </message>
        <message>
            <source>Started by new mail (trigger “%1”)</source>
            <translation>由新邮件启动（触发器“%1”）</translation>
        </message>
        <message>
            <source>State</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Still running</source>
            <translation>仍在运行</translation>
        </message>
        <message>
            <source>Stops</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stops %1</source>
            <translation>停止条件：%1</translation>
        </message>
        <message>
            <source>Succeeded</source>
            <translation>成功</translation>
        </message>
        <message>
            <source>That runs more often than Errands allows (at least {min} apart, in the settings); choose a longer interval.</source>
            <translation>运行得比 Errands 允许的更频繁（设置中规定至少间隔 {min}）；请选择更长的间隔。</translation>
        </message>
        <message>
            <source>The agent asks you a question and waits for your answer.</source>
            <translation>智能体向您提出了一个问题，正在等待您的回答。</translation>
        </message>
        <message>
            <source>The agent wants to %1, which this automation does not allow without asking.</source>
            <translation>智能体想要%1，而此自动化任务不允许不经询问这样做。</translation>
        </message>
        <message>
            <source>The agent wants to %1; that needs your approval unless a rule allows it.</source>
            <translation>智能体想要%1；除非有规则允许，否则需要您的批准。</translation>
        </message>
        <message>
            <source>The agent wants to use a tool that needs your approval.</source>
            <translation>智能体想要使用一个需要您批准的工具。</translation>
        </message>
        <message>
            <source>The automation was paused</source>
            <translation>自动化任务当时已暂停</translation>
        </message>
        <message>
            <source>The computer was asleep</source>
            <translation>电脑处于休眠状态</translation>
        </message>
        <message>
            <source>The last run each day is at %1, not %2.</source>
            <translation>每天最后一次运行在 %1，而不是 %2。</translation>
        </message>
        <message>
            <source>The model wrote this draft; check it before you create it.</source>
            <translation>此草稿由模型撰写；创建前请检查。</translation>
        </message>
        <message>
            <source>The pattern starts or ends with a space.</source>
            <translation>模式以空格开头或结尾。</translation>
        </message>
        <message>
            <source>The previous run is waiting for you</source>
            <translation>上一次运行正在等待您处理</translation>
        </message>
        <message>
            <source>The previous run was still going</source>
            <translation>上一次运行仍在进行</translation>
        </message>
        <message>
            <source>The shared catalogue could not be reached</source>
            <translation>无法访问共享目录</translation>
        </message>
        <message>
            <source>There is no such automation; choose one from the list.</source>
            <translation>没有这个自动化；请从列表中选择一个。</translation>
        </message>
        <message>
            <source>There is no such mail account; set one up with “errands mail add”.</source>
            <translation>没有这个邮件账户；请用“errands mail add”设置一个。</translation>
        </message>
        <message>
            <source>This automation cannot run: %1</source>
            <translation>此自动化任务无法运行：%1</translation>
        </message>
        <message>
            <source>This is needed.</source>
            <translation>此项必填。</translation>
        </message>
        <message>
            <source>This is not a date and time Errands can read.</source>
            <translation>这不是 Errands 能读懂的日期和时间。</translation>
        </message>
        <message>
            <source>This is the wrong kind of value.</source>
            <translation>值的类型不对。</translation>
        </message>
        <message>
            <source>This pattern does not match this call, so it would not allow it.</source>
            <translation>此模式与此调用不匹配，因此不会允许它。</translation>
        </message>
        <message>
            <source>This pattern does not match this call: every part of the command (split at ;, &amp;&amp;, ||, | and &amp;) must match it.</source>
            <translation>此模式与此调用不匹配：命令的每一部分（以 ;、&amp;&amp;、||、| 和 &amp; 分隔）都必须匹配。</translation>
        </message>
        <message>
            <source>This run has read content from the web, so it asks before it may %1.</source>
            <translation>此运行读取过来自网络的内容，因此在%1之前会先询问。</translation>
        </message>
        <message>
            <source>This says when but not what to do; add the task.</source>
            <translation>这里只说了时间，没有说做什么；请补上任务。</translation>
        </message>
        <message>
            <source>This schedule can never run: none of its months has that day.</source>
            <translation>此计划永远不会运行：它的月份中没有那一天。</translation>
        </message>
        <message>
            <source>This tool cannot be allowed by a rule.</source>
            <translation>此工具不能通过规则允许。</translation>
        </message>
        <message>
            <source>Timed out</source>
            <translation>超时</translation>
        </message>
        <message>
            <source>Title</source>
            <translation>标题</translation>
        </message>
        <message>
            <source>To review</source>
            <translation>待查看</translation>
        </message>
        <message>
            <source>Too old to catch up</source>
            <translation>太旧，不再补运行</translation>
        </message>
        <message>
            <source>Trigger</source>
            <translation>触发方式</translation>
        </message>
        <message>
            <source>Trusts content from the web for: %1</source>
            <translation>信任来自网络的内容，用于：%1</translation>
        </message>
        <message>
            <source>Two triggers have this name; give each its own.</source>
            <translation>有两个触发器使用此名称；请为每个触发器取不同的名字。</translation>
        </message>
        <message>
            <source>Unread</source>
            <translation>未读</translation>
        </message>
        <message>
            <source>Waiting for the folder</source>
            <translation>正在等待文件夹</translation>
        </message>
        <message>
            <source>Waiting for you</source>
            <translation>等待您处理</translation>
        </message>
        <message>
            <source>Waiting for you; fires again after you decide.</source>
            <translation>等待您的决定；您决定后将再次触发。</translation>
        </message>
        <message>
            <source>When</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>When a file changes in %1</source>
            <translation>当 %1 中的文件变化时</translation>
        </message>
        <message>
            <source>When a file is added to %1</source>
            <translation>当有文件添加到 %1 时</translation>
        </message>
        <message>
            <source>When a file is removed from %1</source>
            <translation>当有文件从 %1 删除时</translation>
        </message>
        <message>
            <source>When its web address is called</source>
            <translation>当其网址被调用时</translation>
        </message>
        <message>
            <source>When mail arrives for %1</source>
            <translation>当 %1 收到邮件时</translation>
        </message>
        <message>
            <source>When “%1” %2</source>
            <translation>当“%1”%2时</translation>
        </message>
        <message>
            <source>When “%1” ends</source>
            <translation>当“%1”结束时</translation>
        </message>
        <message>
            <source>Without asking: %1</source>
            <translation>无需询问：%1</translation>
        </message>
        <message>
            <source>Write a file</source>
            <translation>写入文件</translation>
        </message>
        <message>
            <source>Write a file name pattern such as *.pdf.</source>
            <translation>请写一个文件名模式，例如 *.pdf。</translation>
        </message>
        <message>
            <source>Write a length of time such as 30s, 15m, 2h or 1d (at most 366 days).</source>
            <translation>请写一个时长，例如 30s、15m、2h 或 1d（最多 366 天）。</translation>
        </message>
        <message>
            <source>Write something here.</source>
            <translation>请在这里填写内容。</translation>
        </message>
        <message>
            <source>Write the whole path, starting at /.</source>
            <translation>请写出以 / 开头的完整路径。</translation>
        </message>
        <message>
            <source>Yes</source>
            <translation>是</translation>
        </message>
        <message>
            <source>actions</source>
            <translation>操作数</translation>
        </message>
        <message numerus="yes">
            <source>after %n runs</source>
            <translation>
                <numerusform>%n 次运行后</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>and %n more</source>
            <translation>
                <numerusform>还有 %n 个</numerusform>
            </translation>
        </message>
        <message>
            <source>answered: %1</source>
            <translation>已回答：%1</translation>
        </message>
        <message>
            <source>ask you</source>
            <translation>询问您</translation>
        </message>
        <message>
            <source>at %1</source>
            <translation>于 %1</translation>
        </message>
        <message>
            <source>by you</source>
            <translation>由您</translation>
        </message>
        <message>
            <source>cannot run: %1</source>
            <translation>无法运行：%1</translation>
        </message>
        <message>
            <source>change any automation</source>
            <translation>更改任何自动化任务</translation>
        </message>
        <message>
            <source>create automations</source>
            <translation>创建自动化任务</translation>
        </message>
        <message>
            <source>day</source>
            <translation>天</translation>
        </message>
        <message>
            <source>days</source>
            <translation>天</translation>
        </message>
        <message>
            <source>denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>dry run</source>
            <translation>试运行</translation>
        </message>
        <message>
            <source>edit %1</source>
            <translation>编辑 %1</translation>
        </message>
        <message>
            <source>edit files</source>
            <translation>编辑文件</translation>
        </message>
        <message>
            <source>error: %1</source>
            <translation>错误：%1</translation>
        </message>
        <message>
            <source>exit %1</source>
            <translation>退出 %1</translation>
        </message>
        <message>
            <source>expires unanswered</source>
            <translation>无人应答而过期</translation>
        </message>
        <message>
            <source>fails</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>fetch %1</source>
            <translation>获取 %1</translation>
        </message>
        <message>
            <source>fetch any address</source>
            <translation>获取任何地址</translation>
        </message>
        <message>
            <source>fetch web pages</source>
            <translation>获取网页</translation>
        </message>
        <message>
            <source>finish</source>
            <translation>完成</translation>
        </message>
        <message>
            <source>from %1</source>
            <translation>发件人 %1</translation>
        </message>
        <message numerus="yes">
            <source>from %n automations</source>
            <translation>
                <numerusform>来自 %n 个自动化任务</numerusform>
            </translation>
        </message>
        <message>
            <source>hour</source>
            <translation>小时</translation>
        </message>
        <message>
            <source>hours</source>
            <translation>小时</translation>
        </message>
        <message>
            <source>in %1</source>
            <translation>在 %1 中</translation>
        </message>
        <message numerus="yes">
            <source>in %n h</source>
            <translation>
                <numerusform>%n 小时后</numerusform>
            </translation>
        </message>
        <message numerus="yes">
            <source>in %n min</source>
            <translation>
                <numerusform>%n 分钟后</numerusform>
            </translation>
        </message>
        <message>
            <source>is stopped</source>
            <translation>被停止</translation>
        </message>
        <message numerus="yes">
            <source>its %n runs in the history</source>
            <translation>
                <numerusform>它在历史中的 %n 次运行</numerusform>
            </translation>
        </message>
        <message>
            <source>its run history</source>
            <translation>它的运行历史</translation>
        </message>
        <message>
            <source>just now</source>
            <translation>刚刚</translation>
        </message>
        <message>
            <source>last run: %1</source>
            <translation>上次运行：%1</translation>
        </message>
        <message>
            <source>list %1</source>
            <translation>列出 %1</translation>
        </message>
        <message>
            <source>list files</source>
            <translation>列出文件</translation>
        </message>
        <message>
            <source>list mail</source>
            <translation>列出邮件</translation>
        </message>
        <message>
            <source>memory</source>
            <translation>内存</translation>
        </message>
        <message>
            <source>minute</source>
            <translation>分钟</translation>
        </message>
        <message>
            <source>minutes</source>
            <translation>分钟</translation>
        </message>
        <message>
            <source>next %1</source>
            <translation>下次 %1</translation>
        </message>
        <message>
            <source>no output</source>
            <translation>没有输出</translation>
        </message>
        <message>
            <source>notify you</source>
            <translation>通知您</translation>
        </message>
        <message>
            <source>now</source>
            <translation>现在</translation>
        </message>
        <message>
            <source>read %1</source>
            <translation>读取 %1</translation>
        </message>
        <message>
            <source>read files</source>
            <translation>读取文件</translation>
        </message>
        <message>
            <source>read mail</source>
            <translation>阅读邮件</translation>
        </message>
        <message>
            <source>reads</source>
            <translation>读取次数</translation>
        </message>
        <message>
            <source>recursion depth</source>
            <translation>递归深度</translation>
        </message>
        <message>
            <source>run %1</source>
            <translation>运行 %1</translation>
        </message>
        <message>
            <source>run any command</source>
            <translation>运行任何命令</translation>
        </message>
        <message>
            <source>run commands</source>
            <translation>运行命令</translation>
        </message>
        <message>
            <source>running</source>
            <translation>运行中</translation>
        </message>
        <message>
            <source>search %1</source>
            <translation>搜索 %1</translation>
        </message>
        <message>
            <source>search files</source>
            <translation>搜索文件</translation>
        </message>
        <message>
            <source>second</source>
            <translation>秒</translation>
        </message>
        <message>
            <source>seconds</source>
            <translation>秒</translation>
        </message>
        <message>
            <source>send mail</source>
            <translation>发送邮件</translation>
        </message>
        <message>
            <source>subject has “%1”</source>
            <translation>主题包含“%1”</translation>
        </message>
        <message>
            <source>succeeds</source>
            <translation>成功</translation>
        </message>
        <message>
            <source>the %1</source>
            <comment>day of the month</comment>
            <translation>%1</translation>
        </message>
        <message>
            <source>the %1 %2</source>
            <comment>the 2nd Friday</comment>
            <translation>第 %3 个%2</translation>
        </message>
        <message>
            <source>the %1-to-last %2</source>
            <comment>the 2nd-to-last Friday</comment>
            <translation>倒数第 %3 个%2</translation>
        </message>
        <message>
            <source>the %1-to-last day</source>
            <translation>倒数第 %2 天</translation>
        </message>
        <message>
            <source>the fire at %1</source>
            <translation>于 %1 的触发</translation>
        </message>
        <message>
            <source>the last %1</source>
            <comment>the last Friday</comment>
            <translation>最后一个%1</translation>
        </message>
        <message>
            <source>the last day</source>
            <translation>最后一天</translation>
        </message>
        <message>
            <source>then %1</source>
            <translation>然后 %1</translation>
        </message>
        <message>
            <source>time</source>
            <translation>时间</translation>
        </message>
        <message>
            <source>today %1</source>
            <translation>今天 %1</translation>
        </message>
        <message>
            <source>tomorrow %1</source>
            <translation>明天 %1</translation>
        </message>
        <message>
            <source>unit</source>
            <translation>单位</translation>
        </message>
        <message>
            <source>use %1 of the MCP server %2</source>
            <translation>使用 MCP 服务器 %2 的 %1</translation>
        </message>
        <message>
            <source>use MCP servers' tools</source>
            <translation>使用 MCP 服务器的工具</translation>
        </message>
        <message>
            <source>when the run says its condition is met</source>
            <translation>当运行报告其条件已满足时</translation>
        </message>
        <message>
            <source>working day</source>
            <translation>工作日</translation>
        </message>
        <message>
            <source>write %1</source>
            <translation>写入 %1</translation>
        </message>
        <message>
            <source>write files</source>
            <translation>写入文件</translation>
        </message>
        <message>
            <source>yesterday %1</source>
            <translation>昨天 %1</translation>
        </message>
        <message>
            <source>“%1” counts from %2.</source>
            <translation>“%1”从 %2 起算。</translation>
        </message>
        <message>
            <source>“%1” counts the months from January.</source>
            <translation>“%1”从一月开始计算月份。</translation>
        </message>
        <message>
            <source>“%1” has passed today: read as tomorrow.</source>
            <translation>“%1”今天已过：理解为明天。</translation>
        </message>
        <message>
            <source>“%1” read as %2.</source>
            <translation>“%1”理解为 %2。</translation>
        </message>
        <message>
            <source>“%1” read as that weekday's second in each month; for every other week, say “every other”.</source>
            <translation>“%1”理解为每月的第二个该星期几；若要隔周，请说“每隔一周”。</translation>
        </message>
        <message>
            <source>“%1” stays in the task; it does not change the schedule.</source>
            <translation>“%1”保留在任务中；它不改变计划。</translation>
        </message>
        <message>
            <source>“quarterly” runs in January, April, July and October.</source>
            <translation>“每季度”在一月、四月、七月和十月运行。</translation>
        </message>
        <message>
            <source>“{zone}” is not a time zone; choose one from the list.</source>
            <translation>“{zone}”不是时区；请从列表中选择。</translation>
        </message>
        <message numerus="yes">
            <source>… and %n more</source>
            <translation>
                <numerusform>… 还有 %n 个</numerusform>
            </translation>
        </message>
    </context>
</TS>
