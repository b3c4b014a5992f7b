//! Go: `os/exec` (`exec.Command`, `exec.CommandContext`) starting an agent CLI.
//! Compliant only with both halves in reach of the spawn: a new group or session
//! (`cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}`, or `Setsid`, also through
//! `golang.org/x/sys/unix`) and a group-directed kill (`syscall.Kill(-pid, sig)`,
//! `unix.Kill(-pid, sig)`, also as `cmd.Cancel`). `setsid` as the argv's program
//! (`exec.Command("setsid", "claude", ...)`) is the new session; `setsid --fork` is one
//! no kill by the pid reaches ([`syntax::Through`]). "In reach" is the function the spawn
//! is in (its closures, deferred funcs and goroutines included), the functions of the
//! same file it calls with the command or a value taken from it, the callers of a
//! function that returns the command, and, for a command (or its pid) kept in a struct
//! field or a package variable, the file's other functions and methods that use it.
//! `exec.CommandContext` alone kills only the process, as does `cmd.Process.Kill()`; a
//! group kill gated on the leader not having been reaped ([`gated`]: an `if`, `for` or
//! `switch` case asking it) is a finding too.
//! Programs are followed through string constants and variables of the same file, `+`,
//! `filepath.Join`, `exec.LookPath` and the file's functions and methods returning one; the whole
//! argv ([`argv_words`], spread slices included) is read past wrappers and into `sh -c`
//! strings ([`syntax::argv_agent`]). Parsed with tree-sitter;
//! `os/exec` under any import name (also `.`) is followed.
//!
//! The rule data (agents, helpers) comes from `lints/agent-spawn.toml` like the other
//! languages'; what is Go-specific (the API names) lives here, since Go reaches a
//! process through one standard package.

use std::collections::HashMap;

use tree_sitter::Node;

use super::rules::Rules;
use super::syntax::{self, Checked, raw_at, text};

/// A Go file can only start a process through `os/exec` if it imports it, so a file
/// naming an agent but not this is never parsed.
pub const PREFILTER: &[&str] = &["os/exec"];

const EXEC: &str = "os/exec";
/// Packages whose `Kill(-pid, sig)` signals a process group and whose `SysProcAttr`
/// carries `Setpgid`/`Setsid`.
const SYSCALL: [&str; 2] = ["syscall", "golang.org/x/sys/unix"];
/// In an `if`/`for` header around a group kill: the leader has not been reaped yet
/// (`if cmd.ProcessState == nil { syscall.Kill(-pid, ...) }`, a `Signal(0)` probe), or
/// has not exited normally (`if ... !cmd.ProcessState.Exited() { ... }`). The kill then
/// never runs when the leader exits first, and its helpers survive.
const LEADER_ALIVE: [&str; 3] = ["ProcessState == nil", "Signal(0)", "!"];
/// In the header of an `if` that returns, before a group kill in the same function: the
/// leader has been reaped (`if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
/// return }`), so the kill after it is skipped exactly when the helpers are orphaned.
const LEADER_GONE: [&str; 3] = ["ProcessState != nil", ".Exited()", "Signal(0)"];
/// How far program values and reach are followed (constants of constants, calls of
/// calls): enough for hand-written code, bounded against hostile input.
const MAX_STEPS: usize = 8;

struct File<'t, 's> {
    src: &'s str,
    rules: &'s Rules,
    /// The file's dotted path (`internal/agent/run.go` -> `internal.agent.run`), for helpers.
    module: String,
    /// Local names `os/exec` is imported under (`""`: a dot import).
    exec: Vec<String>,
    /// Local names of `syscall` and `golang.org/x/sys/unix`.
    sys: Vec<String>,
    /// Every import's local name: a call `x.f()` on one of them is not a method call.
    packages: Vec<String>,
    /// `NAME = value` (const, var, `:=`, `=`), with the function it is in (`None`: file level).
    values: HashMap<String, Vec<(Node<'t>, Option<usize>)>>,
    /// Functions and methods of the file by name.
    functions: HashMap<String, Vec<Node<'t>>>,
    /// Variables declared at package level (`var agentCmd *exec.Cmd`): a command kept in
    /// one is in reach of every function of the file using it ([`globals_used`]).
    globals: Vec<String>,
    /// What is left of the evaluation budget of the spawn being checked.
    steps: syntax::Steps,
    /// The file's tree.
    root: Node<'t>,
    /// The spawns of the file whose command is kept in a struct field, with the field
    /// (found once, for [`tie`]).
    field_spawns: std::cell::OnceCell<Vec<(usize, String)>>,
    /// The kills offered beside a factory no function of the file calls, the same for
    /// every one of them ([`quiet_kills`]).
    quiet: std::cell::OnceCell<Evidence>,
}

pub fn check(src: &str, path: &str, rules: &Rules) -> Checked {
    let tree = match syntax::parse_bounded(tree_sitter_go::LANGUAGE.into(), src, "Go") {
        Ok(tree) => tree,
        Err(checked) => return checked,
    };
    let root = tree.root_node();
    let mut file = File {
        src,
        rules,
        module: module_path(path),
        exec: Vec::new(),
        sys: Vec::new(),
        packages: Vec::new(),
        values: HashMap::new(),
        functions: HashMap::new(),
        globals: Vec::new(),
        steps: syntax::Steps::new(),
        root,
        field_spawns: std::cell::OnceCell::new(),
        quiet: std::cell::OnceCell::new(),
    };
    collect(root, &mut file);
    let mut findings = Vec::new();
    if !file.exec.is_empty() {
        syntax::walk(root, &mut |node| {
            if node.kind() == "call_expression" {
                findings.extend(check_call(&file, node));
            } else if node.kind() == "composite_literal" {
                findings.extend(check_literal(&file, node));
            }
        });
    }
    Checked {
        findings,
        parse_error: syntax::first_error(&tree),
        too_deep: None,
    }
}

fn module_path(path: &str) -> String {
    let stem = path.rsplit_once('.').map_or(path, |(stem, _)| stem);
    stem.replace('/', ".")
}

/// A string literal's content (interpreted or raw), as written.
fn literal(node: Node, src: &str) -> Option<String> {
    match node.kind() {
        // One quote off each end only: `"bash -c \"claude\""` ends in an escaped one.
        "interpreted_string_literal" => {
            let t = text(node, src);
            let inside = t.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
            Some(unescape(inside.unwrap_or(t)))
        }
        "raw_string_literal" => Some(text(node, src).trim_matches('`').to_string()),
        _ => None,
    }
}

fn collect<'t>(root: Node<'t>, file: &mut File<'t, '_>) {
    let src = file.src;
    syntax::walk(root, &mut |node| match node.kind() {
        "import_spec" => {
            let Some(path) = node
                .child_by_field_name("path")
                .and_then(|p| literal(p, src))
            else {
                return;
            };
            let default = path.rsplit('/').next().unwrap_or(&path).to_string();
            let local = match node.child_by_field_name("name") {
                Some(n) if n.kind() == "dot" => String::new(),
                Some(n) if n.kind() == "blank_identifier" => return,
                Some(n) => text(n, src).to_string(),
                None => default,
            };
            if path == EXEC {
                file.exec.push(local.clone());
            } else if SYSCALL.contains(&path.as_str()) {
                file.sys.push(local.clone());
            }
            file.packages.push(local);
        }
        "const_spec" | "var_spec" => {
            let mut cursor = node.walk();
            let names: Vec<Node> = node
                .children_by_field_name("name", &mut cursor)
                .filter(|n| n.kind() == "identifier")
                .collect();
            if node.kind() == "var_spec" && scope_of(node).is_none() {
                file.globals
                    .extend(names.iter().map(|n| text(*n, src).to_string()));
            }
            if let Some(values) = node.child_by_field_name("value") {
                remember(file, &names, values, node);
            }
        }
        "short_var_declaration" | "assignment_statement" => {
            let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) else {
                return;
            };
            let mut cursor = left.walk();
            let names: Vec<Node> = left.named_children(&mut cursor).collect();
            remember(file, &names, right, node);
        }
        "function_declaration" | "method_declaration" => {
            if let Some(name) = node.child_by_field_name("name") {
                file.functions
                    .entry(text(name, src).to_string())
                    .or_default()
                    .push(node);
            }
        }
        _ => {}
    });
}

/// Pair `a, b = x, y` name by name; a name that is not a plain identifier is skipped.
fn remember<'t>(file: &mut File<'t, '_>, names: &[Node<'t>], values: Node<'t>, at: Node<'t>) {
    let mut cursor = values.walk();
    let values: Vec<Node> = values
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    // `path, err := exec.LookPath("claude")`: the first name holds what the call gives.
    let names = if values.len() == 1 && names.len() == 2 {
        &names[..1]
    } else {
        names
    };
    if names.len() != values.len() {
        return;
    }
    for (name, value) in names.iter().zip(values) {
        if name.kind() == "identifier" {
            file.values
                .entry(text(*name, file.src).to_string())
                .or_default()
                .push((value, scope_of(at)));
        }
    }
}

fn is_function(node: Node) -> bool {
    matches!(
        node.kind(),
        "function_declaration" | "method_declaration" | "func_literal"
    )
}

/// The innermost function-like node around `node`, by id.
fn scope_of(node: Node) -> Option<usize> {
    let mut n = node.parent();
    while let Some(p) = n {
        if is_function(p) {
            return Some(p.id());
        }
        n = p.parent();
    }
    None
}

/// The outermost function around `node` (a closure's declaring function), or the file.
fn outermost_function(node: Node) -> Node {
    let mut found = None;
    let mut n = node.parent();
    while let Some(p) = n {
        if is_function(p) {
            found = Some(p);
        }
        if p.parent().is_none() {
            return found.unwrap_or(p);
        }
        n = p.parent();
    }
    found.unwrap_or(node)
}

/// What `name` holds where `at` uses it: assignments in the enclosing functions
/// (innermost first), else at file level; never another function's.
fn lookup<'t>(file: &File<'t, '_>, name: &str, at: Node) -> Vec<Node<'t>> {
    let Some(values) = file.values.get(name) else {
        return Vec::new();
    };
    let mut n = Some(at);
    while let Some(p) = n {
        let here: Vec<Node> = values
            .iter()
            .filter(|(_, s)| *s == Some(p.id()))
            .map(|(v, _)| *v)
            .collect();
        if !here.is_empty() {
            return here;
        }
        n = p.parent();
    }
    values
        .iter()
        .filter(|(_, s)| s.is_none())
        .map(|(v, _)| *v)
        .collect()
}

/// An unknown part of a string built from parts (a parameter, `os.Getenv(...)`).
const UNKNOWN: &str = "\u{0}";

/// The string `node` evaluates to, as far as the file says; unknown parts are
/// [`UNKNOWN`] (so `home + "/bin/claude"` still names `claude`).
fn string_value(file: &File, node: Node, depth: usize) -> Option<String> {
    if depth > MAX_STEPS || !file.steps.take() {
        return None;
    }
    let src = file.src;
    match node.kind() {
        "interpreted_string_literal" | "raw_string_literal" => literal(node, src),
        "parenthesized_expression" => node
            .named_child(0)
            .and_then(|n| string_value(file, n, depth + 1)),
        "identifier" => {
            let candidates: Vec<String> = lookup(file, text(node, src), node)
                .iter()
                .rev()
                .filter_map(|v| string_value(file, *v, depth + 1))
                .collect();
            // Any assignment that makes it an agent counts (recall over precision).
            candidates
                .iter()
                .find(|c| file.rules.agent(c).is_some())
                .or(candidates.first())
                .cloned()
        }
        "binary_expression" => {
            let operator = node.child_by_field_name("operator").map(|o| text(o, src));
            if operator != Some("+") {
                return None;
            }
            let part = |field| {
                node.child_by_field_name(field)
                    .and_then(|n| string_value(file, n, depth + 1))
            };
            match (part("left"), part("right")) {
                (None, None) => None,
                (l, r) => Some(format!(
                    "{}{}",
                    l.as_deref().unwrap_or(UNKNOWN),
                    r.as_deref().unwrap_or(UNKNOWN)
                )),
            }
        }
        "call_expression" => {
            // filepath.Join(dir, "bin", agent), path.Join(...), exec.LookPath("claude")
            let callee = node.child_by_field_name("function")?;
            let name = text(callee, src).replace(char::is_whitespace, "");
            let args = node.child_by_field_name("arguments")?;
            // `codexPath()`, a function of the file: what it returns.
            if callee.kind() == "identifier"
                && let Some(functions) = file.functions.get(&name)
            {
                return returned_value(file, functions, depth + 1);
            }
            // `r.bin()`, `c.Bin()`: a method of the file (a call on an import is none).
            if callee.kind() == "selector_expression"
                && let (Some(operand), Some(field)) = (
                    callee.child_by_field_name("operand"),
                    callee.child_by_field_name("field"),
                )
                && !(operand.kind() == "identifier"
                    && file.packages.iter().any(|p| p == text(operand, src)))
                && let Some(functions) = file.functions.get(text(field, src))
            {
                let methods: Vec<Node> = functions
                    .iter()
                    .filter(|f| f.kind() == "method_declaration")
                    .copied()
                    .collect();
                if !methods.is_empty() {
                    return returned_value(file, &methods, depth + 1);
                }
            }
            if name.ends_with("LookPath") {
                let first = args.named_child(0)?;
                return string_value(file, first, depth + 1);
            }
            // fmt.Sprintf("%s/claude", binDir): each verb filled in turn.
            if name.ends_with("Sprintf") {
                let mut cursor = args.walk();
                let given: Vec<Node> = args
                    .named_children(&mut cursor)
                    .filter(|n| n.kind() != "comment")
                    .collect();
                let template = string_value(file, *given.first()?, depth + 1)?;
                return Some(sprintf(&template, |i| {
                    given
                        .get(i + 1)
                        .and_then(|n| string_value(file, *n, depth + 1))
                        .unwrap_or_else(|| UNKNOWN.into())
                }));
            }
            if !name.ends_with(".Join") {
                return None;
            }
            // strings.Join([]string{agent, "-p", prompt}, " "): the words, joined.
            if name.ends_with("strings.Join") {
                let words = slice_elements(file, args.named_child(0)?, depth + 1)?;
                let sep = args
                    .named_child(1)
                    .and_then(|n| string_value(file, n, depth + 1))
                    .unwrap_or_else(|| " ".into());
                let words: Vec<String> = words
                    .into_iter()
                    .map(|n| string_value(file, n, depth + 1).unwrap_or_else(|| UNKNOWN.into()))
                    .collect();
                return Some(words.join(&sep));
            }
            let mut cursor = args.walk();
            let parts: Vec<String> = args
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| string_value(file, n, depth + 1).unwrap_or_else(|| UNKNOWN.into()))
                .collect();
            (!parts.is_empty()).then(|| parts.join("/"))
        }
        // `args[0]` (or `argv[1]`) of a slice literal of the file (`var codexArgs =
        // []string{"codex", ...}`).
        "index_expression" => {
            let index: usize = text(node.child_by_field_name("index")?, src).parse().ok()?;
            let element = *slice_elements(file, node.child_by_field_name("operand")?, depth + 1)?
                .get(index)?;
            string_value(file, element, depth + 1)
        }
        _ => None,
    }
}

/// The string a function of the file returns (its first result), as [`string_value`]
/// makes of each `return` of its own body (not a closure's): the first that names an
/// agent, else the first (`p, err := exec.LookPath("codex"); if err != nil { return
/// "codex" }; return p`).
fn returned_value(file: &File, functions: &[Node], depth: usize) -> Option<String> {
    let mut candidates = Vec::new();
    for function in functions {
        let Some(body) = function.child_by_field_name("body") else {
            continue;
        };
        syntax::walk(body, &mut |n| {
            if n.kind() == "return_statement"
                && scope_of(n) == Some(function.id())
                && let Some(value) = n.named_child(0).and_then(|list| match list.kind() {
                    "expression_list" => list.named_child(0),
                    _ => Some(list),
                })
            {
                candidates.extend(string_value(file, value, depth + 1));
            }
        });
    }
    candidates
        .iter()
        .find(|c| file.rules.agent(c).is_some())
        .or(candidates.first())
        .cloned()
}

/// A `fmt.Sprintf` template filled in: `%s`, `%v`, `%q`, `%d` take the next value, `%%`
/// is `%`.
fn sprintf(template: &str, value: impl FnMut(usize) -> String) -> String {
    syntax::fill_percent(template, &['s', 'v', 'q', 'd'], value)
}

/// The elements of a slice or array literal, directly or through a name the file gives
/// one (`[]string{"codex", "exec"}`, `codexArgs`).
fn slice_elements<'t>(file: &File<'t, '_>, node: Node<'t>, depth: usize) -> Option<Vec<Node<'t>>> {
    if depth > MAX_STEPS {
        return None;
    }
    match node.kind() {
        "identifier" => lookup(file, text(node, file.src), node)
            .iter()
            .rev()
            .find_map(|v| slice_elements(file, *v, depth + 1)),
        "composite_literal" => {
            let body = node.child_by_field_name("body")?;
            let mut cursor = body.walk();
            let elements = body
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| {
                    if n.kind() == "literal_element" {
                        n.named_child(0).unwrap_or(n)
                    } else {
                        n
                    }
                })
                .collect();
            Some(elements)
        }
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Spawn {
    Command,
    CommandContext,
    /// `&exec.Cmd{Path: ..., Args: ...}`: the struct built by hand.
    Literal,
}

impl Spawn {
    fn name(self) -> &'static str {
        match self {
            Spawn::Command => "exec.Command",
            Spawn::CommandContext => "exec.CommandContext",
            Spawn::Literal => "exec.Cmd",
        }
    }
}

/// `exec.Command` / `exec.CommandContext` under the file's import names.
fn spawn_kind(file: &File, callee: Node) -> Option<Spawn> {
    let (package, function) = match callee.kind() {
        "selector_expression" => (
            text(callee.child_by_field_name("operand")?, file.src),
            text(callee.child_by_field_name("field")?, file.src),
        ),
        "identifier" => ("", text(callee, file.src)),
        _ => return None,
    };
    if !file.exec.iter().any(|e| e == package) {
        return None;
    }
    match function {
        "Command" => Some(Spawn::Command),
        "CommandContext" => Some(Spawn::CommandContext),
        _ => None,
    }
}

/// Where the `*exec.Cmd` a spawn returns goes.
enum Handle {
    /// `cmd := exec.Command(...)`: a variable.
    Var(String),
    /// `r.cmd = exec.Command(...)`, `&Runner{cmd: exec.Command(...)}`: a struct field.
    Field(String),
    /// `return exec.Command(...)`, or passed straight to a call: someone else holds it.
    Elsewhere,
    /// `exec.Command(...).Run()`: nobody can set its attributes.
    Nobody,
}

fn handle_of(file: &File, call: Node) -> Handle {
    let src = file.src;
    let Some(parent) = call.parent() else {
        return Handle::Nobody;
    };
    match parent.kind() {
        "expression_list" => {
            let Some(statement) = parent.parent() else {
                return Handle::Nobody;
            };
            let mut cursor = parent.walk();
            let index = parent
                .named_children(&mut cursor)
                .position(|n| n.id() == call.id());
            let target = match statement.kind() {
                "short_var_declaration" | "assignment_statement" => statement
                    .child_by_field_name("left")
                    .zip(index)
                    .and_then(|(left, i)| left.named_child(i as u32)),
                "var_spec" => {
                    let mut cursor = statement.walk();
                    let names: Vec<Node> = statement
                        .children_by_field_name("name", &mut cursor)
                        .filter(|n| n.kind() == "identifier")
                        .collect();
                    index.and_then(|i| names.get(i).copied())
                }
                "return_statement" => return Handle::Elsewhere,
                _ => None,
            };
            match target {
                Some(t) if t.kind() == "identifier" => Handle::Var(text(t, src).into()),
                Some(t) if t.kind() == "selector_expression" => t
                    .child_by_field_name("field")
                    .map_or(Handle::Nobody, |f| Handle::Field(text(f, src).into())),
                _ => Handle::Nobody,
            }
        }
        // `a := &Agent{exec.Command(...)}` of a `type Agent struct{ *exec.Cmd }`: the
        // command's fields and methods are the variable's own (`a.SysProcAttr`, `a.Start()`).
        "literal_element" if let Some((var, _)) = embedded_holder(file, call) => Handle::Var(var),
        "literal_element" => parent
            .parent()
            .filter(|k| k.kind() == "keyed_element")
            .and_then(|k| k.child_by_field_name("key"))
            .map_or(Handle::Elsewhere, |key| {
                Handle::Field(text(key, src).into())
            }),
        "argument_list" => Handle::Elsewhere,
        _ => Handle::Nobody,
    }
}

/// Does `text` name `word` as a whole identifier?
fn mentions(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == word)
}

/// What the code in reach of a spawn does to its command.
#[derive(Clone, Copy, Default)]
struct Evidence {
    /// A new group or session on it.
    group: bool,
    /// A group-directed kill.
    group_kill: bool,
    /// A group-directed kill gated on the leader not having been reaped ([`gated`]).
    gated_kill: bool,
    /// `cmd.Process.Kill()` / `.Signal(...)`: the leader alone.
    leader_kill: bool,
}

fn check_call(file: &File, call: Node) -> Option<syntax::Raw> {
    file.steps.reset();
    let callee = call.child_by_field_name("function")?;
    let kind = spawn_kind(file, callee)?;
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let args: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let skip = usize::from(kind == Spawn::CommandContext);
    let words = argv_words(file, args.get(skip..)?);
    let (agent, through) = syntax::agent_through(&words, file.rules, syntax::argv_agent)?;
    judge(file, call, callee, kind, &agent, through, false)
}

/// `&exec.Cmd{Path: "/usr/local/bin/claude", Args: []string{"claude", "-p", q}}`: a
/// command built by hand runs its `Path` with `Args[1:]` (`Args[0]` is only the name it
/// is given); a `SysProcAttr` among its fields is set on it.
fn check_literal(file: &File, literal: Node) -> Option<syntax::Raw> {
    file.steps.reset();
    let src = file.src;
    let ty = literal.child_by_field_name("type")?;
    let exec_cmd = match ty.kind() {
        "qualified_type" => {
            let package = text(ty.child_by_field_name("package")?, src);
            let name = text(ty.child_by_field_name("name")?, src);
            name == "Cmd" && file.exec.iter().any(|e| e == package)
        }
        "type_identifier" => text(ty, src) == "Cmd" && file.exec.iter().any(|e| e.is_empty()),
        _ => false,
    };
    if !exec_cmd {
        return None;
    }
    let body = literal.child_by_field_name("body")?;
    let (mut path, mut args, mut group) = (None, None, false);
    let mut cursor = body.walk();
    for element in body.named_children(&mut cursor) {
        let (Some(key), Some(value)) = (
            element.child_by_field_name("key"),
            element.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key = key.named_child(0).unwrap_or(key);
        let value = value.named_child(0).unwrap_or(value);
        match text(key, src) {
            "Path" => path = Some(string_value(file, value, 0).unwrap_or_else(|| UNKNOWN.into())),
            "Args" => {
                args = slice_elements(file, value, 0).map(|e| {
                    e.iter()
                        .map(|n| string_value(file, *n, 0).unwrap_or_else(|| UNKNOWN.into()))
                        .collect::<Vec<_>>()
                })
            }
            "SysProcAttr" => group = groups(file, value, 0),
            _ => {}
        }
    }
    let args = args.unwrap_or_default();
    let words: Vec<String> = match path {
        Some(path) => std::iter::once(path)
            .chain(args.into_iter().skip(1))
            .collect(),
        None => args,
    };
    let (agent, through) = syntax::agent_through(&words, file.rules, syntax::argv_agent)?;
    // `cmd := &exec.Cmd{...}`: the command is the `&` expression.
    let spawn = literal
        .parent()
        .filter(|p| p.kind() == "unary_expression")
        .unwrap_or(literal);
    judge(file, spawn, ty, Spawn::Literal, &agent, through, group)
}

/// The finding for a spawn of `agent` (the command at `call`, reported at `at`), unless
/// the code in its reach both starts a new group (or the spawn itself does: `group`, its
/// own `SysProcAttr`; `setsid` in front of the agent, [`syntax::Through`]) and kills it.
fn judge(
    file: &File,
    call: Node,
    at: Node,
    kind: Spawn,
    agent: &str,
    through: syntax::Through,
    group: bool,
) -> Option<syntax::Raw> {
    let src = file.src;
    if in_helper(file, call) {
        return None;
    }
    let name = kind.name();
    let kill = "syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)";
    let handle = handle_of(file, call);
    let mut evidence = evidence(file, call, &handle);
    evidence.group |= group;
    // setsid forks when its process already leads a group: with Setpgid or Setsid on the
    // command, as with `--fork`.
    let leader = through == syntax::Through::Session && evidence.group;
    if through == syntax::Through::ForkedSession || leader {
        let (how, cause, undo) = if leader {
            (
                "`setsid` in a process that already leads a group",
                "the process leads a group of its own (Setpgid or Setsid), so `setsid` forks",
                "drop the SysProcAttr (setsid then execs in place and the session's id is \
                 the pid) or drop `setsid`",
            )
        } else {
            (
                "`setsid --fork`",
                "`setsid --fork` forks",
                "drop `--fork` (setsid then execs in place and the session's id is the pid)",
            )
        };
        return Some(raw_at(
            at,
            src,
            format!(
                "`{agent}` is started by `{name}` through {how}, in a new session that nothing can kill"
            ),
            format!(
                "{cause} and makes the session in a child of its own, so the session's id is \
                 not cmd.Process.Pid and {kill} reaches nothing: {undo}, and kill the group \
                 with {kill} on timeout, error and exit"
            ),
        ));
    }
    evidence.group |= through == syntax::Through::Session;
    if evidence.group && evidence.group_kill {
        return None;
    }
    let (message, help) = if evidence.group && evidence.gated_kill {
        (
            format!(
                "`{agent}` is started by `{name}` in a process group that is killed only while \
                 the leader has not been reaped"
            ),
            format!(
                "the group kill is gated on the leader (`cmd.ProcessState == nil`, or a \
                 `return` once it has exited): when the leader exits first, its helpers \
                 survive. Call {kill} unconditionally (ESRCH means the group is gone)"
            ),
        )
    } else if evidence.group {
        let help = if evidence.leader_kill {
            format!(
                "`cmd.Process.Kill()` and `.Signal()` reach only the group's leader: kill the \
                 whole group with {kill} on timeout, error and exit"
            )
        } else if kind == Spawn::CommandContext {
            format!(
                "the context's end kills only the process (CommandContext's default Cancel is \
                 Process.Kill): set cmd.Cancel = func() error {{ return {kill} }}"
            )
        } else {
            format!(
                "the new group (Setpgid or Setsid) is never killed: call {kill} on timeout, \
                 error and exit (a deferred func, or cmd.Cancel with exec.CommandContext)"
            )
        };
        let message = if evidence.leader_kill {
            format!(
                "`{agent}` is started by `{name}` in a new process group, but only the leader \
                 is killed"
            )
        } else {
            format!("`{agent}` is started by `{name}` in a process group nothing kills")
        };
        (message, help)
    } else {
        let both = format!(
            "set cmd.SysProcAttr = &syscall.SysProcAttr{{Setpgid: true}} and kill the group with \
             {kill} on timeout, error and exit, or run `fleet run --timeout DUR -- {agent} ...`"
        );
        let help = match (&handle, kind) {
            (Handle::Nobody, _) => format!("keep the *exec.Cmd in a variable, {both}"),
            _ if evidence.leader_kill => {
                format!(
                    "`cmd.Process.Kill()` and `.Signal()` reach only the agent, not its \
                     helpers: {both}"
                )
            }
            (_, Spawn::CommandContext) => format!(
                "CommandContext kills only the process when the context ends: set \
                 cmd.SysProcAttr = &syscall.SysProcAttr{{Setpgid: true}} and cmd.Cancel = \
                 func() error {{ return {kill} }}, or run `fleet run --timeout DUR -- {agent} ...`"
            ),
            _ => both,
        };
        (
            format!("`{agent}` is started by `{name}` without a process group of its own"),
            help,
        )
    };
    Some(raw_at(at, src, message, help))
}

/// The whole argv of a spawn as words, from its program on: each argument's value (an
/// unknown one is [`UNKNOWN`]), a spread slice (`args...`, `argv[1:]...` of a slice
/// literal the file gives) expanded into its elements, so a wrapper and its agent in
/// different pieces (`exec.Command(argv[0], argv[1:]...)`, `exec.Command("env",
/// args...)`) are one command line.
fn argv_words(file: &File, args: &[Node]) -> Vec<String> {
    let word = |n: Node| string_value(file, n, 0).unwrap_or_else(|| UNKNOWN.into());
    let mut words = Vec::new();
    for arg in args {
        if words.len() >= 16 {
            break;
        }
        match arg
            .named_child(0)
            .filter(|_| arg.kind() == "variadic_argument")
        {
            Some(spread) => match spread_elements(file, spread) {
                Some(elements) => words.extend(elements.into_iter().map(word)),
                None => words.push(UNKNOWN.into()),
            },
            None => words.push(word(*arg)),
        }
    }
    words
}

/// The elements a spread slice gives: a slice literal (through a name), or a slice of
/// one with constant bounds (`argv[1:]`, `argv[2:4]`).
fn spread_elements<'t>(file: &File<'t, '_>, node: Node<'t>) -> Option<Vec<Node<'t>>> {
    if node.kind() != "slice_expression" {
        return slice_elements(file, node, 0);
    }
    let elements = slice_elements(file, node.child_by_field_name("operand")?, 0)?;
    let bound = |field, default: usize| match node.child_by_field_name(field) {
        None => Some(default),
        Some(n) => text(n, file.src).parse::<usize>().ok(),
    };
    let start = bound("start", 0)?;
    let end = bound("end", elements.len())?.min(elements.len());
    elements.get(start..end).map(<[Node]>::to_vec)
}

/// Is the call inside an approved helper (`<module>.<function>`)?
fn in_helper(file: &File, call: Node) -> bool {
    let mut n = call.parent();
    while let Some(p) = n {
        if matches!(p.kind(), "function_declaration" | "method_declaration")
            && let Some(name) = p.child_by_field_name("name")
            && file
                .rules
                .is_helper(&format!("{}.{}", file.module, text(name, file.src)))
        {
            return true;
        }
        n = p.parent();
    }
    false
}

/// The type a method is declared on (`func (s *Session) Stop()` -> `Session`); none for
/// a plain function.
fn receiver_type<'s>(file: &File<'_, 's>, function: Node) -> Option<&'s str> {
    let receiver = function.child_by_field_name("receiver")?;
    let mut cursor = receiver.walk();
    let parameter = receiver.named_children(&mut cursor).next()?;
    let ty = text(parameter.child_by_field_name("type")?, file.src);
    Some(
        ty.trim_start_matches('*')
            .split('[')
            .next()
            .unwrap_or(ty)
            .trim(),
    )
}

/// Does `function` read or write `x.field` for some `x`, and could that `x` be the one
/// `home` keeps the command in? A method of another type (`func (o *Other) Stop()`
/// touching its own `o.cmd`) is not.
fn uses_field(file: &File, home: Node, function: Node, field: &str) -> bool {
    let (ours, theirs) = (receiver_type(file, home), receiver_type(file, function));
    if ours.is_some() && theirs.is_some() && ours != theirs {
        return false;
    }
    let mut found = false;
    syntax::walk(function, &mut |n| {
        found |= n.kind() == "selector_expression"
            && n.child_by_field_name("field")
                .is_some_and(|f| text(f, file.src) == field);
    });
    found
}

/// The functions in reach of a spawn (see the module doc), the spawn's own first. A
/// spawn handed to its callers reaches them all, or only `caller` when given (each
/// caller is judged on its own: [`evidence`]).
fn reach<'t>(
    file: &File<'t, '_>,
    call: Node<'t>,
    handle: &Handle,
    caller: Option<usize>,
) -> Vec<Node<'t>> {
    let src = file.src;
    let home = outermost_function(call);
    let mut reached = vec![home];
    // Names that hold the command or something taken from it (`pid := cmd.Process.Pid`).
    let mut tracked: Vec<String> = Vec::new();
    // Package variables the command is kept in (`agentCmd = exec.Command(...)`,
    // `agentCmd = cmd`, `agents[id] = cmd`), for the functions that stop it later.
    let mut globals: Vec<String> = Vec::new();
    match handle {
        Handle::Var(name) => {
            tracked.push(name.clone());
            if is_global(file, home, name) {
                globals.push(name.clone());
            }
        }
        Handle::Field(field) => {
            // Every function of the file that touches the field (`r.cmd`, `s.proc`): the
            // methods that start, stop and wait for what the struct holds.
            tracked.push(field.clone());
            for function in file.functions.values().flatten() {
                if function.id() != home.id() && uses_field(file, home, *function, field) {
                    reached.push(*function);
                }
            }
        }
        Handle::Elsewhere | Handle::Nobody => {}
    }
    // A command embedded in a struct of the file (`a := &Agent{exec.Command(..)}`, `return
    // &Agent{..}`): the type's methods reach it through their receiver (`func (a *Agent)
    // Stop()` killing `-a.Process.Pid`).
    if let Some((_, ty)) = embedding_literal(file, call) {
        for function in file.functions.values().flatten() {
            if function.id() != home.id()
                && receiver_type(file, *function) == Some(&ty)
                && !reached.iter().any(|r| r.id() == function.id())
            {
                reached.push(*function);
            }
        }
    }
    // `s.cmd = cmd`, `s.pid = cmd.Process.Pid`, `Session{cmd: cmd}`: a field that holds
    // it, for the methods that stop it later.
    let mut fields: Vec<String> = Vec::new();
    syntax::walk(home, &mut |node| {
        // `&Session{cmd: cmd}`, `s := Session{cmd: cmd, pid: cmd.Process.Pid}`: a struct
        // literal's field given it, held by what the literal becomes.
        if node.kind() == "keyed_element"
            && let (Some(key), Some(value)) = (
                node.child_by_field_name("key"),
                node.child_by_field_name("value"),
            )
            && tracked.iter().any(|t| mentions(text(value, src), t))
        {
            let key = key.named_child(0).unwrap_or(key);
            if key.kind() == "identifier" || key.kind() == "field_identifier" {
                fields.push(text(key, src).to_string());
            }
        }
        // `agents.Store(id, cmd)`: a method of a package variable (a `sync.Map`) given it.
        if node.kind() == "call_expression"
            && let Some(callee) = node.child_by_field_name("function")
            && callee.kind() == "selector_expression"
            && let Some(operand) = callee.child_by_field_name("operand")
            && operand.kind() == "identifier"
            && node
                .child_by_field_name("arguments")
                .is_some_and(|a| tracked.iter().any(|t| mentions(text(a, src), t)))
            && is_global(file, home, text(operand, src))
        {
            globals.push(text(operand, src).to_string());
        }
        if matches!(
            node.kind(),
            "short_var_declaration" | "assignment_statement"
        ) && let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) && tracked.iter().any(|t| mentions(text(right, src), t))
        {
            let mut cursor = left.walk();
            for target in left.named_children(&mut cursor) {
                match target.kind() {
                    "identifier" => {
                        let name = text(target, src).to_string();
                        if is_global(file, home, &name) {
                            globals.push(name.clone());
                        }
                        tracked.push(name);
                    }
                    // `agents[id] = cmd`: a package map or slice.
                    "index_expression"
                        if target
                            .child_by_field_name("operand")
                            .is_some_and(|o| o.kind() == "identifier") =>
                    {
                        let operand = target.child_by_field_name("operand").map(|o| text(o, src));
                        if let Some(name) = operand.filter(|o| is_global(file, home, o)) {
                            globals.push(name.to_string());
                        }
                    }
                    "selector_expression" => fields.extend(
                        target
                            .child_by_field_name("field")
                            .map(|f| text(f, src).to_string()),
                    ),
                    // `p.cmds[id] = cmd`: a map or slice in a field.
                    "index_expression" => fields.extend(
                        target
                            .child_by_field_name("operand")
                            .filter(|o| o.kind() == "selector_expression")
                            .and_then(|o| o.child_by_field_name("field"))
                            .map(|f| text(f, src).to_string()),
                    ),
                    _ => {}
                }
            }
        }
    });
    globals.sort();
    globals.dedup();
    for global in globals {
        for function in file.functions.values().flatten() {
            if !reached.iter().any(|r| r.id() == function.id())
                && globals_used(file, *function, &global)
            {
                reached.push(*function);
            }
        }
        if !tracked.contains(&global) {
            tracked.push(global);
        }
    }
    for field in fields {
        for function in file.functions.values().flatten() {
            if !reached.iter().any(|r| r.id() == function.id())
                && uses_field(file, home, *function, &field)
            {
                reached.push(*function);
            }
        }
        tracked.push(field);
    }
    // A function that returns the command hands it to its callers.
    for function in callers(file, home, handle) {
        if caller.is_none_or(|c| c == function.id()) {
            reached.push(function);
        }
    }
    // Functions of the file called with the command or a value taken from it.
    let mut next = 0;
    while next < reached.len() && reached.len() < 64 && next < MAX_STEPS * 4 {
        let function = reached[next];
        next += 1;
        let mut found = Vec::new();
        syntax::walk(function, &mut |node| {
            if node.kind() != "call_expression" {
                return;
            }
            let (Some(callee), Some(args)) = (
                node.child_by_field_name("function"),
                node.child_by_field_name("arguments"),
            ) else {
                return;
            };
            let (operand, name) = match callee.kind() {
                "identifier" => (None, text(callee, src)),
                "selector_expression" => match (
                    callee.child_by_field_name("operand"),
                    callee.child_by_field_name("field"),
                ) {
                    (Some(o), Some(f)) => (Some(text(o, src)), text(f, src)),
                    _ => return,
                },
                _ => return,
            };
            if operand.is_some_and(|o| file.packages.iter().any(|p| p == o)) {
                return;
            }
            // Only what is passed counts: `cmd.Run()` is a method of the command itself,
            // not a function of this file.
            let with_it = tracked.iter().any(|t| mentions(text(args, src), t));
            if with_it && let Some(targets) = file.functions.get(name) {
                found.extend(targets.iter().copied());
            }
        });
        for f in found {
            if !reached.iter().any(|r| r.id() == f.id()) {
                reached.push(f);
            }
        }
    }
    reached
}

/// The functions of the file a spawn in `home` is handed to: the callers of `home` when
/// it returns the command.
fn callers<'t>(file: &File<'t, '_>, home: Node<'t>, handle: &Handle) -> Vec<Node<'t>> {
    let src = file.src;
    let Some(name) = home.child_by_field_name("name").map(|n| text(n, src)) else {
        return Vec::new();
    };
    if !hands_out(file, home, handle, false) {
        return Vec::new();
    }
    file.functions
        .values()
        .flatten()
        .filter(|f| f.id() != home.id() && calls(file, **f, name))
        .copied()
        .collect()
}

/// Which spawn a kill belongs to, when several are started: the names this spawn's
/// command goes by (its variable and what is taken from it, `pa := a.Process.Pid`) and
/// those of the function's other spawns. A kill naming another spawn's
/// (`syscall.Kill(-a.Process.Pid, ..)` beside `b`) is that one's; a kill naming neither
/// (a loop over both, a helper's parameter) counts for each. A command kept in a struct
/// field goes by `.field` ([`names_command`]), the file's other spawns kept in fields by
/// theirs: those names mean the same command in every method that stops it, not only in
/// the spawn's own function.
fn tie(file: &File, call: Node, handle: &Handle) -> (Vec<String>, Vec<String>) {
    let src = file.src;
    let home = outermost_function(call);
    let derived = |start: String| -> Vec<String> {
        let mut names = vec![start];
        for _ in 0..3 {
            let mut grew = false;
            syntax::walk(home, &mut |n| {
                if matches!(n.kind(), "short_var_declaration" | "assignment_statement")
                    && let (Some(left), Some(right)) = (
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                    )
                    && names.iter().any(|t| names_command(text(right, src), t))
                {
                    let mut cursor = left.walk();
                    for target in left.named_children(&mut cursor) {
                        let name = text(target, src).to_string();
                        if target.kind() == "identifier" && !names.contains(&name) {
                            names.push(name);
                            grew = true;
                        }
                    }
                }
            });
            if !grew {
                break;
            }
        }
        names
    };
    let own = match handle {
        Handle::Var(name) => derived(name.clone()),
        Handle::Field(field) => derived(format!(".{field}")),
        _ => Vec::new(),
    };
    let mut others = Vec::new();
    syntax::walk(home, &mut |n| {
        if n.kind() == "call_expression"
            && n.id() != call.id()
            && n.child_by_field_name("function")
                .is_some_and(|c| spawn_kind(file, c).is_some())
            && let Handle::Var(name) = handle_of(file, n)
            && !own.contains(&name)
        {
            others.extend(derived(name).into_iter().filter(|o| !own.contains(o)));
        }
    });
    // The file's spawns kept in other fields (`p.b = exec.Command(...)` beside `p.a`).
    let field_spawns = file.field_spawns.get_or_init(|| {
        let mut found = Vec::new();
        syntax::walk(file.root, &mut |n| {
            if n.kind() == "call_expression"
                && n.child_by_field_name("function")
                    .is_some_and(|c| spawn_kind(file, c).is_some())
                && let Handle::Field(field) = handle_of(file, n)
            {
                found.push((n.id(), field));
            }
        });
        found
    });
    for (id, field) in field_spawns {
        let name = format!(".{field}");
        if *id != call.id() && !own.contains(&name) && !others.contains(&name) {
            others.push(name);
        }
    }
    (own, others)
}

/// Does `code` name the command `name`: a variable as a whole word (`-a.Process.Pid`
/// names `a`), a field (`.a`) as a selector (`-p.a.Process.Pid` names `.a`, `p.ab` and a
/// variable `a` do not)?
fn names_command(code: &str, name: &str) -> bool {
    let Some(field) = name.strip_prefix('.') else {
        return mentions(code, name);
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    code.match_indices(name)
        .any(|(i, _)| !code[i + 1 + field.len()..].starts_with(word))
}

/// Is `name`, where `function` uses it, the package variable of that name: declared at
/// package level and not declared in `function` (a parameter, `:=`, `var`)?
fn is_global(file: &File, function: Node, name: &str) -> bool {
    file.globals.iter().any(|g| g == name) && !declares(file, function, name)
}

/// Does `function` declare a local `name` (a parameter, `name :=`, `var name`)?
fn declares(file: &File, function: Node, name: &str) -> bool {
    let src = file.src;
    let mut found = false;
    syntax::walk(function, &mut |n| {
        let names = match n.kind() {
            "short_var_declaration" => n.child_by_field_name("left"),
            "var_spec" | "parameter_declaration" | "variadic_parameter_declaration" => Some(n),
            _ => None,
        };
        if let Some(names) = names {
            let mut cursor = names.walk();
            let by_field: Vec<Node> = if n.kind() == "short_var_declaration" {
                names.named_children(&mut cursor).collect()
            } else {
                names.children_by_field_name("name", &mut cursor).collect()
            };
            found |= by_field
                .iter()
                .any(|i| i.kind() == "identifier" && text(*i, src) == name);
        }
    });
    found
}

/// Does `function` use the package variable `name` (and not a local of that name)?
fn globals_used(file: &File, function: Node, name: &str) -> bool {
    if declares(file, function, name) {
        return false;
    }
    let mut found = false;
    syntax::walk(function, &mut |n| {
        found |= n.kind() == "identifier" && text(n, file.src) == name;
    });
    found
}

/// Does `function` call the file's function `name`?
fn calls(file: &File, function: Node, name: &str) -> bool {
    let mut found = false;
    syntax::walk(function, &mut |n| {
        if n.kind() == "call_expression"
            && let Some(callee) = n.child_by_field_name("function")
        {
            let called = text(callee, file.src);
            found |= called == name || called.rsplit('.').next() == Some(name);
        }
    });
    found
}

/// What the code in reach of a spawn does to it. A spawn handed to several callers is
/// judged with each caller alone: the caller that does worst decides.
fn evidence(file: &File, call: Node, handle: &Handle) -> Evidence {
    let callers = callers(file, outermost_function(call), handle);
    if callers.len() < 2 {
        return evidence_in(file, call, handle, None);
    }
    let rank = |e: &Evidence| {
        if e.group_kill {
            3
        } else if e.gated_kill {
            2
        } else {
            u8::from(e.leader_kill)
        }
    };
    callers
        .iter()
        .map(|c| evidence_in(file, call, handle, Some(c.id())))
        .min_by_key(rank)
        .unwrap_or_default()
}

fn evidence_in(file: &File, call: Node, handle: &Handle, caller: Option<usize>) -> Evidence {
    let src = file.src;
    let mut evidence = Evidence::default();
    let reached = reach(file, call, handle, caller);
    let (own, others) = tie(file, call, handle);
    // A kill naming another spawn's command, not this one's: in the spawn's own function
    // (`i == 0`) by any of their names, elsewhere by the fields they are kept in.
    let foreign = |kill: Node, i: usize| {
        let target = kill
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            .map_or("", |t| text(t, src));
        !own.iter().any(|o| names_command(target, o))
            && others
                .iter()
                .filter(|o| i == 0 || o.starts_with('.'))
                .any(|o| names_command(target, o))
    };
    for (i, function) in reached.iter().enumerate() {
        // In the spawn's own function, the attributes must be set on this command;
        // elsewhere (a helper it is passed to, a caller it returns it to), on any.
        let ours = |operand: Node| -> bool {
            if i > 0 {
                return true;
            }
            match handle {
                // `a.Cmd.SysProcAttr` of a struct embedding the command.
                Handle::Var(name) => {
                    let operand = text(operand, src);
                    operand == name || operand.strip_suffix(".Cmd") == Some(name)
                }
                Handle::Field(field) => {
                    operand.kind() == "selector_expression"
                        && operand
                            .child_by_field_name("field")
                            .is_some_and(|f| text(f, src) == field)
                }
                Handle::Elsewhere => true,
                Handle::Nobody => false,
            }
        };
        syntax::walk(*function, &mut |node| match node.kind() {
            "assignment_statement" => {
                let (Some(left), Some(right)) = (
                    node.child_by_field_name("left")
                        .and_then(|l| l.named_child(0)),
                    node.child_by_field_name("right")
                        .and_then(|r| r.named_child(0)),
                ) else {
                    return;
                };
                if left.kind() != "selector_expression" {
                    return;
                }
                let (Some(operand), Some(field)) = (
                    left.child_by_field_name("operand"),
                    left.child_by_field_name("field").map(|f| text(f, src)),
                ) else {
                    return;
                };
                match field {
                    // cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
                    "SysProcAttr" if ours(operand) && groups(file, right, 0) => {
                        evidence.group = true;
                    }
                    // cmd.SysProcAttr.Setpgid = true
                    "Setpgid" | "Setsid"
                        if text(right, src) == "true"
                            && operand.kind() == "selector_expression"
                            && operand
                                .child_by_field_name("field")
                                .is_some_and(|f| text(f, src) == "SysProcAttr")
                            && operand.child_by_field_name("operand").is_some_and(&ours) =>
                    {
                        evidence.group = true;
                    }
                    _ => {}
                }
            }
            "call_expression" => {
                let Some(callee) = node.child_by_field_name("function") else {
                    return;
                };
                let name = text(callee, src).replace(char::is_whitespace, "");
                if name.ends_with(".Process.Kill") || name.ends_with(".Process.Signal") {
                    evidence.leader_kill = true;
                } else if group_kill(file, node, callee) && !foreign(node, i) {
                    if gated(file, node) {
                        evidence.gated_kill = true;
                    } else {
                        evidence.group_kill = true;
                    }
                }
            }
            _ => {}
        });
    }
    if caller.is_none() && exported_factory(file, call, handle) {
        let quiet = *file.quiet.get_or_init(|| quiet_kills(file));
        evidence.group_kill |= quiet.group_kill;
        evidence.gated_kill |= quiet.gated_kill;
        evidence.leader_kill |= quiet.leader_kill;
    }
    evidence
}

/// Is the group kill gated on the leader not having been reaped: inside the body of an
/// `if`/`for` whose header asks [`LEADER_ALIVE`], or after an `if` whose header asks
/// [`LEADER_GONE`] and whose body returns (in any block around the kill, up to its
/// declaring function)?
fn gated(file: &File, kill: Node) -> bool {
    let src = file.src;
    let header = |statement: Node| -> String {
        let body = statement
            .child_by_field_name("consequence")
            .or_else(|| statement.child_by_field_name("body"));
        let end = body.map_or(statement.end_byte(), |b| b.start_byte());
        src.get(statement.start_byte()..end)
            .unwrap_or("")
            .replace(char::is_whitespace, " ")
    };
    let mut n = kill;
    while let Some(p) = n.parent() {
        if matches!(p.kind(), "function_declaration" | "method_declaration") {
            return false;
        }
        let in_body = p
            .child_by_field_name("consequence")
            .or_else(|| p.child_by_field_name("body"))
            == Some(n);
        if matches!(p.kind(), "if_statement" | "for_statement")
            && in_body
            && asks_leader_alive(&header(p))
        {
            return true;
        }
        // `switch { case cmd.ProcessState == nil: ... }`, `switch cmd.ProcessState { case
        // nil: ... }`, or the `default:` after `case cmd.ProcessState != nil:`.
        if p.kind() == "expression_case"
            && p.child_by_field_name("value") != Some(n)
            && case_headers(file, p).iter().any(|h| asks_leader_alive(h))
        {
            return true;
        }
        if p.kind() == "default_case"
            && let Some(switch) = p.parent()
        {
            let mut cursor = switch.walk();
            let gone = switch
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "expression_case")
                .any(|c| {
                    case_headers(file, c).iter().any(|h| {
                        h.contains("ProcessState != nil")
                            || (h.contains("ProcessState.Exited()") && !asks_leader_alive(h))
                    })
                });
            if gone {
                return true;
            }
        }
        if p.kind() == "statement_list" {
            let mut cursor = p.walk();
            let before: Vec<Node> = p
                .named_children(&mut cursor)
                .take_while(|s| s.id() != n.id())
                .collect();
            // `switch { case cmd.ProcessState != nil: return err }` before the kill.
            for switch in before
                .iter()
                .filter(|s| s.kind() == "expression_switch_statement")
            {
                let mut cursor = switch.walk();
                let gone = switch
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "expression_case")
                    .any(|c| {
                        let mut returns = false;
                        syntax::walk(c, &mut |r| returns |= r.kind() == "return_statement");
                        returns
                            && case_headers(file, c)
                                .iter()
                                .any(|h| LEADER_GONE.iter().any(|l| h.contains(l)))
                    });
                if gone {
                    return true;
                }
            }
            for guard in before.iter().filter(|s| s.kind() == "if_statement") {
                let returns = guard.child_by_field_name("consequence").is_some_and(|b| {
                    let mut found = false;
                    syntax::walk(b, &mut |r| found |= r.kind() == "return_statement");
                    found
                });
                if returns && LEADER_GONE.iter().any(|l| header(*guard).contains(l)) {
                    return true;
                }
            }
        }
        n = p;
    }
    false
}

/// What each value of a `case` asks, as an `if` header would: the value itself in a
/// switch without a tag (`case cmd.ProcessState == nil:`), `TAG == VALUE` in one with a
/// tag (`switch cmd.ProcessState { case nil: }` asks `cmd.ProcessState == nil`).
fn case_headers(file: &File, case: Node) -> Vec<String> {
    let src = file.src;
    let Some(values) = case.child_by_field_name("value") else {
        return Vec::new();
    };
    let tag = case
        .parent()
        .and_then(|s| s.child_by_field_name("value"))
        .map(|t| text(t, src).replace(char::is_whitespace, ""));
    let mut cursor = values.walk();
    values
        .named_children(&mut cursor)
        .map(|v| {
            let v = text(v, src).replace(char::is_whitespace, " ");
            match &tag {
                Some(tag) => format!("{tag} == {v}"),
                None => v,
            }
        })
        .collect()
}

/// Does an `if`/`for` header ask [`LEADER_ALIVE`]: the leader not reaped, a `Signal(0)`
/// probe, or a negated `ProcessState.Exited()` (`!cmd.ProcessState.Exited()`, the leader
/// killed rather than exited: the kill is skipped exactly when it exited on its own)?
fn asks_leader_alive(header: &str) -> bool {
    let [not_reaped, probe, not] = LEADER_ALIVE;
    header.contains(not_reaped)
        || header.contains(probe)
        || header
            .match_indices("ProcessState.Exited()")
            .any(|(at, _)| {
                let before = header[..at]
                    .trim_end_matches(|c: char| c.is_alphanumeric() || "._".contains(c));
                before.ends_with(not)
            })
}

/// `syscall.Kill(-pid, sig)` / `unix.Kill(-pid, sig)`: a negative pid is a group.
fn group_kill(file: &File, call: Node, callee: Node) -> bool {
    let src = file.src;
    if callee.kind() != "selector_expression" {
        return false;
    }
    let (Some(package), Some(function)) = (
        callee.child_by_field_name("operand").map(|o| text(o, src)),
        callee.child_by_field_name("field").map(|f| text(f, src)),
    ) else {
        return false;
    };
    if !file.sys.iter().any(|s| s == package) {
        return false;
    }
    let first = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0));
    // `syscall.Kill(-pid, 0)`: signal 0 only asks whether the group is there.
    let probe = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(1))
        .is_some_and(|s| text(s, src).trim() == "0");
    if probe {
        return false;
    }
    match function {
        "Kill" => first.is_some_and(|pid| {
            let negative = |pid: Node| {
                let pid = unparen(pid);
                pid.kind() == "unary_expression"
                    && pid.child_by_field_name("operator").map(|o| text(o, src)) == Some("-")
                    // -0 and -1 are the caller's own group and every process, never the child's.
                    && pid
                        .child_by_field_name("operand")
                        .is_some_and(|o| o.kind() != "int_literal")
            };
            let pid = unparen(pid);
            // `pgid := -cmd.Process.Pid; ... syscall.Kill(pgid, sig)`.
            negative(pid)
                || (pid.kind() == "identifier"
                    && lookup(file, text(pid, src), pid).into_iter().any(negative))
        }),
        "Killpg" => true,
        _ => false,
    }
}

fn unparen(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression"
        && let Some(inner) = node.named_child(0)
    {
        node = inner;
    }
    node
}

/// Does the expression make a new group or session: `&syscall.SysProcAttr{Setpgid:
/// true}` (or `Setsid`), a variable holding one, or a call of the file's function
/// returning one?
fn groups(file: &File, node: Node, depth: usize) -> bool {
    if depth > MAX_STEPS {
        return false;
    }
    let src = file.src;
    let node = unparen(node);
    match node.kind() {
        "unary_expression" => node
            .child_by_field_name("operand")
            .is_some_and(|o| groups(file, o, depth + 1)),
        "composite_literal" => {
            let is_attr = node
                .child_by_field_name("type")
                .is_some_and(|t| text(t, src).ends_with("SysProcAttr"));
            is_attr
                && node.child_by_field_name("body").is_some_and(|body| {
                    let mut cursor = body.walk();
                    let elements: Vec<Node> = body.named_children(&mut cursor).collect();
                    elements.iter().any(|e| {
                        e.kind() == "keyed_element"
                            && e.child_by_field_name("key")
                                .is_some_and(|k| matches!(text(k, src), "Setpgid" | "Setsid"))
                            && e.child_by_field_name("value")
                                .is_some_and(|v| text(v, src) == "true")
                    })
                })
        }
        "identifier" => lookup(file, text(node, src), node)
            .iter()
            .any(|v| groups(file, *v, depth + 1)),
        "call_expression" => {
            let Some(callee) = node.child_by_field_name("function") else {
                return false;
            };
            let name = text(callee, src);
            let name = name.rsplit('.').next().unwrap_or(name);
            file.functions.get(name).into_iter().flatten().any(|f| {
                let mut found = false;
                syntax::walk(*f, &mut |n| {
                    found |= n.kind() == "composite_literal" && groups(file, n, depth + 1);
                });
                found
            })
        }
        _ => false,
    }
}

/// The types of the file that embed the command (`type Agent struct{ *exec.Cmd }`,
/// `struct{ exec.Cmd; name string }`): their values have its fields and methods.
fn embedding_types(file: &File) -> Vec<String> {
    let src = file.src;
    let mut found = Vec::new();
    syntax::walk(file.root, &mut |n| {
        if n.kind() != "type_spec" {
            return;
        }
        let (Some(name), Some(ty)) = (n.child_by_field_name("name"), n.child_by_field_name("type"))
        else {
            return;
        };
        if ty.kind() != "struct_type" {
            return;
        }
        let mut embeds = false;
        syntax::walk(ty, &mut |f| {
            if f.kind() == "field_declaration" && f.child_by_field_name("name").is_none() {
                let embedded = text(f, src).trim().trim_start_matches('*').trim();
                embeds |= file.exec.iter().any(|e| {
                    if e.is_empty() {
                        embedded == "Cmd"
                    } else {
                        embedded == format!("{e}.Cmd")
                    }
                });
            }
        });
        if embeds {
            found.push(text(name, src).to_string());
        }
    });
    found
}

/// A spawn that is the embedded command of a struct literal bound to a variable (`a :=
/// &Agent{exec.Command(...)}`, `a := Agent{Cmd: exec.Command(...)}`): the variable and
/// the struct's type.
fn embedded_holder(file: &File, call: Node) -> Option<(String, String)> {
    let src = file.src;
    let (literal, ty) = embedding_literal(file, call)?;
    let mut bound = literal.parent()?;
    if bound.kind() == "unary_expression" {
        bound = bound.parent()?;
    }
    if bound.kind() != "expression_list" {
        return None;
    }
    let statement = bound.parent()?;
    if !matches!(
        statement.kind(),
        "short_var_declaration" | "assignment_statement"
    ) {
        return None;
    }
    let mut cursor = bound.walk();
    let index = bound
        .named_children(&mut cursor)
        .position(|n| n.id() == literal.id() || n.id() == literal.parent().map_or(0, |p| p.id()))?;
    let target = statement
        .child_by_field_name("left")?
        .named_child(index as u32)?;
    (target.kind() == "identifier").then(|| (text(target, src).to_string(), ty))
}

/// The struct literal a spawn is the embedded command of (`&Agent{exec.Command(...)}`,
/// `Agent{Cmd: exec.Command(...)}` of a type of [`embedding_types`]), with its type.
fn embedding_literal<'t>(file: &File<'t, '_>, call: Node<'t>) -> Option<(Node<'t>, String)> {
    let src = file.src;
    let element = call.parent().filter(|p| p.kind() == "literal_element")?;
    let mut value = element.parent()?;
    if value.kind() == "keyed_element" {
        let key = value.child_by_field_name("key")?;
        let key = key.named_child(0).unwrap_or(key);
        if text(key, src) != "Cmd" || value.child_by_field_name("value")?.id() != element.id() {
            return None;
        }
        value = value.parent()?;
    }
    let literal = value.parent().filter(|l| l.kind() == "composite_literal")?;
    let ty = text(literal.child_by_field_name("type")?, src).to_string();
    embedding_types(file).contains(&ty).then_some((literal, ty))
}

/// An interpreted string literal's inside as Go reads it: a character written by its
/// code (`\x20`, `\u0020`, `\U00000020`, octal `\040`) is that character, so `"cd
/// /r;\x20claude -p hi"` runs `claude`; the other escapes as
/// [`super::shell::unescape_literal`] reads them.
fn unescape(inside: &str) -> String {
    let mut out = String::with_capacity(inside.len());
    let mut rest = inside;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        let (len, radix) = match escape.as_bytes().get(1) {
            Some(b'x') => (2, 16),
            Some(b'u') => (4, 16),
            Some(b'U') => (8, 16),
            Some(b'0'..=b'7') => (3, 8),
            _ => (0, 0),
        };
        let start = if radix == 8 { 1 } else { 2 };
        let code = (len > 0)
            .then(|| escape.get(start..start + len))
            .flatten()
            .filter(|d| d.chars().all(|c| c.is_digit(radix)))
            .and_then(|d| u32::from_str_radix(d, radix).ok())
            .and_then(char::from_u32);
        match code {
            Some(c) => {
                out.push(c);
                rest = &escape[start + len..];
            }
            None => {
                // One escape (the backslash and the character after it) as the shared
                // reader decodes it.
                let end = escape[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
                out.push_str(&super::shell::unescape_literal(&escape[..end]));
                rest = &escape[end..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Does `home` hand the command a spawn in it makes to its callers (`return
/// exec.Command(...)`, or the variable holding it returned)? `bare`: the command itself,
/// not a struct of the file holding it (whose methods are in reach already).
fn hands_out(file: &File, home: Node, handle: &Handle, bare: bool) -> bool {
    match handle {
        Handle::Elsewhere => true,
        Handle::Var(v) => {
            let mut found = false;
            syntax::walk(home, &mut |n| {
                if n.kind() != "return_statement" {
                    return;
                }
                let values = n.named_child(0);
                let mut cursor = n.walk();
                let values: Vec<Node> = match values {
                    Some(l) if l.kind() == "expression_list" => {
                        l.named_children(&mut cursor).collect()
                    }
                    other => other.into_iter().collect(),
                };
                // `return cmd, nil`, `return &Agent{cmd: cmd}`, `return cmd.Process.Pid`;
                // not `return cmd.Run()`, which hands out only what the command did.
                found |= values.into_iter().any(|value| {
                    let mut value = unparen(value);
                    if value.kind() == "unary_expression"
                        && let Some(operand) = value.child_by_field_name("operand")
                    {
                        value = unparen(operand);
                    }
                    // `return cmd.Process.Pid`, `return cmd.Process`: what is taken from it.
                    while value.kind() == "selector_expression"
                        && let Some(operand) = value.child_by_field_name("operand")
                    {
                        value = unparen(operand);
                    }
                    match value.kind() {
                        "identifier" => text(value, file.src) == v,
                        "composite_literal" => !bare && mentions(text(value, file.src), v),
                        _ => false,
                    }
                });
            });
            found
        }
        Handle::Field(_) | Handle::Nobody => false,
    }
}

/// Is the spawn's function a factory no function of the file calls: a named function
/// handing the command out ([`hands_out`]) that is API for other packages? Then the
/// kills offered beside it count ([`quiet_kills`]), as in the other languages.
fn exported_factory(file: &File, call: Node, handle: &Handle) -> bool {
    let home = outermost_function(call);
    matches!(home.kind(), "function_declaration" | "method_declaration")
        && home.child_by_field_name("name").is_some()
        && embedding_literal(file, call).is_none()
        && hands_out(file, home, handle, true)
        // `return exec.Command(...)`, not a command passed straight to a call.
        && (!matches!(handle, Handle::Elsewhere)
            || call
                .parent()
                .and_then(|p| p.parent())
                .is_some_and(|p| p.kind() == "return_statement"))
        && callers(file, home, handle).is_empty()
}

/// Does `function` start a process itself: an `exec.Command`, an `&exec.Cmd{..}`, or a
/// call of a function of the file that does?
fn starts_one(file: &File, function: Node) -> bool {
    let directly = |f: Node| {
        let mut found = false;
        syntax::walk(f, &mut |n| {
            found |= n.kind() == "call_expression"
                && n.child_by_field_name("function")
                    .is_some_and(|c| spawn_kind(file, c).is_some());
            found |= n.kind() == "composite_literal"
                && n.child_by_field_name("type").is_some_and(|t| {
                    let t = text(t, file.src);
                    t == "Cmd" || t.ends_with(".Cmd")
                });
        });
        found
    };
    let mut found = directly(function);
    syntax::walk(function, &mut |n| {
        if !found
            && n.kind() == "call_expression"
            && let Some(c) = n.child_by_field_name("function")
        {
            let called = text(c, file.src);
            let name = called.rsplit('.').next().unwrap_or(called);
            found = file
                .functions
                .get(name)
                .into_iter()
                .flatten()
                .any(|g| g.id() != function.id() && directly(*g));
        }
    });
    found
}

/// The kills offered by the file's functions that start nothing themselves
/// (`func StopAgent(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, ..) }`): those of a
/// function ending its own child are that child's, not an exported factory's.
fn quiet_kills(file: &File) -> Evidence {
    let src = file.src;
    let mut evidence = Evidence::default();
    for function in file.functions.values().flatten() {
        if starts_one(file, *function) {
            continue;
        }
        syntax::walk(*function, &mut |node| {
            if node.kind() != "call_expression" {
                return;
            }
            let Some(callee) = node.child_by_field_name("function") else {
                return;
            };
            let name = text(callee, src).replace(char::is_whitespace, "");
            if name.ends_with(".Process.Kill") || name.ends_with(".Process.Signal") {
                evidence.leader_kill = true;
            } else if group_kill(file, node, callee) {
                if gated(file, node) {
                    evidence.gated_kill = true;
                } else {
                    evidence.group_kill = true;
                }
            }
        });
    }
    evidence
}
