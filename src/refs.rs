//! fleet's ref namespace: every ref name fleet owns or reads by convention, in one place.
//!
//! fleet keeps its shared state as git data: the lane registry, the gate cache and the
//! watchdog's snapshots under `refs/fleet/`, receipts as notes on `refs/notes/fleet`, and a
//! remote's copies of them under `refs/fleet/remotes/<remote>/`. The guard lets exactly
//! these through ([`is_fleet_ref`]), so a new fleet ref is added here or it loses that
//! protection.

/// The lane registry (a TOML file committed on this ref, see [`crate::lanes`]).
pub const LANES: &str = "refs/fleet/lanes";
/// Receipts: git notes on landed commits, written by the gate.
pub const NOTES: &str = "refs/notes/fleet";
/// Green and red gate runs by candidate tree and gate inputs.
pub const GATE_CACHE: &str = "refs/fleet/gate-cache";
/// The prefix of the watchdog's snapshots of dirty shared checkouts.
pub const SNAPSHOTS: &str = "refs/fleet/snapshots/";

/// The prefix of local branches.
const BRANCHES: &str = "refs/heads/";
/// fleet's own namespace (everything but the receipts lives under it).
const FLEET: &str = "refs/fleet/";
/// Where a remote's copies of fleet's refs are kept here: `<this><remote>/...`.
pub const FLEET_REMOTES: &str = "refs/fleet/remotes/";
/// The prefix of every remote-tracking branch.
pub const REMOTE_TRACKING: &str = "refs/remotes/";

/// The full name of the local branch `name`.
pub fn branch(name: &str) -> String {
    format!("{BRANCHES}{name}")
}

/// The branch a full ref name names, when it is a local branch.
pub fn branch_name(full: &str) -> Option<&str> {
    full.strip_prefix(BRANCHES)
}

/// Where the remote's branch `branch` is tracked here.
pub fn tracking(remote: &str, branch: &str) -> String {
    format!("{REMOTE_TRACKING}{remote}/{branch}")
}

/// Where the remote's lane registry is kept here (the queue, when it is on a remote).
pub fn remote_lanes(remote: &str) -> String {
    format!("{FLEET_REMOTES}{remote}/lanes")
}

/// Where the remote's receipts are kept here (merged into [`NOTES`] after each fetch).
pub fn remote_notes(remote: &str) -> String {
    format!("{FLEET_REMOTES}{remote}/notes/fleet")
}

/// The remote a ref under `refs/fleet/remotes/` came from; `None` for any other ref.
pub fn remote_of(full: &str) -> Option<&str> {
    let rest = full.strip_prefix(FLEET_REMOTES)?;
    Some(rest.split('/').next().unwrap_or(rest))
}

/// The refspecs that fetch a remote's branches, registry and receipts into the refs
/// above. Partial globs for fleet's refs, so a remote that has none yet is no error.
pub fn fetch_refspecs(remote: &str) -> [String; 3] {
    [
        format!("+{BRANCHES}*:{}", tracking(remote, "*")),
        format!("+refs/fleet/lane*:{FLEET_REMOTES}{remote}/lane*"),
        format!("+refs/notes/flee*:{FLEET_REMOTES}{remote}/notes/flee*"),
    ]
}

/// Is `name` one of fleet's own refs? fleet writes them through gix only; a git command
/// changing one would be forging a receipt or losing a snapshot, so the guard refuses it.
/// The hook script's first filter (`hooks/guard.sh`, `refs/fleet/* | refs/notes/fleet`)
/// must let at least these through to fleet.
pub fn is_fleet_ref(name: &str) -> bool {
    name.starts_with(FLEET) || name == NOTES
}

/// The prefix of the task refs: one per task, `refs/fleet/tasks/<name>` (see
/// [`crate::tasks`]).
pub const TASKS: &str = "refs/fleet/tasks/";

/// The ref holding task `name`.
pub fn task(name: &str) -> String {
    format!("{TASKS}{name}")
}

/// Where the remote's task refs are kept here: the prefix of `refs/fleet/remotes/<remote>/tasks/<name>`.
pub fn remote_tasks(remote: &str) -> String {
    format!("{FLEET_REMOTES}{remote}/tasks/")
}

/// The refspec that fetches a remote's task refs into [`remote_tasks`].
pub fn tasks_fetch_refspec(remote: &str) -> String {
    format!("+{TASKS}*:{}*", remote_tasks(remote))
}

/// The prefix of the plan refs: one per plan, `refs/fleet/plans/<name>`, holding whether
/// the plan is open or closed (see [`crate::plans`]).
pub const PLANS: &str = "refs/fleet/plans/";

/// The ref holding plan `name`'s state.
pub fn plan(name: &str) -> String {
    format!("{PLANS}{name}")
}

/// Where the remote's plan refs are kept here: the prefix of `refs/fleet/remotes/<remote>/plans/<name>`.
pub fn remote_plans(remote: &str) -> String {
    format!("{FLEET_REMOTES}{remote}/plans/")
}

/// The refspec that fetches a remote's plan refs into [`remote_plans`].
pub fn plans_fetch_refspec(remote: &str) -> String {
    format!("+{PLANS}*:{}*", remote_plans(remote))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fleets_refs_are_fleets_and_no_others() {
        for ours in [
            LANES,
            NOTES,
            GATE_CACHE,
            "refs/fleet/snapshots/main/1",
            "refs/fleet/remotes/origin/lanes",
        ] {
            assert!(is_fleet_ref(ours), "{ours}");
        }
        for theirs in [
            "refs/heads/main",
            "refs/notes/commits",
            "refs/notes/fleet2",
            "refs/remotes/origin/main",
        ] {
            assert!(!is_fleet_ref(theirs), "{theirs}");
        }
    }

    #[test]
    fn names_are_built_as_git_spells_them() {
        assert_eq!(branch("fleet/a"), "refs/heads/fleet/a");
        assert_eq!(branch_name("refs/heads/fleet/a"), Some("fleet/a"));
        assert_eq!(branch_name("refs/tags/v1"), None);
        assert_eq!(tracking("origin", "main"), "refs/remotes/origin/main");
        assert_eq!(remote_lanes("origin"), "refs/fleet/remotes/origin/lanes");
        assert_eq!(
            remote_notes("origin"),
            "refs/fleet/remotes/origin/notes/fleet"
        );
        assert_eq!(remote_of("refs/fleet/remotes/up/lanes"), Some("up"));
        assert_eq!(remote_of(LANES), None);
        assert_eq!(
            fetch_refspecs("origin"),
            [
                "+refs/heads/*:refs/remotes/origin/*".to_string(),
                "+refs/fleet/lane*:refs/fleet/remotes/origin/lane*".to_string(),
                "+refs/notes/flee*:refs/fleet/remotes/origin/notes/flee*".to_string(),
            ]
        );
    }
}
