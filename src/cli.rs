//! Command-line definitions (clap derive). Parsing only: the work happens in the
//! library modules, reached through [`crate::commands`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "fleet",
    version,
    about = "Git-native worktrees, landing and merge gate for teams of coding agents",
    long_about = "fleet gives each agent its own git worktree and branch (nested repositories \
                  included), keeps the shared checkout out of reach, and lands finished work \
                  through a test gate.",
    after_long_help = "Examples:\n  fleet init\n  cd \"$(fleet worktree new task-42)\"\n  fleet preflight\n  fleet worktree list\n\nExit codes: 0 ok, 1 refused or check failed, 2 usage or configuration error, 3 environment problem."
)]
pub struct Cli {
    /// Run as if started in DIR
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write fleet.toml if absent and record this checkout as the shared one
    #[command(
        after_long_help = "Examples:\n  fleet init\n  fleet init --print   # show the file it would write, change nothing"
    )]
    Init {
        /// Print the fleet.toml template instead of writing anything
        #[arg(long)]
        print: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Show the effective configuration
    #[command(
        long_about = "Show the effective configuration: fleet.toml from the shared checkout merged \
                      over the defaults, and which file it came from.",
        after_long_help = "Examples:\n  fleet config\n  fleet config --json | jq .lanes.target\n  fleet config --default"
    )]
    Config {
        /// Show the built-in defaults, ignoring fleet.toml
        #[arg(long)]
        default: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Agent worktrees: create, list, remove, prune
    #[command(
        subcommand,
        after_long_help = "Examples:\n  cd \"$(fleet worktree new task-42)\"\n  fleet worktree list\n  fleet worktree rm task-42\n  fleet worktree prune"
    )]
    Worktree(WorktreeCommand),
    /// Say which repo, worktree, branch and lane this is; fail when blind
    #[command(
        long_about = "Say exactly which repository, worktree, branch and lane this folder is. \
                      Exits 0 only inside an agent worktree (outer or nested) on its own lane \
                      branch; exits 1 in the shared checkout, on a detached HEAD, in a bare repo, \
                      outside any repo, when GIT_DIR/GIT_WORK_TREE point elsewhere, or whenever \
                      anything is ambiguous.",
        after_long_help = "Examples:\n  fleet preflight || exit 1\n  cd \"$(fleet preflight --agent task-42 --create)\"   # from the shared checkout\n  fleet preflight --json"
    )]
    Preflight {
        /// In the shared checkout: print this agent's worktree path
        #[arg(long, value_name = "NAME")]
        agent: Option<String>,
        /// With --agent: create the worktree when it does not exist
        #[arg(long, requires = "agent")]
        create: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Install, remove or inspect the guard hooks
    #[command(
        subcommand,
        long_about = "The guard hooks refuse commits, branch switches and resets in a shared \
                      checkout (outer or nested), and any move of a guarded branch from anywhere \
                      (`git update-ref`, `git branch -f`, `git push . HEAD:main`), --no-verify or \
                      not. They go into the hooks folder git actually uses (core.hooksPath \
                      honoured) of the outer repository and every nested one. A hook already \
                      there keeps running, first, with the same arguments and stdin.",
        after_long_help = "Examples:\n  fleet hooks install\n  fleet hooks status --json\n  fleet hooks uninstall   # puts back exactly what was there\n  FLEET_ALLOW_SHARED=1 git commit ...   # a human getting past the guard on purpose (logged)"
    )]
    Hooks(HooksCommand),
    /// Entry point the installed hook scripts call
    #[command(
        long_about = "Entry point the installed hook scripts call when they cannot decide alone: \
                      pre-commit, prepare-commit-msg, reference-transaction, post-checkout. \
                      Refusals and FLEET_ALLOW_SHARED uses are logged to <git common dir>/fleet/guard.log; \
                      checkouts of a shared checkout to <git common dir>/fleet/drift.log.",
        after_long_help = "Examples:\n  echo \"$old $new refs/heads/main\" | fleet hook reference-transaction prepared"
    )]
    Hook {
        /// The hook's name
        #[arg(value_name = "NAME")]
        name: String,
        /// The arguments git gave the hook
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<String>,
    },
    /// Find drifted shared checkouts, snapshot dirty ones, put them back without losing work
    #[command(
        long_about = "Check every shared checkout (outer and nested). A checkout is drifted when its \
                      HEAD is not its branch (another branch, or detached). A dirty checkout is \
                      snapshotted at every check (tracked, staged and untracked changes, not ignored \
                      files) as a commit under refs/fleet/snapshots/, only when it differs from the \
                      last snapshot; snapshots older than [guard] snapshot_keep are pruned, and \
                      `fleet recover` turns one into a branch. With --restore, a drift older than \
                      the grace period is put back: uncommitted changes are first saved on a rescue \
                      branch (<prefix>rescue/<time>), then the files move with a two-tree merge that \
                      carries local changes, then HEAD. A rebase, merge, cherry-pick, bisect or \
                      index.lock in progress is left alone. Never uses git stash, never resets. \
                      Exits 1 when a checkout is drifted, busy or stuck.",
        after_long_help = "Examples:\n  fleet watchdog --once                       # cron / systemd timer\n  fleet watchdog --once --restore --grace 5m\n  fleet watchdog --interval 1m --restore      # loop until Ctrl-C\n  fleet watchdog --once --json                # one JSON line per checkout"
    )]
    Watchdog {
        /// Check once and exit (for cron and systemd timers)
        #[arg(long, conflicts_with = "interval")]
        once: bool,
        /// Time between checks when looping
        #[arg(long, value_name = "DUR", value_parser = duration, default_value = "1m")]
        interval: std::time::Duration,
        /// Put drifted checkouts back once the grace period has passed
        #[arg(long)]
        restore: bool,
        /// How long a drift may last before --restore acts
        #[arg(long, value_name = "DUR", value_parser = duration, default_value = "5m")]
        grace: std::time::Duration,
        /// One JSON line per checkout and check
        #[arg(long)]
        json: bool,
    },
    /// List the watchdog's snapshots; turn one into a branch
    #[command(
        long_about = "List the watchdog's snapshots of dirty shared checkouts (outer and nested), or \
                      turn one into a branch, e.g. to get back edits a `git reset --hard` in the shared \
                      checkout destroyed.",
        after_long_help = "Examples:\n  fleet recover --list\n  fleet recover 1796000000-1a2b3c4d --branch recovered/my-edits\n  git diff main recovered/my-edits"
    )]
    Recover {
        /// List the snapshots (the default without ID)
        #[arg(long)]
        list: bool,
        /// The snapshot to recover, as `--list` shows it
        #[arg(value_name = "ID", requires = "branch", conflicts_with = "list")]
        id: Option<String>,
        /// The branch to create at the snapshot
        #[arg(long, value_name = "NAME", requires = "id")]
        branch: Option<String>,
        #[command(flatten)]
        out: Output,
    },
    /// Health checks: guard fires, hooks wired, stale locks, stale daemons, orphans
    #[command(
        long_about = "Report-only health checks, each with a name, a verdict and the fix: guard hooks \
                      installed in every repository; the guard actually fires (a real probe commit in \
                      the shared checkout must be refused; should it pass, it is undone); the hook \
                      scripts name an existing fleet binary; relative core.hooksPath and symlinked-path \
                      traps; stale lock files no process holds; prunable worktrees; lanes whose branches \
                      are gone, and idle claimed lanes; a looping `fleet watchdog` older than its \
                      binary. Exits 1 when any check fails.",
        after_long_help = "Examples:\n  fleet doctor\n  fleet doctor --json | jq '.[] | select(.verdict == \"fail\")'"
    )]
    Doctor {
        #[command(flatten)]
        out: Output,
    },
    /// The spawn lint: agent CLIs started without a process group of their own
    #[command(
        long_about = "Find code that starts an agent CLI (claude, codex, gemini, aider, ...) without a \
                      process group or session of its own, so that killing it on timeout leaves its \
                      helpers running (rule agent-spawn-without-group). Rust (syn), Python, \
                      JavaScript/TypeScript and shell (tree-sitter) are parsed, not grepped. By \
                      default every tracked file is read from the working tree; --diff REV reports \
                      only findings on lines added since REV (read from git objects; REV may be a \
                      range A..B), --staged only those on staged lines. A finding is silenced by \
                      `fleet: allow(agent-spawn-without-group) <reason>` on its line or the one \
                      above; a suppression without a reason is a finding itself. Exits 1 on \
                      findings, 0 when clean, 2 on a usage error.",
        after_long_help = "Examples:\n  fleet lint\n  fleet lint src/agents/ tools/run.sh\n  fleet lint --diff origin/main --format sarif > lint.sarif\n  fleet lint --staged          # in a pre-commit hook\n  fleet lint --diff main..HEAD --json"
    )]
    Lint {
        /// Files or folders to lint (default: every tracked file)
        #[arg(value_name = "PATH", conflicts_with_all = ["diff", "staged"])]
        paths: Vec<PathBuf>,
        /// Only findings on lines added since REV (or in the range A..B)
        #[arg(long, value_name = "REV", conflicts_with = "staged")]
        diff: Option<String>,
        /// Only findings on staged lines
        #[arg(long)]
        staged: bool,
        /// Output format
        #[arg(long, value_enum, default_value = "text")]
        format: LintFormat,
        /// Same as --format json
        #[arg(long)]
        json: bool,
    },
    /// The CI merge-gate step: lint new code, protected paths, gate commands
    #[command(
        long_about = "The one step a CI merge-gate job runs on a candidate (a merge-queue group, a \
                      merge request pipeline, a lane), in its checkout: the spawn lint over the lines \
                      added since the base; protected paths and forbidden markers (refused unless \
                      --allow-protected, e.g. when a reviewer approved); then the gate commands, each \
                      in its own process group with the gate's timeout. Every rule comes from the \
                      base's fleet.toml, never the candidate's. One summary; exit 1 when anything \
                      fails. The default base is where HEAD left the [lanes] target branch.",
        after_long_help = "Examples:\n  fleet gate --base origin/main\n  fleet gate --base \"$GITHUB_BASE_REF\" --junit gate.xml\n  fleet gate --base origin/main --allow-protected   # a reviewer approved the .ci change\n  fleet gate --json"
    )]
    Gate {
        /// The commit the candidate is tested against (default: merge base with the target)
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Approve changes to [gate] protected paths
        #[arg(long)]
        allow_protected: bool,
        /// Also write the result as JUnit XML
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        #[command(flatten)]
        out: Output,
    },
    /// Register worker branches as lanes
    #[command(
        long_about = "Register branches as lanes, in this order. Refuses unknown branches, the target \
                      itself and lanes already tracked; all or none are tracked. An agent name stands \
                      for its branch (`task-a` for `fleet/task-a`).",
        after_long_help = "Examples:\n  fleet track fleet/task-a fleet/task-b\n  fleet track --ready feat/login\n  fleet track --remote origin --ready fleet/task-a   # pushes the branch if origin lacks it"
    )]
    Track {
        /// Mark them ready to land at once
        #[arg(long)]
        ready: bool,
        /// Branches to track (an agent name stands for its branch `<prefix>NAME`)
        #[arg(required = true, value_name = "BRANCH")]
        branches: Vec<String>,
        #[command(flatten)]
        queue: Queue,
        #[command(flatten)]
        out: Output,
    },
    /// Forget lanes (their branches stay)
    #[command(after_long_help = "Examples:\n  fleet untrack fleet/task-a")]
    Untrack {
        /// Lanes to stop tracking (their branches are kept)
        #[arg(required = true, value_name = "LANE")]
        lanes: Vec<String>,
        #[command(flatten)]
        queue: Queue,
        #[command(flatten)]
        out: Output,
    },
    /// Mark lanes ready to land (default: the lane of this worktree)
    #[command(
        long_about = "Mark lanes ready to land; with no LANE, the lane of the current worktree. \
                      A worker may attach its own test run: the exit code decides (non-zero leaves \
                      the lane running and exits 1), the log is kept for `fleet status`.",
        after_long_help = "Examples:\n  fleet ready\n  cargo test > test.log 2>&1; fleet ready --exit-code $? --log test.log\n  fleet ready fleet/task-a fleet/task-b"
    )]
    Ready {
        /// Lanes to mark ready (default: the lane of the current agent worktree)
        #[arg(value_name = "LANE")]
        lanes: Vec<String>,
        /// Exit code of the worker's own test run
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        exit_code: Option<i32>,
        /// Log of the worker's own test run
        #[arg(long, value_name = "FILE", requires = "exit_code")]
        log: Option<PathBuf>,
        #[command(flatten)]
        queue: Queue,
        #[command(flatten)]
        out: Output,
    },
    /// Lanes with state, ahead/behind, predicted conflicts and last gate result
    #[command(
        after_long_help = "Examples:\n  fleet status\n  fleet status --remote origin\n  fleet status --json | jq '.[] | select(.state == \"failed\") | .gate.log'"
    )]
    Status {
        #[command(flatten)]
        queue: Queue,
        #[command(flatten)]
        out: Output,
    },
    /// Land lanes one at a time through the gate
    #[command(
        long_about = "Land lanes one at a time, in the order given (--all: the ready lanes in tracking \
                      order), each on the target as it is after the ones before. For each: read the \
                      target commit and its fleet.toml, build the candidate in memory (rebase, merge or \
                      squash), refuse protected paths and forbidden markers, run the gate commands on \
                      the candidate's exact tree in a private worktree, then move the target to the \
                      candidate by compare-and-swap and write a receipt (git note on refs/notes/fleet). \
                      The shared checkout and the lanes' worktrees are never switched. Asks before \
                      landing unless --yes; with no terminal, --yes is required.\n\n\
                      A tree is never gated twice: results are cached by (tree, gate commands, the \
                      values of the variables [gate] env names) on refs/fleet/gate-cache, red ones too; \
                      --no-cache runs the gate regardless.\n\n\
                      --batch stacks the lanes (each on the one before, each keeping its own commits \
                      and receipt) and gates the top once. Green lands them all in one move of the \
                      target. Red bisects by prefixes: green prefixes land as they are found, the first \
                      lane whose prefix is red is marked failed, and the lanes after it are stacked \
                      again. With --json, --batch prints {\"lanes\": [...], \"gate_runs\": N}.\n\n\
                      --remote NAME (or [lanes] remote) lands onto the remote's target: fetch its \
                      target, lanes and receipts, build and gate here, then publish with one atomic \
                      push that applies only if the remote target is still the commit the candidate \
                      was built on (--force-with-lease per ref), together with the lane registry and \
                      the receipts. A lost race fetches again, rebuilds on the new target and gates \
                      again. The local target follows when that is a fast-forward.",
        after_long_help = "Examples:\n  fleet land fleet/task-a\n  fleet land --all --yes          # CI\n  fleet land --all --dry-run\n  fleet land --all --batch --max 8 --yes\n  fleet land --remote origin --all --yes   # many machines, one queue\n  fleet land feat/ci-change --allow-protected"
    )]
    Land {
        /// Lanes to land, in this order (or --all)
        #[arg(value_name = "LANE")]
        lanes: Vec<String>,
        /// Every ready lane, in tracking order
        #[arg(long)]
        all: bool,
        /// With --all: take running lanes too
        #[arg(long, requires = "all")]
        include_running: bool,
        /// Do not ask before landing
        #[arg(long, short = 'y')]
        yes: bool,
        /// Build and check candidates; run no gate, move nothing
        #[arg(long)]
        dry_run: bool,
        /// Let lanes touch [gate] protected paths
        #[arg(long)]
        allow_protected: bool,
        /// Stack the lanes into one candidate and gate it once; on red, bisect by
        /// prefixes, land the green ones and mark the culprit failed
        #[arg(long)]
        batch: bool,
        /// With --batch: at most N lanes per batch
        #[arg(long, value_name = "N", requires = "batch", value_parser = clap::value_parser!(u32).range(1..))]
        max: Option<u32>,
        /// Run the gate even when an identical tree was gated before
        #[arg(long)]
        no_cache: bool,
        #[command(flatten)]
        queue: Queue,
        #[command(flatten)]
        out: Output,
    },
    /// Undo a landed lane through the gate, like any lane
    #[command(
        long_about = "Undo a landed lane: build a commit that reverses exactly what it landed (from its \
                      receipt), on the current target, track it as the lane `revert/LANE`, and land it \
                      through the same gate and compare-and-swap as any lane.",
        after_long_help = "Examples:\n  fleet revert fleet/task-a\n  fleet revert task-a --yes"
    )]
    Revert {
        /// The landed lane to undo
        #[arg(value_name = "LANE")]
        lane: String,
        /// Do not ask before landing the revert
        #[arg(long, short = 'y')]
        yes: bool,
        /// Build and check the revert; move nothing
        #[arg(long)]
        dry_run: bool,
        /// Let the revert touch [gate] protected paths
        #[arg(long)]
        allow_protected: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Check that every move of the target has a green receipt for its exact tree
    #[command(
        long_about = "Walk the target branch's first-parent history and check that every commit the \
                      target moved to has a receipt (a note on refs/notes/fleet, written by `fleet \
                      land`) that is green, was tested on that commit's exact tree, and names a \
                      first-parent ancestor as where the target moved from. The walk jumps from \
                      each verified commit to that ancestor, so the commits of a rebased lane in \
                      between are not target positions and are not checked. Commits that fail are \
                      listed with the reason. The default range is the target since fleet was \
                      adopted (where the oldest receipt on the line starts); A..B checks B's line \
                      down to A, ..B and REV check that line since adoption, A.. the target down \
                      to A. Receipts travel with pushes: in a fresh clone, fetch refs/notes/fleet \
                      first. Exits 1 when any commit is not verified or there are no receipts, 2 \
                      on a bad revision.",
        after_long_help = "Examples:\n  fleet verify\n  fleet verify v1.2.0..main\n  fleet verify origin/main --json | jq -r '.unverified[] | \"\\(.id) \\(.reason)\"'\n  git fetch origin refs/notes/fleet:refs/notes/fleet && fleet verify   # in a fresh clone"
    )]
    Verify {
        /// Commits to check: A..B, ..B, A.. or REV
        #[arg(value_name = "REV-RANGE", value_parser = crate::verify::RevRange::parse)]
        range: Option<crate::verify::RevRange>,
        #[command(flatten)]
        queue: Queue,
        #[command(flatten)]
        out: Output,
    },
    /// Run a command in its own process group; the whole group dies with it
    #[command(
        long_about = "Run a command as the leader of a new process group. Ctrl-C, SIGTERM and SIGHUP are \
                      forwarded to the group. On timeout, and also after the command exits (cleanly or \
                      not), every process left in the group gets SIGTERM, then SIGKILL after the grace \
                      period, so helpers it started die with it. Exits with the command's code, 124 on \
                      timeout, 128+N when killed by signal N, 127 when the command is not found.",
        after_long_help = "Examples:\n  fleet run --timeout 30m -- claude -p \"fix the tests\"\n  fleet run --timeout 10s --grace 1s -- ./flaky-server.sh\n  fleet run --json -- make test"
    )]
    Run {
        /// Kill the group after this long (e.g. 90s, 30m)
        #[arg(long, value_name = "DUR", value_parser = duration)]
        timeout: Option<std::time::Duration>,
        /// Time between SIGTERM and SIGKILL
        #[arg(long, value_name = "DUR", value_parser = duration, default_value = "2s")]
        grace: std::time::Duration,
        #[command(flatten)]
        out: Output,
        /// The command and its arguments
        #[arg(
            required = true,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "CMD"
        )]
        command: Vec<String>,
    },
}

/// Parse `30s`, `5m`, `1h 30m` (for clap: a bad value is a usage error, exit 2).
fn duration(text: &str) -> Result<std::time::Duration, String> {
    crate::config::parse_duration(text)
}

#[derive(Debug, Subcommand)]
pub enum WorktreeCommand {
    /// Create an agent worktree on branch <prefix>NAME, nested repos included
    #[command(
        long_about = "Create branch <prefix>NAME at the base and a linked worktree at <root>/NAME. \
                      Every nested repository gets its own linked worktree at the same relative \
                      path, on the same branch name, based on its own current branch; submodules \
                      are populated from the shared checkout's objects, without the network. \
                      stdout is the worktree path only. Running it again for a consistent \
                      worktree prints the path and succeeds.",
        after_long_help = "Examples:\n  cd \"$(fleet worktree new task-42)\"\n  fleet worktree new hotfix --base v1.2.0 --force-base"
    )]
    New {
        /// Agent name: one branch-name component
        name: String,
        /// Start from this revision instead of the target branch (resolved where you are:
        /// in an agent worktree, HEAD is that worktree's)
        #[arg(long, value_name = "REV")]
        base: Option<String>,
        /// Accept a base more than max_behind commits behind
        #[arg(long)]
        force_base: bool,
        #[command(flatten)]
        out: Output,
    },
    /// List agent worktrees with branch, ahead/behind, dirty state and nested worktrees
    #[command(
        after_long_help = "Examples:\n  fleet worktree list\n  fleet worktree list --json | jq '.[] | select(.dirty)'"
    )]
    List {
        #[command(flatten)]
        out: Output,
    },
    /// Remove an agent worktree and its nested worktrees, refusing to lose work
    #[command(
        long_about = "Remove the agent worktree and its nested worktrees. Refuses (exit 1, nothing \
                      removed) when any of them has uncommitted changes or commits not yet in the \
                      target (a squash- or rebase-landed branch counts as landed). With --force the \
                      uncommitted changes are deleted; unlanded branches are always kept, and so is \
                      any commit that would become unreachable (a detached HEAD's, a submodule \
                      clone's, or one in a repository made inside the worktree). A removal cut \
                      short by a crash is finished by running it again.",
        after_long_help = "Examples:\n  fleet worktree rm task-42\n  fleet worktree rm task-42 --force"
    )]
    Rm {
        /// Agent name, as given to `fleet worktree new`
        name: String,
        /// Delete uncommitted changes too (unlanded branches are kept)
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        out: Output,
    },
    /// Forget worktrees whose folders are gone, in every repo
    #[command(
        after_long_help = "Examples:\n  rm -rf ../.fleet-work/task-42 && fleet worktree prune"
    )]
    Prune {
        #[command(flatten)]
        out: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum HooksCommand {
    /// Install the guard hooks, chaining any hook already there
    #[command(after_long_help = "Examples:\n  fleet hooks install\n  fleet hooks install --json")]
    Install {
        #[command(flatten)]
        out: Output,
    },
    /// Remove the guard hooks, restoring exactly what was there before
    #[command(after_long_help = "Examples:\n  fleet hooks uninstall")]
    Uninstall {
        #[command(flatten)]
        out: Output,
    },
    /// Per repository: which hooks are installed, chained, stale or missing
    #[command(
        long_about = "Per repository and hooks folder: which guard hooks are installed, chained (a \
                      hook that was there before runs first), stale (written by another fleet \
                      version, or naming a fleet binary that is gone) or missing. Exits 1 unless \
                      every hook is installed or chained.",
        after_long_help = "Examples:\n  fleet hooks status\n  fleet hooks status --json | jq '.[].dirs[].hooks[] | select(.state != \"installed\")'"
    )]
    Status {
        #[command(flatten)]
        out: Output,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    Text,
    Json,
    Sarif,
}

/// Where the queue is.
#[derive(Debug, Args, Clone)]
pub struct Queue {
    /// Use the lanes, target and receipts of this git remote, shared by every machine
    /// that pushes to it (default: [lanes] remote in fleet.toml, else this repository)
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
}

#[derive(Debug, Args, Clone, Copy)]
pub struct Output {
    /// Print one JSON document on stdout
    #[arg(long)]
    pub json: bool,
}
