#!/bin/sh
# fleet-guard-hook 2 (@HOOK@). Written by `fleet hooks install`;
# `fleet hooks uninstall` puts back exactly what was here before.
#
# Hooks are shared by every worktree of a repository, so nothing here was decided at
# install time: whether this is the shared checkout is worked out each time it runs.
# The common case (an agent's own worktree, a ref that is not guarded) is decided in
# this script without starting fleet; everything else goes to `fleet hook @HOOK@`.
fleet_bin='@FLEET@'
fleet_hook='@HOOK@'
fleet_chained="$0.fleet-chained"

if [ "$fleet_hook" = reference-transaction ]; then
    # Only `prepared` can refuse; git does not mind a hook that leaves its stdin unread.
    [ "$1" = prepared ] || [ -x "$fleet_chained" ] || exit 0
    fleet_input=
    fleet_count=0
    while [ "$fleet_count" -lt 64 ] && IFS= read -r fleet_line; do
        fleet_input="$fleet_input$fleet_line
"
        fleet_count=$((fleet_count + 1))
    done
    # Many refs at once (a big fetch): the rest in one read, not line by line.
    if [ "$fleet_count" -ge 64 ]; then
        fleet_input="$fleet_input$(cat)
"
    fi
fi

# The hook that was here before runs first, with the same arguments and stdin; its
# failure fails the operation.
if [ -x "$fleet_chained" ]; then
    if [ "$fleet_hook" = reference-transaction ]; then
        printf '%s' "$fleet_input" | @RUN_CHAINED@ || exit $?
    else
        @RUN_CHAINED@ || exit $?
    fi
fi

# A linked worktree's git dir holds a `commondir` file; the shared checkout's does not.
fleet_linked=
if [ -n "$GIT_DIR" ] && [ -f "$GIT_DIR/commondir" ]; then
    fleet_linked=1
fi
if [ -n "$fleet_linked" ]; then
    IFS= read -r fleet_common <"$GIT_DIR/commondir" || fleet_common=
    case "$fleet_common" in
    /*) ;;
    *) fleet_common="$GIT_DIR/$fleet_common" ;;
    esac
elif [ -n "$GIT_DIR" ]; then
    fleet_common=$GIT_DIR
else
    fleet_common=.git
fi
# Not a guarded repository (a hooks folder shared with other repositories).
[ -f "$fleet_common/fleet/guard-refs" ] || [ ! -d "$fleet_common" ] || exit 0

case "$fleet_hook" in
pre-commit | prepare-commit-msg)
    [ -n "$fleet_linked" ] && exit 0
    ;;
post-checkout)
    [ -n "$fleet_linked" ] && exit 0
    [ "$1" = "$2" ] && exit 0
    ;;
reference-transaction)
    [ "$1" = prepared ] || exit 0
    fleet_head=
    IFS= read -r fleet_head <"$fleet_common/HEAD" 2>/dev/null
    fleet_head=${fleet_head#ref: }
    fleet_decide=
    while read -r fleet_old fleet_new fleet_ref; do
        case "$fleet_ref" in
        HEAD) [ -z "$fleet_linked" ] && [ "$fleet_old" != "$fleet_new" ] && fleet_decide=1 ;;
        main-worktree/HEAD | refs/fleet/* | refs/notes/fleet) fleet_decide=1 ;;
        refs/stash) [ -z "$fleet_linked" ] && fleet_decide=1 ;;
        refs/heads/*)
            # From the shared checkout: `checkout -b` and `switch -c` create the branch
            # before they switch; fleet tells those from a plain `git branch`.
            [ -z "$fleet_linked" ] && fleet_decide=1
            [ "$fleet_ref" = "$fleet_head" ] && fleet_decide=1
            [ -f "$fleet_common/fleet/guard-refs" ] || fleet_decide=1
            [ -n "$fleet_decide" ] || while IFS= read -r fleet_guarded; do
                [ "$fleet_ref" = "$fleet_guarded" ] && fleet_decide=1
            done <"$fleet_common/fleet/guard-refs"
            ;;
        esac
    done <<FLEET_EOF
$fleet_input
FLEET_EOF
    [ -z "$fleet_decide" ] && exit 0
    ;;
esac

# A bare name (fleet was installed on PATH): found on PATH each time, so upgrading the
# binary upgrades the hooks. A path: that binary, or fleet on PATH if it is gone.
case "$fleet_bin" in
*/*) [ -x "$fleet_bin" ] || fleet_bin=$(command -v fleet) || fleet_bin= ;;
*) fleet_bin=$(command -v "$fleet_bin") || fleet_bin= ;;
esac
if [ -z "$fleet_bin" ]; then
    echo "fleet guard ($fleet_hook): the fleet binary is gone (was @FLEET@) and fleet is not on PATH." >&2
    echo "  This operation touches the shared checkout or a guarded branch, so it is refused." >&2
    echo "  fix: install fleet again and run \`fleet hooks install\`;" >&2
    echo "       a human who means it: FLEET_ALLOW_SHARED=1 git ..." >&2
    [ "$FLEET_ALLOW_SHARED" = 1 ] && exit 0
    exit 1
fi
if [ "$fleet_hook" = reference-transaction ]; then
    exec "$fleet_bin" hook "$fleet_hook" "$@" <<FLEET_EOF
$fleet_input
FLEET_EOF
fi
exec "$fleet_bin" hook "$fleet_hook" "$@"
