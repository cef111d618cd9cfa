#!/bin/sh
# Makes a database cluster in the run directory and serves it on port $1,
# as the postgres user (the model's user = "postgres").
# initdb's log stays in the run directory: it names the directory's host
# path, which a node still sees (getcwd is not virtual yet, issue 36 §5).
set -e
/usr/lib/postgresql/15/bin/initdb -D data -A trust -U postgres --no-sync --no-instructions >initdb.log 2>&1 || { cat initdb.log; exit 1; }
exec /usr/lib/postgresql/15/bin/postgres -D data -p "$1" -c unix_socket_directories= -c listen_addresses=127.0.0.1 \
	-c fsync=off -c logging_collector=off -c shared_buffers=1MB -c max_connections=5
