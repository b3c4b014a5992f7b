#!/usr/bin/env bash
# `pkill -g PGID` signals every process of the group: a group kill.
setsid claude -p "$1" &
pid=$!
trap 'pkill -TERM -g "$pid"' EXIT
wait "$pid"
