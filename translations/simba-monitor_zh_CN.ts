<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AddConnectionDialog</name>
    <message>
        <source>Add a connection</source>
        <translation>添加连接</translation>
    </message>
    <message>
        <source>A backend URL shows everything stored there (sqlite:///path/simba.db, redis://host:6379/0, postgresql://user@host/db …). A service endpoint (http://host:port) shows one client&apos;s view and its live events.</source>
        <translation>填写后端地址，可查看其中保存的全部会话与租约（如 sqlite:///path/simba.db、redis://host:6379/0、postgresql://user@host/db 等）；填写服务端点（http://host:port），可查看单个客户端的状态及其实时事件。</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>地址</translation>
    </message>
    <message>
        <source>Password (optional; kept in memory only, asked again after a restart)</source>
        <translation>密码（可选；仅保存在内存中，重启后需重新输入）</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>BackendConnection</name>
    <message>
        <source>This backend cannot be inspected: connect to the service endpoints of its clients instead.</source>
        <translation>该后端不支持查看内部状态，请改为连接其客户端的服务端点。</translation>
    </message>
    <message>
        <source>The URL is not valid: %1</source>
        <translation>地址无效：%1</translation>
    </message>
    <message>
        <source>The backend failed: %1</source>
        <translation>后端出错：%1</translation>
    </message>
    <message>
        <source>(not retried: change the URL)</source>
        <translation>（不会重试，请修改地址）</translation>
    </message>
</context>
<context>
    <name>ChartsView</name>
    <message>
        <source>Leadership changes and backend call latency</source>
        <translation>主节点变更与后端调用延迟</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Terms started per 5 s</source>
        <translation>每 5 秒新任期数</translation>
    </message>
    <message>
        <source>Latency (ms)</source>
        <translation>延迟（毫秒）</translation>
    </message>
    <message>
        <source>Leadership changes</source>
        <translation>主节点变更</translation>
    </message>
    <message>
        <source>Backend call latency</source>
        <translation>后端调用延迟</translation>
    </message>
</context>
<context>
    <name>ConnectionModel</name>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Service endpoint</source>
        <translation>服务端点</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>已连接</translation>
    </message>
    <message numerus="yes">
        <source>Failing (%n attempt(s)), retrying</source>
        <translation>
            <numerusform>连接失败（已尝试 %n 次），正在重试</numerusform>
        </translation>
    </message>
    <message>
        <source>Password needed</source>
        <translation>需要密码</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Unhealthy</source>
        <translation>异常</translation>
    </message>
    <message>
        <source>Unhealthy: %1</source>
        <translation>异常：%1</translation>
    </message>
    <message>
        <source>Healthy</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Live events; snapshot every %1</source>
        <translation>实时事件；每 %1 刷新一次快照</translation>
    </message>
    <message>
        <source>Inspected every %1, sooner on hints</source>
        <translation>每 %1 查询一次，收到通知时立即刷新</translation>
    </message>
    <message>
        <source>Inspected every %1</source>
        <translation>每 %1 查询一次</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n partition(s) without owner)</source>
        <translation>
            <numerusform>%1（%n 个分区无人负责）</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2 left)</source>
        <translation>%1（剩余 %2）</translation>
    </message>
</context>
<context>
    <name>EndpointConnection</name>
    <message>
        <source>The endpoint answered HTTP %1 to %2</source>
        <translation>端点对 %2 返回了 HTTP %1</translation>
    </message>
    <message>
        <source>Nothing listens at %1 (connection refused)</source>
        <translation>%1 上没有服务在监听（连接被拒绝）</translation>
    </message>
    <message>
        <source>The host %1 is not known</source>
        <translation>无法解析主机 %1</translation>
    </message>
    <message>
        <source>%1 did not answer in time</source>
        <translation>%1 响应超时</translation>
    </message>
    <message>
        <source>Cannot reach %1: %2</source>
        <translation>无法访问 %1：%2</translation>
    </message>
    <message>
        <source>GET %1 did not answer a JSON object: %2</source>
        <translation>请求 %1 返回的不是 JSON 对象：%2</translation>
    </message>
    <message>
        <source>The endpoint wants a token (HTTP 401): add it as the password</source>
        <translation>端点要求令牌（HTTP 401）：请在密码栏中填写令牌</translation>
    </message>
</context>
<context>
    <name>EventModel</name>
    <message>
        <source>token %1</source>
        <translation>令牌 %1</translation>
    </message>
    <message>
        <source>now free</source>
        <translation>现已释放</translation>
    </message>
</context>
<context>
    <name>EventsView</name>
    <message>
        <source>All types</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <source>Lease or group name</source>
        <translation>租约或分组名称</translation>
    </message>
    <message>
        <source>All connections</source>
        <translation>全部连接</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message numerus="yes">
        <source>%n new event(s) waiting</source>
        <translation>
            <numerusform>%n 条新事件待显示</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 events</source>
        <translation>共 %1 条事件</translation>
    </message>
    <message>
        <source>Event details</source>
        <translation>事件详情</translation>
    </message>
    <message>
        <source>Select an event to see all its fields.</source>
        <translation>选中一条事件即可查看其全部字段。</translation>
    </message>
</context>
<context>
    <name>LeaseModel</name>
    <message>
        <source>unknown host</source>
        <translation>未知主机</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>租约</translation>
    </message>
    <message>
        <source>Holder host</source>
        <translation>持有者主机</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>进程号</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>Remaining</source>
        <translation>剩余时间</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
</context>
<context>
    <name>LeasesView</name>
    <message>
        <source>Filter by lease, host, PID, session or connection</source>
        <translation>按租约、主机、进程号、会话或连接筛选</translation>
    </message>
    <message>
        <source>%1 of %2 leases shown</source>
        <translation>显示 %1 个租约，共 %2 个</translation>
    </message>
    <message>
        <source>Click a column heading to sort</source>
        <translation>点击列标题可排序</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>QSimba Monitor</source>
        <translation>QSimba 监控台</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Leases</source>
        <translation>租约</translation>
    </message>
    <message>
        <source>Partitions</source>
        <translation>分区</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Add connection…</source>
        <translation>添加连接…</translation>
    </message>
</context>
<context>
    <name>MonitorConnection</name>
    <message>
        <source>The password is not stored: enter it to connect.</source>
        <translation>密码不会被保存，请输入密码后连接。</translation>
    </message>
</context>
<context>
    <name>MonitorController</name>
    <message>
        <source>Enter a backend URL (such as sqlite:///var/lib/app/simba.db) or an endpoint (http://host:port).</source>
        <translation>请输入后端地址（如 sqlite:///var/lib/app/simba.db）或服务端点（http://host:port）。</translation>
    </message>
    <message>
        <source>Put the password into this URL yourself: it names no single host.</source>
        <translation>该地址包含多个主机，请直接把密码写入地址中。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an endpoint URL such as http://127.0.0.1:8080.</source>
        <translation>“%1”不是有效的端点地址，示例：http://127.0.0.1:8080。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a backend URL: %2</source>
        <translation>“%1”不是有效的后端地址：%2</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already watched.</source>
        <translation>“%1”已在监控中。</translation>
    </message>
</context>
<context>
    <name>MonitorFormat</name>
    <message>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>Session opened</source>
        <translation>会话已建立</translation>
    </message>
    <message>
        <source>Session renewed</source>
        <translation>会话已续期</translation>
    </message>
    <message>
        <source>Session suspended</source>
        <translation>会话已挂起</translation>
    </message>
    <message>
        <source>Session expired</source>
        <translation>会话已过期</translation>
    </message>
    <message>
        <source>Lease shortened</source>
        <translation>租期被缩短</translation>
    </message>
    <message>
        <source>Session closed</source>
        <translation>会话已关闭</translation>
    </message>
    <message>
        <source>Elected</source>
        <translation>当选</translation>
    </message>
    <message>
        <source>Revoked</source>
        <translation>被撤销</translation>
    </message>
    <message>
        <source>Acquire failed</source>
        <translation>获取失败</translation>
    </message>
    <message>
        <source>Work completed</source>
        <translation>任务完成</translation>
    </message>
    <message>
        <source>Events missed</source>
        <translation>有事件遗漏</translation>
    </message>
    <message>
        <source>Holder changed</source>
        <translation>持有者变更</translation>
    </message>
    <message>
        <source>Expired without release</source>
        <translation>未释放即过期</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>stepped down</source>
        <translation>主动让位</translation>
    </message>
    <message>
        <source>session expired</source>
        <translation>会话过期</translation>
    </message>
    <message>
        <source>deadline passed</source>
        <translation>已过截止时间</translation>
    </message>
    <message>
        <source>taken over</source>
        <translation>被接管</translation>
    </message>
    <message>
        <source>session suspended</source>
        <translation>会话挂起</translation>
    </message>
    <message>
        <source>session lost</source>
        <translation>会话丢失</translation>
    </message>
    <message>
        <source>backend failing</source>
        <translation>后端故障</translation>
    </message>
    <message>
        <source>closed</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
</context>
<context>
    <name>OverviewView</name>
    <message>
        <source>No connection yet. Add a backend URL or the service endpoint of a client.</source>
        <translation>尚未添加连接。请添加后端地址或客户端的服务端点。</translation>
    </message>
    <message>
        <source>Add connection…</source>
        <translation>添加连接…</translation>
    </message>
    <message>
        <source>Stop watching this connection</source>
        <translation>停止监控此连接</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>密码</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Leases held</source>
        <translation>已持有租约</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Groups</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Without a leader</source>
        <translation>无主节点</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Close to expiry</source>
        <translation>即将过期</translation>
    </message>
    <message>
        <source>last answer %1</source>
        <translation>最近响应 %1</translation>
    </message>
</context>
<context>
    <name>PartitionsView</name>
    <message>
        <source>No partition group on the watched connections.</source>
        <translation>所监控的连接中没有分区组。</translation>
    </message>
    <message>
        <source>Group %1</source>
        <translation>分组 %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n partition(s)</source>
        <translation>
            <numerusform>%1 · %n 个分区</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n without owner</source>
        <translation>
            <numerusform>%n 个无人负责</numerusform>
        </translation>
    </message>
    <message>
        <source>Members:</source>
        <translation>成员：</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Partition %1: no owner</source>
        <translation>分区 %1：无人负责</translation>
    </message>
    <message>
        <source>Partition %1: %2</source>
        <translation>分区 %1：%2</translation>
    </message>
    <message>
        <source>this client&apos;s partitions only</source>
        <translation>仅显示本客户端的分区</translation>
    </message>
    <message>
        <source>Partition %1: not this client&apos;s</source>
        <translation>分区 %1：不属于本客户端</translation>
    </message>
</context>
</TS>
