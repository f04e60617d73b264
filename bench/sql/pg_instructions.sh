#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# PostgreSQL's own work per lock cycle, counted in instructions (which a loaded machine does
# not change): PostgreSQL in single-user mode under callgrind runs N cycles of the SQL
# backend's statements exactly as Qt's driver sends them (PREPARE once, then EXECUTE with
# literals), and N cycles of the baseline, two autocommit UPDATEs of one row. The difference
# of N = 300 and N = 100, divided by 200, is one cycle: start-up cancels out. Single-user
# mode prints each row answered, which weighs a little (about 5–10 k) on statements that
# answer one.
#
#   bench/sql/pg_instructions.sh            # prints instructions per cycle and the ratio
#
# Needs valgrind and PostgreSQL 15 (Debian: valgrind, postgresql); run as root (the server
# runs as the postgres user) or as the postgres user. The statements below are those of
# schema version 4 (QSimbaSqlDialect::acquireFree(), QSimbaSqlLeaseBackend::release(),
# table prefix simba_): keep them in step with the backend.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/bootstrap.sh installs it)" >&2; exit 1; }
[ -x "$bin/postgres" ] || { echo "no PostgreSQL under /usr/lib/postgresql (Debian: postgresql)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
as_postgres() { if [ "$(id -u)" = 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres:postgres "$work"
as_postgres "$bin/initdb" -D "$work/data" -U postgres -E UTF8 --no-sync --auth-local=trust >/dev/null 2>&1
opts=(-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c autovacuum=off)
now='CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)'
session="'sess-aaaaaaaaaaaaaaaaaaaaaaaa'"

# Statements end with a semicolon and an empty line (single-user mode's -j).
cat >"$work/setup.sql" <<EOF
CREATE TABLE simba_schema_version (id INTEGER PRIMARY KEY, version INTEGER NOT NULL);

INSERT INTO simba_schema_version (id, version) VALUES (1, 4);

CREATE TABLE simba_sessions (id VARCHAR(128) NOT NULL PRIMARY KEY, expires_at BIGINT NOT NULL, lease_ms BIGINT NOT NULL, metadata TEXT NOT NULL);

CREATE TABLE simba_leases (name VARCHAR(128) NOT NULL PRIMARY KEY, holder VARCHAR(128) NULL, token BIGINT NOT NULL, waited BOOLEAN NOT NULL DEFAULT false, version INTEGER NOT NULL DEFAULT 4);

CREATE INDEX simba_sessions_expires ON simba_sessions (expires_at);

INSERT INTO simba_sessions VALUES ($session, 99999999999999, 10000, '{}');

INSERT INTO simba_leases (name, holder, token) VALUES ('lock-a', NULL, 0);

CREATE TABLE bench_raw (id INTEGER PRIMARY KEY, v BIGINT NOT NULL);

INSERT INTO bench_raw VALUES (1, 0);

EOF

# script KIND N: the statements of N cycles
script() {
  echo "SET default_transaction_isolation = 'read committed';"; echo
  if [ "$1" = baseline ]; then
    echo 'PREPARE u AS UPDATE bench_raw SET v = v + 1 WHERE id = $1;'; echo
    for ((i = 1; i <= $2; i++)); do printf 'EXECUTE u (1);\n\nEXECUTE u (1);\n\n'; done
  else
    echo "PREPARE a AS UPDATE simba_leases l SET holder = \$1, token = l.token + 1, waited = false FROM simba_sessions c WHERE c.id = \$2 AND l.name = \$3 AND l.holder IS NULL AND l.version = 4 AND c.expires_at > $now RETURNING 1, l.token;"; echo
    echo 'PREPARE r AS UPDATE simba_leases SET holder = NULL WHERE holder = $1 AND ((name = $2 AND token = $3)) AND version = $4 AND (NOT waited OR pg_notify(CAST($5 AS text), CAST($6 AS text) || name) IS NOT NULL);'; echo
    local token
    token=$(cat "$work/token")
    for ((i = 1; i <= $2; i++)); do
      token=$((token + 1))
      printf "EXECUTE a (%s, %s, 'lock-a');\n\nEXECUTE r (%s, 'lock-a', %d, 4, 'simba_hints', 'R:');\n\n" "$session" "$session" "$session" "$token"
    done
  fi
}

# instructions KIND N: callgrind's total for a fresh copy of the database
instructions() {
  local db="$work/db-$1-$2"
  cp -a "$work/data" "$db"
  echo 0 >"$work/token"
  as_postgres "$bin/postgres" --single -j -D "$db" "${opts[@]}" postgres <"$work/setup.sql" >"$work/setup.out" 2>&1
  script "$1" "$2" >"$work/script.sql"
  [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$work"
  (cd "$work" && as_postgres valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
    "$bin/postgres" --single -j -D "$db" "${opts[@]}" postgres <"$work/script.sql" >"$work/run.out" 2>&1)
  if grep -q ERROR "$work/run.out"; then
    grep -m3 ERROR "$work/run.out" >&2
    exit 1
  fi
  grep -m1 '^summary' "$work/cg.out" | awk '{print $2}'
}

per_cycle() { echo $(( ($(instructions "$1" 300) - $(instructions "$1" 100)) / 200 )); }
base=$(per_cycle baseline)
cycle=$(per_cycle cycle)
awk -v base="$base" -v cycle="$cycle" 'BEGIN {
  printf "two autocommit UPDATEs (the baseline)        %7d instructions per cycle\n", base
  printf "lock cycle (take of a free name, release)    %7d instructions per cycle, %.2f x the baseline\n", cycle, cycle / base
}'
