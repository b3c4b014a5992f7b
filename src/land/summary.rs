//! The diff stat shown before a person confirms a landing.

use crate::error::Result;
use crate::git::{ChangedPath, ObjectId, Repo};

/// A diff stat of what would land.
pub(crate) fn summary(repo: &Repo, changed: &[ChangedPath]) -> Result<String> {
    let mut out = String::new();
    for change in changed {
        let ChangedPath { path, old, new, .. } = change;
        if change.is_gitlink() {
            out.push_str(&format!(" S {path} (submodule)\n"));
            continue;
        }
        let text = |id: &Option<ObjectId>| -> Result<String> {
            Ok(match id {
                Some(id) => String::from_utf8_lossy(&repo.blob(*id)?).into_owned(),
                None => String::new(),
            })
        };
        let (a, b) = (text(old)?, text(new)?);
        let diff = similar::TextDiff::from_lines(&a, &b);
        let (mut plus, mut minus) = (0, 0);
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => plus += 1,
                similar::ChangeTag::Delete => minus += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        let kind = match (old, new) {
            (None, _) => "A",
            (_, None) => "D",
            _ => "M",
        };
        out.push_str(&format!(" {kind} {path} (+{plus} -{minus})\n"));
        if changed.len() <= 20 && a.len() + b.len() < 64 * 1024 {
            out.push_str(&format!(
                "{}",
                diff.unified_diff().context_radius(2).header(path, path)
            ));
        }
    }
    Ok(out)
}
