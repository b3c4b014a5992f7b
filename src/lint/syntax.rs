//! What the language checkers share: the raw finding they report and tree-sitter helpers.

use tree_sitter::{Node, Parser, Tree};

/// A finding inside one file, before suppression and diff filtering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Raw {
    /// 1-based line and column (in characters) of the start; end line inclusive.
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub message: String,
    pub help: String,
}

/// What a checker returns: findings, and a parse problem when the file is not (fully)
/// valid in its language.
#[derive(Debug, Default)]
pub struct Checked {
    pub findings: Vec<Raw>,
    pub parse_error: Option<String>,
    /// Where the file nests deeper than the checker follows: nothing in it was checked.
    pub too_deep: Option<TooDeep>,
}

/// A file nested deeper than the lint follows, and where (1-based line and column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooDeep {
    pub line: usize,
    pub column: usize,
    pub limit: usize,
}

impl Checked {
    fn too_deep(at: TooDeep) -> Checked {
        Checked {
            too_deep: Some(at),
            ..Checked::default()
        }
    }
}

/// How deep a tree-sitter tree may nest. The walks are iterative, but some checks cost
/// the depth times the text below (a shell command's words hold every substitution
/// nested in them), so hostile nesting (`$($($(...)))` thousands deep) would take
/// minutes; hand-written code stays far below this.
pub const MAX_TREE_DEPTH: usize = 2000;

/// How long one file may take to parse. tree-sitter's error recovery can go
/// exponential on hostile input (a fuzzed 270-byte TSX file ran for minutes); past this,
/// the file is reported as unparsable instead of hanging the lint.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// Parse `src`, or the `Checked` to return instead: the parser gave up (`what` names it),
/// or the tree nests deeper than [`MAX_TREE_DEPTH`].
pub fn parse_bounded(
    language: tree_sitter::Language,
    src: &str,
    what: &str,
) -> std::result::Result<Tree, Checked> {
    let Some(tree) = parse(language, src) else {
        return Err(Checked {
            parse_error: Some(format!("the {what} parser gave up")),
            ..Checked::default()
        });
    };
    match deepest(&tree, MAX_TREE_DEPTH) {
        Some(node) => {
            let (line, column) = position(src, node.start_byte());
            Err(Checked::too_deep(TooDeep {
                line,
                column,
                limit: MAX_TREE_DEPTH,
            }))
        }
        None => Ok(tree),
    }
}

/// The first node (in document order) more than `limit` levels below the root, found
/// with a cursor: no recursion, however deep the tree.
fn deepest(tree: &Tree, limit: usize) -> Option<Node<'_>> {
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        if depth > limit {
            return Some(cursor.node());
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
            depth -= 1;
        }
    }
}

pub fn parse(language: tree_sitter::Language, src: &str) -> Option<Tree> {
    let mut parser = Parser::new();
    parser.set_language(&language).ok()?;
    let started = std::time::Instant::now();
    let bytes = src.as_bytes();
    let mut read = |offset: usize, _: tree_sitter::Point| bytes.get(offset..).unwrap_or(&[]);
    let mut give_up = |_: &tree_sitter::ParseState| {
        if started.elapsed() > PARSE_BUDGET {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut give_up);
    parser.parse_with_options(&mut read, None, Some(options))
}

/// The first syntax error of a tree, as "line L:C".
pub fn first_error(tree: &Tree) -> Option<String> {
    if !tree.root_node().has_error() {
        return None;
    }
    let mut found = None;
    walk(tree.root_node(), &mut |n| {
        if found.is_none() && (n.is_error() || n.is_missing()) {
            let p = n.start_position();
            found = Some(format!(
                "syntax error at line {}:{}",
                p.row + 1,
                p.column + 1
            ));
        }
    });
    Some(found.unwrap_or_else(|| "syntax error".into()))
}

pub fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Every node under `node`, parents first.
pub fn walk<'t>(node: Node<'t>, visit: &mut impl FnMut(Node<'t>)) {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        visit(n);
        let children: Vec<Node> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}

/// The expression a function body returns when a `return` is its only statement
/// (comments aside), as both Python's and JavaScript's grammars spell it: what a
/// function that only hands back a constant gives.
pub fn sole_return(body: Node) -> Option<Node> {
    let mut cursor = body.walk();
    let statements: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    match statements.as_slice() {
        [only] if only.kind() == "return_statement" => only.named_child(0),
        _ => None,
    }
}

/// A finding covering `node` (its first line is what gets underlined).
pub fn raw_at(node: Node, src: &str, message: String, help: String) -> Raw {
    let (line, column) = position(src, node.start_byte());
    let (end_line, end_column) = position(src, node.end_byte());
    Raw {
        line,
        column,
        end_line,
        end_column,
        message,
        help,
    }
}

/// 1-based line and character column of a byte offset.
pub fn position(src: &str, byte: usize) -> (usize, usize) {
    let before = &src[..floor_char_boundary(src, byte)];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether a statement of `block` before `child` is a gate (`gate`: it returns or exits
/// once the leader is gone) with no process started after it (`starts`) before `child`:
/// such a check asks about an earlier process, not the one `child` kills. The shape of
/// every language's "kill gated on the leader having been reaped" test.
pub fn gate_before<'t>(
    block: Node<'t>,
    child: Node<'t>,
    starts: impl Fn(Node<'t>) -> bool,
    gate: impl Fn(Node<'t>) -> bool,
) -> bool {
    let mut cursor = block.walk();
    let before: Vec<Node> = block
        .named_children(&mut cursor)
        .take_while(|s| s.id() != child.id())
        .collect();
    before
        .iter()
        .enumerate()
        .filter(|(i, _)| !before[i + 1..].iter().any(|s| starts(*s)))
        .any(|(_, s)| gate(*s))
}

/// The program a shell command string starts: its first words (after `VAR=value`
/// assignments), enough to see past a wrapper ([`past_wrappers`]).
pub fn first_words(command: &str) -> Vec<String> {
    command
        .split_whitespace()
        .skip_while(|w| w.contains('=') && !w.starts_with('-'))
        .map(|w| w.trim_matches(|c| c == '"' || c == '\'').to_string())
        .take(6)
        .collect()
}

/// A command line from its program on, past the wrappers that run the rest of it in
/// the same process group (`nohup claude`, `env A=1 claude`, `sudo -u agent claude`,
/// `nice -n 10 claude`, `taskset -c 0-3 claude`, `chrt -f 10 claude`, `timeout
/// --foreground 60 claude`: the shell rule's `transparent` list, its options and
/// positional arguments, [`wrapped_command`]). A wrapper that runs nothing (`command -v
/// claude`, `taskset -p 0x3 700`): no words.
pub fn past_wrappers(words: &[String], rules: &super::rules::Rules) -> Vec<String> {
    let mut words = std::borrow::Cow::Borrowed(words);
    let mut splits = 0;
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let name = word.rsplit('/').next().unwrap_or(word).to_string();
        if !keeps_group(&words[i + 1..], &name, rules) {
            break;
        }
        match wrapped_command(&words, i + 1, &name, rules, &mut splits) {
            Wrapped::At(at) => i = at,
            Wrapped::Split(line) => {
                words = std::borrow::Cow::Owned(line);
                i = 0;
            }
            Wrapped::Nothing => return Vec::new(),
        }
    }
    words.get(i..).map(<[String]>::to_vec).unwrap_or_default()
}

/// Does the wrapper `name`, given the words after it, run its command in the caller's
/// process group: one of the `transparent` list, or a group-making wrapper told not to
/// (`timeout --foreground`).
fn keeps_group(after: &[String], name: &str, rules: &super::rules::Rules) -> bool {
    let shell = &rules.shell;
    shell.transparent.iter().any(|t| t == name)
        || shell
            .cleanup_unless
            .get(name)
            .is_some_and(|unless| after.iter().any(|w| unless.contains(w)))
}

/// How many split strings (`env -S STRING`) one command line is read through: each
/// copies the rest of the line, so past these a hostile `env -S env -S env ...` has its
/// strings skipped as plain option values.
pub const MAX_SPLITS: usize = 16;

/// Where a wrapper's command starts.
#[derive(Debug, PartialEq, Eq)]
pub enum Wrapped {
    /// At this index of the words.
    At(usize),
    /// `env -S 'claude -p hi' ...`: the split string's words, then the rest, are the
    /// command line.
    Split(Vec<String>),
    /// An option of the wrapper runs no command (`command -v`, `taskset -p`).
    Nothing,
}

/// Where the command of `wrapper` starts, reading its options from `words[start..]`:
/// past its flags (short ones clustered, `-fo L`), the options that take a value
/// (`value_options`; `-oL`, `--output=L` and `--output L` alike), `env`'s assignments,
/// and the positional arguments it takes before the command (`positional`: `taskset`'s
/// mask, `chrt`'s priority, `timeout`'s duration). `splits` counts the split strings
/// read for the whole command line, up to [`MAX_SPLITS`].
pub fn wrapped_command(
    words: &[String],
    start: usize,
    wrapper: &str,
    rules: &super::rules::Rules,
    splits: &mut usize,
) -> Wrapped {
    let shell = &rules.shell;
    let none = Vec::new();
    let values = shell.value_options.get(wrapper).unwrap_or(&none);
    let nothing = shell.no_command.get(wrapper).unwrap_or(&none);
    let split_options = shell.split_options.get(wrapper).unwrap_or(&none);
    let mut words = std::borrow::Cow::Borrowed(words);
    let mut split = false;
    let mut i = start;
    while let Some(word) = words.get(i) {
        if word == "--" {
            i += 1;
            break;
        }
        if !word.starts_with('-') {
            if wrapper == "env" && word.contains('=') {
                i += 1;
                continue;
            }
            break;
        }
        let (option, value, taken) = option_value(word, words.get(i + 1), values, nothing);
        if nothing.contains(&option) {
            return Wrapped::Nothing;
        }
        if split_options.contains(&option) && *splits < MAX_SPLITS {
            // The split words are read as the wrapper's own arguments again (`env -S
            // 'A=1 claude'` sets A and runs claude).
            let mut line: Vec<String> = value
                .unwrap_or_default()
                .split_whitespace()
                .map(|w| w.trim_matches(|c| c == '"' || c == '\'').to_string())
                .collect();
            line.extend(words.iter().skip(i + taken).cloned());
            words = std::borrow::Cow::Owned(line);
            *splits += 1;
            split = true;
            i = 0;
            continue;
        }
        i += taken;
    }
    let at = i + shell.positional.get(wrapper).copied().unwrap_or(0);
    if split {
        Wrapped::Split(words.get(at..).map(<[String]>::to_vec).unwrap_or_default())
    } else {
        Wrapped::At(at)
    }
}

/// The option a word names (`-o` of `-oL`, `--output` of `--output=L`; in a cluster of
/// flags `-fp`, the first that runs nothing or takes a value decides), its value if it
/// takes one (attached, or the next word), and how many words it spans.
fn option_value(
    word: &str,
    next: Option<&String>,
    values: &[String],
    nothing: &[String],
) -> (String, Option<String>, usize) {
    if let Some(long) = word.strip_prefix("--") {
        return match long.split_once('=') {
            Some((name, value)) => (format!("--{name}"), Some(value.to_string()), 1),
            None if values.iter().any(|v| v == word) => (word.to_string(), next.cloned(), 2),
            None => (word.to_string(), None, 1),
        };
    }
    let letters = &word[1..];
    for (at, letter) in letters.char_indices() {
        let option = format!("-{letter}");
        if nothing.contains(&option) {
            return (option, None, 1);
        }
        if values.contains(&option) {
            let attached = &letters[at + letter.len_utf8()..];
            return if attached.is_empty() {
                (option, next.cloned(), 2)
            } else {
                (option, Some(attached.to_string()), 1)
            };
        }
    }
    (word.to_string(), None, 1)
}

/// A callee's dotted name (`sp.run`, `cp.spawn`) with its first part replaced by what
/// the imports bound it to (`subprocess.run`, `child_process.spawn`).
pub fn resolve_dotted(callee: &str, aliases: &std::collections::HashMap<String, String>) -> String {
    let name: String = callee.chars().filter(|c| !c.is_whitespace()).collect();
    let (first, rest) = name.split_once('.').unwrap_or((name.as_str(), ""));
    match aliases.get(first) {
        Some(real) if rest.is_empty() => real.clone(),
        Some(real) => format!("{real}.{rest}"),
        None => name,
    }
}

/// Of several candidate command lines (the values a variable was assigned, the sides
/// of an `or`), the first that runs an agent, else the first (recall over precision).
pub fn pick_agent(candidates: Vec<Vec<String>>, rules: &super::rules::Rules) -> Vec<String> {
    let agent = candidates
        .iter()
        .position(|w| w.first().is_some_and(|p| rules.agent(p).is_some()));
    candidates
        .into_iter()
        .nth(agent.unwrap_or(0))
        .unwrap_or_default()
}

/// The evaluation budget of one spawn's program: how many values it may be built from.
/// Constants that repeat each other (`X = f"{X}{X}"`, line after line) are given up on
/// when it runs out, not followed for ever; each spawn starts with a full budget.
pub struct Steps(std::cell::Cell<usize>);

impl Default for Steps {
    fn default() -> Self {
        Steps::new()
    }
}

impl Steps {
    /// How many values one spawn's program may be built from.
    const BUDGET: usize = 4096;

    pub fn new() -> Steps {
        Steps(std::cell::Cell::new(Self::BUDGET))
    }

    /// A full budget again, for the next spawn.
    pub fn reset(&self) {
        self.0.set(Self::BUDGET);
    }

    /// Take one step, if any is left.
    pub fn take(&self) -> bool {
        let left = self.0.get();
        self.0.set(left.saturating_sub(1));
        left > 0
    }
}

/// Which spawn a kill belongs to, when a function starts several: a kill that names
/// another spawn's handle (`os.killpg(a.pid, ...)` beside `b = Popen(...)`, `pgid =
/// os.getpgid(a.pid)`, `this.other.kill()`) ends that child, not this one. A kill that
/// names neither (a parameter, a loop variable, a pgid from elsewhere) still counts for
/// every spawn: which pid a kill names is otherwise not checked.
#[derive(Clone, Debug, Default)]
pub struct Tie {
    /// The handle this spawn's child is bound to (`proc`, `self.proc`, `this.child`).
    pub own: Option<String>,
    /// The handles of the other spawns (and the names derived from them), each with the
    /// byte range of the code where that name means that child.
    pub others: Vec<(String, usize, usize)>,
}

impl Tie {
    /// Follow the other spawns' handles through `scope`'s bindings, two steps deep: a
    /// name bound (a `kind` node, its `left`/`right` fields: Python's `assignment`
    /// `left`/`right`, JavaScript's `variable_declarator` `name`/`value`) to a value
    /// naming another spawn's child (`pgid = os.getpgid(a.pid)`) names that child too.
    pub fn derive(&mut self, scope: Node, src: &str, kind: &str, left: &str, right: &str) {
        for _ in 0..2 {
            if self.others.is_empty() {
                break;
            }
            let mut derived = Vec::new();
            walk(scope, &mut |n| {
                if n.kind() == kind
                    && let (Some(l), Some(r)) =
                        (n.child_by_field_name(left), n.child_by_field_name(right))
                    && l.kind() == "identifier"
                    && !self.others.iter().any(|(h, _, _)| h == text(l, src))
                    && self.foreign(r.byte_range(), text(r, src))
                {
                    derived.push((
                        text(l, src).to_string(),
                        scope.start_byte(),
                        scope.end_byte(),
                    ));
                }
            });
            if derived.is_empty() {
                break;
            }
            self.others.extend(derived);
        }
    }

    /// Does the kill at `range`, whose target reads `target`, end another spawn's child?
    pub fn foreign(&self, range: std::ops::Range<usize>, target: &str) -> bool {
        !self.own.as_deref().is_some_and(|o| mentions(target, o))
            && self.others.iter().any(|(handle, start, end)| {
                *start <= range.start && range.end <= *end && mentions(target, handle)
            })
    }
}

/// Does `code` name `handle` (`a`, `self.proc`) as a whole: `a.pid` and `-a.pid` do,
/// `data.pid` and `self.proc_b` do not.
pub fn mentions(code: &str, handle: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    code.match_indices(handle).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + handle.len()..].chars().next();
        !before.is_some_and(|c| word(c) || c == '.') && !after.is_some_and(word)
    })
}

/// The agents published as npm packages, by package name: `npx @anthropic-ai/claude-code`
/// runs `claude` under a name that is not its file name.
pub const AGENT_PACKAGES: &[(&str, &str)] = &[
    ("@anthropic-ai/claude-code", "claude"),
    ("@openai/codex", "codex"),
    ("@google/gemini-cli", "gemini"),
    // PyPI: `uvx aider-chat`, `pipx run aider-chat`.
    ("aider-chat", "aider"),
];

/// The agent a package runner starts (`npx -y @anthropic-ai/claude-code -p hi`, `bunx`,
/// `pnpm dlx`, `yarn dlx`, `npm exec`, `bun x`), from a command line past its wrappers:
/// the runner stays in the group, so the agent package is the program. A package given
/// with `-p`/`--package` names it too; a version (`@openai/codex@latest`) is dropped.
/// The Python package runners (`uvx aider-chat`, `uv tool run`, `pipx run`) likewise,
/// their package also given by `--from`/`--spec` (`uvx --from aider-chat aider`), a
/// version or extra (`aider-chat==0.80`, `aider-chat[browser]`) dropped.
pub fn package_agent(words: &[String], rules: &super::rules::Rules) -> Option<String> {
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let second = words.get(1).map(String::as_str);
    let third = words.get(2).map(String::as_str);
    let (start, python) = match (name, second, third) {
        ("npx" | "bunx" | "pnpx", _, _) => (1, false),
        ("pnpm" | "yarn", Some("dlx"), _) | ("npm", Some("exec"), _) | ("bun", Some("x"), _) => {
            (2, false)
        }
        ("uvx", _, _) => (1, true),
        ("pipx", Some("run"), _) => (2, true),
        ("uv", Some("tool"), Some("run")) => (3, true),
        _ => return python_module_agent(words, rules),
    };
    let package_of = |word: &str| {
        let bare = match word.rfind('@') {
            Some(at) if at > 0 => &word[..at],
            _ => word,
        };
        let bare = match bare.find(['=', '<', '>', '!', '~', '[', ';']) {
            Some(at) if python && at > 0 => &bare[..at],
            _ => bare,
        };
        AGENT_PACKAGES
            .iter()
            .find(|(package, _)| *package == bare)
            .map(|(_, agent)| agent.to_string())
            .or_else(|| rules.agent(bare).map(str::to_string))
    };
    let mut i = start;
    while let Some(word) = words.get(i) {
        if word == "--" {
            i += 1;
            continue;
        }
        if python {
            if let Some(package) = word
                .strip_prefix("--from=")
                .or_else(|| word.strip_prefix("--spec="))
            {
                if let Some(agent) = package_of(package) {
                    return Some(agent);
                }
                i += 1;
            } else if word == "--from" || word == "--spec" {
                if let Some(agent) = words.get(i + 1).and_then(|p| package_of(p)) {
                    return Some(agent);
                }
                i += 2;
            } else if PY_RUNNER_VALUES.contains(&word.as_str()) {
                i += 2;
            } else if word.starts_with('-') {
                i += 1;
            } else {
                return package_of(word);
            }
            continue;
        }
        if let Some(package) = word.strip_prefix("--package=") {
            if let Some(agent) = package_of(package) {
                return Some(agent);
            }
            i += 1;
        } else if word == "-p" || word == "--package" {
            if let Some(agent) = words.get(i + 1).and_then(|p| package_of(p)) {
                return Some(agent);
            }
            i += 2;
        } else if word.starts_with('-') {
            i += 1;
        } else {
            return package_of(word);
        }
    }
    None
}

/// The agent a whole argv runs (program and arguments as words, an unknown value as a
/// word that is no option and no agent): past the wrappers in front of it
/// ([`past_wrappers`]: `sudo -u agent claude`, `env A=1 claude`), or a command of the
/// script of a shell it runs (`sh -c "cd /w && claude -p hi"`, `-lc`, `-ec` too), itself
/// looked at past its wrappers, or of `su`'s `-c`/`--command` (`su agent -c "claude -p
/// hi"`); an agent's npm package run by a package runner (`npx -y
/// @anthropic-ai/claude-code`, [`package_agent`]) is that agent, in the argv or the script.
pub fn argv_agent(words: &[String], rules: &super::rules::Rules) -> Option<String> {
    let words = past_wrappers(words, rules);
    let program = words.first()?;
    if let Some(agent) = rules.agent(program) {
        return Some(agent.to_string());
    }
    if let Some(agent) = package_agent(&words, rules) {
        return Some(agent);
    }
    // `su agent -c 'claude -p hi'`: su's user shell runs the command as a script, as a
    // shell's `-c` does.
    if let Some(script) = super::shell::su_script(&words) {
        return super::shell::script_agent(&script, rules);
    }
    let name = program.rsplit('/').next().unwrap_or(program);
    if !rules.shell.shells.iter().any(|s| s == name) {
        return None;
    }
    let at = words
        .iter()
        .skip(1)
        .position(|w| super::shell::is_script_flag(w))?;
    // Checked as a shell script, as every language's `sh -c` is: each of its commands,
    // and none for a session the script kills itself.
    super::shell::script_agent(words.get(at + 2)?, rules)
}

/// Does the text before a word end where a shell default starts it: `${AGENT:-claude}`,
/// and without the colon `${AGENT-claude}`, whose `-` would otherwise join `claude` to
/// the name before it?
pub fn starts_a_default(before: &[u8]) -> bool {
    if before.ends_with(b":-") {
        return true;
    }
    let Some(rest) = before.strip_suffix(b"-") else {
        return false;
    };
    let name_start = rest
        .iter()
        .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .map_or(0, |i| i + 1);
    name_start < rest.len() && rest[..name_start].ends_with(b"${")
}

/// A command line that starts with a wrapper making a session of its own and nothing
/// else (`setsid claude -p hi`, `setsid -w claude`: the shell rule's `session_only`),
/// read from its command on ([`past_wrappers`]): the argv counts as a new session, which
/// still needs a group kill.
pub fn past_session(words: &[String], rules: &super::rules::Rules) -> Option<Vec<String>> {
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if !rules.shell.session_only.iter().any(|s| s == name) {
        return None;
    }
    match wrapped_command(words, 1, name, rules, &mut 0) {
        Wrapped::At(at) => Some(past_wrappers(words.get(at..).unwrap_or_default(), rules)),
        Wrapped::Split(line) => Some(past_wrappers(&line, rules)),
        Wrapped::Nothing => None,
    }
}

/// The statements at the top of the module `root` (not inside a function) that name
/// `name`: a handler registered there without a name of its own (`atexit.register(lambda:
/// ...)`, `process.on('exit', () => ...)`) or a plain statement (`try: main() finally:
/// os.killpg(...)`) holds a child kept in that module variable as a named function would.
pub fn module_statements_naming<'t>(root: Node<'t>, src: &str, name: &str) -> Vec<Node<'t>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|statement| {
            let mut names = false;
            walk(*statement, &mut |n| {
                names |= n.kind() == "identifier" && text(n, src) == name;
            });
            names
        })
        .collect()
}

/// The agent one command line runs as its program, past its wrappers ([`past_wrappers`]):
/// the program itself, or an agent's npm package run by a package runner (`npx -y
/// @anthropic-ai/claude-code -p hi`, [`package_agent`]). No shell script is read.
pub fn command_agent(words: &[String], rules: &super::rules::Rules) -> Option<String> {
    let words = past_wrappers(words, rules);
    rules
        .agent(words.first()?)
        .map(str::to_string)
        .or_else(|| package_agent(&words, rules))
}

/// A condition without its outer parentheses and leading negations (`not`, `!`), and
/// whether an odd number of negations was taken off: `!(child.exitCode === null)` ->
/// (`child.exitCode === null`, true).
pub fn strip_negations(condition: &str) -> (&str, bool) {
    let mut t = condition.trim();
    let mut negated = false;
    loop {
        if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')'))
            && balanced(inner)
        {
            t = inner.trim();
        } else if let Some(rest) = t.strip_prefix("not ").or_else(|| t.strip_prefix('!')) {
            t = rest.trim();
            negated = !negated;
        } else {
            return (t, negated);
        }
    }
}

fn balanced(t: &str) -> bool {
    let mut depth = 0usize;
    for c in t.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return false,
            ')' => depth -= 1,
            _ => {}
        }
    }
    depth == 0
}

/// Which way a condition asking about the leader points: `Some(true)` when it holds
/// while the leader is alive (`p.poll() is None`, `child.exitCode === null`, `kill -0
/// $pid`), `Some(false)` when it holds once the leader has exited (`p.returncode is not
/// None`, `child.exitCode !== null`, `! kill -0 $pid`), `None` when the text does not
/// say (`if p.returncode:`, `a and b`). `bare` is what a question without a comparison
/// means (shell's `kill -0` succeeds while the leader is alive). A caller counts a kill
/// as gated in either branch when the answer is `None`, as before directions were read.
pub fn leader_alive_polarity(condition: &str, bare: Option<bool>) -> Option<bool> {
    let (t, negated) = strip_negations(condition);
    if [" and ", " or ", "&&", "||"].iter().any(|c| t.contains(c)) {
        return None;
    }
    const EXITED: [&str; 6] = [
        "is not None",
        "!= None",
        "!== null",
        "!= null",
        "!== undefined",
        "!= undefined",
    ];
    const ALIVE: [&str; 6] = [
        "is None",
        "== None",
        "=== null",
        "== null",
        "=== undefined",
        "== undefined",
    ];
    let exited = EXITED.iter().any(|m| t.contains(m));
    let rest = EXITED.iter().fold(t.to_string(), |r, m| r.replace(m, " "));
    let alive = ALIVE.iter().any(|m| rest.contains(m));
    let polarity = match (alive, exited) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        (false, false) => bare,
        (true, true) => None,
    };
    polarity.map(|p| p != negated)
}

/// A printf-style template filled in: each `%` followed by one of `conversions` takes the
/// next value (`value(0)`, `value(1)`, ...), `%%` is `%`, anything else stays as written.
pub fn fill_percent(
    template: &str,
    conversions: &[char],
    mut value: impl FnMut(usize) -> String,
) -> String {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            ('%', Some(k)) if conversions.contains(k) => {
                chars.next();
                out.push_str(&value(next));
                next += 1;
            }
            _ => out.push(c),
        }
    }
    out
}

/// Options of the Python package runners (`uvx`, `uv tool run`, `pipx run`) that take a
/// value: the word after them is that value, neither the package nor the command.
const PY_RUNNER_VALUES: &[&str] = &[
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--constraints",
    "-c",
    "--overrides",
    "--build-constraints",
    "-b",
    "--directory",
    "--project",
    "--config-file",
    "--cache-dir",
    "--env-file",
    "--pip-args",
    "--backend",
];

/// How an argv's agent is started, seen from the sessions it makes: as its program (or
/// past wrappers that keep the group), or by `setsid` in front of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Through {
    /// No session of its own from the argv.
    Plain,
    /// `setsid claude`, `setsid -w claude`: setsid, not a group leader in the child a
    /// spawn starts, calls setsid(2) and execs in place, so the session's id is the
    /// child's pid: the same new session a `Setpgid`/`.process_group(0)` would give,
    /// still to be killed as a group.
    Session,
    /// `setsid -f claude`, `setsid --fork claude`: setsid forks first and its child
    /// makes the session, so the session's id is not the pid the spawn returns, and a
    /// group kill by that pid (`killpg(child.id())`, `Kill(-cmd.Process.Pid)`) reaches
    /// nothing: the agent cannot be killed as a group at all.
    ForkedSession,
}

/// The agent an argv runs and how ([`Through`]): past its wrappers, a `setsid` in front
/// is read past ([`past_session`]) and its command read by `agent_of` (`argv_agent` or
/// `command_agent`); otherwise `agent_of` reads the whole argv.
pub fn agent_through(
    words: &[String],
    rules: &super::rules::Rules,
    agent_of: fn(&[String], &super::rules::Rules) -> Option<String>,
) -> Option<(String, Through)> {
    let past = past_wrappers(words, rules);
    match past_session(&past, rules) {
        Some(command) => {
            let through = if session_forks(&past) {
                Through::ForkedSession
            } else {
                Through::Session
            };
            agent_of(&command, rules).map(|agent| (agent, through))
        }
        None => agent_of(words, rules).map(|agent| (agent, Through::Plain)),
    }
}

/// Does a `setsid` command line (`words[0]` is setsid) fork before making its session:
/// `-f`/`--fork` among its options, alone or in a cluster (`-wf`)?
pub fn session_forks(words: &[String]) -> bool {
    words
        .iter()
        .skip(1)
        .take_while(|w| w.starts_with('-') && *w != "--")
        .any(|w| {
            w == "--fork"
                || (!w.starts_with("--")
                    && w[1..].chars().all(char::is_alphabetic)
                    && w.contains('f'))
        })
}

/// The finding's message and help for an agent started through a `setsid` that forks
/// ([`Through::ForkedSession`], or `setsid` in a child that already leads a group), in
/// the words of one language: `api` starts it, `pid` is what the spawn returns
/// (`proc.pid`), `kill` the group kill by it (`os.killpg(proc.pid, signal.SIGKILL)`),
/// `group` what gave the child a group of its own (`start_new_session=True`), `None`
/// for `--fork`.
pub fn forked_session_finding(
    agent: &str,
    api: &str,
    pid: &str,
    kill: &str,
    group: Option<&str>,
) -> (String, String) {
    let (how, cause, undo) = match group {
        Some(group) => (
            "`setsid` in a child that already leads a process group".to_string(),
            format!("the child leads a group of its own ({group}), so `setsid` forks"),
            format!(
                "drop {group} (setsid then execs in place and the session's id is the child's \
                 pid) or drop `setsid`"
            ),
        ),
        None => (
            "`setsid --fork`".to_string(),
            "`setsid --fork` forks".to_string(),
            "drop `--fork` (setsid then execs in place and the session's id is the child's pid)"
                .to_string(),
        ),
    };
    (
        format!(
            "`{agent}` is started by `{api}` through {how}, in a new session that nothing can kill"
        ),
        format!(
            "{cause} and makes the session in a child of its own, so the session's id is not \
             {pid} and {kill} reaches nothing: {undo}, and kill the group with {kill} on \
             timeout, error and exit"
        ),
    )
}

/// `python -m aider`, `python3.12 -u -m aider.main`: an agent's Python module run by
/// the interpreter is that agent (the module's first part, as an agent's name).
fn python_module_agent(words: &[String], rules: &super::rules::Rules) -> Option<String> {
    let program = words.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    let version = name.strip_prefix("python")?;
    if !version.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let mut rest = words[1..].iter();
    while let Some(word) = rest.next() {
        let module = match word.strip_prefix("-m") {
            Some("") => rest.next()?.as_str(),
            Some(attached) => attached,
            // `-c CODE` runs code, `-W arg`/`-X opt` take a value; `python file.py` a file.
            None if matches!(word.as_str(), "-c") || !word.starts_with('-') => return None,
            None if matches!(word.as_str(), "-W" | "-X") => {
                rest.next();
                continue;
            }
            None => continue,
        };
        let first = module.split('.').next().unwrap_or(module);
        return rules.agent(first).map(str::to_string);
    }
    None
}

/// A placeholder of a brace template (Python's `str.format`, Rust's `format!`): `{}` is
/// the next positional value, `{0}` the one at that index, `{bin}` the one named so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BraceField<'a> {
    Index(usize),
    Name(&'a str),
}

/// A brace template filled in (`"cd /r && {} -p".format(AGENT)`): each placeholder by
/// `value`, its conversion and spec after `!` or `:` dropped; `{{`/`}}` are the braces
/// they escape; a placeholder whose value is out of reach (`value` gives `None`) stays
/// as written, a word that is no agent.
pub fn fill_braces(
    template: &str,
    mut value: impl FnMut(BraceField<'_>) -> Option<String>,
) -> String {
    let mut out = String::new();
    let mut next = 0;
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        let Some(end) = tail.find('}').filter(|_| tail.starts_with('{')) else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
            continue;
        };
        let field = tail[1..end].split([':', '!']).next().unwrap_or("").trim();
        let field = if field.is_empty() {
            next += 1;
            BraceField::Index(next - 1)
        } else if let Ok(index) = field.parse::<usize>() {
            BraceField::Index(index)
        } else {
            BraceField::Name(field)
        };
        match value(field) {
            Some(filled) => out.push_str(&filled),
            None => out.push_str(&tail[..=end]),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}
