//! `fleet verify`: audit the target's history against the receipts `fleet land` wrote.
//!
//! Promise: every commit the target moved to, walking its first-parent line from the top
//! of the range, is either verified (a green receipt for its exact tree whose `moved_from`
//! is a first-parent ancestor) or listed with the reason it is not. A verified commit
//! vouches for the jump from where the target was before: the commits in between (a
//! rebased lane's chain) were never target positions, so they are skipped, not listed.
//! Read-only: no ref, note or file is written. Receipts are read from `refs/notes/fleet`
//! as it is in this clone, so the answer is the same on any clone that fetched them.

use std::collections::HashMap;

use serde::Serialize;

use crate::config::Strategy;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::gate::Receipt;
use crate::git::{ObjectId, Repo};
use crate::queue::Queue;
use crate::refs::NOTES as NOTES_REF;

/// Which part of history to check, as given on the command line: `A..B`, `..B`, `A..`,
/// `REV`, or nothing (the target since fleet was adopted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RevRange {
    /// The exclusive lower end; `None`: since fleet was adopted.
    pub from: Option<String>,
    /// The top; `None`: the target branch.
    pub to: Option<String>,
    pub text: String,
}

impl RevRange {
    /// Parse a range at the command-line boundary (a bad one is a usage error).
    pub fn parse(text: &str) -> std::result::Result<RevRange, String> {
        if text.trim().is_empty() {
            return Err("an empty range; give A..B, ..B, A.. or a single REV".into());
        }
        let side = |s: &str| (!s.is_empty()).then(|| s.to_string());
        match text.split_once("..") {
            None => Ok(RevRange {
                from: None,
                to: Some(text.to_string()),
                text: text.to_string(),
            }),
            Some((_, b)) if b.starts_with('.') => Err(format!(
                "`{text}`: A...B (symmetric difference) is not a line of history; use A..B"
            )),
            Some((a, b)) => Ok(RevRange {
                from: side(a),
                to: side(b),
                text: text.to_string(),
            }),
        }
    }
}

/// Why a commit the target moved to is not verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// No note for this commit on `refs/notes/fleet`.
    NoReceipt,
    /// A note is there but is not a receipt fleet can read.
    UnreadableReceipt,
    /// A gate command failed (or none ran).
    NotGreen,
    /// The gate ran on another tree than the one this commit has.
    TreeDiffers,
    /// The receipt's `moved_from` is not a first-parent ancestor of this commit.
    BaseNotOnLine,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NoReceipt => "no receipt",
            Reason::UnreadableReceipt => "receipt unreadable",
            Reason::NotGreen => "receipt not green",
            Reason::TreeDiffers => "tested tree differs",
            Reason::BaseNotOnLine => "base not on the first-parent line",
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Verified {
    pub id: String,
    pub subject: String,
    /// The lane's full branch name, as the receipt says; `branch` is the same name under
    /// the key every other command uses for a lane (`lane` is kept for older scripts).
    pub lane: String,
    pub branch: String,
    pub strategy: Strategy,
    /// Where the target was before it moved here.
    pub moved_from: String,
    /// First-parent commits between `moved_from` and this one (a rebased lane's chain):
    /// never target positions, so not checked.
    pub skipped: usize,
    /// A later move in the range landed this lane's revert (`fleet revert`, the lane
    /// `revert/<lane>`): the landing stands in the history, its work is out of the
    /// target, as `fleet status` says with `reverted`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverted_by: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Unverified {
    pub id: String,
    pub subject: String,
    pub reason: Reason,
    /// The reason in words, with the ids involved.
    pub detail: String,
}

#[derive(Debug, Serialize)]
pub struct RangeReport {
    /// The range as given (empty: the default).
    pub spec: String,
    /// The exclusive lower end; `null` when the walk reached the root commit.
    pub from: Option<String>,
    /// The top of the range.
    pub to: String,
    /// The lower end was found from the oldest receipt, not given.
    pub since_adoption: bool,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub range: RangeReport,
    /// Commits the target moved to in the range: verified plus unverified.
    pub checked: usize,
    pub verified: Vec<Verified>,
    pub unverified: Vec<Unverified>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.unverified.is_empty()
    }
}

/// Check `range` (default: `queue`'s target since fleet was adopted).
pub fn verify(ctx: &Context, queue: &Queue, range: &RevRange) -> Result<Report> {
    let repo = &ctx.repo;
    let resolve = |rev: &str| {
        repo.resolve_commit(rev).map_err(|e| {
            Error::usage(format!("fleet verify {}: {}", range.text, e.message)).with_help(
                "give a branch, tag or commit of this repository: A..B, ..B, A.. or a single REV",
            )
        })
    };
    let top = match &range.to {
        Some(rev) => resolve(rev)?,
        None => queue.target_tip(ctx)?,
    };
    let hide = range.from.as_deref().map(resolve).transpose()?;
    let top_name = range.to.as_deref().unwrap_or(ctx.target());
    let receipts = Receipts::load(repo)?.ok_or_else(|| no_receipts(top_name, false))?;
    let mut line = Line::new(repo, top);

    let bound = match hide {
        Some(hide) => {
            let inside = repo.exclusive_commits(top, hide)?;
            let mut n = 0;
            while line.get(n)?.is_some_and(|id| inside.contains(&id)) {
                n += 1;
            }
            n
        }
        None => adoption_bound(&mut line, &receipts)?.ok_or_else(|| no_receipts(top_name, true))?,
    };

    let mut verified = Vec::new();
    let mut unverified = Vec::new();
    let mut at = 0;
    while at < bound {
        let Some(id) = line.get(at)? else { break };
        let info = repo.commit_info(id)?;
        let subject = info.message.lines().next().unwrap_or("").to_string();
        match check(&receipts, &mut line, at, id, info.tree)? {
            Check::Verified(receipt, from) => {
                verified.push(Verified {
                    id: id.to_string(),
                    subject,
                    lane: receipt.lane.clone(),
                    branch: receipt.lane.clone(),
                    strategy: receipt.strategy,
                    moved_from: receipt.moved_from().to_string(),
                    skipped: from - at - 1,
                    reverted_by: None,
                });
                at = from;
            }
            Check::Unverified(reason, detail) => {
                unverified.push(Unverified {
                    id: id.to_string(),
                    subject,
                    reason,
                    detail,
                });
                at += 1;
            }
        }
    }
    mark_reverted(&mut verified);
    let from = match hide {
        Some(hide) => Some(hide),
        None => line.get(bound)?,
    };
    Ok(Report {
        range: RangeReport {
            spec: range.text.clone(),
            from: from.map(|id| id.to_string()),
            to: top.to_string(),
            since_adoption: hide.is_none(),
        },
        checked: verified.len() + unverified.len(),
        verified,
        unverified,
    })
}

/// Each landing whose revert landed later (`verified` is newest first).
fn mark_reverted(verified: &mut [Verified]) {
    for at in 0..verified.len() {
        let revert = format!("revert/{}", verified[at].lane);
        verified[at].reverted_by = verified[..at]
            .iter()
            .find(|v| v.lane == revert)
            .map(|v| v.id.clone());
    }
}

enum Check {
    /// The receipt, and the line position of the commit the target moved from.
    Verified(Box<Receipt>, usize),
    Unverified(Reason, String),
}

/// Does the commit at line position `at` carry a receipt that vouches for a move to it?
fn check(
    receipts: &Receipts,
    line: &mut Line,
    at: usize,
    id: ObjectId,
    tree: ObjectId,
) -> Result<Check> {
    let receipt = match receipts.read(id)? {
        None => {
            return Ok(Check::Unverified(
                Reason::NoReceipt,
                format!("no receipt: nothing on {NOTES_REF} shows this commit passed the gate"),
            ));
        }
        Some(Err(e)) => {
            return Ok(Check::Unverified(
                Reason::UnreadableReceipt,
                format!("receipt unreadable: {e}"),
            ));
        }
        Some(Ok(receipt)) => receipt,
    };
    if !receipt.green() {
        let detail = match receipt.commands.iter().find(|c| c.exit_code != 0) {
            Some(c) => format!("receipt not green: `{}` exited {}", c.command, c.exit_code),
            None => "receipt not green: it records no gate command".to_string(),
        };
        return Ok(Check::Unverified(Reason::NotGreen, detail));
    }
    if receipt.tested_tree != tree {
        return Ok(Check::Unverified(
            Reason::TreeDiffers,
            format!(
                "tested tree differs: the gate ran on tree {}, this commit has tree {}",
                short(receipt.tested_tree),
                short(tree)
            ),
        ));
    }
    match line.position(receipt.moved_from())? {
        Some(from) if from > at => Ok(Check::Verified(Box::new(receipt), from)),
        _ => Ok(Check::Unverified(
            Reason::BaseNotOnLine,
            format!(
                "base not on the first-parent line: the receipt says the target moved here from {}, which is not a first-parent ancestor of this commit",
                short(receipt.moved_from())
            ),
        )),
    }
}

/// Where "since fleet was adopted" begins: the position (exclusive) of the commit the
/// oldest receipt on the line moved from. `None` when no commit on the line has one.
fn adoption_bound(line: &mut Line, receipts: &Receipts) -> Result<Option<usize>> {
    let mut oldest = None;
    let mut seen = 0;
    let mut at = 0;
    while let Some(id) = line.get(at)? {
        if receipts.contains(id) {
            oldest = Some((at, id));
            seen += 1;
            // Every receipt is accounted for: nothing older can have one.
            if seen == receipts.len() {
                break;
            }
        }
        at += 1;
    }
    let Some((at, id)) = oldest else {
        return Ok(None);
    };
    let from = match receipts.read(id)? {
        Some(Ok(receipt)) => Some(receipt.moved_from()),
        _ => None,
    };
    let position = match from {
        Some(from) => line.position(from)?,
        None => None,
    };
    Ok(Some(match position {
        Some(from) if from > at => from,
        // A receipt that cannot say where the target came from: start right below it,
        // so it is checked (and reported) itself.
        _ => at + 1,
    }))
}

fn no_receipts(top: &str, on_line: bool) -> Error {
    let message = if on_line {
        format!(
            "`{top}` has no fleet receipts: no commit on its first-parent history has a note on {NOTES_REF}"
        )
    } else {
        format!("`{top}` has no fleet receipts: this clone has no {NOTES_REF}")
    };
    Error::refused(message).with_help(format!(
        "receipts are written by `fleet land`; in a fresh clone \
         `fleet verify --remote <remote>` fetches them first (the guard refuses a git \
         fetch into {NOTES_REF})"
    ))
}

fn short(id: ObjectId) -> String {
    id.to_hex_with_len(12).to_string()
}

/// The annotated commits of `refs/notes/fleet`, listed once; receipts are parsed only
/// for the commits the walk reaches.
struct Receipts<'r> {
    repo: &'r Repo,
    blobs: HashMap<ObjectId, ObjectId>,
}

impl<'r> Receipts<'r> {
    /// `None` when the clone has no notes ref at all.
    fn load(repo: &'r Repo) -> Result<Option<Receipts<'r>>> {
        let Some(notes) = repo.ref_target(NOTES_REF)? else {
            return Ok(None);
        };
        // Notes are named by the annotated commit's full id; git may fan them out into
        // folders (`ab/cdef...`) when there are many, so the folders are joined back.
        let blobs = repo
            .files_in(notes)?
            .into_iter()
            .filter_map(|(path, blob)| {
                let name: String = path.chars().filter(|c| *c != '/').collect();
                ObjectId::from_hex(name.as_bytes())
                    .ok()
                    .map(|commit| (commit, blob))
            })
            .collect();
        Ok(Some(Receipts { repo, blobs }))
    }

    fn len(&self) -> usize {
        self.blobs.len()
    }

    fn contains(&self, commit: ObjectId) -> bool {
        self.blobs.contains_key(&commit)
    }

    /// The receipt for `commit`: `None` without a note, `Some(Err)` for a note that is
    /// not a receipt.
    fn read(&self, commit: ObjectId) -> Result<Option<std::result::Result<Receipt, String>>> {
        let Some(blob) = self.blobs.get(&commit) else {
            return Ok(None);
        };
        let bytes = self.repo.blob(*blob)?;
        Ok(Some(
            toml::from_str::<Receipt>(&String::from_utf8_lossy(&bytes))
                .map_err(|e| e.message().to_string()),
        ))
    }
}

/// A first-parent line of history from a top commit, read downwards only as far as a
/// question needs it, and remembered.
struct Line<'r> {
    repo: &'r Repo,
    ids: Vec<ObjectId>,
    index: HashMap<ObjectId, usize>,
    /// The root (or a shallow clone's boundary) has been reached.
    complete: bool,
}

impl<'r> Line<'r> {
    fn new(repo: &'r Repo, top: ObjectId) -> Line<'r> {
        Line {
            repo,
            ids: vec![top],
            index: HashMap::from([(top, 0)]),
            complete: false,
        }
    }

    /// The commit at `position` (0 is the top), `None` below the root.
    fn get(&mut self, position: usize) -> Result<Option<ObjectId>> {
        while self.ids.len() <= position && self.extend()? {}
        Ok(self.ids.get(position).copied())
    }

    /// Where `id` is on the line, `None` when it is not on it.
    fn position(&mut self, id: ObjectId) -> Result<Option<usize>> {
        loop {
            if let Some(at) = self.index.get(&id) {
                return Ok(Some(*at));
            }
            if !self.extend()? {
                return Ok(None);
            }
        }
    }

    fn extend(&mut self) -> Result<bool> {
        let Some(&last) = self.ids.last() else {
            return Ok(false);
        };
        if self.complete {
            return Ok(false);
        }
        match self.repo.first_parent(last)? {
            // A shallow clone's boundary commit names a parent it does not have.
            Some(parent) if self.repo.has_object(parent) => {
                self.index.insert(parent, self.ids.len());
                self.ids.push(parent);
                Ok(true)
            }
            _ => {
                self.complete = true;
                Ok(false)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RevRange;

    fn range(from: Option<&str>, to: Option<&str>, text: &str) -> RevRange {
        RevRange {
            from: from.map(String::from),
            to: to.map(String::from),
            text: text.into(),
        }
    }

    #[test]
    fn range_forms_parse() {
        assert_eq!(
            RevRange::parse("a..b"),
            Ok(range(Some("a"), Some("b"), "a..b"))
        );
        assert_eq!(RevRange::parse("..b"), Ok(range(None, Some("b"), "..b")));
        assert_eq!(RevRange::parse("a.."), Ok(range(Some("a"), None, "a..")));
        assert_eq!(
            RevRange::parse("v1~2"),
            Ok(range(None, Some("v1~2"), "v1~2"))
        );
        assert_eq!(RevRange::parse(".."), Ok(range(None, None, "..")));
    }

    #[test]
    fn symmetric_and_empty_ranges_are_refused() {
        assert!(RevRange::parse("a...b").unwrap_err().contains("A..B"));
        assert!(RevRange::parse("").is_err());
        assert!(RevRange::parse("  ").is_err());
    }
}
