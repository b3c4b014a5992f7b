//! Shell scripts: an agent run without `setsid`, `timeout` (which signals the whole
//! group unless `--foreground`) or `fleet run` in front; `setsid` only with a group kill
//! (`kill -- -$pid`) in reach of it ([`Script::ending`]: its function or the top level,
//! the traps and functions it calls, the scopes of the same run, never another function
//! that starts a session of its own). Parsed with tree-sitter-bash; a program held in a
//! variable assigned in the script (`CLAUDE=claude`, `BIN=$(command -v claude)`,
//! `CMD=(codex exec)`) is followed.

use std::collections::HashMap;

use tree_sitter::Node;

use super::rules::Rules;
use super::syntax::{self, Checked, raw_at, text};

/// The text the bash grammar is given: every non-ASCII byte replaced by `x`.
///
/// tree-sitter-bash 0.25's external scanner calls `isdigit()` on Unicode code points,
/// which is undefined above 255 and crashed on fuzzed input (`{` followed by a wide
/// character). Agent names and shell syntax are ASCII, and byte offsets are unchanged,
/// so positions still point into the real text.
fn ascii_only(src: &str) -> String {
    let bytes: Vec<u8> = src
        .bytes()
        .map(|b| if b.is_ascii() { b } else { b'x' })
        .collect();
    String::from_utf8(bytes).unwrap_or_default()
}

pub fn check(original: &str, rules: &Rules) -> Checked {
    let ascii = ascii_only(original);
    let src = ascii.as_str();
    let tree = match syntax::parse_bounded(tree_sitter_bash::LANGUAGE.into(), src, "shell") {
        Ok(tree) => tree,
        Err(checked) => return checked,
    };
    let root = tree.root_node();
    let mut variables: HashMap<String, Vec<String>> = HashMap::new();
    assigned_variables(root, src, &mut variables);
    let mut functions: HashMap<String, Node> = HashMap::new();
    syntax::walk(root, &mut |node| {
        if node.kind() == "function_definition"
            && let Some(name) = node.child_by_field_name("name")
        {
            functions.insert(text(name, src).into(), node);
        }
    });
    let script = Script {
        src,
        rules,
        root,
        functions,
        graph: std::cell::OnceCell::new(),
    };
    let mut endings: HashMap<usize, Ending> = HashMap::new();
    // `set -m` (`set -o monitor`): job control, each background job in a group of its own.
    // At the top of the script it holds for the whole script, in a function for that
    // function (by id).
    let mut monitor: Vec<Option<usize>> = Vec::new();
    syntax::walk(root, &mut |node| {
        if node.kind() == "command" {
            let words = command_words(node, src);
            if words.first().is_some_and(|w| w == "set")
                && (words.iter().any(|w| w == "-m")
                    || words.windows(2).any(|p| p[0] == "-o" && p[1] == "monitor"))
            {
                monitor.push(function_of(node));
            }
        }
    });
    let mut findings = Vec::new();
    syntax::walk(root, &mut |node| {
        if node.kind() != "command" {
            return;
        }
        let words = split_words(node, src, rules, &variables);
        // A coprocess runs asynchronously, like a `&` job.
        let coproc = words.first().is_some_and(|w| w == "coproc");
        let statement = background_job(node).or(coproc.then_some(node));
        let found = unguarded_agent(&words, rules, &variables)
            .or_else(|| script_of_command(node, &words, src, rules, &variables));
        let monitored = monitor.contains(&None) || monitor.contains(&function_of(node));
        // A background job under job control: a process group of its own, no session.
        let job = matches!(found, Some(Run::Bare(_))) && statement.is_some() && monitored;
        let run = match found {
            Some(Run::Bare(agent)) if job => Some(Run::Session(agent)),
            other => other,
        };
        if run.is_none() {
            return;
        }
        let leads_group = monitored && statement.is_some_and(|s| s == node || leads_job(node, s));
        if let Some(raw) = forked_session(node, original, &words, rules, &variables, leads_group) {
            findings.push(raw);
            return;
        }
        let scope = function_node(node).unwrap_or(root);
        let ending = if let Some(statement) = statement.filter(|_| job) {
            script.job_ending(scope, &job_text(statement, src))
        } else {
            *endings
                .entry(scope.id())
                .or_insert_with(|| script.ending(scope))
        };
        let (started, half) = if job {
            (
                "as a job in a process group of its own (`set -m`)",
                "job control",
            )
        } else {
            ("in a new session", "`setsid`")
        };
        let (message, help) = match run {
            None => return,
            Some(Run::Bare(agent)) => (
                format!("`{agent}` is run without a process group of its own"),
                format!(
                    "{}run it as `setsid {agent} ...` and kill the group (`kill -- -$pid`), or \
                     `timeout DUR {agent} ...` (it signals the whole group), or `fleet run \
                     --timeout DUR -- {agent} ...`",
                    if ending == Ending::LeaderOnly {
                        "`kill $pid` signals the leader alone: "
                    } else {
                        ""
                    }
                ),
            ),
            Some(Run::Session(agent)) => match ending {
                Ending::Killed => return,
                Ending::Gated => (
                    format!(
                        "`{agent}` is run {started} whose group is killed only while the leader \
                         is alive"
                    ),
                    "the group kill is gated on the leader (`kill -0 $pid`): when it exits \
                     first, its helpers survive. Kill the group unconditionally (`kill -- \
                     -$pid 2>/dev/null`), e.g. in `trap ... EXIT`"
                        .to_string(),
                ),
                Ending::LeaderOnly => (
                    format!("`{agent}` is run {started}, but only the leader is killed"),
                    "`kill $pid` signals the leader alone: kill the whole group with `kill -- \
                     -$pid` (on timeout, error and exit: `trap ... EXIT`)"
                        .to_string(),
                ),
                Ending::Nothing => (
                    format!("`{agent}` is run {started}, but nothing kills the group"),
                    format!(
                        "{half} is half the cleanup: kill the group with `kill -- -$pid` in \
                         `trap ... EXIT`, or run `timeout DUR {agent} ...` (it signals its \
                         group), or `fleet run --timeout DUR -- {agent} ...`"
                    ),
                ),
            },
        };
        findings.push(raw_at(
            node.child_by_field_name("name").unwrap_or(node),
            original,
            message,
            help,
        ));
    });
    Checked {
        findings,
        parse_error: syntax::first_error(&tree),
        too_deep: None,
    }
}

/// The statement run as a background job (`... &`) that `command` is part of, in its
/// function: the command itself, or a redirected statement, pipeline, list, `{ ...; }`
/// group, subshell or loop around it (`claude -p x > out.txt &`, `claude -p x | tee out
/// &`, `{ cd /r; claude -p x; } &`). Under `set -m` bash gives the whole job one process
/// group, so every command in it is in that group.
fn background_job(command: Node) -> Option<Node> {
    let mut n = command;
    loop {
        if backgrounded(n) {
            return Some(n);
        }
        n = n.parent().filter(|p| {
            !matches!(
                p.kind(),
                "function_definition" | "program" | "command_substitution" | "process_substitution"
            )
        })?;
    }
}

/// Does `command` lead the process group of the background job `job`: is it the job, or
/// the first command of a pipeline that is (redirections aside)? Bash makes a pipeline's
/// first process the group leader; a `{ ...; }` group or a list runs in a forked shell
/// that leads the group, with its commands as that shell's children.
fn leads_job(command: Node, job: Node) -> bool {
    let mut child = command;
    while child.id() != job.id() {
        let Some(p) = child.parent() else {
            return false;
        };
        let first = match p.kind() {
            "redirected_statement" => p.child_by_field_name("body") == Some(child),
            "pipeline" => p.named_child(0) == Some(child),
            _ => false,
        };
        if !first {
            return false;
        }
        child = p;
    }
    true
}

/// A job's command text as bash keeps it for `jobs` and `%name`: the statement's source,
/// its runs of blanks made one space.
fn job_text(job: Node, src: &str) -> String {
    text(job, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Does the job spec of `kill %...` name the job whose text is `job`? `%1`, `%%`, `%+`
/// and `%-` are taken to (the lint does not number jobs); `%name` names a job whose text
/// starts with `name`, and `%?text` one whose text contains it, as bash matches them.
fn names_job(spec: &str, job: &str) -> bool {
    let Some(spec) = spec.strip_prefix('%') else {
        return false;
    };
    if spec.is_empty()
        || matches!(spec, "%" | "+" | "-")
        || spec.bytes().all(|b| b.is_ascii_digit())
    {
        return true;
    }
    match spec.strip_prefix('?') {
        Some(inside) => job.contains(inside),
        None => job.starts_with(spec),
    }
}

/// The function a command is in (by id), none at the top of the script.
fn function_of(node: Node) -> Option<usize> {
    function_node(node).map(|f| f.id())
}

fn function_node(node: Node) -> Option<Node> {
    let mut n = node.parent();
    while let Some(p) = n {
        if p.kind() == "function_definition" {
            return Some(p);
        }
        n = p.parent();
    }
    None
}

/// The script and its functions by name, for the kills a session reaches.
struct Script<'t, 's> {
    src: &'s str,
    rules: &'s Rules,
    root: Node<'t>,
    functions: HashMap<String, Node<'t>>,
    /// Per scope (the top level, each function, by id): the functions it calls and
    /// whether it starts a session itself; built on the first session met.
    graph: std::cell::OnceCell<HashMap<usize, (Vec<Node<'t>>, bool)>>,
}

impl<'t> Script<'t, '_> {
    /// The commands of a scope: a function's body, or the top level of the script
    /// (outside its functions).
    fn commands(&self, scope: Node<'t>) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let mut stack = vec![scope];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" && n.id() != scope.id() {
                continue;
            }
            if n.kind() == "command" {
                out.push(n);
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        out
    }

    /// The functions of the script a scope calls, directly or from a `trap` it sets.
    fn called(&self, scope: Node<'t>) -> Vec<Node<'t>> {
        let mut names = Vec::new();
        for command in self.commands(scope) {
            let words = command_words(command, self.src);
            match words.first().map(String::as_str) {
                Some("trap") => {
                    if let Some(handler) = words.get(1) {
                        let handler = ascii_only(handler);
                        if let Ok(tree) = syntax::parse_bounded(
                            tree_sitter_bash::LANGUAGE.into(),
                            &handler,
                            "shell",
                        ) {
                            syntax::walk(tree.root_node(), &mut |n| {
                                if n.kind() == "command"
                                    && let Some(first) = command_words(n, &handler).first()
                                {
                                    names.push(first.clone());
                                }
                            });
                        }
                    }
                }
                Some(name) => names.push(name.to_string()),
                None => {}
            }
        }
        names
            .iter()
            .filter_map(|n| self.functions.get(n).copied())
            .collect()
    }

    /// Does the scope start a session of its own (`setsid ...`)?
    fn starts_session(&self, scope: Node<'t>) -> bool {
        self.commands(scope).iter().any(|c| {
            command_words(*c, self.src)
                .iter()
                .any(|w| self.rules.shell.session_only.contains(w))
        })
    }

    /// How the script ends a session started in `start` (a function, or the top level):
    /// the kills of `start`, of the traps it sets and the functions it calls, and of
    /// the scopes it is part of the same run with (its callers, what they call, and
    /// theirs, transitively), a `trap` handler included. A scope that starts a session
    /// of its own is not entered: its kill is for its own child (`kill -- -$pid` in one
    /// function is not the cleanup of `setsid claude` in an unrelated one).
    fn ending(&self, start: Node<'t>) -> Ending {
        let mut best = Ending::Nothing;
        for scope in self.reached(start) {
            kills_in(&self.commands(scope), self.src, self.rules, &mut best, 0);
        }
        best
    }

    /// The scopes whose kills count for a session started in `start` ([`Self::ending`]).
    fn reached(&self, start: Node<'t>) -> Vec<Node<'t>> {
        let graph = self.graph.get_or_init(|| {
            self.functions
                .values()
                .copied()
                .chain(std::iter::once(self.root))
                .map(|f| (f.id(), (self.called(f), self.starts_session(f))))
                .collect()
        });
        let scopes: Vec<Node> = self
            .functions
            .values()
            .copied()
            .chain(std::iter::once(self.root))
            .collect();
        let mut reached = vec![start];
        let mut i = 0;
        while i < reached.len() {
            let scope = reached[i];
            i += 1;
            let mut next = graph
                .get(&scope.id())
                .map(|g| g.0.clone())
                .unwrap_or_default();
            // Its callers: the top level or functions that call it.
            if scope.id() != self.root.id() {
                next.extend(scopes.iter().copied().filter(|f| {
                    graph
                        .get(&f.id())
                        .is_some_and(|g| g.0.iter().any(|c| c.id() == scope.id()))
                }));
            }
            for n in next {
                let own_session = graph.get(&n.id()).is_some_and(|g| g.1);
                if !own_session && !reached.iter().any(|r| r.id() == n.id()) {
                    reached.push(n);
                }
            }
        }
        reached
    }
}

/// How a command runs an agent: bare (in the script's group), or in a session of its own
/// that the script must also kill.
enum Run {
    Bare(String),
    Session(String),
}

/// How the script ends a session it starts, the best it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Killed,
    Gated,
    LeaderOnly,
    Nothing,
}

/// The kills among `commands` (`trap` strings included): a group kill is a `kill` with
/// a negative target (`-$pid`, `-- -"$pgid"`, `-1234` after `--`).
fn kills_in(commands: &[Node], src: &str, rules: &Rules, best: &mut Ending, depth: usize) {
    for &node in commands {
        if *best == Ending::Killed {
            return;
        }
        let words = command_words(node, src);
        match words.first().map(String::as_str) {
            // `kill -0 $pid` only asks whether it is alive.
            Some("kill") if !words.iter().any(|w| w == "-0") => {
                let mut after_dashes = false;
                let mut group = false;
                let mut target = false;
                for w in &words[1..] {
                    if w == "--" {
                        after_dashes = true;
                        continue;
                    }
                    // `kill 0`, `kill -- 0`: pid 0 is the caller's own group, which a
                    // child started by `setsid` has left: neither the group nor the child.
                    if w == "0" {
                        continue;
                    }
                    let negative = w.starts_with("-$")
                        || (after_dashes && w.starts_with('-'))
                        || (w.starts_with('-') && w[1..].starts_with("\"$"));
                    group |= negative;
                    target |= after_dashes || !w.starts_with('-');
                }
                if group {
                    *best = if gated(node, src, rules) {
                        Ending::Gated
                    } else {
                        Ending::Killed
                    };
                } else if target && *best == Ending::Nothing {
                    *best = Ending::LeaderOnly;
                }
            }
            // `pkill -g PGID`, `pkill --pgroup PGID`: every process of the group.
            Some("pkill")
                if words
                    .iter()
                    .any(|w| w == "-g" || w == "--pgroup" || w.starts_with("--pgroup=")) =>
            {
                *best = if gated(node, src, rules) {
                    Ending::Gated
                } else {
                    Ending::Killed
                };
            }
            Some("trap") if depth < 2 => {
                if let Some(script) = words.get(1) {
                    let script = ascii_only(script);
                    if let Ok(tree) =
                        syntax::parse_bounded(tree_sitter_bash::LANGUAGE.into(), &script, "shell")
                    {
                        let mut commands = Vec::new();
                        syntax::walk(tree.root_node(), &mut |n| {
                            if n.kind() == "command" {
                                commands.push(n);
                            }
                        });
                        kills_in(&commands, &script, rules, best, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Is the kill where the leader is known alive: in the body of `if`/`while kill -0 $pid`,
/// the `else` of `if ! kill -0 $pid`, or after `kill -0 $pid &&`? In `if ! kill -0`, the
/// `else` of `if kill -0`, or after `kill -0 ||` it runs once the leader is gone: not gated.
/// So is a kill after an exit taken once the leader is gone ([`exits_once_gone`]: `if !
/// kill -0 $pid; then return; fi`, `kill -0 $pid || exit`) in its function, as Python's
/// `if p.poll() is not None: return` is; such a check with a background job or `setsid`
/// between it and the kill asks about an earlier process, not the one killed.
fn gated(kill: Node, src: &str, rules: &Rules) -> bool {
    let mut n = kill.parent();
    let mut child = kill;
    // The statements before the kill run first only within its function.
    let mut in_function = true;
    while let Some(p) = n {
        in_function &= p.kind() != "function_definition";
        if in_function && holds_statements(p) {
            let guarded = syntax::gate_before(
                p,
                child,
                |s| starts_process(s, src, rules),
                |s| exits_once_gone(s, src, rules),
            );
            if guarded {
                return true;
            }
        }
        // The kill in an `else`/`elif`, or after `||`, runs when the condition failed.
        let otherwise = match p.kind() {
            "if_statement" => matches!(child.kind(), "else_clause" | "elif_clause"),
            "list" => p.child(1).is_some_and(|o| o.kind() == "||"),
            _ => false,
        };
        let condition = match p.kind() {
            "if_statement" | "while_statement" | "elif_clause" => condition_text(p, src),
            "list" => p
                .named_child(0)
                .filter(|first| first.id() != kill.id() && first.id() != child.id())
                .map(|first| text(first, src).to_string())
                .unwrap_or_default(),
            _ => String::new(),
        };
        if asks_leader(&condition, rules) {
            // `kill -0 $pid` succeeds while the leader is alive; `! kill -0 $pid` once it exited.
            match leader_polarity(&condition) {
                Some(alive) if alive == otherwise => {}
                _ => return true,
            }
        }
        child = p;
        n = p.parent();
    }
    false
}

/// Does a node hold a list of statements run in order (the script, a `{ ...; }` group, a
/// loop's body, a branch of an `if` or `case`, a subshell)?
fn holds_statements(node: Node) -> bool {
    matches!(
        node.kind(),
        "program"
            | "compound_statement"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "subshell"
            | "case_item"
    )
}

/// The condition parts of an `if`, `elif` or `while`.
fn conditions(statement: Node) -> Vec<Node> {
    let mut cursor = statement.walk();
    statement
        .children_by_field_name("condition", &mut cursor)
        .collect()
}

/// The condition of an `if`, `elif` or `while`, its parts joined.
fn condition_text(statement: Node, src: &str) -> String {
    conditions(statement)
        .iter()
        .map(|c| text(*c, src))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Does a condition ask whether the leader is alive (`kill -0 $pid`)?
fn asks_leader(condition: &str, rules: &Rules) -> bool {
    rules
        .leader_alive
        .iter()
        .any(|l| condition.contains(l.as_str()))
}

/// Which way a condition asking about the leader points: `kill -0 $pid` is true while it
/// is alive, `! kill -0 $pid` once it exited ([`syntax::leader_alive_polarity`]).
fn leader_polarity(condition: &str) -> Option<bool> {
    syntax::leader_alive_polarity(condition.trim_end_matches([';', ' ', '\n']), Some(true))
}

/// Is `statement` an exit (`return`, `exit`) taken when the leader may have exited: an
/// `if` asking it whose body returns or exits, not only while it is alive (`if ! kill -0
/// "$pid"; then return 0; fi`), or `kill -0 $pid || exit 0` (`! kill -0 $pid && return`)?
/// A kill after it never runs when the leader exits first. An exit taken while the
/// leader is alive (`if kill -0 $pid; then return; fi`) leaves the kill for after it
/// exited, and is no gate.
fn exits_once_gone(statement: Node, src: &str, rules: &Rules) -> bool {
    let exits = |n: Node| match n.kind() {
        "command" => is_exit(n, src),
        "compound_statement" => {
            let mut cursor = n.walk();
            n.named_children(&mut cursor).any(|c| is_exit(c, src))
        }
        _ => false,
    };
    match statement.kind() {
        "if_statement" => {
            let condition = condition_text(statement, src);
            let asked: Vec<usize> = conditions(statement).iter().map(|c| c.id()).collect();
            let mut cursor = statement.walk();
            let returns = statement.named_children(&mut cursor).any(|c| {
                !asked.contains(&c.id())
                    && !matches!(c.kind(), "elif_clause" | "else_clause")
                    && exits(c)
            });
            returns && asks_leader(&condition, rules) && leader_polarity(&condition) != Some(true)
        }
        "list" => {
            let (Some(question), Some(operator), Some(exit)) = (
                statement.named_child(0),
                statement.child(1),
                statement.named_child(1),
            ) else {
                return false;
            };
            let question = text(question, src);
            // After `||` the exit is taken when the question failed.
            let when = match operator.kind() {
                "||" => leader_polarity(question).map(|alive| !alive),
                "&&" => leader_polarity(question),
                _ => return false,
            };
            exits(exit) && asks_leader(question, rules) && when != Some(true)
        }
        _ => false,
    }
}

/// Is `node` a `return` or an `exit` command?
fn is_exit(node: Node, src: &str) -> bool {
    node.kind() == "command"
        && command_words(node, src)
            .first()
            .is_some_and(|w| w == "return" || w == "exit")
}

/// Does `statement` start a process whose pid a later `kill -0` may ask about: a
/// background job (`... &`), a coprocess or a `setsid`?
fn starts_process(statement: Node, src: &str, rules: &Rules) -> bool {
    let mut found = false;
    syntax::walk(statement, &mut |n| {
        found |= backgrounded(n)
            || (n.kind() == "command"
                && command_words(n, src).iter().enumerate().any(|(i, w)| {
                    (i == 0 && w == "coproc") || rules.shell.session_only.contains(w)
                }));
    });
    found
}

/// Is `node` run in the background: followed by `&`?
fn backgrounded(node: Node) -> bool {
    node.next_sibling().is_some_and(|s| s.kind() == "&")
}

/// The command's words: its name, then its arguments, quotes removed.
fn command_words(node: Node, src: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "command_name"
            | "word"
            | "string"
            | "raw_string"
            | "ansi_c_string"
            | "simple_expansion"
            | "expansion"
            | "concatenation"
            | "command_substitution"
            | "number" => {
                words.push(word_text(child, src));
            }
            _ => {}
        }
    }
    words
}

/// The command's words as the shell splits them: an unquoted `$W` of `W="nohup claude"`
/// and an array `"${X[@]}"` of `X=(env A=1 codex exec)` stand for all their words, so a
/// wrapper and the agent it runs may come from different pieces. A quoted `"$W"` is one
/// word, and a value of one word is left to [`resolve`] (defaults, `$(command -v ...)`).
fn split_words(
    node: Node,
    src: &str,
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Vec<String> {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        let piece = match child.kind() {
            "command_name" => child.named_child(0).unwrap_or(child),
            _ => child,
        };
        let inner = match piece.kind() {
            "simple_expansion" | "expansion" => Some(piece),
            "string" => {
                let mut cursor = piece.walk();
                let parts: Vec<Node> = piece.named_children(&mut cursor).collect();
                match parts.as_slice() {
                    [only]
                        if only.kind() == "expansion" && array_name(text(*only, src)).is_some() =>
                    {
                        Some(*only)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let split = inner
            .filter(|n| matches!(n.kind(), "simple_expansion" | "expansion"))
            .and_then(|n| expanded(text(n, src), rules, variables));
        match split {
            Some(split) => words.extend(split),
            None => words.extend(command_words_of(child, src)),
        }
    }
    words
}

/// The words of one child of a command, as [`command_words`] reads them.
fn command_words_of(child: Node, src: &str) -> Vec<String> {
    match child.kind() {
        "command_name"
        | "word"
        | "string"
        | "raw_string"
        | "ansi_c_string"
        | "simple_expansion"
        | "expansion"
        | "concatenation"
        | "command_substitution"
        | "number" => {
            vec![word_text(child, src)]
        }
        _ => Vec::new(),
    }
}

/// `X` of `${X[@]}` / `${X[*]}`.
fn array_name(expansion: &str) -> Option<&str> {
    let inner = expansion.strip_prefix("${")?.strip_suffix('}')?;
    inner
        .strip_suffix("[@]")
        .or_else(|| inner.strip_suffix("[*]"))
        .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// The words `$W`, `${W}` or `${X[@]}` splits into when the script assigns it a value of
/// several words (one that runs an agent past its wrappers first, else the latest).
fn expanded(
    expansion: &str,
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Option<Vec<String>> {
    let (name, array) = match array_name(expansion) {
        Some(name) => (name, true),
        None => {
            let name = expansion.strip_prefix('$')?;
            let name = name
                .strip_prefix('{')
                .and_then(|n| n.strip_suffix('}'))
                .unwrap_or(name);
            (name, false)
        }
    };
    if !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let candidates: Vec<Vec<String>> = variables
        .get(name)?
        .iter()
        .rev()
        .filter_map(|value| {
            let value = match value.strip_prefix('(').and_then(|v| v.strip_suffix(')')) {
                Some(items) if array => items.to_string(),
                Some(_) => return None,
                None if array => return None,
                None => unquote(value),
            };
            // A substitution or an expansion with a default (`$(command -v claude)`,
            // `${AGENT:-claude -p}`) is not split here: [`resolve`] reads those whole.
            if value.contains("$(") || value.contains("${") || value.contains('`') {
                return None;
            }
            let words: Vec<String> = value.split_whitespace().map(unquote).collect();
            (words.len() > 1).then_some(words)
        })
        .collect();
    let runs_agent = |w: &Vec<String>| {
        syntax::past_wrappers(w, rules)
            .first()
            .is_some_and(|p| rules.agent(p).is_some())
    };
    let at = candidates.iter().position(runs_agent).unwrap_or(0);
    candidates.into_iter().nth(at)
}

fn unquote(word: &str) -> String {
    word.trim_matches(|c| c == '"' || c == '\'').to_string()
}

/// The agent this command runs with no group of its own, looking through wrappers that
/// keep the group (`nohup`, `env`, `sudo -u x`, ...), into `bash -c '...'` scripts, and
/// stopping at ones that make a group (`setsid`, `timeout`, `fleet run`).
fn unguarded_agent(
    words: &[String],
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Option<Run> {
    let shell = &rules.shell;
    let mut words = std::borrow::Cow::Borrowed(words);
    let mut splits = 0;
    let mut i = 0;
    while i < words.len() {
        let word = resolve(&words[i], variables, rules);
        let name = word.rsplit('/').next().unwrap_or(&word).to_string();
        let next = words.get(i + 1).map(String::as_str);
        if name == "fleet" && next == Some("run") {
            return None;
        }
        // `coproc claude ...`, `coproc NAME { claude ...; }`: bash runs the command in a
        // subshell of this script's group. tree-sitter-bash has no coproc: it reads the
        // keyword as a command, and the brace and the group's first command as its words.
        if name == "coproc" {
            let brace = |at: usize| words.get(at).is_some_and(|w| w == "{");
            i += if brace(i + 1) {
                2
            } else if brace(i + 2) {
                3
            } else {
                1
            };
            continue;
        }
        if shell.shells.contains(&name) {
            let script = words[i + 1..]
                .iter()
                .position(|w| is_script_flag(w))
                .and_then(|c| words.get(i + 2 + c));
            return script.and_then(|s| agent_in_script(s, rules, variables));
        }
        // `setsid su agent -c '...'`, `nohup su - agent -c '...'`: su after wrappers runs
        // its command as a script, as it does first on the line.
        if name == "su" {
            let mut rest = words[i..].to_vec();
            rest[0] = word;
            return su_script(&rest).and_then(|s| agent_in_script(&s, rules, variables));
        }
        let wrapper = shell.session_only.contains(&name)
            || shell.cleanup.contains(&name)
            || shell.transparent.contains(&name);
        if !wrapper {
            if let Some(agent) = rules.agent(&word) {
                return Some(Run::Bare(agent.to_string()));
            }
            let mut rest = words[i..].to_vec();
            rest[0] = word;
            return syntax::package_agent(&rest, rules).map(Run::Bare);
        }
        let after = &words[i + 1..];
        let signals_group = shell.cleanup.contains(&name)
            && !shell
                .cleanup_unless
                .get(&name)
                .is_some_and(|unless| after.iter().any(|w| unless.contains(w)));
        // `command -v claude`, `taskset -p 0x3 700`: a look-up or a running process.
        let (at, split) = match syntax::wrapped_command(&words, i + 1, &name, rules, &mut splits) {
            syntax::Wrapped::Nothing => return None,
            syntax::Wrapped::At(at) => (at, None),
            syntax::Wrapped::Split(line) => (0, Some(line)),
        };
        if let Some(line) = split {
            words = std::borrow::Cow::Owned(line);
        }
        let rest = words.get(at..).unwrap_or_default();
        if shell.session_only.contains(&name) {
            return match unguarded_agent(rest, rules, variables) {
                Some(Run::Bare(agent) | Run::Session(agent)) => Some(Run::Session(agent)),
                None => None,
            };
        }
        if signals_group {
            // `timeout 60 setsid claude`: the session leaves timeout's group, which is
            // all timeout signals; that session still needs its own kill.
            return match unguarded_agent(rest, rules, variables) {
                Some(Run::Session(agent)) => Some(Run::Session(agent)),
                _ => None,
            };
        }
        i = at;
    }
    None
}

/// `-c`, or `-c` among other one-letter flags (`-lc`, `-ec`, `-xc`): the shell's next
/// argument is a script.
pub(super) fn is_script_flag(word: &str) -> bool {
    word.strip_prefix('-')
        .is_some_and(|f| f.contains('c') && f.chars().all(|c| c.is_ascii_alphabetic()))
}

/// The agent a `sh -c` script given to another language's spawn runs without a group
/// of its own (`subprocess.run(["bash", "-c", "claude -p hi"])`).
pub(super) fn script_agent(script: &str, rules: &Rules) -> Option<String> {
    match agent_in_script(script, rules, &HashMap::new())? {
        Run::Bare(agent) | Run::Session(agent) => Some(agent),
    }
}

/// The first agent a `sh -c` script runs without a group of its own, bare or in a new
/// session, whatever the script does with it ([`agent_in_script`] asks that too).
fn first_run(script: &str, rules: &Rules, variables: &HashMap<String, Vec<String>>) -> Option<Run> {
    let depth = FIRST_RUN_DEPTH.with(std::cell::Cell::get);
    if depth >= MAX_NESTED_SCRIPTS {
        return None;
    }
    FIRST_RUN_DEPTH.with(|d| d.set(depth + 1));
    let found = first_run_in(script, rules, variables);
    FIRST_RUN_DEPTH.with(|d| d.set(depth));
    found
}

/// A `$VAR`/`${VAR}`/`${VAR:-default}`/`${VAR-default}` word replaced by what the script assigns to it
/// (or its default): an agent name, or the name inside `$(command -v NAME)`.
fn resolve(word: &str, variables: &HashMap<String, Vec<String>>, rules: &Rules) -> String {
    resolve_depth(word, variables, rules, 0)
}

fn resolve_depth(
    word: &str,
    variables: &HashMap<String, Vec<String>>,
    rules: &Rules,
    depth: usize,
) -> String {
    if depth > 4 || !word.starts_with('$') {
        return word.to_string();
    }
    if word.starts_with("$(") {
        return substitution_program(word).unwrap_or_else(|| word.to_string());
    }
    let inner = word
        .trim_start_matches('$')
        .trim_start_matches('{')
        .trim_end_matches('}');
    // `${CMD[@]}`, `${CMD[0]}`: the array's first word.
    let inner = match inner.split_once('[') {
        Some((array, rest)) if rest.ends_with(']') || rest.contains("]") => array,
        _ => inner,
    };
    // `${VAR:-x}`, `${VAR:=x}`, and without the colon `${VAR-x}`, `${VAR=x}` (the default
    // only when unset): the default is a candidate.
    let (name, default) = match inner.split_once(":-").or_else(|| inner.split_once(":=")) {
        Some((n, d)) => (n, Some(unquote(d))),
        None if word.starts_with("${") => {
            let end = inner
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(inner.len());
            match inner[end..].chars().next() {
                Some('-' | '=') => (&inner[..end], Some(unquote(&inner[end + 1..]))),
                _ => (inner, None),
            }
        }
        None => (inner, None),
    };
    let mut candidates: Vec<String> = variables.get(name).cloned().unwrap_or_default();
    candidates.reverse();
    candidates.extend(default);
    let programs: Vec<String> = candidates
        .iter()
        .map(|value| {
            let value = unquote(value);
            if let Some(p) = substitution_program(&value) {
                return p;
            }
            // `CMD=(claude -p)`, `AGENT="claude --model opus"`: the first word is the
            // program (word splitting of `$AGENT`, an array's first element).
            let value = value
                .strip_prefix('(')
                .and_then(|v| v.strip_suffix(')'))
                .unwrap_or(&value);
            let value = value.split_whitespace().next().unwrap_or("");
            let value = unquote(value);
            // `BIN="$DIR/claude"`: the file name is what names the program.
            if value.starts_with('$') && value.contains('/') && !value.ends_with('}') {
                return value;
            }
            if value.starts_with('$') && value != word {
                resolve_depth(&value, variables, rules, depth + 1)
            } else {
                value
            }
        })
        .filter(|p| !p.starts_with('$') || p.contains('/'))
        .collect();
    // Any assignment or default that names an agent counts (recall over precision).
    programs
        .iter()
        .find(|p| rules.agent(p).is_some())
        .or(programs.first())
        .cloned()
        .unwrap_or_else(|| word.to_string())
}

/// `$(command -v claude)`, `$(which claude)` -> `claude`.
fn substitution_program(value: &str) -> Option<String> {
    let inner = value.strip_prefix("$(")?.strip_suffix(')')?;
    let words: Vec<&str> = inner.split_whitespace().collect();
    match words.as_slice() {
        ["command", "-v", name] | ["which", name] | ["type", "-P", name] => Some(unquote(name)),
        _ => None,
    }
}

/// The first agent a `sh -c` script runs without a group of its own ([`first_run`]);
/// none when that agent runs in a session the script itself kills
/// ([`owns_its_sessions`]): `bash -c 'setsid claude -p x & pid=$!; ...; kill -- -$pid'`
/// needs no group from whatever starts the shell.
fn agent_in_script(
    script: &str,
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Option<Run> {
    let found = first_run(script, rules, variables);
    if matches!(found, Some(Run::Session(_))) && owns_its_sessions(script, rules) {
        return None;
    }
    found
}

/// How many `sh -c` scripts inside each other are checked as scripts of their own
/// ([`owns_its_sessions`]); past this one is taken not to kill its sessions.
const MAX_NESTED_SCRIPTS: usize = 4;

thread_local! {
    static NESTED_SCRIPTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Is a `sh -c` script compliant on its own: it starts its agent in a session it sees
/// without the caller's variables (`setsid claude`, not `setsid $AGENT`), and checked as
/// a shell script ([`check`]) it has no finding and parses, so every session it starts
/// is killed as a group inside it?
pub(super) fn owns_its_sessions(script: &str, rules: &Rules) -> bool {
    let depth = NESTED_SCRIPTS.with(std::cell::Cell::get);
    if depth >= MAX_NESTED_SCRIPTS
        || !matches!(
            first_run(script, rules, &HashMap::new()),
            Some(Run::Session(_))
        )
    {
        return false;
    }
    NESTED_SCRIPTS.with(|d| d.set(depth + 1));
    let checked = check(script, rules);
    NESTED_SCRIPTS.with(|d| d.set(depth));
    checked.findings.is_empty() && checked.parse_error.is_none() && checked.too_deep.is_none()
}

/// Run `f` with every `sh -c` script taken as not killing its own sessions: under a
/// call that kills the shell with SIGKILL (Python's `subprocess.run` on timeout and
/// Ctrl-C) the script never gets to its `kill -- -$pid` or its trap, so its agent is
/// that call's to end.
pub(super) fn scripts_unchecked<T>(f: impl FnOnce() -> T) -> T {
    let depth = NESTED_SCRIPTS.with(|d| d.replace(MAX_NESTED_SCRIPTS));
    let out = f();
    NESTED_SCRIPTS.with(|d| d.set(depth));
    out
}

/// The agent a command runs through a script that is no `-c` argument: `eval "claude -p
/// hi"` (its words joined are the script), and a shell reading its script from a
/// here-document or here-string (`bash <<'EOS'` with `claude -p hi` inside, `sh <<<
/// "claude -p hi"`) or from the command piped into it (`echo 'claude -p hi' | bash -s`,
/// [`piped_script`]) given no script file (`bash -s` takes its other words as arguments),
/// also behind wrappers that keep the group (`sudo -u agent bash -s`).
fn script_of_command(
    node: Node,
    words: &[String],
    src: &str,
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Option<Run> {
    if let Some(script) = su_script(words) {
        return agent_in_script(&script, rules, variables);
    }
    // `sudo -u agent bash -s`, `nohup sh`: a wrapper that keeps the group runs the shell.
    let unwrapped = syntax::past_wrappers(words, rules);
    let words = if unwrapped.is_empty() {
        words
    } else {
        unwrapped.as_slice()
    };
    let program = resolve(words.first()?, variables, rules);
    let name = program.rsplit('/').next().unwrap_or(&program);
    if name == "eval" {
        return agent_in_script(&words[1..].join(" "), rules, variables);
    }
    if !rules.shell.shells.iter().any(|s| s == name) {
        return None;
    }
    let options: Vec<&String> = words[1..]
        .iter()
        .take_while(|w| w.starts_with('-'))
        .collect();
    let reads_stdin = options.iter().any(|w| w.as_str() == "-s")
        || options.len() == words.len() - 1 && !options.iter().any(|w| is_script_flag(w));
    if !reads_stdin {
        return None;
    }
    // A here-string may be the command's own redirect; a here-document is the
    // statement's around it.
    let statement = node
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
        .filter(|p| p.child_by_field_name("body") == Some(node));
    let mut redirects = Vec::new();
    for holder in std::iter::once(node).chain(statement) {
        let mut cursor = holder.walk();
        redirects.extend(holder.named_children(&mut cursor));
    }
    let script = redirects.into_iter().find_map(|r| match r.kind() {
        "heredoc_redirect" => {
            let mut inner = r.walk();
            r.named_children(&mut inner)
                .find(|b| b.kind() == "heredoc_body")
                .map(|b| text(b, src).to_string())
        }
        "herestring_redirect" => r.named_child(0).map(|s| unquote(text(s, src))),
        _ => None,
    });
    let script = script.or_else(|| piped_script(node, src))?;
    agent_in_script(&script, rules, variables)
}

impl<'t> Script<'t, '_> {
    /// How the script ends a background job's process group under job control (`set
    /// -m`): as a session's ([`Self::ending`]), and `kill %1` (`%%`, `%+`, `%-`,
    /// `%name`) too, which signals the job's whole group when it names this job, whose
    /// text is `job` ([`names_job`]). (A job that runs `setsid` is not one: its session
    /// has left the job's group, and `kill %1` reaches only the leader.)
    fn job_ending(&self, start: Node<'t>, job: &str) -> Ending {
        let mut best = self.ending(start);
        if best == Ending::Killed {
            return best;
        }
        let job_kill = |words: &[String]| {
            words.first().is_some_and(|w| w == "kill")
                && !words.iter().any(|w| w == "-0")
                && words[1..].iter().any(|w| names_job(w, job))
        };
        for scope in self.reached(start) {
            for command in self.commands(scope) {
                let words = command_words(command, self.src);
                // `trap 'kill %1' EXIT`: the handler's commands.
                let trapped = words.first().is_some_and(|w| w == "trap")
                    && words.get(1).is_some_and(|handler| {
                        let handler = ascii_only(handler);
                        let mut kills = false;
                        if let Ok(tree) = syntax::parse_bounded(
                            tree_sitter_bash::LANGUAGE.into(),
                            &handler,
                            "shell",
                        ) {
                            syntax::walk(tree.root_node(), &mut |n| {
                                kills |=
                                    n.kind() == "command" && job_kill(&command_words(n, &handler));
                            });
                        }
                        kills
                    });
                if trapped {
                    return Ending::Killed;
                }
                if job_kill(&words) {
                    if !gated(command, self.src, self.rules) {
                        return Ending::Killed;
                    }
                    best = Ending::Gated;
                }
            }
        }
        best
    }
}

/// `setsid --fork claude &`, `setsid -f claude`, and `setsid claude &` as a job of its
/// own group (`set -m`, `leads_group`; setsid then forks as it does in any group leader,
/// unless a wrapper that forks, `timeout`, runs it): setsid's child makes the session, so
/// `$!` is not the session's id and `kill -- -$!` reaches nothing
/// ([`syntax::forked_session_finding`]). The `setsid` read is the first before the agent.
fn forked_session(
    node: Node,
    original: &str,
    words: &[String],
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
    leads_group: bool,
) -> Option<syntax::Raw> {
    let at = words.iter().position(|w| {
        let word = resolve(w, variables, rules);
        let name = word.rsplit('/').next().unwrap_or(&word);
        rules.agent(&word).is_some() || rules.shell.session_only.iter().any(|s| s == name)
    })?;
    let first = resolve(&words[at], variables, rules);
    let name = first.rsplit('/').next().unwrap_or(&first);
    let leader = leads_group
        && !words[..at].iter().any(|w| {
            let word = resolve(w, variables, rules);
            let name = word.rsplit('/').next().unwrap_or(&word).to_string();
            rules.shell.cleanup.contains(&name)
        });
    let forks = syntax::session_forks(&words[at..]);
    if !rules.shell.session_only.iter().any(|s| s == name) || !(forks || leader) {
        return None;
    }
    // `setsid --fork pipx run aider-chat`: an agent's package run by a package runner.
    let resolved: Vec<String> = words[at..]
        .iter()
        .map(|w| resolve(w, variables, rules).to_string())
        .collect();
    let agent = words[at + 1..]
        .iter()
        .find_map(|w| {
            rules
                .agent(&resolve(w, variables, rules))
                .map(str::to_string)
        })
        .or_else(|| {
            syntax::past_session(&resolved, rules)
                .and_then(|command| syntax::package_agent(&command, rules))
        })?;
    let (message, help) = syntax::forked_session_finding(
        &agent,
        "sh",
        "`$!`",
        "`kill -- -$!`",
        (!forks).then_some("`set -m`"),
    );
    Some(raw_at(
        node.child_by_field_name("name").unwrap_or(node),
        original,
        message,
        help,
    ))
}

/// How many values of one variable are kept, the first assigned: each use of the
/// variable reads them all, so a hostile script assigning one name thousands of times
/// between its uses (`A=echo; $A x; A=echo; ...`) would cost their product.
const MAX_ASSIGNMENTS: usize = 64;

/// Every `NAME=value` (`NAME=(a b)`) a script assigns, added to `variables` in the
/// order written (up to [`MAX_ASSIGNMENTS`] a name): the script's own variables are
/// followed as a `.sh` file's are.
fn assigned_variables(root: Node, src: &str, variables: &mut HashMap<String, Vec<String>>) {
    syntax::walk(root, &mut |node| {
        if node.kind() == "variable_assignment"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
        {
            let values = variables.entry(text(name, src).into()).or_default();
            if values.len() < MAX_ASSIGNMENTS {
                values.push(text(value, src).into());
            }
        }
    });
}

thread_local! {
    /// How many scripts inside each other [`first_run`] is reading now.
    static FIRST_RUN_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// [`first_run`] of one script, read as [`check`] reads a `.sh` file: every command of
/// its lists, pipelines, subshells, loops and substitutions, with its words split as the
/// shell splits them and the variables and arrays it assigns itself (after the caller's),
/// `eval` strings and here-documents, and `sh -c` scripts inside it (to
/// [`MAX_NESTED_SCRIPTS`] deep).
fn first_run_in(
    script: &str,
    rules: &Rules,
    variables: &HashMap<String, Vec<String>>,
) -> Option<Run> {
    let script = ascii_only(script);
    let script = script.as_str();
    let tree = syntax::parse_bounded(tree_sitter_bash::LANGUAGE.into(), script, "shell").ok()?;
    let mut variables = variables.clone();
    assigned_variables(tree.root_node(), script, &mut variables);
    let mut found = None;
    syntax::walk(tree.root_node(), &mut |node| {
        if found.is_none() && node.kind() == "command" {
            let words = split_words(node, script, rules, &variables);
            found = unguarded_agent(&words, rules, &variables)
                .or_else(|| script_of_command(node, &words, script, rules, &variables));
        }
    });
    found
}

/// A word of a command as the shell hands it on: a quoted string loses its own pair of
/// quotes only (`'"${AGENT:-aider}" --yes'` is the script `"${AGENT:-aider}" --yes`),
/// any other word the quotes around it ([`unquote`]).
fn word_text(word: Node, src: &str) -> String {
    let t = text(word, src);
    let pair = match word.kind() {
        "raw_string" => '\'',
        "string" => '"',
        // `$'cd /r\nclaude -p hi'`: the shell decodes its C escapes.
        "ansi_c_string" => {
            return match t.strip_prefix("$'").and_then(|t| t.strip_suffix('\'')) {
                Some(inside) => c_unescape(inside, false),
                None => unquote(t),
            };
        }
        _ => return unquote(t),
    };
    match t.strip_prefix(pair).and_then(|t| t.strip_suffix(pair)) {
        Some(inside) if pair == '"' => double_quoted_text(inside),
        Some(inside) => inside.to_string(),
        None => unquote(t),
    }
}

/// The options of `su` whose value is a command string its user's shell runs as a
/// script (`su -c 'claude -p hi' agent`).
const SU_SCRIPT_OPTIONS: [&str; 2] = ["--command", "--session-command"];

/// The script `su` runs (`su -c 'claude -p hi' agent`, `su - agent --command=...`,
/// `--session-command ...`), when `words` is an `su` command.
pub(super) fn su_script(words: &[String]) -> Option<String> {
    let program = words.first()?;
    if program.rsplit('/').next() != Some("su") {
        return None;
    }
    let mut rest = words[1..].iter();
    while let Some(word) = rest.next() {
        if let Some((option, value)) = word.split_once('=')
            && SU_SCRIPT_OPTIONS.contains(&option)
        {
            // `--command='cd /repo && codex'`: the word is a concatenation, its quotes kept.
            return Some(unquote(value));
        }
        if word == "-c" || SU_SCRIPT_OPTIONS.contains(&word.as_str()) {
            return rest.next().cloned();
        }
        if let Some(attached) = word.strip_prefix("-c")
            && !word.starts_with("--")
            && !attached.is_empty()
        {
            return Some(attached.to_string());
        }
    }
    None
}

/// The value of a string literal's escapes in Python, JavaScript or Go source: `\"`,
/// `\'`, `\\`, `\n`, `\t` are the characters they stand for, so the script
/// `"bash -c \"claude -p hi\""` hands on is `bash -c "claude -p hi"`. Any other escape
/// is kept as written (it names nothing a shell splits on).
pub(super) fn unescape_literal(escaped: &str) -> String {
    let mut out = String::with_capacity(escaped.len());
    let mut chars = escaped.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(q @ ('"' | '\'' | '\\' | '`')) => out.push(q),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The text of a shell double-quoted word's inside as the shell hands it on: `\"`,
/// `\\`, `\$` and `` \` `` lose their backslash, a backslash-newline goes, and any other
/// backslash stays (`"bash -c \"claude -p hi\""` is the script `bash -c "claude -p hi"`).
fn double_quoted_text(inside: &str) -> String {
    let mut out = String::with_capacity(inside.len());
    let mut chars = inside.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('"' | '\\' | '$' | '`') => out.extend(chars.next()),
            Some('\n') => {
                chars.next();
            }
            _ => out.push('\\'),
        }
    }
    out
}

/// The script a shell reading its stdin gets from the command piped into it, when that
/// command prints text it is given: `echo 'claude -p hi' | bash -s`, `printf 'cd
/// /r\nclaude -p hi\n' | sh` ([`printed_text`]). `node` is the shell's command.
fn piped_script(node: Node, src: &str) -> Option<String> {
    let at = node
        .parent()
        .filter(|p| p.kind() == "redirected_statement")
        .unwrap_or(node);
    at.parent().filter(|p| p.kind() == "pipeline")?;
    let mut producer = at.prev_named_sibling()?;
    if producer.kind() == "redirected_statement" {
        producer = producer.child_by_field_name("body")?;
    }
    if producer.kind() != "command" {
        return None;
    }
    printed_text(&command_words(producer, src))
}

/// What `echo` or `printf` prints of the words it is given: `echo`'s words joined (its
/// escapes decoded under `-e`), `printf`'s format with its escapes decoded and each
/// conversion (`%s`, `%b`) filled by the next word, repeated while words are left, as
/// the shell's builtin does. None for any other command.
fn printed_text(words: &[String]) -> Option<String> {
    let program = words.first()?;
    let rest = &words[1..];
    match program.rsplit('/').next()? {
        "echo" => {
            let options = rest
                .iter()
                .take_while(|w| {
                    w.len() > 1
                        && w.starts_with('-')
                        && w[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
                })
                .count();
            // The last of `-e` and `-E` decides.
            let decode = rest[..options]
                .iter()
                .flat_map(|w| w.chars())
                .rfind(|c| matches!(c, 'e' | 'E'))
                == Some('e');
            let text = rest[options..].join(" ");
            Some(if decode {
                c_unescape(&text, true)
            } else {
                text
            })
        }
        "printf" => {
            let rest = match rest.first() {
                Some(w) if w == "--" => &rest[1..],
                _ => rest,
            };
            let (format, mut args) = rest.split_first()?;
            if format.starts_with('-') {
                return None;
            }
            let mut out = String::new();
            // A format with no conversion is printed once; one with conversions until
            // the words run out (each pass takes at least one).
            for _ in 0..=args.len() {
                let (printed, used) = printf_once(format, args);
                out.push_str(&printed);
                args = &args[used.min(args.len())..];
                if used == 0 || args.is_empty() {
                    break;
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// One pass of `printf`'s format over `args`: the text printed and how many words the
/// conversions took. `%%` is a `%`; `%b` decodes its word's escapes.
fn printf_once(format: &str, args: &[String]) -> (String, usize) {
    let mut out = String::new();
    let mut used = 0;
    let mut literal = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            literal.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            literal.push('%');
            continue;
        }
        // Flags, width and precision, then the conversion letter.
        let conversion = chars.by_ref().find(char::is_ascii_alphabetic);
        out.push_str(&c_unescape(&std::mem::take(&mut literal), false));
        let word = args.get(used).map(String::as_str).unwrap_or("");
        used += 1;
        match conversion {
            Some('b') => out.push_str(&c_unescape(word, true)),
            Some(_) => out.push_str(word),
            None => {}
        }
    }
    out.push_str(&c_unescape(&literal, false));
    (out, used)
}

/// The C escapes a shell decodes in `$'...'`, `printf`'s format and `echo -e` (`echo`:
/// its octal is `\0NNN`): `\n`, `\t`, `\r`, `\a`, `\b`, `\e`, `\f`, `\v`, `\\`, `\'`,
/// `\"`, `\?`, octal `\NNN`, `\xHH`, `\uHHHH`, `\UHHHHHHHH` and `\cX`. Any other
/// backslash stays as written.
fn c_unescape(escaped: &str, echo: bool) -> String {
    /// Up to `max` digits of `radix` at the front of `chars`, taken: their value.
    fn number(
        chars: &mut std::iter::Peekable<std::str::Chars>,
        radix: u32,
        max: usize,
    ) -> Option<u32> {
        let mut value = None;
        for _ in 0..max {
            let Some(d) = chars.peek().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            chars.next();
            value = Some(value.unwrap_or(0) * radix + d);
        }
        value
    }
    let mut out = String::with_capacity(escaped.len());
    let mut chars = escaped.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.peek() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            _ => None,
        };
        if let Some(d) = simple {
            chars.next();
            out.push(d);
            continue;
        }
        let code = match e {
            '0' if echo => {
                chars.next();
                Some(number(&mut chars, 8, 3).unwrap_or(0))
            }
            '0'..='7' => number(&mut chars, 8, 3),
            'x' | 'u' | 'U' => {
                let mut ahead = chars.clone();
                ahead.next();
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let value = number(&mut ahead, 16, max);
                if value.is_some() {
                    chars = ahead;
                }
                value
            }
            'c' => {
                let mut ahead = chars.clone();
                ahead.next();
                let value = ahead.next().map(|x| u32::from(x) & 0x1f);
                if value.is_some() {
                    chars = ahead;
                }
                value
            }
            _ => None,
        };
        match code.and_then(char::from_u32) {
            Some(d) => out.push(d),
            // Kept as written: the backslash, and the character after it read on.
            None => out.push('\\'),
        }
    }
    out
}
