//! Conflicts between ready lanes, predicted before either lands: `fleet status` says
//! "lane B conflicts after lane A" when B would conflict with the target once A (ahead
//! of it in the queue) has landed, which the prediction against today's target cannot
//! see.
//!
//! Kept cheap: each ready lane's changed paths since its merge base with the target
//! (one tree diff each) find the pairs that touch a common path (the same path, or a
//! file where the other needs a folder); only those pairs are merged, in memory, with
//! each other. Merging the two lanes with each other (their common history as the
//! base) gives the answer landing one after the other would, when both apply cleanly
//! to the target: the target's own changes meet neither. Lanes that conflict with the
//! target already are left out; that conflict is what they must fix first.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::error::Result;
use crate::git::{Merged, ObjectId, Repo};

/// A lane this one would conflict with if that one landed first, and on which files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaneConflict {
    pub lane: String,
    pub files: Vec<String>,
}

/// For each lane of `ready` (branch and tip, in landing order, each applying cleanly to
/// `target`), the lanes before it that it would conflict with once they landed. A lane
/// with none is absent from the map.
pub fn predict(
    repo: &Repo,
    target: ObjectId,
    ready: &[(String, ObjectId)],
) -> Result<HashMap<String, Vec<LaneConflict>>> {
    let touched = ready
        .iter()
        .map(|(_, tip)| Touched::of(repo, *tip, target))
        .collect::<Result<Vec<_>>>()?;
    let mut out: HashMap<String, Vec<LaneConflict>> = HashMap::new();
    for (later, (branch, tip)) in ready.iter().enumerate() {
        for earlier in 0..later {
            if !touched[later].meets(&touched[earlier]) {
                continue;
            }
            let (first, first_tip) = &ready[earlier];
            // A prediction only: a merge gix cannot do in memory (a name it will not
            // write) predicts nothing, and `fleet land` names the real cause.
            if let Ok(Merged::Conflicts(files)) = repo.merge_commits(*first_tip, *tip, false) {
                out.entry(branch.clone()).or_default().push(LaneConflict {
                    lane: first.clone(),
                    files,
                });
            }
        }
    }
    Ok(out)
}

/// The paths a lane changed since its merge base with the target, and the folders
/// holding them.
struct Touched {
    paths: BTreeSet<String>,
    folders: BTreeSet<String>,
}

impl Touched {
    fn of(repo: &Repo, tip: ObjectId, target: ObjectId) -> Result<Touched> {
        let mut touched = Touched {
            paths: BTreeSet::new(),
            folders: BTreeSet::new(),
        };
        let Some(base) = repo.merge_base(tip, target)? else {
            return Ok(touched);
        };
        for change in repo.changed_paths(repo.tree_of(base)?, repo.tree_of(tip)?)? {
            touched.add(change.path);
        }
        Ok(touched)
    }

    fn add(&mut self, path: String) {
        self.folders
            .extend(path.match_indices('/').map(|(i, _)| path[..i].to_string()));
        self.paths.insert(path);
    }

    /// The two lanes change a common path, or one changes a file where the other
    /// changes something inside a folder of that name.
    fn meets(&self, other: &Touched) -> bool {
        self.paths
            .iter()
            .any(|p| other.paths.contains(p) || other.folders.contains(p))
            || other.paths.iter().any(|p| self.folders.contains(p))
    }
}

#[cfg(test)]
mod tests {
    use super::Touched;

    fn touched(paths: &[&str]) -> Touched {
        let mut t = Touched {
            paths: Default::default(),
            folders: Default::default(),
        };
        for p in paths {
            t.add(p.to_string());
        }
        t
    }

    #[test]
    fn lanes_meet_on_a_common_path_or_a_file_where_the_other_has_a_folder() {
        let a = touched(&["src/a.rs", "docs"]);
        assert!(a.meets(&touched(&["src/a.rs"])));
        assert!(
            a.meets(&touched(&["docs/intro.md"])),
            "a file where a folder goes"
        );
        assert!(touched(&["docs/intro.md"]).meets(&a), "either way round");
        assert!(!a.meets(&touched(&["src/b.rs", "README"])));
        assert!(touched(&["src/a.rs"]).meets(&touched(&["src"])));
    }
}
