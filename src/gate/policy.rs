//! The gate's policy: what the configuration committed in the base asks of a change
//! (protected paths, forbidden markers, the gate commands). Always read from the base,
//! never from the lane or a working directory, so a change cannot weaken its own gate;
//! a lane may only add commands to it. Shared by `fleet land` and `fleet gate`.

use crate::config::{self, Config};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{ChangedPath, GITLINK, ObjectId, Repo};

/// The configuration as committed in `commit` (defaults when it has no fleet.toml).
pub fn config_at(repo: &Repo, commit: ObjectId, what: &str) -> Result<Config> {
    match repo.file_at(commit, config::FILE_NAME)? {
        None => Ok(Config::default()),
        Some(bytes) => Config::parse(
            &String::from_utf8_lossy(&bytes),
            &format!(
                "{what} ({}):{}",
                commit.to_hex_with_len(12),
                config::FILE_NAME
            ),
        ),
    }
}

/// Protected paths and submodule changes (unless allowed), and forbidden markers in
/// added lines.
pub fn block_reasons(
    repo: &Repo,
    config: &Config,
    changed: &[ChangedPath],
    allow_protected: bool,
) -> Result<Vec<String>> {
    let mut reasons = Vec::new();
    if !allow_protected {
        let set = protected_set(&config.gate.protected)?;
        for change in changed {
            if set.is_match(&change.path) {
                reasons.push(format!(
                    "touches protected path {} (land with --allow-protected)",
                    change.path
                ));
            } else if change.is_gitlink() {
                reasons.push(format!(
                    "changes submodule {}, which the gate cannot check out (land with --allow-protected)",
                    change.path
                ));
            }
        }
    }
    if !config.gate.forbid.is_empty() {
        for change in changed.iter().filter(|c| !c.is_gitlink()) {
            let Some(new) = change.new else { continue };
            let new_bytes = repo.blob(new)?;
            let old_bytes = match change.old {
                Some(old) if change.old_mode != GITLINK => repo.blob(old)?,
                _ => Vec::new(),
            };
            reasons.extend(added_markers(
                &change.path,
                &old_bytes,
                &new_bytes,
                &config.gate.forbid,
            ));
        }
    }
    Ok(reasons)
}

/// Protected patterns with gitignore-like meaning: a pattern names a path or a folder
/// (`.ci` covers `.ci/x`), a leading `/` anchors at the root (as all patterns are), and
/// case is ignored (so `.GITHUB/x` cannot slip past on a case-insensitive file system).
fn protected_set(patterns: &[String]) -> Result<globset::GlobSet> {
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        let pattern = pattern.trim_start_matches('/').trim_end_matches('/');
        for form in [pattern.to_string(), format!("{pattern}/**")] {
            let glob = globset::GlobBuilder::new(&form)
                .literal_separator(true)
                .case_insensitive(true)
                .build()
                .map_err(|e| {
                    Error::usage(format!("bad [gate] protected pattern `{pattern}`: {e}"))
                })?;
            builder.add(glob);
        }
    }
    builder
        .build()
        .map_err(|e| Error::usage(format!("bad [gate] protected patterns: {e}")))
}

/// Markers on lines the change adds (context and removed lines never count). Text is
/// read as what it is: UTF-8, or UTF-8, UTF-16 or UTF-32 with a byte-order mark, decoded
/// first (a marker in UTF-16 has none of its UTF-8 bytes). Anything else is compared as
/// bytes, by count of the marker in each of those encodings, since it has no lines: a
/// file nothing decodes (UTF-16 without a mark, binary) is still checked, never passed.
fn added_markers(path: &str, old: &[u8], new: &[u8], markers: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let (Some(old), Some(new)) = (decode(old), decode(new)) else {
        for marker in markers {
            let count = |bytes: &[u8]| {
                encodings(marker)
                    .iter()
                    .map(|m| bytes.windows(m.len().max(1)).filter(|w| *w == m).count())
                    .sum::<usize>()
            };
            if count(new) > count(old) {
                found.push(format!(
                    "{path}: binary file adds forbidden marker {marker}"
                ));
            }
        }
        return found;
    };
    let diff = similar::TextDiff::from_lines(old.as_str(), new.as_str());
    for change in diff.iter_all_changes() {
        if change.tag() != similar::ChangeTag::Insert {
            continue;
        }
        for marker in markers {
            if change.value().contains(marker.as_str()) {
                let line = change.new_index().map_or(0, |i| i + 1);
                found.push(format!("{path}:{line}: adds forbidden marker {marker}"));
            }
        }
    }
    found
}

/// A file's text: UTF-8 without NULs, or text behind a byte-order mark (UTF-8, UTF-16
/// and UTF-32, either order). `None`: no lines to read (binary, or text without a mark
/// in an encoding with NULs).
fn decode(bytes: &[u8]) -> Option<String> {
    let units = |bytes: &[u8], width: usize, big_endian: bool| -> Vec<u32> {
        bytes
            .chunks(width)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                match (width, big_endian) {
                    (2, false) => u32::from(u16::from_le_bytes([b[0], b[1]])),
                    (2, true) => u32::from(u16::from_be_bytes([b[0], b[1]])),
                    (_, false) => u32::from_le_bytes(b),
                    (_, true) => u32::from_be_bytes(b),
                }
            })
            .collect()
    };
    let utf16 = |units: Vec<u32>| {
        char::decode_utf16(units.into_iter().map(|u| u as u16))
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
    };
    let utf32 = |units: Vec<u32>| {
        units
            .into_iter()
            .map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
    };
    // UTF-32 first: its little-endian mark starts like UTF-16's.
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE, 0, 0]) {
        return Some(utf32(units(rest, 4, false)));
    }
    if let Some(rest) = bytes.strip_prefix(&[0, 0, 0xFE, 0xFF]) {
        return Some(utf32(units(rest, 4, true)));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return Some(utf16(units(rest, 2, false)));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return Some(utf16(units(rest, 2, true)));
    }
    let rest = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    (!rest.contains(&0)).then(|| String::from_utf8_lossy(rest).into_owned())
}

/// `marker`'s bytes in UTF-8, UTF-16 and UTF-32 (both byte orders), to find it in a
/// file that cannot be decoded.
fn encodings(marker: &str) -> Vec<Vec<u8>> {
    let utf16: Vec<u16> = marker.encode_utf16().collect();
    let chars: Vec<u32> = marker.chars().map(u32::from).collect();
    vec![
        marker.as_bytes().to_vec(),
        utf16.iter().flat_map(|u| u.to_le_bytes()).collect(),
        utf16.iter().flat_map(|u| u.to_be_bytes()).collect(),
        chars.iter().flat_map(|u| u.to_le_bytes()).collect(),
        chars.iter().flat_map(|u| u.to_be_bytes()).collect(),
    ]
}

/// The target's gate; a lane that changes the gate configuration must pass both. A
/// lane whose own fleet.toml does not parse would stop every landing after it: `Err`
/// carries the reason to block it.
pub(crate) fn gate_commands(
    repo: &Repo,
    config: &Config,
    candidate: ObjectId,
) -> Result<std::result::Result<Vec<String>, String>> {
    let mut commands = config.gate.commands.clone();
    match config_at(repo, candidate, "the lane") {
        Ok(new) => {
            for command in new.gate.commands {
                if !commands.contains(&command) {
                    commands.push(command);
                }
            }
            Ok(Ok(commands))
        }
        Err(e) if e.kind == crate::error::Kind::Usage => {
            Ok(Err(format!("its fleet.toml is invalid: {}", e.message)))
        }
        Err(e) => Err(e),
    }
}

/// The gate commands for `commit` (the target's, plus those its own fleet.toml adds);
/// none configured is a usage error naming the fix.
pub(crate) fn commands_for(
    ctx: &Context,
    config: &Config,
    commit: ObjectId,
) -> Result<Vec<String>> {
    require_commands(
        ctx,
        gate_commands(&ctx.repo, config, commit)?.unwrap_or_default(),
    )
}

/// `commands`, unless there are none: a usage error naming the fix.
pub(crate) fn require_commands(ctx: &Context, commands: Vec<String>) -> Result<Vec<String>> {
    if commands.is_empty() {
        return Err(Error::usage(format!(
            "no gate commands: [gate] commands is empty in {}'s {}",
            ctx.target(),
            config::FILE_NAME
        ))
        .with_help(
            "set `[gate] commands` in the shared checkout's fleet.toml to the command that tests \
             this project (e.g. commands = [\"cargo test --locked\"]), then commit it on the \
             target: `fleet init --commit`",
        ));
    }
    Ok(commands)
}
