#!/usr/bin/env bash
# Review every changed markdown file, skip drafts.
set -uo pipefail

review_file() {
  local f="$1"
  claude -p "review $f for typos" --output-format text | tee "reviews/$(basename "$f").txt"  # expect: agent-spawn-without-group
}

mkdir -p reviews
for f in $(git diff --name-only origin/main -- '*.md'); do
  if [[ "$f" == drafts/* ]]; then
    continue
  fi
  review_file "$f"
done

while read -r task; do
  [ -z "$task" ] && continue
  codex exec "$task" || echo "codex failed on: $task" >&2  # expect: agent-spawn-without-group
done < tasks.txt

find . -name '*.orig' -print0 | xargs -0 rm -f
