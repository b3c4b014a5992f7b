#!/bin/sh
# A pre-commit hook (or a pre-commit/lefthook step) that refuses staged code starting an
# agent CLI without a process group of its own. Chain it from the hook fleet installs,
# or add it to your hook manager: `fleet lint --staged` reads the staged blobs.
exec fleet lint --staged
