//! Merges in memory and the history questions landing asks: merge bases, commits one
//! side has and the other lacks, ahead/behind, and "are this branch's changes already
//! in the target" (squash and rebase landings included).

use gix::bstr::ByteSlice;

use super::{ObjectId, Repo};
use crate::error::{Context, Result};

/// A three-way merge's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// The merged tree (written to the object database when asked to).
    Clean(ObjectId),
    /// Paths that conflict.
    Conflicts(Vec<String>),
}

impl Repo {
    /// Number of commits reachable from `tip` but not from `hide` (`git rev-list --count hide..tip`).
    pub fn count_exclusive(&self, tip: ObjectId, hide: ObjectId) -> Result<usize> {
        if tip == hide {
            return Ok(0);
        }
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden([hide])
            .all()
            .context(|| format!("cannot walk history from {tip}"))?;
        let mut n = 0;
        for info in walk {
            info.context(|| format!("cannot walk history from {tip}"))?;
            n += 1;
        }
        Ok(n)
    }

    /// The commits reachable from `tip` but not from `hide` (git's `hide..tip`).
    pub fn exclusive_commits(
        &self,
        tip: ObjectId,
        hide: ObjectId,
    ) -> Result<std::collections::HashSet<ObjectId>> {
        self.reachable_only_from(tip, &[hide])
    }

    /// The commits reachable from `tip` and from none of `hide` (git's
    /// `tip --not hide...`), in one walk: empty when one of them contains `tip`.
    pub fn reachable_only_from(
        &self,
        tip: ObjectId,
        hide: &[ObjectId],
    ) -> Result<std::collections::HashSet<ObjectId>> {
        let what = || format!("cannot walk the history of {tip}");
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden(hide.iter().copied())
            .all()
            .context(what)?;
        let mut out = std::collections::HashSet::new();
        for info in walk {
            out.insert(info.context(what)?.id);
        }
        Ok(out)
    }

    /// (ahead, behind) of `tip` relative to `base`.
    pub fn ahead_behind(&self, tip: ObjectId, base: ObjectId) -> Result<(usize, usize)> {
        Ok((
            self.count_exclusive(tip, base)?,
            self.count_exclusive(base, tip)?,
        ))
    }

    /// Are all the changes of `branch` already in `target`? True when every path the
    /// branch changed (since its merge base with `target`) holds exactly the branch's
    /// version in `target`. This counts squash, rebase and cherry-pick landings, which
    /// ancestry alone would miss, and uses no merge drivers or attributes, so it never
    /// calls work landed that a merge would have dropped. It can answer "no" for a
    /// landed branch whose files the target changed again later: the safe direction.
    pub fn changes_already_in(&self, branch: ObjectId, target: ObjectId) -> Result<bool> {
        if self.count_exclusive(branch, target)? == 0 {
            return Ok(true);
        }
        let Ok(Some(base)) = self.inner.merge_base(branch, target) else {
            // Unrelated histories: nothing of the branch can be in the target.
            return Ok(false);
        };
        let base = Some(TreeSide::Tree(self.tree_of(base.detach())?));
        let branch = Some(TreeSide::Tree(self.tree_of(branch)?));
        let target = Some(TreeSide::Tree(self.tree_of(target)?));
        self.branch_side_in_target(base, branch, target)
    }

    /// One path, three sides: unchanged by the branch, or the branch's version is in the
    /// target (recursing into folders the branch changed).
    fn branch_side_in_target(
        &self,
        base: Option<TreeSide>,
        branch: Option<TreeSide>,
        target: Option<TreeSide>,
    ) -> Result<bool> {
        if base == branch || branch == target {
            return Ok(true);
        }
        let Some(TreeSide::Tree(branch_tree)) = branch else {
            return Ok(false);
        };
        let base_children = match base {
            Some(TreeSide::Tree(id)) => self.tree_children(id)?,
            _ => Default::default(),
        };
        let target_children = match target {
            Some(TreeSide::Tree(id)) => self.tree_children(id)?,
            _ => Default::default(),
        };
        let branch_children = self.tree_children(branch_tree)?;
        let names: std::collections::BTreeSet<&Vec<u8>> =
            base_children.keys().chain(branch_children.keys()).collect();
        for name in names {
            let side = |map: &std::collections::BTreeMap<Vec<u8>, TreeSide>| map.get(name).copied();
            if !self.branch_side_in_target(
                side(&base_children),
                side(&branch_children),
                side(&target_children),
            )? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn tree_children(
        &self,
        tree: ObjectId,
    ) -> Result<std::collections::BTreeMap<Vec<u8>, TreeSide>> {
        let tree = self
            .inner
            .find_tree(tree)
            .context(|| format!("cannot read tree {tree}"))?;
        let decoded = tree
            .decode()
            .context(|| "cannot decode a tree".to_string())?;
        Ok(decoded
            .entries
            .iter()
            .map(|e| {
                let side = if e.mode.is_tree() {
                    TreeSide::Tree(e.oid.to_owned())
                } else {
                    TreeSide::Leaf(e.mode.value(), e.oid.to_owned())
                };
                (e.filename.to_vec(), side)
            })
            .collect())
    }
    /// The best common ancestor of two commits, `None` for unrelated histories.
    pub fn merge_base(&self, a: ObjectId, b: ObjectId) -> Result<Option<ObjectId>> {
        match self.inner.merge_base(a, b) {
            Ok(id) => Ok(id.map(|id| id.detach())),
            Err(_) => Ok(None),
        }
    }

    /// Every best common ancestor of `a` and `b` (more than one after criss-cross
    /// merges; none for unrelated histories).
    pub fn merge_bases(&self, a: ObjectId, b: ObjectId) -> Result<Vec<ObjectId>> {
        let bases = self
            .inner
            .merge_bases_many(a, &[b])
            .context(|| format!("cannot find the merge bases of {a} and {b}"))?;
        Ok(bases.into_iter().map(|id| id.detach()).collect())
    }

    /// Commits reachable from `tip` but not from `base`, oldest first.
    pub fn commits_between(&self, base: ObjectId, tip: ObjectId) -> Result<Vec<ObjectId>> {
        let what = || format!("cannot walk {base}..{tip}");
        let walk = self
            .inner
            .rev_walk([tip])
            .with_hidden([base])
            .sorting(gix::revision::walk::Sorting::BreadthFirst)
            .all()
            .context(what)?;
        let mut ids = Vec::new();
        for info in walk {
            ids.push(info.context(what)?.id);
        }
        // Parents before children: reverse a topological (children-first) order.
        let mut order = topo_sort_children_first(self, &ids)?;
        order.reverse();
        Ok(order)
    }

    /// Merge `theirs` into `ours` using `base` as the ancestor, all trees, in memory.
    /// With `write`, the result tree is stored; otherwise nothing is written.
    pub fn merge_trees(
        &self,
        base: ObjectId,
        ours: ObjectId,
        theirs: ObjectId,
        write: bool,
    ) -> Result<Merged> {
        let repo = self.merge_repo(write);
        let what = || "cannot merge in memory".to_string();
        let options = repo.tree_merge_options().context(what)?;
        let mut outcome = repo
            .merge_trees(base, ours, theirs, labels(), options)
            .context(what)?;
        finish_merge(&mut outcome)
    }

    /// The repository a merge runs in: the real one when its result is kept, otherwise
    /// one whose writes stay in memory.
    fn merge_repo(&self, write: bool) -> gix::Repository {
        if write {
            self.inner.clone()
        } else {
            self.inner.clone().with_object_memory()
        }
    }

    /// Merge commit `theirs` into commit `ours` (merge base found automatically).
    pub fn merge_commits(&self, ours: ObjectId, theirs: ObjectId, write: bool) -> Result<Merged> {
        let repo = self.merge_repo(write);
        let what = || "cannot merge in memory".to_string();
        let options = repo.tree_merge_options().context(what)?;
        let mut outcome = repo
            .merge_commits(ours, theirs, labels(), options.into())
            .context(what)?;
        finish_merge(&mut outcome.tree_merge)
    }
}

fn labels() -> gix::merge::blob::builtin_driver::text::Labels<'static> {
    gix::merge::blob::builtin_driver::text::Labels {
        ancestor: Some("base".into()),
        current: Some("target".into()),
        other: Some("lane".into()),
    }
}

fn finish_merge(outcome: &mut gix::merge::tree::Outcome<'_>) -> Result<Merged> {
    let how = gix::merge::tree::TreatAsUnresolved::git();
    if outcome.has_unresolved_conflicts(how) {
        let mut paths: Vec<String> = outcome
            .conflicts
            .iter()
            .filter(|c| c.is_unresolved(how))
            .map(|c| c.ours.location().to_str_lossy().into_owned())
            .collect();
        paths.sort();
        paths.dedup();
        return Ok(Merged::Conflicts(paths));
    }
    let tree = outcome
        .tree
        .write()
        .context(|| "cannot write the merged tree".to_string())?;
    Ok(Merged::Clean(tree.detach()))
}

/// Order `ids` so every commit comes before its parents (within the set).
fn topo_sort_children_first(repo: &Repo, ids: &[ObjectId]) -> Result<Vec<ObjectId>> {
    use std::collections::{HashMap, HashSet};
    let set: HashSet<ObjectId> = ids.iter().copied().collect();
    let mut parents: HashMap<ObjectId, Vec<ObjectId>> = HashMap::new();
    for id in ids {
        let info = repo.commit_info(*id)?;
        parents.insert(
            *id,
            info.parents
                .into_iter()
                .filter(|p| set.contains(p))
                .collect(),
        );
    }
    // Depth-first post-order over parents gives parents before children; reverse it.
    let mut visited = HashSet::new();
    let mut post = Vec::new();
    for id in ids {
        let mut stack = vec![(*id, false)];
        while let Some((node, expanded)) = stack.pop() {
            if expanded {
                post.push(node);
                continue;
            }
            if !visited.insert(node) {
                continue;
            }
            stack.push((node, true));
            for p in &parents[&node] {
                if !visited.contains(p) {
                    stack.push((*p, false));
                }
            }
        }
    }
    post.reverse();
    Ok(post)
}
/// One side of a path in a three-way tree comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TreeSide {
    Tree(ObjectId),
    Leaf(u16, ObjectId),
}
