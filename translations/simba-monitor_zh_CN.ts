<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AddConnectionDialog</name>
    <message>
        <source>Add a connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A backend URL shows everything stored there (sqlite:///path/simba.db, redis://host:6379/0, postgresql://user@host/db …). A service endpoint (http://host:port) shows one client&apos;s view and its live events.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Password (optional; kept in memory only, asked again after a restart)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BackendConnection</name>
    <message>
        <source>This backend cannot be inspected: connect to the service endpoints of its clients instead.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The URL is not valid: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The backend failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(not retried: change the URL)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChartsView</name>
    <message>
        <source>Leadership changes and backend call latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Terms started per 5 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency (ms)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leadership changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backend call latency</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ConnectionModel</name>
    <message>
        <source>Backend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Service endpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Failing (%n attempt(s)), retrying</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Password needed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unhealthy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unhealthy: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Healthy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Live events; snapshot every %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inspected every %1, sooner on hints</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inspected every %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n partition(s) without owner)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2 left)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EndpointConnection</name>
    <message>
        <source>The endpoint answered HTTP %1 to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing listens at %1 (connection refused)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The host %1 is not known</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 did not answer in time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot reach %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GET %1 did not answer a JSON object: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EventModel</name>
    <message>
        <source>token %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>now free</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EventsView</name>
    <message>
        <source>All types</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lease or group name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All connections</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n new event(s) waiting</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>%1 events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Event details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select an event to see all its fields.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LeaseModel</name>
    <message>
        <source>unknown host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nobody</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lease</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Holder host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PID</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Token</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remaining</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LeasesView</name>
    <message>
        <source>Filter by lease, host, PID, session or connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 leases shown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click a column heading to sort</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <source>QSimba Monitor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leases</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Partitions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Charts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add connection…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MonitorConnection</name>
    <message>
        <source>The password is not stored: enter it to connect.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MonitorController</name>
    <message>
        <source>Enter a backend URL (such as sqlite:///var/lib/app/simba.db) or an endpoint (http://host:port).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the password into this URL yourself: it names no single host.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not an endpoint URL such as http://127.0.0.1:8080.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a backend URL: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already watched.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MonitorFormat</name>
    <message>
        <source>expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session opened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session renewed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session suspended</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lease shortened</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session closed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Elected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revoked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Acquire failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Work completed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Events missed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Holder changed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Expired without release</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stepped down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>session expired</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deadline passed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>taken over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>session suspended</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>session lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>backend failing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>closed</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>OverviewView</name>
    <message>
        <source>No connection yet. Add a backend URL or the service endpoint of a client.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add connection…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop watching this connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Password</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Leases held</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Groups</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Without a leader</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close to expiry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>last answer %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PartitionsView</name>
    <message>
        <source>No partition group on the watched connections.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Group %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n partition(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n without owner</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Members:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Partition %1: no owner</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Partition %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
