#!/bin/sh
# The least a hook can add to `git commit`, whatever it does: no-op hooks in the slots a
# guard needs, as shell scripts and (when a C compiler is there) as a static binary.
#
#   sh benches/hook_floor.sh [ROUNDS]
#
# One `git commit --allow-empty -q` per case per round in fresh repositories, rounds
# interleaved (the order rotating), 3 warm-up rounds, median of ROUNDS (default 61).
set -eu
rounds=${1:-61}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$dir/gitconfig" HOME="$dir"
: >"$dir/gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.invalid
export GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.invalid
printf '#!/bin/sh\nexit 0\n' >nop.sh
chmod +x nop.sh
cases="none four-sh rt-only-sh pc-only-sh"
if printf 'int main(void){return 0;}\n' >nop.c && cc -O2 -static -o nop-static nop.c 2>/dev/null; then
    cases="$cases four-static rt-only-static"
else
    echo "SKIPPED: static no-op binary (no C compiler with static libc)" >&2
fi
for c in $cases; do
    git init -q "r-$c"
    git -C "r-$c" commit -q --allow-empty -m base
done
for h in pre-commit prepare-commit-msg reference-transaction post-checkout; do
    cp nop.sh "r-four-sh/.git/hooks/$h"
    [ -d r-four-static ] && cp nop-static "r-four-static/.git/hooks/$h"
done
cp nop.sh r-rt-only-sh/.git/hooks/reference-transaction
cp nop.sh r-pc-only-sh/.git/hooks/pre-commit
[ -d r-rt-only-static ] && cp nop-static r-rt-only-static/.git/hooks/reference-transaction
python3 - "$rounds" $cases <<'PY'
import statistics, subprocess, sys, time
rounds, cases = int(sys.argv[1]), sys.argv[2:]
times = {c: [] for c in cases}
for r in range(rounds + 3):
    k = r % len(cases)
    for c in cases[k:] + cases[:k]:
        t = time.perf_counter()
        subprocess.run(["git", "-C", "r-" + c, "commit", "--allow-empty", "-q", "-m", "x"], check=True)
        if r >= 3:
            times[c].append(time.perf_counter() - t)
none = statistics.median(times["none"])
for c in cases:
    m = statistics.median(times[c])
    print(f"| {c} | {m * 1000:.1f} ms | {1000 * (m - none):+.1f} ms |")
PY
