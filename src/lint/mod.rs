//! The spawn lint: code that starts an agent CLI without a process group of its own
//! (rule `agent-spawn-without-group`). One checker per language, a literal prefilter so
//! that only files naming an agent are parsed at all, and files read from the working
//! tree, the index (`--staged`) or git objects (`--diff REV`).

mod go;
mod js;
mod python;
mod rules;
mod rust;
pub mod sarif;
mod shell;
mod source;
mod syntax;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use rules::Rules;
pub use source::Selection;

use crate::error::Result;
use crate::git::Repo;

/// The rule a suppression without a reason is reported under.
pub const BARE_SUPPRESSION: &str = "suppression-without-reason";
/// The rule a file the lint cannot check is reported under (nested too deep, too large):
/// what cannot be checked is never passed as clean. It cannot be suppressed.
pub const NOT_CHECKED: &str = "file-not-checked";
/// The most the lint reads of one file; a larger file of a language it checks is
/// reported under [`NOT_CHECKED`] instead of parsed.
pub const MAX_FILE_BYTES: usize = 16 << 20;
/// The stack syn gets for one Rust file: [`rust::MAX_DEPTH`] levels of its recursion
/// use a small part of it (an unoptimised build included). Reserved, not committed:
/// only the pages a deep file touches are ever used.
const RUST_STACK: usize = 256 << 20;
const SUPPRESS: &str = "fleet: allow(";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Shell,
    Go,
}

#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub rule: String,
    /// Repository-relative, `/`-separated.
    pub path: String,
    pub language: Language,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub message: String,
    pub help: String,
    /// The source line the finding starts on, for rendering.
    #[serde(skip)]
    pub source_line: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// Files that do not parse (fully): reported, never a crash.
    pub parse_errors: Vec<ParseError>,
    pub files_considered: usize,
    /// Files the prefilter let through to a parser.
    pub files_parsed: usize,
    /// Files not read, and why (a symbolic link, not a regular file, unreadable).
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Serialize)]
pub struct ParseError {
    pub path: String,
    pub message: String,
}

/// Which checker a file gets: by extension, else by its `#!` line.
pub fn language_of(path: &str, content: &[u8]) -> Option<Language> {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match ext {
        "rs" => return Some(Language::Rust),
        "py" | "pyi" => return Some(Language::Python),
        "js" | "mjs" | "cjs" | "jsx" => return Some(Language::JavaScript),
        "ts" | "mts" | "cts" => return Some(Language::TypeScript),
        "tsx" => return Some(Language::Tsx),
        "sh" | "bash" | "zsh" | "ksh" => return Some(Language::Shell),
        "go" => return Some(Language::Go),
        "" => {}
        _ => return None,
    }
    let first = content.split(|b| *b == b'\n').next()?;
    let first = std::str::from_utf8(first).ok()?;
    let interpreter = first.strip_prefix("#!")?;
    let words: Vec<&str> = interpreter.split_whitespace().collect();
    let program = match words.as_slice() {
        [env, program, ..] if env.ends_with("/env") => *program,
        [program, ..] => program.rsplit('/').next().unwrap_or(program),
        [] => return None,
    };
    match program {
        "sh" | "bash" | "dash" | "zsh" | "ksh" => Some(Language::Shell),
        p if p.starts_with("python") => Some(Language::Python),
        "node" | "bun" | "deno" => Some(Language::JavaScript),
        _ => None,
    }
}

/// Lint one file's text; `path` is repository-relative.
pub fn check_text(
    path: &str,
    text: &str,
    language: Language,
    rules: &Rules,
) -> (Vec<Finding>, Option<String>) {
    let checked = match language {
        Language::Python => python::check(text, path, rules),
        Language::Shell => shell::check(text, rules),
        // On a thread of its own: syn's recursion needs a stack no caller promises.
        Language::Rust => std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("lint-rust".into())
                .stack_size(RUST_STACK)
                .spawn_scoped(scope, || rust::check(text, path, rules))
                .ok()
                .and_then(|thread| thread.join().ok())
                .unwrap_or_else(|| syntax::Checked {
                    parse_error: Some("the Rust checker could not run".into()),
                    ..syntax::Checked::default()
                })
        }),
        Language::JavaScript => js::check(text, path, rules, js::Dialect::JavaScript),
        Language::TypeScript => js::check(text, path, rules, js::Dialect::TypeScript),
        Language::Tsx => js::check(text, path, rules, js::Dialect::Tsx),
        Language::Go => go::check(text, path, rules),
    };
    let lines: Vec<&str> = text.lines().collect();
    let line_text = |n: usize| {
        lines
            .get(n.wrapping_sub(1))
            .copied()
            .unwrap_or("")
            .to_string()
    };
    let mut findings: Vec<Finding> = checked
        .findings
        .into_iter()
        .filter(|raw| !suppressed(&lines, raw.line, &rules.id))
        .map(|raw| Finding {
            rule: rules.id.clone(),
            path: path.to_string(),
            language,
            line: raw.line,
            column: raw.column,
            end_line: raw.end_line,
            end_column: raw.end_column,
            message: raw.message,
            help: raw.help,
            source_line: line_text(raw.line),
        })
        .collect();
    findings.extend(bare_suppressions(path, language, &lines, &rules.id));
    if let Some(at) = checked.too_deep {
        findings.push(Finding {
            rule: NOT_CHECKED.into(),
            path: path.to_string(),
            language,
            line: at.line,
            column: at.column,
            end_line: at.line,
            end_column: at.column + 1,
            message: format!(
                "nested more than {} levels deep here: the lint cannot check this file",
                at.limit
            ),
            help: "no hand-written code nests this deep: split it up (if it is generated, \
                   generate it flatter), so that what it runs can be checked"
                .into(),
            source_line: line_text(at.line),
        });
    }
    findings.sort_by_key(|f| (f.line, f.column));
    findings.dedup_by(|a, b| a.line == b.line && a.column == b.column && a.rule == b.rule);
    (findings, checked.parse_error)
}

/// The reason after `fleet: allow(RULE)`, if the marker is on this line.
fn suppression_reason<'a>(line: &'a str, rule: &str) -> Option<&'a str> {
    let at = line.find(SUPPRESS)?;
    let rest = &line[at + SUPPRESS.len()..];
    let rest = rest.strip_prefix(rule)?.strip_prefix(')')?;
    Some(
        rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '-' | '—'))
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '*' | '/' | '#'))
            .trim(),
    )
}

/// A finding on `line` is suppressed by a marker with a reason on it or the line above.
fn suppressed(lines: &[&str], line: usize, rule: &str) -> bool {
    [line, line.wrapping_sub(1)].iter().any(|&n| {
        n >= 1
            && lines
                .get(n - 1)
                .and_then(|l| suppression_reason(l, rule))
                .is_some_and(|reason| !reason.is_empty())
    })
}

fn bare_suppressions(path: &str, language: Language, lines: &[&str], rule: &str) -> Vec<Finding> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| suppression_reason(l, rule).is_some_and(str::is_empty))
        .map(|(i, l)| {
            let column = l[..l.find(SUPPRESS).unwrap_or(0)].chars().count() + 1;
            Finding {
                rule: BARE_SUPPRESSION.into(),
                path: path.to_string(),
                language,
                line: i + 1,
                column,
                end_line: i + 1,
                end_column: l.chars().count() + 1,
                message: format!("`fleet: allow({rule})` without a reason"),
                help: format!("say why on the same line: `fleet: allow({rule}) <reason>`"),
                source_line: l.to_string(),
            }
        })
        .collect()
}

/// Whether the text before `at` ends with a string escape for a newline or a tab
/// (`\n`, `\t`, `\r`), or for any other character that ends a word ([`code_escape_before`]:
/// `\x20`, `\u0020`, `\040`): in a literal the name after it is a word of the string's
/// value (`"cd /repo\nclaude -p hi"`, `"cd /repo;\x20claude"`), though its bytes follow
/// a letter or a digit.
fn escape_before(content: &[u8], at: usize) -> bool {
    (at >= 2 && content[at - 2] == b'\\' && matches!(content[at - 1], b'n' | b't' | b'r'))
        || code_escape_before(content, at)
}

/// The literal prefilter: only files that name an agent as a word (or hold a
/// suppression marker) can hold a finding, so only those are parsed. A program name
/// always appears in the file as a word: a string literal (`"claude"`, a path ending in
/// `/claude`, a shell string `"cd x && claude -p"`) or, in shell, a command word.
/// Names of three letters or fewer (`q`, `cn`, `amp`) are words in ordinary code too,
/// so outside shell they must start a string or follow a `/`.
pub struct Prefilter {
    matcher: aho_corasick::AhoCorasick,
    /// Pattern lengths by index; the marker is the last pattern.
    lengths: Vec<usize>,
    /// Per language, the words a file must also hold to reach a spawn API at all.
    apis: Vec<(Language, aho_corasick::AhoCorasick)>,
}

impl Prefilter {
    pub fn new(rules: &Rules) -> Prefilter {
        let mut patterns: Vec<String> = rules.agents.clone();
        // An agent's npm package (`@anthropic-ai/claude-code`) names no agent as a whole
        // word (`-code` follows `claude`), yet `npx` of it runs the agent.
        patterns.extend(syntax::AGENT_PACKAGES.iter().map(|(p, _)| p.to_string()));
        patterns.push(SUPPRESS.to_string());
        let lengths = patterns.iter().map(String::len).collect();
        // A DFA: the patterns are few and short, and every byte of every candidate file
        // goes through it.
        let build = |p: &[String]| {
            aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(p)
                .expect("literal patterns always build")
        };
        let go_apis: Vec<String> = go::PREFILTER.iter().map(|s| s.to_string()).collect();
        let apis = [
            (Language::Python, &rules.python.prefilter),
            (Language::Rust, &rules.rust.prefilter),
            (Language::JavaScript, &rules.javascript.prefilter),
            (Language::TypeScript, &rules.javascript.prefilter),
            (Language::Tsx, &rules.javascript.prefilter),
            (Language::Go, &go_apis),
        ]
        .into_iter()
        .map(|(l, p)| (l, build(p)))
        .collect();
        Prefilter {
            matcher: build(&patterns),
            lengths,
            apis,
        }
    }

    /// Could the file reach a spawn API? (Shell runs commands directly: always.)
    fn names_an_api(&self, content: &[u8], language: Language) -> bool {
        self.apis
            .iter()
            .find(|(l, _)| *l == language)
            .is_none_or(|(_, m)| m.is_match(content))
    }

    pub fn may_match(&self, content: &[u8], language: Language) -> bool {
        let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'$');
        let mut names_api = None;
        self.matcher.find_overlapping_iter(content).any(|m| {
            let index = m.pattern().as_usize();
            if index + 1 == self.lengths.len() {
                return true;
            }
            if !*names_api.get_or_insert_with(|| self.names_an_api(content, language)) {
                return false;
            }
            let before = m.start().checked_sub(1).map(|i| content[i]);
            let after = content.get(m.end()).copied();
            // `${AGENT:-claude}`, `${AGENT-claude}`: a default starts a word.
            let default = syntax::starts_a_default(&content[..m.start()]);
            // `"cd /repo\nclaude -p hi"`: the escape's letter is no part of the name.
            let escaped = escape_before(content, m.start());
            let bounded = (default || escaped || before.is_none_or(|b| !word(b)))
                && after.is_none_or(|b| !word(b) || b == b'.');
            let short = self.lengths[index] <= 3 && language != Language::Shell;
            bounded
                && (!short
                    || escaped
                    || before.is_some_and(|b| matches!(b, b'"' | b'\'' | b'`' | b'/')))
        })
    }
}

/// Lint a selection of files of `repo` (parallel over files).
pub fn run(repo: &Repo, root: &Path, selection: &Selection, rules: &Rules) -> Result<Report> {
    let files = source::files(repo, root, selection)?;
    let prefilter = Prefilter::new(rules);
    let considered = files.len();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(16);
    // gix repositories are per thread; each worker gets its own handle on the same one.
    let shared = repo.share();
    let results: Vec<Linted> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let shared = &shared;
                let (files, next, prefilter) = (&files, &next, &prefilter);
                scope.spawn(move || {
                    let repo = shared.to_thread_local();
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(file) = files.get(i) else { break };
                        out.push(lint_file(&repo, file, rules, prefilter));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut report = Report {
        files_considered: considered,
        ..Report::default()
    };
    for linted in results {
        report.files_parsed += usize::from(linted.parsed);
        report.findings.extend(linted.findings);
        report.parse_errors.extend(linted.error);
        report.skipped.extend(linted.skipped);
    }
    report
        .findings
        .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    report.parse_errors.sort_by(|a, b| a.path.cmp(&b.path));
    report.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// What linting one file gave.
#[derive(Default)]
struct Linted {
    parsed: bool,
    findings: Vec<Finding>,
    error: Option<ParseError>,
    skipped: Option<Skipped>,
}

fn lint_file(repo: &Repo, file: &source::File, rules: &Rules, prefilter: &Prefilter) -> Linted {
    // A file whose extension names no language we read is not read at all (a code base
    // is mostly documents, data and languages without a checker).
    if language_of(&file.path, b"#!/bin/sh").is_none() {
        return Linted::default();
    }
    let content = match file.read(repo) {
        source::Content::Whole(content) => content,
        source::Content::TooLarge(head) => {
            return match language_of(&file.path, &head) {
                Some(language) => Linted {
                    findings: vec![too_large(&file.path, language)],
                    ..Linted::default()
                },
                None => Linted::default(),
            };
        }
        source::Content::Gone => return Linted::default(),
        source::Content::Skipped(reason) => {
            return Linted {
                skipped: Some(Skipped {
                    path: file.path.clone(),
                    reason,
                }),
                ..Linted::default()
            };
        }
    };
    let Some(language) = language_of(&file.path, &content) else {
        return Linted::default();
    };
    if !prefilter.may_match(&content, language) {
        return Linted::default();
    }
    let text = String::from_utf8_lossy(&content);
    let (mut findings, error) = check_text(&file.path, &text, language, rules);
    if let Some(added) = &file.added_lines {
        // A file that could not be checked is reported whichever lines are new: the
        // new ones were not checked either.
        findings.retain(|f| {
            f.rule == NOT_CHECKED || (f.line..=f.end_line.max(f.line)).any(|l| added.contains(&l))
        });
    }
    Linted {
        parsed: true,
        findings,
        error: error.map(|message| ParseError {
            path: file.path.clone(),
            message,
        }),
        skipped: None,
    }
}

fn too_large(path: &str, language: Language) -> Finding {
    Finding {
        rule: NOT_CHECKED.into(),
        path: path.to_string(),
        language,
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
        message: format!(
            "larger than {} MiB: the lint cannot check this file",
            MAX_FILE_BYTES >> 20
        ),
        help: "source this large is generated: keep it out of the tracked tree, or split it".into(),
        source_line: String::new(),
    }
}

/// Repository-relative, `/`-separated form of a path the user gave.
pub fn relative(root: &Path, path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let absolute = absolute.canonicalize().unwrap_or(absolute);
    absolute
        .strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or(absolute)
}

/// Whether the text before `at` ends with a character written by its code, as Python,
/// JavaScript, Go and Rust strings write one: `\xHH`, `\uHHHH`, `\UHHHHHHHH`, `\u{H..}`
/// and octal `\o`..`\ooo`, standing for a character that is no part of a name (a space,
/// a `;`, a `/`). A prefilter question only: a backslash that is itself escaped
/// (`\\x20`) passes too, and the parse that follows decides.
fn code_escape_before(content: &[u8], at: usize) -> bool {
    let before = &content[..at];
    let name_char = |c: u32| {
        char::from_u32(c).is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$'))
    };
    let hex = |digits: &[u8]| {
        std::str::from_utf8(digits)
            .ok()
            .and_then(|d| u32::from_str_radix(d, 16).ok())
    };
    // `\xHH`, `\uHHHH`, `\UHHHHHHHH`: a letter and a fixed number of hex digits.
    for (letter, len) in [(b'x', 2), (b'u', 4), (b'U', 8)] {
        if before.len() >= len + 2
            && before[before.len() - len - 2] == b'\\'
            && before[before.len() - len - 1] == letter
            && let Some(code) = hex(&before[before.len() - len..])
            && before[before.len() - len..]
                .iter()
                .all(u8::is_ascii_hexdigit)
        {
            return !name_char(code);
        }
    }
    // `\u{20}`: braces around one to six hex digits.
    if let Some(inside) = before.strip_suffix(b"}")
        && let Some(open) = inside.iter().rposition(|b| *b == b'{')
        && open >= 2
        && &inside[open - 2..open] == b"\\u"
        && (1..=6).contains(&(inside.len() - open - 1))
        && inside[open + 1..].iter().all(u8::is_ascii_hexdigit)
        && let Some(code) = hex(&inside[open + 1..])
    {
        return !name_char(code);
    }
    // `\040`, `\11`, `\0`: a backslash and up to three octal digits.
    let digits = before
        .iter()
        .rev()
        .take(3)
        .take_while(|b| (b'0'..=b'7').contains(b))
        .count();
    (1..=digits).any(|len| {
        before.len() > len
            && before[before.len() - len - 1] == b'\\'
            && std::str::from_utf8(&before[before.len() - len..])
                .ok()
                .and_then(|d| u32::from_str_radix(d, 8).ok())
                .is_some_and(|code| !name_char(code))
    })
}
