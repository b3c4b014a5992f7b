//! `fleet recover`: list the watchdog's snapshots of dirty shared checkouts, or turn
//! one into a branch.

use fleet::error::Result;
use fleet::guard::watchdog;

use super::CommandEnv;
use crate::cli::args::Output;
use crate::render;

/// List the watchdog's snapshots; turn one into a branch
#[derive(Debug, clap::Args)]
#[command(
    long_about = "List the watchdog's snapshots of dirty shared checkouts (outer and nested), or \
                  turn one into a branch, e.g. to get back edits a `git reset --hard` in the shared \
                  checkout destroyed.",
    after_long_help = "Examples:\n  fleet recover --list\n  fleet recover 1796000000-1a2b3c4d --branch recovered/my-edits\n  git diff main recovered/my-edits"
)]
pub struct Args {
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
}

pub fn run(env: &CommandEnv, args: Args) -> Result<u8> {
    let json = args.out.json;
    let ctx = env.context()?;
    if let (Some(id), Some(branch)) = (args.id.as_deref(), args.branch.as_deref()) {
        let (checkout, commit) = watchdog::recover(&ctx, id, branch)?;
        if json {
            render::json(&serde_json::json!({
                "id": id, "branch": branch, "commit": commit.to_string(), "repo": checkout,
            }));
        } else {
            render::ok(&format!(
                "branch {branch} now holds snapshot {id} (in {}); `git diff {branch}~1 {branch}` shows what it saved",
                checkout.display()
            ));
        }
        return Ok(0);
    }
    let snapshots = watchdog::list_snapshots(&ctx)?;
    if json {
        render::json(&snapshots);
        return Ok(0);
    }
    if snapshots.is_empty() {
        render::note("no snapshots (the watchdog writes one when a shared checkout is dirty)");
    }
    for s in &snapshots {
        render::answer(&format!(
            "{}  {:<10} {} file(s) changed  repo {}",
            s.id,
            render::age(s.time),
            s.files,
            s.repo.display()
        ));
    }
    Ok(0)
}
