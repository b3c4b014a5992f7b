#!/bin/sh
# The group kill lives in a trap string.
setsid gemini -p "triage" &
pgid=$!
trap 'kill -TERM -"$pgid"' EXIT INT TERM
wait "$pgid"
