<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>AddConnectionDialog</name>
    <message>
        <source>Add a connection</source>
        <translation>Add a connection</translation>
    </message>
    <message>
        <source>A backend URL shows everything stored there (sqlite:///path/simba.db, redis://host:6379/0, postgresql://user@host/db …). A service endpoint (http://host:port) shows one client&apos;s view and its live events.</source>
        <translation>A backend URL shows everything stored there (sqlite:///path/simba.db, redis://host:6379/0, postgresql://user@host/db …). A service endpoint (http://host:port) shows one client&apos;s view and its live events.</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>Password (optional; kept in memory only, asked again after a restart)</source>
        <translation>Password (optional; kept in memory only, asked again after a restart)</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>Add</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancel</translation>
    </message>
</context>
<context>
    <name>BackendConnection</name>
    <message>
        <source>This backend cannot be inspected: connect to the service endpoints of its clients instead.</source>
        <translation>This backend cannot be inspected: connect to the service endpoints of its clients instead.</translation>
    </message>
    <message>
        <source>The URL is not valid: %1</source>
        <translation>The URL is not valid: %1</translation>
    </message>
    <message>
        <source>The backend failed: %1</source>
        <translation>The backend failed: %1</translation>
    </message>
    <message>
        <source>(not retried: change the URL)</source>
        <translation>(not retried: change the URL)</translation>
    </message>
</context>
<context>
    <name>ChartsView</name>
    <message>
        <source>Leadership changes and backend call latency</source>
        <translation>Leadership changes and backend call latency</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Time</translation>
    </message>
    <message>
        <source>Terms started per 5 s</source>
        <translation>Terms started per 5 s</translation>
    </message>
    <message>
        <source>Latency (ms)</source>
        <translation>Latency (ms)</translation>
    </message>
    <message>
        <source>Leadership changes</source>
        <translation>Leadership changes</translation>
    </message>
    <message>
        <source>Backend call latency</source>
        <translation>Backend call latency</translation>
    </message>
</context>
<context>
    <name>ConnectionModel</name>
    <message>
        <source>Backend</source>
        <translation>Backend</translation>
    </message>
    <message>
        <source>Service endpoint</source>
        <translation>Service endpoint</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>Connecting…</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>Connected</translation>
    </message>
    <message numerus="yes">
        <source>Failing (%n attempt(s)), retrying</source>
        <translation>
            <numerusform>Failing (%n attempt), retrying</numerusform>
            <numerusform>Failing (%n attempts), retrying</numerusform>
        </translation>
    </message>
    <message>
        <source>Password needed</source>
        <translation>Password needed</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>Unknown</translation>
    </message>
    <message>
        <source>Unhealthy</source>
        <translation>Unhealthy</translation>
    </message>
    <message>
        <source>Unhealthy: %1</source>
        <translation>Unhealthy: %1</translation>
    </message>
    <message>
        <source>Healthy</source>
        <translation>Healthy</translation>
    </message>
    <message>
        <source>Live events; snapshot every %1</source>
        <translation>Live events; snapshot every %1</translation>
    </message>
    <message>
        <source>Inspected every %1, sooner on hints</source>
        <translation>Inspected every %1, sooner on hints</translation>
    </message>
    <message>
        <source>Inspected every %1</source>
        <translation>Inspected every %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n partition(s) without owner)</source>
        <translation>
            <numerusform>%1 (%n partition without owner)</numerusform>
            <numerusform>%1 (%n partitions without owner)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2 left)</source>
        <translation>%1 (%2 left)</translation>
    </message>
</context>
<context>
    <name>EndpointConnection</name>
    <message>
        <source>The endpoint answered HTTP %1 to %2</source>
        <translation>The endpoint answered HTTP %1 to %2</translation>
    </message>
    <message>
        <source>Nothing listens at %1 (connection refused)</source>
        <translation>Nothing listens at %1 (connection refused)</translation>
    </message>
    <message>
        <source>The host %1 is not known</source>
        <translation>The host %1 is not known</translation>
    </message>
    <message>
        <source>%1 did not answer in time</source>
        <translation>%1 did not answer in time</translation>
    </message>
    <message>
        <source>Cannot reach %1: %2</source>
        <translation>Cannot reach %1: %2</translation>
    </message>
    <message>
        <source>GET %1 did not answer a JSON object: %2</source>
        <translation>GET %1 did not answer a JSON object: %2</translation>
    </message>
    <message>
        <source>The endpoint wants a token (HTTP 401): add it as the password</source>
        <translation>The endpoint wants a token (HTTP 401): add it as the password</translation>
    </message>
</context>
<context>
    <name>EventModel</name>
    <message>
        <source>token %1</source>
        <translation>token %1</translation>
    </message>
    <message>
        <source>now free</source>
        <translation>now free</translation>
    </message>
</context>
<context>
    <name>EventsView</name>
    <message>
        <source>All types</source>
        <translation>All types</translation>
    </message>
    <message>
        <source>Lease or group name</source>
        <translation>Lease or group name</translation>
    </message>
    <message>
        <source>All connections</source>
        <translation>All connections</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>Resume</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message numerus="yes">
        <source>%n new event(s) waiting</source>
        <translation>
            <numerusform>%n new event waiting</numerusform>
            <numerusform>%n new events waiting</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 events</source>
        <translation>%1 events</translation>
    </message>
    <message>
        <source>Event details</source>
        <translation>Event details</translation>
    </message>
    <message>
        <source>Select an event to see all its fields.</source>
        <translation>Select an event to see all its fields.</translation>
    </message>
</context>
<context>
    <name>LeaseModel</name>
    <message>
        <source>unknown host</source>
        <translation>unknown host</translation>
    </message>
    <message>
        <source>nobody</source>
        <translation>nobody</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>Connection</translation>
    </message>
    <message>
        <source>Lease</source>
        <translation>Lease</translation>
    </message>
    <message>
        <source>Holder host</source>
        <translation>Holder host</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>Remaining</source>
        <translation>Remaining</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>Session</translation>
    </message>
</context>
<context>
    <name>LeasesView</name>
    <message>
        <source>Filter by lease, host, PID, session or connection</source>
        <translation>Filter by lease, host, PID, session or connection</translation>
    </message>
    <message>
        <source>%1 of %2 leases shown</source>
        <translation>%1 of %2 leases shown</translation>
    </message>
    <message>
        <source>Click a column heading to sort</source>
        <translation>Click a column heading to sort</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>QSimba Monitor</source>
        <translation>QSimba Monitor</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>Overview</translation>
    </message>
    <message>
        <source>Leases</source>
        <translation>Leases</translation>
    </message>
    <message>
        <source>Partitions</source>
        <translation>Partitions</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Events</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>Charts</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>Language</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>System language</translation>
    </message>
    <message>
        <source>Add connection…</source>
        <translation>Add connection…</translation>
    </message>
</context>
<context>
    <name>MonitorConnection</name>
    <message>
        <source>The password is not stored: enter it to connect.</source>
        <translation>The password is not stored: enter it to connect.</translation>
    </message>
</context>
<context>
    <name>MonitorController</name>
    <message>
        <source>Enter a backend URL (such as sqlite:///var/lib/app/simba.db) or an endpoint (http://host:port).</source>
        <translation>Enter a backend URL (such as sqlite:///var/lib/app/simba.db) or an endpoint (http://host:port).</translation>
    </message>
    <message>
        <source>Put the password into this URL yourself: it names no single host.</source>
        <translation>Put the password into this URL yourself: it names no single host.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an endpoint URL such as http://127.0.0.1:8080.</source>
        <translation>&quot;%1&quot; is not an endpoint URL such as http://127.0.0.1:8080.</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a backend URL: %2</source>
        <translation>&quot;%1&quot; is not a backend URL: %2</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already watched.</source>
        <translation>&quot;%1&quot; is already watched.</translation>
    </message>
</context>
<context>
    <name>MonitorFormat</name>
    <message>
        <source>expired</source>
        <translation>expired</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 ms</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 s</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 min %2 s</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 h %2 min</translation>
    </message>
    <message>
        <source>Session opened</source>
        <translation>Session opened</translation>
    </message>
    <message>
        <source>Session renewed</source>
        <translation>Session renewed</translation>
    </message>
    <message>
        <source>Session suspended</source>
        <translation>Session suspended</translation>
    </message>
    <message>
        <source>Session expired</source>
        <translation>Session expired</translation>
    </message>
    <message>
        <source>Lease shortened</source>
        <translation>Lease shortened</translation>
    </message>
    <message>
        <source>Session closed</source>
        <translation>Session closed</translation>
    </message>
    <message>
        <source>Elected</source>
        <translation>Elected</translation>
    </message>
    <message>
        <source>Revoked</source>
        <translation>Revoked</translation>
    </message>
    <message>
        <source>Acquire failed</source>
        <translation>Acquire failed</translation>
    </message>
    <message>
        <source>Work completed</source>
        <translation>Work completed</translation>
    </message>
    <message>
        <source>Events missed</source>
        <translation>Events missed</translation>
    </message>
    <message>
        <source>Holder changed</source>
        <translation>Holder changed</translation>
    </message>
    <message>
        <source>Expired without release</source>
        <translation>Expired without release</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>stopped</translation>
    </message>
    <message>
        <source>stepped down</source>
        <translation>stepped down</translation>
    </message>
    <message>
        <source>session expired</source>
        <translation>session expired</translation>
    </message>
    <message>
        <source>deadline passed</source>
        <translation>deadline passed</translation>
    </message>
    <message>
        <source>taken over</source>
        <translation>taken over</translation>
    </message>
    <message>
        <source>session suspended</source>
        <translation>session suspended</translation>
    </message>
    <message>
        <source>session lost</source>
        <translation>session lost</translation>
    </message>
    <message>
        <source>backend failing</source>
        <translation>backend failing</translation>
    </message>
    <message>
        <source>closed</source>
        <translation>closed</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>starting</translation>
    </message>
</context>
<context>
    <name>OverviewView</name>
    <message>
        <source>No connection yet. Add a backend URL or the service endpoint of a client.</source>
        <translation>No connection yet. Add a backend URL or the service endpoint of a client.</translation>
    </message>
    <message>
        <source>Add connection…</source>
        <translation>Add connection…</translation>
    </message>
    <message>
        <source>Stop watching this connection</source>
        <translation>Stop watching this connection</translation>
    </message>
    <message>
        <source>Password</source>
        <translation>Password</translation>
    </message>
    <message>
        <source>Connect</source>
        <translation>Connect</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>Sessions</translation>
    </message>
    <message>
        <source>Leases held</source>
        <translation>Leases held</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 of %2</translation>
    </message>
    <message>
        <source>Groups</source>
        <translation>Groups</translation>
    </message>
    <message>
        <source>Without a leader</source>
        <translation>Without a leader</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>Close to expiry</source>
        <translation>Close to expiry</translation>
    </message>
    <message>
        <source>last answer %1</source>
        <translation>last answer %1</translation>
    </message>
</context>
<context>
    <name>PartitionsView</name>
    <message>
        <source>No partition group on the watched connections.</source>
        <translation>No partition group on the watched connections.</translation>
    </message>
    <message>
        <source>Group %1</source>
        <translation>Group %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n partition(s)</source>
        <translation>
            <numerusform>%1 · %n partition</numerusform>
            <numerusform>%1 · %n partitions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n without owner</source>
        <translation>
            <numerusform>%n without owner</numerusform>
            <numerusform>%n without owner</numerusform>
        </translation>
    </message>
    <message>
        <source>Members:</source>
        <translation>Members:</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>Partition %1: no owner</source>
        <translation>Partition %1: no owner</translation>
    </message>
    <message>
        <source>Partition %1: %2</source>
        <translation>Partition %1: %2</translation>
    </message>
    <message>
        <source>this client&apos;s partitions only</source>
        <translation>this client&apos;s partitions only</translation>
    </message>
    <message>
        <source>Partition %1: not this client&apos;s</source>
        <translation>Partition %1: not this client&apos;s</translation>
    </message>
</context>
</TS>
