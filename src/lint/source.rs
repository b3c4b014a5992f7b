//! Which files the lint reads, and from where: the working tree (tracked files, from the
//! index), the index itself (`--staged`), or git objects (`--diff REV`, which works on a
//! commit range without a checkout). For `--staged` and `--diff`, the lines added since
//! the base: renamed files are compared with what they were renamed from, and lines that
//! only moved do not count as added.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::git::{ChangedPath, GITLINK, ObjectId, Repo};

/// git's mode for a symbolic link.
const SYMLINK: u16 = 0o120000;

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

/// What reading a file gave.
pub enum Content {
    /// All of it.
    Whole(Vec<u8>),
    /// More than [`super::MAX_FILE_BYTES`]: its first bytes only (its `#!` line).
    TooLarge(Vec<u8>),
    /// Deleted from the working tree since it was staged: nothing to lint.
    Gone,
    /// Not read, and why.
    Skipped(String),
}

/// How much of an over-large file is kept: enough for its `#!` line.
const HEAD_BYTES: usize = 4096;

impl File {
    pub fn read(&self, repo: &Repo) -> Content {
        match &self.from {
            From::Disk(p) => read_regular(p),
            From::Blob(id) => match repo.blob(*id) {
                Ok(mut bytes) if bytes.len() > super::MAX_FILE_BYTES => {
                    bytes.truncate(HEAD_BYTES);
                    Content::TooLarge(bytes)
                }
                Ok(bytes) => Content::Whole(bytes),
                Err(e) => Content::Skipped(format!("cannot read it: {}", e.message)),
            },
        }
    }
}

/// A regular file's bytes, read to at most one byte past the size cap. A symbolic link
/// is not followed (a tracked link's target, when inside the repository, is linted
/// under its own path; outside it, it is not the project's code); a named pipe, a
/// device or a socket is never opened for reading: a pipe would block forever and
/// `/dev/zero` never ends. The link and kind are checked on the open file itself, so a
/// path swapped between the look and the read cannot slip past.
fn read_regular(path: &Path) -> Content {
    use rustix::fs::{FileType, Mode, OFlags};
    use std::io::Read;
    let kind = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.file_type(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Content::Gone,
        Err(e) => return Content::Skipped(format!("cannot read it: {e}")),
    };
    if kind.is_symlink() {
        return Content::Skipped(
            "a symbolic link, not followed (its target is linted under its own path when \
             tracked)"
                .into(),
        );
    }
    if !kind.is_file() {
        return Content::Skipped("not a regular file".into());
    }
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
    let fd = match rustix::fs::open(path, flags | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::LOOP) => {
            return Content::Skipped("a symbolic link, not followed".into());
        }
        Err(e) => return Content::Skipped(format!("cannot read it: {e}")),
    };
    match rustix::fs::fstat(&fd) {
        Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile => {}
        Ok(_) => return Content::Skipped("not a regular file".into()),
        Err(e) => return Content::Skipped(format!("cannot read it: {e}")),
    }
    let mut bytes = Vec::new();
    let limit = super::MAX_FILE_BYTES as u64 + 1;
    if let Err(e) = std::fs::File::from(fd).take(limit).read_to_end(&mut bytes) {
        return Content::Skipped(format!("cannot read it: {e}"));
    }
    if bytes.len() > super::MAX_FILE_BYTES {
        bytes.truncate(HEAD_BYTES);
        return Content::TooLarge(bytes);
    }
    Content::Whole(bytes)
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
        // A symbolic link's blob is the path it points to, not code.
        .filter(|c| c.new_mode != SYMLINK)
        .collect();
    let deleted: Vec<(String, ObjectId)> = changes
        .iter()
        .filter(|c| c.new.is_none())
        .filter_map(|c| c.old.map(|id| (c.path.clone(), id)))
        .collect();
    let deleted_text: Vec<String> = deleted
        .iter()
        .map(|(_, id)| {
            text_within_cap(repo, *id)
                .ok()
                .flatten()
                .unwrap_or_default()
        })
        .collect();
    // Lines removed anywhere in the change, counted: a line added elsewhere that was
    // removed here only moved, and each removed line accounts for one added line.
    let mut removed: HashMap<String, usize> = HashMap::new();
    let mut used_as_source = HashSet::new();
    let mut files = Vec::new();
    let mut out = Vec::new();
    for change in &changes {
        let Some(new) = change.new else { continue };
        let Some(new_text) = text_within_cap(repo, new)? else {
            // Too large to compare: reading it reports that, whatever its lines.
            out.push(File {
                path: change.path.clone(),
                from: From::Blob(new),
                added_lines: Some(HashSet::from([1])),
            });
            continue;
        };
        let old_text = match change.old {
            Some(old) => text_within_cap(repo, old)?.unwrap_or_default(),
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

/// A blob as text, unless it is larger than the lint reads.
fn text_within_cap(repo: &Repo, id: ObjectId) -> Result<Option<String>> {
    let bytes = repo.blob(id)?;
    Ok(
        (bytes.len() <= super::MAX_FILE_BYTES)
            .then(|| String::from_utf8_lossy(&bytes).into_owned()),
    )
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
