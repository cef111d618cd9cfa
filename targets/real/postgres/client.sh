#!/bin/sh
# Asks the server on port $1 for SELECT 1 once it answers.
exec /usr/bin/psql -h 127.0.0.1 -p "$1" -U postgres -w -tA -c 'SELECT 1'
