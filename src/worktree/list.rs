//! `worktree list`: every agent worktree with its branch, lead over the target (or
//! that its lane landed, by status's rule) and dirtiness, nested members included.

use std::path::PathBuf;

use serde::Serialize;

use super::same_path;
use crate::context::Context;
use crate::error::Result;
use crate::git::{self, ObjectId, Repo};
use crate::lanes::LaneState;
use crate::lanes::landed::has_landed;

#[derive(Debug, Serialize)]
pub struct Listed {
    pub name: String,
    pub path: PathBuf,
    /// `path` again, under the key `status` and `preflight` give a lane's worktree.
    pub worktree: PathBuf,
    pub branch: Option<String>,
    pub head: Option<String>,
    /// Commits on the branch that the target does not have, and the reverse.
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    pub dirty: Option<bool>,
    /// Unix time of the last commit.
    pub last_commit: Option<i64>,
    pub missing: bool,
    /// Its branch is a lane that has landed, as `fleet status` says: ahead/behind no
    /// longer count unlanded work.
    pub landed: bool,
    pub nested: Vec<ListedNested>,
}

#[derive(Debug, Serialize)]
pub struct ListedNested {
    pub rel: PathBuf,
    pub path: PathBuf,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub ahead: Option<usize>,
    pub behind: Option<usize>,
    pub dirty: Option<bool>,
    pub last_commit: Option<i64>,
    /// The folder is gone: `fleet worktree prune` would drop the record.
    pub missing: bool,
    /// The outer lane landed and this part's changes are in its repository's target
    /// (or it has none of its own).
    pub landed: bool,
}

pub fn list(ctx: &Context) -> Result<Vec<Listed>> {
    let root = ctx.worktree_root();
    let root_canon = root.canonicalize().unwrap_or(root.clone());
    let target_tip = ctx.repo.branch_tip(ctx.target())?;
    let (nested, _) = ctx.discover_nested(&root);
    let (registry, _) = crate::queue::Queue::configured(ctx).load(ctx)?;
    let mut out = Vec::new();
    for wt in ctx.repo.worktrees()? {
        if wt.is_main {
            continue;
        }
        let parent = wt
            .path
            .parent()
            .map(|p| p.canonicalize().unwrap_or(p.to_path_buf()));
        if parent.as_deref() != Some(root_canon.as_path()) {
            continue;
        }
        let name = wt
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let outer = facts(&ctx.repo, &wt, target_tip);
        // Landed as status says, and for this head: commits made since the landing are
        // work the target does not have, whatever the registry recorded.
        let landed = match (wt.branch.as_deref().and_then(|b| registry.get(b)), wt.head) {
            (Some(lane), Some(head)) => target_tip.is_some_and(|target| {
                crate::status::effective_state(&ctx.repo, lane, head, target)
                    .is_ok_and(|s| s == LaneState::Landed)
                    && outer.ahead.is_some_and(|ahead| {
                        has_landed(&ctx.repo, lane, head, target, ahead).unwrap_or(false)
                    })
            }),
            _ => false,
        };
        let mut nested_list = Vec::new();
        for n in &nested {
            let shared = ctx.shared.join(&n.rel);
            let Ok(nrepo) = Repo::open(&shared) else {
                continue;
            };
            let path = wt.path.join(&n.rel);
            let Some(nwt) = nrepo
                .worktrees()?
                .into_iter()
                .find(|w| !w.is_main && same_path(&w.path, &path))
            else {
                continue;
            };
            let ntarget = nrepo.head_id().ok().flatten();
            let f = facts(&nrepo, &nwt, ntarget);
            let part_landed = landed
                && match (nwt.head, ntarget, f.ahead) {
                    (_, _, Some(0)) => true,
                    (Some(head), Some(target), _) => {
                        crate::lanes::landed::changes_in(&nrepo, head, target).unwrap_or(false)
                    }
                    _ => false,
                };
            nested_list.push(ListedNested {
                rel: n.rel.clone(),
                path,
                branch: nwt.branch.clone(),
                head: nwt.head.map(|h| h.to_string()),
                ahead: f.ahead,
                behind: f.behind,
                dirty: f.dirty,
                last_commit: f.last_commit,
                missing: nwt.missing,
                landed: part_landed,
            });
        }
        out.push(Listed {
            name,
            path: wt.path.clone(),
            worktree: wt.path.clone(),
            branch: wt.branch.clone(),
            head: wt.head.map(|h| h.to_string()),
            ahead: outer.ahead,
            behind: outer.behind,
            dirty: outer.dirty,
            last_commit: outer.last_commit,
            missing: wt.missing,
            landed,
            nested: nested_list,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

struct Facts {
    ahead: Option<usize>,
    behind: Option<usize>,
    dirty: Option<bool>,
    last_commit: Option<i64>,
}

fn facts(repo: &Repo, wt: &git::WorktreeInfo, target: Option<ObjectId>) -> Facts {
    let (ahead, behind) = match (wt.head, target) {
        (Some(h), Some(t)) => match repo.ahead_behind(h, t) {
            Ok((a, b)) => (Some(a), Some(b)),
            Err(_) => (None, None),
        },
        _ => (None, None),
    };
    let dirty = if wt.missing {
        None
    } else {
        Repo::open(&wt.path).and_then(|r| r.is_dirty()).ok()
    };
    let last_commit = wt.head.and_then(|h| repo.commit_time(h).ok());
    Facts {
        ahead,
        behind,
        dirty,
        last_commit,
    }
}
