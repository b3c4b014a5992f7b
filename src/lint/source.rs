//! Which files the lint reads, and from where: the working tree (tracked files, from the
//! index), the index itself (`--staged`), or git objects (`--diff REV`, which works on a
//! commit range without a checkout). For `--staged` and `--diff`, the lines added since
//! the base: renamed files are compared with what they were renamed from, and lines that
//! only moved do not count as added.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::error::{Context, Result};
use crate::git::{ChangedPath, GITLINK, ObjectId, Repo};

#[derive(Clone, Debug)]
pub enum Selection {
    /// Tracked files in the working tree, limited to `paths` (files or folders) when given.
    Worktree { paths: Vec<PathBuf> },
    /// The staged version of files that differ from HEAD.
    Staged,
    /// Files changed from `base` to `head` (commits), read from git objects.
    Diff { base: ObjectId, head: ObjectId },
}

pub struct File {
    /// Repository-relative, `/`-separated.
    pub path: String,
    from: From,
    /// Lines (1-based) added since the base; `None`: every line counts.
    pub added_lines: Option<HashSet<usize>>,
}

enum From {
    Disk(PathBuf),
    Blob(ObjectId),
}

impl File {
    pub fn read(&self, repo: &Repo) -> Result<Vec<u8>> {
        match &self.from {
            From::Disk(p) => std::fs::read(p).context(|| format!("cannot read {}", p.display())),
            From::Blob(id) => repo.blob(*id),
        }
    }
}

pub fn files(repo: &Repo, root: &Path, selection: &Selection) -> Result<Vec<File>> {
    match selection {
        Selection::Worktree { paths } => worktree_files(repo, root, paths),
        Selection::Staged => {
            let head = match repo.head_id()? {
                Some(h) => repo.tree_of(h)?,
                None => repo.empty_tree(),
            };
            let in_head: HashMap<String, ObjectId> = repo
                .changed_paths(repo.empty_tree(), head)?
                .into_iter()
                .filter_map(|c| c.new.map(|id| (c.path, id)))
                .collect();
            let changes: Vec<ChangedPath> = repo
                .index_files()?
                .into_iter()
                .filter(|(path, id)| in_head.get(path) != Some(id))
                .map(|(path, id)| ChangedPath {
                    old: in_head.get(&path).copied(),
                    new: Some(id),
                    old_mode: 0o100644,
                    new_mode: 0o100644,
                    path,
                })
                .collect();
            changed_files(repo, changes)
        }
        Selection::Diff { base, head } => {
            let changes = repo.changed_paths(repo.tree_of(*base)?, repo.tree_of(*head)?)?;
            changed_files(repo, changes)
        }
    }
}

fn worktree_files(repo: &Repo, root: &Path, paths: &[PathBuf]) -> Result<Vec<File>> {
    let tracked = repo.index_files()?;
    let wanted: Vec<String> = paths
        .iter()
        .map(|p| {
            super::relative(root, p)
                .to_string_lossy()
                .trim_end_matches('/')
                .to_string()
        })
        .collect();
    let mut files: Vec<File> = tracked
        .into_iter()
        .filter(|(path, _)| {
            wanted.is_empty()
                || wanted
                    .iter()
                    .any(|w| w.is_empty() || path == w || path.starts_with(&format!("{w}/")))
        })
        .map(|(path, _)| File {
            from: From::Disk(root.join(&path)),
            path,
            added_lines: None,
        })
        .collect();
    // A file named on the command line is linted even when git does not track it.
    for (given, rel) in paths.iter().zip(&wanted) {
        if given.is_file() && !files.iter().any(|f| &f.path == rel) {
            files.push(File {
                path: rel.clone(),
                from: From::Disk(given.clone()),
                added_lines: None,
            });
        }
    }
    Ok(files)
}

fn changed_files(repo: &Repo, changes: Vec<ChangedPath>) -> Result<Vec<File>> {
    let changes: Vec<ChangedPath> = changes
        .into_iter()
        .filter(|c| c.new_mode != GITLINK && c.old_mode != GITLINK)
        .collect();
    let deleted: Vec<(String, ObjectId)> = changes
        .iter()
        .filter(|c| c.new.is_none())
        .filter_map(|c| c.old.map(|id| (c.path.clone(), id)))
        .collect();
    let deleted_text: Vec<String> = deleted
        .iter()
        .map(|(_, id)| String::from_utf8_lossy(&repo.blob(*id).unwrap_or_default()).into_owned())
        .collect();
    // Lines removed anywhere in the change, counted: a line added elsewhere that was
    // removed here only moved, and each removed line accounts for one added line.
    let mut removed: HashMap<String, usize> = HashMap::new();
    let mut used_as_source = HashSet::new();
    let mut files = Vec::new();
    for change in &changes {
        let Some(new) = change.new else { continue };
        let new_text = String::from_utf8_lossy(&repo.blob(new)?).into_owned();
        let old_text = match change.old {
            Some(old) => String::from_utf8_lossy(&repo.blob(old)?).into_owned(),
            None => match rename_source(&new_text, &deleted_text, &used_as_source) {
                Some(i) => {
                    used_as_source.insert(i);
                    deleted_text[i].clone()
                }
                None => String::new(),
            },
        };
        let (added, gone) = added_and_removed(&old_text, &new_text);
        for line in gone.into_iter().filter(|l| !l.is_empty()) {
            *removed.entry(line).or_default() += 1;
        }
        files.push((change.path.clone(), new, new_text, added));
    }
    for (i, text) in deleted_text.iter().enumerate() {
        if !used_as_source.contains(&i) {
            for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                *removed.entry(line.to_string()).or_default() += 1;
            }
        }
    }
    let mut out = Vec::new();
    for (path, id, text, added) in files {
        let lines: Vec<&str> = text.lines().collect();
        let added: HashSet<usize> = added
            .into_iter()
            .filter(|n| {
                let line = lines.get(n - 1).map(|l| l.trim()).unwrap_or("");
                match removed.get_mut(line) {
                    Some(count) if *count > 0 && !line.is_empty() => {
                        *count -= 1;
                        false
                    }
                    _ => true,
                }
            })
            .collect();
        if !added.is_empty() {
            out.push(File {
                path,
                from: From::Blob(id),
                added_lines: Some(added),
            });
        }
    }
    Ok(out)
}

/// The deleted file a new file was most likely renamed (or copied) from: the one sharing
/// the most lines with it, if at least half of the new file's lines (each deleted file
/// is the source of one new file at most).
fn rename_source(new_text: &str, deleted: &[String], taken: &HashSet<usize>) -> Option<usize> {
    let new_lines: HashSet<&str> = new_text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if new_lines.is_empty() {
        return None;
    }
    deleted
        .iter()
        .enumerate()
        .filter(|(i, _)| !taken.contains(i))
        .map(|(i, old)| {
            let shared = old
                .lines()
                .map(str::trim)
                .filter(|l| new_lines.contains(l))
                .collect::<HashSet<_>>()
                .len();
            (shared, i)
        })
        .filter(|(shared, _)| shared * 2 >= new_lines.len())
        .max_by_key(|(shared, _)| *shared)
        .map(|(_, i)| i)
}

/// Line numbers (1-based, in `new`) of inserted lines, and the trimmed text of removed ones.
fn added_and_removed(old: &str, new: &str) -> (Vec<usize>, Vec<String>) {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut added = Vec::new();
    let mut removed = Vec::new();
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Insert => {
                if let Some(i) = change.new_index() {
                    added.push(i + 1);
                }
            }
            similar::ChangeTag::Delete => removed.push(change.value().trim().to_string()),
            similar::ChangeTag::Equal => {}
        }
    }
    (added, removed)
}
