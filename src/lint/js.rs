//! JavaScript and TypeScript: `child_process` (`spawn`, `exec`, `execFile`, `fork` and
//! their `Sync` forms), `execa`, `Bun.spawn` and `Deno.Command` starting an agent CLI.
//! Compliant: `detached: true` in the options and a group kill (`process.kill(-pid, …)`)
//! in reach of the spawn ([`group_ending`]), or an approved helper. Parsed with
//! tree-sitter; `require` and `import` under any name, and programs in `const`s
//! (template literals and `+` with literal text around them, `path.join`, array
//! spreads, `CMD[0]`, object properties, through `as const`/`satisfies`), and
//! `bash -c`/`env` argument arrays, are followed.

use std::collections::HashMap;

use tree_sitter::Node;

use super::rules::Rules;
use super::syntax::{self, Checked, first_words, raw_at, text};

#[derive(Clone, Copy)]
pub enum Dialect {
    JavaScript,
    TypeScript,
    Tsx,
}

struct File<'t, 's> {
    src: &'s str,
    rules: &'s Rules,
    /// The module's dotted path (`src/agents/run.ts` -> `src.agents.run`), for helpers.
    module: String,
    /// Local name -> `child_process` (a module object) or `child_process.spawn`/`execa`.
    aliases: HashMap<String, String>,
    /// `const NAME = value`, with the function it is declared in (`None`: module level).
    values: HashMap<String, Vec<(Node<'t>, Option<usize>)>>,
    /// The module's group kills (`process.kill(-x, ...)` calls).
    group_kills: Vec<Node<'t>>,
    /// Functions and methods by name (`function f`, `const f = () => ...`, `f() {}`).
    functions: HashMap<String, Vec<Node<'t>>>,
    /// How many more hand-offs (`return Popen(...)` to a caller) may be followed: each
    /// walks the module, and chains of callers are bounded against hostile input.
    handed_budget: std::cell::Cell<usize>,
    /// The ending of a factory the module never calls, the same for every one of them.
    exported: std::cell::OnceCell<Ending>,
    /// Where every identifier and property name of the module is (byte range), by its
    /// text, for the callers of a factory.
    names: std::cell::OnceCell<HashMap<String, Vec<(usize, usize)>>>,
    /// What is left of the evaluation budget of the spawn being checked.
    steps: syntax::Steps,
    /// Which kills are another spawn's, for the spawn being checked ([`tie`]).
    tie: std::cell::RefCell<syntax::Tie>,
}

pub fn check(src: &str, path: &str, rules: &Rules, dialect: Dialect) -> Checked {
    let language = match dialect {
        Dialect::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Dialect::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Dialect::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
    };
    let tree = match syntax::parse_bounded(language, src, "JavaScript") {
        Ok(tree) => tree,
        Err(checked) => return checked,
    };
    let root = tree.root_node();
    let mut file = File {
        src,
        rules,
        module: module_path(path),
        aliases: HashMap::new(),
        values: HashMap::new(),
        group_kills: Vec::new(),
        functions: HashMap::new(),
        handed_budget: std::cell::Cell::new(64),
        exported: std::cell::OnceCell::new(),
        names: std::cell::OnceCell::new(),
        steps: syntax::Steps::new(),
        tie: std::cell::RefCell::default(),
    };
    collect(root, &mut file);
    let mut findings = Vec::new();
    syntax::walk(root, &mut |node| {
        let found = match node.kind() {
            "call_expression" | "new_expression" => check_call(&file, node),
            _ => None,
        };
        findings.extend(found);
    });
    Checked {
        findings,
        parse_error: syntax::first_error(&tree),
        too_deep: None,
    }
}

fn module_name(node: Node, src: &str) -> String {
    text(node, src)
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_string()
}

/// `require('m')` -> `m`.
fn required_module(node: Node, src: &str) -> Option<String> {
    let node = if node.kind() == "await_expression" {
        node.named_child(0)?
    } else {
        node
    };
    if node.kind() != "call_expression" {
        return None;
    }
    let callee = node.child_by_field_name("function")?;
    if !matches!(text(callee, src), "require" | "import") {
        return None;
    }
    let args = node.child_by_field_name("arguments")?;
    Some(module_name(args.named_child(0)?, src))
}

fn collect<'t>(root: Node<'t>, file: &mut File<'t, '_>) {
    let src = file.src;
    let rules = file.rules;
    let known = |m: &str| rules.javascript.modules.iter().any(|k| k == m) || m == "execa";
    syntax::walk(root, &mut |node| match node.kind() {
        "import_statement" => {
            let Some(source) = node.child_by_field_name("source") else {
                return;
            };
            let module = module_name(source, src);
            if !known(&module) {
                return;
            }
            let module = canonical(&module);
            syntax::walk(node, &mut |n| match n.kind() {
                "import_specifier" => {
                    let name = n.child_by_field_name("name").map(|x| text(x, src));
                    let alias = n.child_by_field_name("alias").map(|x| text(x, src));
                    if let Some(name) = name {
                        file.aliases
                            .insert(alias.unwrap_or(name).into(), format!("{module}.{name}"));
                    }
                }
                "namespace_import" => {
                    if let Some(id) = n.named_child(0) {
                        file.aliases.insert(text(id, src).into(), module.clone());
                    }
                }
                "import_clause" => {
                    if let Some(id) = n.named_child(0)
                        && id.kind() == "identifier"
                    {
                        // `import execa from 'execa'` is the function; a default import of
                        // child_process is the module object.
                        let target = if module == "execa" {
                            "execa.execa".to_string()
                        } else {
                            module.clone()
                        };
                        file.aliases.insert(text(id, src).into(), target);
                    }
                }
                _ => {}
            });
        }
        "variable_declarator" => {
            let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            ) else {
                return;
            };
            if let Some(module) = required_module(value, src).filter(|m| known(m)) {
                let module = canonical(&module);
                match name.kind() {
                    "identifier" => {
                        let target = if module == "execa" {
                            "execa.execa".to_string()
                        } else {
                            module
                        };
                        file.aliases.insert(text(name, src).into(), target);
                    }
                    "object_pattern" => {
                        let mut cursor = name.walk();
                        for prop in name.named_children(&mut cursor) {
                            match prop.kind() {
                                "shorthand_property_identifier_pattern" => {
                                    let n = text(prop, src);
                                    file.aliases.insert(n.into(), format!("{module}.{n}"));
                                }
                                "pair_pattern" => {
                                    if let (Some(k), Some(v)) = (
                                        prop.child_by_field_name("key"),
                                        prop.child_by_field_name("value"),
                                    ) {
                                        file.aliases.insert(
                                            text(v, src).into(),
                                            format!("{module}.{}", text(k, src)),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            } else if name.kind() == "identifier" {
                // `const run = util.promisify(execFile)`: the same spawn, awaited.
                if let Some(target) = promisified(file, value) {
                    file.aliases.insert(text(name, src).into(), target);
                }
                if matches!(
                    value.kind(),
                    "arrow_function" | "function_expression" | "function"
                ) {
                    file.functions
                        .entry(text(name, src).into())
                        .or_default()
                        .push(value);
                }
                file.values
                    .entry(text(name, src).into())
                    .or_default()
                    .push((value, scope_of(node)));
            } else if name.kind() == "array_pattern"
                && let Some(first) = name.named_child(0).filter(|f| f.kind() == "identifier")
            {
                // `const [bin, ...rest] = CMD`: `bin` starts with the array's words, and
                // only a program's first word is read.
                file.values
                    .entry(text(first, src).into())
                    .or_default()
                    .push((value, scope_of(node)));
            }
        }
        // A parameter's default (`constructor(bin = 'claude')`, `bin: string = 'claude'`):
        // what it holds when no caller says otherwise.
        "assignment_pattern" | "required_parameter" | "optional_parameter" => {
            let (name, value) = if node.kind() == "assignment_pattern" {
                (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                )
            } else {
                (
                    node.child_by_field_name("pattern"),
                    node.child_by_field_name("value"),
                )
            };
            if let (Some(name), Some(value)) = (name, value)
                && name.kind() == "identifier"
                && node
                    .parent()
                    .is_some_and(|p| p.kind() == "formal_parameters")
            {
                file.values
                    .entry(text(name, src).into())
                    .or_default()
                    .push((value, scope_of(node)));
            }
        }
        "function_declaration" | "method_definition" | "generator_function_declaration" => {
            if let Some(name) = node.child_by_field_name("name") {
                file.functions
                    .entry(text(name, src).into())
                    .or_default()
                    .push(node);
            }
        }
        // `stop = () => { ... }` in a class body: a method by another syntax.
        "field_definition" | "public_field_definition" => {
            if let Some(name) = node
                .child_by_field_name("property")
                .or_else(|| node.child_by_field_name("name"))
                && let Some(value) = field_function(node)
            {
                file.functions
                    .entry(text(name, src).into())
                    .or_default()
                    .push(value);
            }
        }
        // process.kill(-child.pid, ...): the minus makes it a group kill (past `(...)`,
        // `!`, `as` and `<T>`, [`negated_pid`]).
        "call_expression" => {
            if let Some(callee) = node.child_by_field_name("function")
                && text(callee, src).replace(char::is_whitespace, "") == "process.kill"
                && let Some(first) = node
                    .child_by_field_name("arguments")
                    .and_then(first_argument)
                && negated_pid(first, src)
                && !signal_probe(node, src)
            {
                file.group_kills.push(node);
            }
        }
        _ => {}
    });
    // `const { CLAUDE } = BINS`, `const { claude: bin } = BINS` of a `const BINS = {...}`:
    // each name is bound to that property's value (read once every `const` is known).
    let mut destructured = Vec::new();
    syntax::walk(root, &mut |node| {
        if node.kind() == "variable_declarator"
            && let (Some(pattern), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
            && pattern.kind() == "object_pattern"
            && uncast(value).kind() == "identifier"
        {
            let mut cursor = pattern.walk();
            for prop in pattern.named_children(&mut cursor) {
                let (key, bound) = match prop.kind() {
                    "shorthand_property_identifier_pattern" => (prop, prop),
                    "pair_pattern" => match (
                        prop.child_by_field_name("key"),
                        prop.child_by_field_name("value"),
                    ) {
                        (Some(k), Some(v)) if v.kind() == "identifier" => (k, v),
                        _ => continue,
                    },
                    _ => continue,
                };
                for v in property_values(file, uncast(value), key, node) {
                    destructured.push((text(bound, src).to_string(), v, scope_of(node)));
                }
            }
        }
    });
    for (name, value, scope) in destructured {
        file.values.entry(name).or_default().push((value, scope));
    }
    // `const pgid = -child.pid; ... process.kill(pgid)`: a name bound to a negative pid.
    syntax::walk(root, &mut |node| {
        if node.kind() == "call_expression"
            && let Some(callee) = node.child_by_field_name("function")
            && text(callee, src).replace(char::is_whitespace, "") == "process.kill"
            && let Some(first) = node
                .child_by_field_name("arguments")
                .and_then(first_argument)
            && first.kind() == "identifier"
            && file
                .values
                .get(text(first, src))
                .is_some_and(|vs| vs.iter().any(|(v, _)| negated_pid(*v, src)))
            && !signal_probe(node, src)
        {
            file.group_kills.push(node);
        }
    });
}

/// The function-like node a declaration lives in, by id.
fn scope_of(node: Node) -> Option<usize> {
    let mut n = node.parent();
    while let Some(p) = n {
        if FUNCTIONS.contains(&p.kind()) {
            return Some(p.id());
        }
        n = p.parent();
    }
    None
}

/// The spawn `util.promisify(f)` wraps, when `f` is one.
fn promisified(file: &File, value: Node) -> Option<String> {
    if value.kind() != "call_expression" {
        return None;
    }
    let callee = value.child_by_field_name("function")?;
    if !text(callee, file.src).ends_with("promisify") {
        return None;
    }
    let wrapped = first_argument(value.child_by_field_name("arguments")?)?;
    let name = resolve(file, wrapped);
    (name.starts_with("child_process.") || name.starts_with("execa.")).then_some(name)
}

/// The first argument, skipping comments.
// The binding is needed: the iterator borrows the cursor until the statement ends.
#[allow(clippy::let_and_return)]
fn first_argument(args: Node) -> Option<Node> {
    let mut cursor = args.walk();
    let first = args
        .named_children(&mut cursor)
        .find(|n| n.kind() != "comment");
    first
}

fn module_path(path: &str) -> String {
    let stem = path
        .rsplit_once('.')
        .map_or(path, |(stem, _)| stem)
        .trim_end_matches("/index");
    stem.replace('/', ".")
}

/// Is the call inside an approved helper (a function, method or `const f = () => ...`
/// whose qualified name `<module>.<name>` the rules approve)?
fn in_helper(file: &File, call: Node) -> bool {
    let mut n = call.parent();
    while let Some(p) = n {
        let name = match p.kind() {
            "function_declaration" | "method_definition" | "generator_function_declaration" => {
                p.child_by_field_name("name").map(|x| text(x, file.src))
            }
            "arrow_function" | "function_expression" | "function" => p
                .parent()
                .filter(|d| d.kind() == "variable_declarator")
                .and_then(|d| d.child_by_field_name("name"))
                .map(|x| text(x, file.src)),
            _ => None,
        };
        if let Some(name) = name
            && file.rules.is_helper(&format!("{}.{name}", file.module))
        {
            return true;
        }
        n = p.parent();
    }
    false
}

fn canonical(module: &str) -> String {
    module.trim_start_matches("node:").to_string()
}

fn check_call(file: &File, call: Node) -> Option<syntax::Raw> {
    let src = file.src;
    let js = &file.rules.javascript;
    let callee = call
        .child_by_field_name("function")
        .or_else(|| call.child_by_field_name("constructor"))?;
    let name = resolve(file, callee);
    let (kind, args) = if let Some(f) = name.strip_prefix("child_process.") {
        if !js.child_process.iter().any(|c| c == f) {
            return None;
        }
        (Kind::ChildProcess, call.child_by_field_name("arguments")?)
    } else if let Some(f) = name.strip_prefix("execa.") {
        if !js.execa.iter().any(|c| c == f) {
            return None;
        }
        (Kind::Execa, call.child_by_field_name("arguments")?)
    } else if js.no_group_option.contains(&name) {
        (Kind::Runtime, call.child_by_field_name("arguments")?)
    } else {
        return None;
    };
    file.steps.reset();
    let words = if args.kind() == "template_string" {
        // execa`claude -p ${x}`
        template_words(file, args)
    } else {
        let mut words = program_words(file, first_argument(args)?, 0);
        // `spawn('nohup', ['claude', '-p', p])`, `spawn('sudo', [...BASE, q])`: past the
        // wrapper, into the arguments (a literal, a name bound to one, spreads).
        if words.len() == 1 {
            let mut cursor = args.walk();
            if let Some(list) = args
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .nth(1)
            {
                argv_words(file, options_args(file, list), 1, &mut words);
            }
        }
        words
    };
    let words = syntax::past_wrappers(&words, file.rules);
    let forks = syntax::session_forks(&words);
    // `spawn('setsid', ['claude', ...])`: the new session `detached: true` would make.
    let (words, setsid) = match syntax::past_session(&words, file.rules) {
        Some(command) => (command, true),
        None => (words, false),
    };
    if setsid && shell_string_owns_its_session(file, args) {
        return None;
    }
    // No program past the first words' wrappers (`sudo -u agent nice -n 5 codex` is
    // longer than they are): a command string is still read whole, as a script.
    let program = words.first().map_or("", String::as_str);
    // `spawn('fleet', ['run', '--', 'claude'])`; a command line (`exec('fleet run -- claude
    // -p a; codex exec b')`) is read whole below, where `fleet run` covers its own command.
    if program == "fleet"
        && words.get(1).map(String::as_str) == Some("run")
        && !first_argument(args)
            .and_then(|a| string_value(file, a, 1))
            .is_some_and(|line| line.contains(char::is_whitespace))
    {
        return None;
    }
    let agent = match file.rules.agent(program) {
        Some(agent) => agent.to_string(),
        None if let Some(agent) = syntax::package_agent(&words, file.rules) => agent,
        None if args.kind() == "arguments" => wrapped_agent(file, program, args)?,
        None => return None,
    };
    if in_helper(file, call) {
        return None;
    }
    if setsid && let Some(raw) = forked_session(file, callee, args, &agent, &name, forks) {
        return Some(raw);
    }
    let detached = setsid || options_detached(file, args);
    let function = name.rsplit('.').next().unwrap_or("");
    let blocking = js.blocking.iter().any(|b| b == function);
    file.tie.replace(tie(file, call));
    let ending = group_ending(file, call);
    let (message, help) = match kind {
        Kind::Runtime if !setsid => (
            format!("`{agent}` is started by `{name}` without a process group of its own"),
            format!(
                "`{name}` cannot start a new process group: use child_process.spawn(..., {{ \
                 detached: true }}) and process.kill(-child.pid, 'SIGKILL'), or run `fleet run \
                 --timeout DUR -- {agent} ...`"
            ),
        ),
        _ if detached && blocking => (
            format!(
                "`{agent}` is started by `{name}` in a new process group that nothing can \
                 kill: `{function}` waits for the leader and kills only it on timeout"
            ),
            format!(
                "`{function}` returns no pid to kill the group with: use the asynchronous form \
                 with {{ detached: true }} and process.kill(-child.pid, 'SIGKILL') on timeout, \
                 error and exit"
            ),
        ),
        _ if detached => match ending {
            Ending::Killed => return None,
            Ending::Gated => (
                format!(
                    "`{agent}` is started by `{name}` in a new process group that is killed \
                     only while the leader is alive"
                ),
                "the group kill is gated on the leader (`exitCode === null`, `!child.killed`): \
                 when the leader exits first, its helpers survive. Call \
                 process.kill(-child.pid, 'SIGKILL') unconditionally (ESRCH means the group is \
                 gone)"
                    .to_string(),
            ),
            Ending::LeaderOnly => (
                format!(
                    "`{agent}` is started by `{name}` in a new process group, but only the \
                     leader is killed"
                ),
                "`child.kill()` signals the leader alone: kill the whole group with \
                 process.kill(-child.pid, 'SIGKILL') on timeout, error and exit"
                    .to_string(),
            ),
            Ending::Nothing => (
                format!(
                    "`{agent}` is started by `{name}` in a new process group, but nothing \
                     kills the group"
                ),
                "`detached: true` starts a group, but nothing kills it: add \
                 process.kill(-child.pid, 'SIGKILL') on timeout, error and exit"
                    .to_string(),
            ),
        },
        _ => (
            format!("`{agent}` is started by `{name}` without a process group of its own"),
            format!(
                "{}pass {{ detached: true }} and kill the group with process.kill(-child.pid, \
                 'SIGKILL') on timeout, error and exit, or run `fleet run --timeout DUR -- \
                 {agent} ...`",
                if ending == Ending::LeaderOnly {
                    "`child.kill()` signals the leader alone: "
                } else {
                    ""
                }
            ),
        ),
    };
    let _ = src;
    Some(raw_at(callee, file.src, message, help))
}

/// The agent a spawn runs through a wrapper program named first: a shell's `-c` script
/// (`spawn('bash', ['-lc', 'claude -p hi'])`) or `env` (`spawn('/usr/bin/env',
/// ['claude', '-p'])`), read from the argument array.
fn wrapped_agent(file: &File, program: &str, args: Node) -> Option<String> {
    let name = program.rsplit('/').next().unwrap_or(program);
    let shell = file.rules.shell.shells.iter().any(|s| s == name);
    let mut cursor = args.walk();
    let given: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    // A command string (`exec`, `execSync`, `{ shell: true }`) is a whole shell script:
    // every command of its lists, pipelines, subshells and loops, its own variables,
    // `bash -lc '...'` inside it.
    if let Some(line) = given.first().and_then(|n| string_value(file, *n, 1)) {
        let line_agent = super::shell::script_agent(&line, file.rules);
        if line_agent.is_some() {
            return line_agent;
        }
    }
    if !shell && name != "env" && name != "su" {
        return None;
    }
    // The argument array however it is built (spreads, `.concat`, `.slice`), or the
    // `args` of `new Deno.Command('sh', { args: [...] })`.
    let mut words = Vec::new();
    argv_words(file, options_args(file, *given.get(1)?), 1, &mut words);
    if words.is_empty() {
        return None;
    }
    let items: Vec<Option<String>> = words.into_iter().map(|w| (w != "?").then_some(w)).collect();
    if name == "su" {
        // `su agent -c 'claude -p hi'` runs its command as a script ([`super::syntax::argv_agent`]).
        let words: Vec<String> = std::iter::once(program.to_string())
            .chain(
                items
                    .into_iter()
                    .map(|v| v.unwrap_or_else(|| "\u{0}".into())),
            )
            .collect();
        return super::syntax::argv_agent(&words, file.rules);
    }
    if shell {
        let at = items
            .iter()
            .position(|v| v.as_deref().is_some_and(super::shell::is_script_flag))?;
        return super::shell::script_agent(items.get(at + 1)?.as_deref()?, file.rules);
    }
    // `env [-i] [VAR=value]... claude`
    let word = items
        .iter()
        .map(|v| v.as_deref())
        .find(|v| v.is_none_or(|w| !w.starts_with('-') && !w.contains('=')))??;
    file.rules.agent(word).map(str::to_string)
}

/// How the module ends a spawn's process group, the best it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    Killed,
    Gated,
    LeaderOnly,
    Nothing,
}

impl Ending {
    /// A kill beats a gated kill beats a leader's kill beats nothing.
    fn rank(self) -> u8 {
        match self {
            Ending::Killed => 3,
            Ending::Gated => 2,
            Ending::LeaderOnly => 1,
            Ending::Nothing => 0,
        }
    }
}

const FUNCTIONS: [&str; 6] = [
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
];

/// The outermost function the spawn is in (its callbacks are part of it), and whether
/// the spawn is handed to the caller (`return spawn(...)`, or the name it is bound to
/// returned). `None`: at module level.
fn spawn_scope<'t>(file: &File<'t, '_>, call: Node<'t>) -> Option<(Node<'t>, bool)> {
    let mut outermost = None;
    let mut bound = None;
    let mut n = call.parent();
    let mut returned = false;
    while let Some(p) = n {
        // `(p) => spawn(...)`: the arrow's value is the child.
        if p.kind() == "arrow_function"
            && outermost.is_none()
            && p.child_by_field_name("body") == Some(call)
        {
            returned = true;
        }
        match p.kind() {
            "return_statement" if outermost.is_none() && bound.is_none() => returned = true,
            // `return start(p).wait()`: what is returned is the method's result.
            "member_expression" if outermost.is_none() && bound.is_none() && !returned => {
                bound = Some("");
            }
            "variable_declarator" if outermost.is_none() && bound.is_none() => {
                bound = p.child_by_field_name("name").map(|x| text(x, file.src));
            }
            k if FUNCTIONS.contains(&k) => {
                // A callback (an argument, a `new Promise` executor) belongs to the function
                // that passes it; a named function or method is the scope.
                let callback = p.parent().is_some_and(|a| a.kind() == "arguments");
                if outermost.is_none() || !callback {
                    outermost = Some(p);
                }
                if !callback {
                    break;
                }
            }
            _ => {}
        }
        n = p.parent();
    }
    let scope = outermost?;
    if returned {
        return Some((scope, true));
    }
    if let Some(name) = bound.filter(|b| !b.is_empty()) {
        let mut found = false;
        syntax::walk(scope, &mut |r| {
            if r.kind() == "return_statement"
                && let Some(v) = r.named_child(0)
                && (text(v, file.src) == name
                    || (v.kind() == "object"
                        && text(v, file.src)
                            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                            .any(|w| w == name)))
            {
                found = true;
            }
        });
        if found {
            return Some((scope, true));
        }
    }
    Some((scope, false))
}

fn root_of(node: Node) -> Node {
    let mut n = node;
    while let Some(p) = n.parent() {
        n = p;
    }
    n
}

/// The kills in reach of a spawn: its function (callbacks included), the module's
/// functions it names (transitively), the other methods of its class; the whole module
/// for a spawn at module level. A spawn handed to the caller is followed to its callers
/// in the module ([`handed_ending`]). Which pid is killed is not checked, except that a
/// kill naming another spawn's child is that child's ([`tie`]).
fn group_ending(file: &File, call: Node) -> Ending {
    let Some((scope, handed)) = spawn_scope(file, call) else {
        return ending_in(file, &[root_of(call)]);
    };
    let mut reached = reach_from(file, scope, holds(file, call, scope));
    // `child = spawn(...)` into a variable of the module, or put in a collection of the
    // module (`children.add(child)`): the module's functions that use it (`stopClaude()`,
    // `killAll()`) hold the same child.
    let kept = module_variable(file, call).or_else(|| module_collection(file, call, scope));
    if let Some(name) = kept {
        for f in file.functions.values().flatten() {
            let mut uses = false;
            syntax::walk(*f, &mut |n| {
                uses |= n.kind() == "identifier" && text(n, file.src) == name;
            });
            if uses && !reached.contains(f) {
                reached.extend(reach_from(file, *f, true));
            }
        }
        // `process.on('exit', () => process.kill(-child.pid, ...))` at module level.
        for s in syntax::module_statements_naming(root_of(call), file.src, name) {
            reached.extend(reach_from(file, s, true));
        }
    }
    let own = ending_in(file, &reached);
    if own == Ending::Killed || !handed {
        return own;
    }
    better(own, handed_ending(file, scope, 0))
}

/// The variable of the module the spawn's child is assigned to (`child = spawn(...)`
/// in a function, `child` declared at module level), if any.
fn module_variable<'s>(file: &File<'_, 's>, call: Node) -> Option<&'s str> {
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind() {
            "assignment_expression" => {
                let left = p.child_by_field_name("left")?;
                let name = text(left, file.src);
                return (left.kind() == "identifier"
                    && (file
                        .values
                        .get(name)
                        .is_some_and(|v| v.iter().any(|(_, scope)| scope.is_none()))
                        || declared_bare(file, root_of(p), name)))
                .then_some(name);
            }
            "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => n = p,
            _ => return None,
        }
    }
    None
}

/// The collection of the module the child is put in (`children.add(child)` of a `const
/// children = new Set()`, `push` into an array, `set(id, child)` into a Map, `procs[id] =
/// child`), the spawn itself or the local it is bound to: no assignment to the module
/// variable is needed to fill one, and the module's functions that use it (`for (const c
/// of children) process.kill(-c.pid, ...)`) hold the child as much as a module `let
/// child` would.
fn module_collection<'s>(file: &File<'_, 's>, call: Node, scope: Node) -> Option<&'s str> {
    let src = file.src;
    let mut at = call;
    while let Some(p) = at.parent()
        && matches!(
            p.kind(),
            "parenthesized_expression"
                | "await_expression"
                | "as_expression"
                | "non_null_expression"
        )
    {
        at = p;
    }
    let bound = at
        .parent()
        .filter(|p| p.kind() == "variable_declarator")
        .and_then(|d| d.child_by_field_name("name"))
        .filter(|n| n.kind() == "identifier")
        .map(|n| text(n, src));
    let mut uses = vec![at];
    if let Some(local) = bound {
        syntax::walk(scope, &mut |n| {
            if n.kind() == "identifier" && text(n, src) == local {
                uses.push(n);
            }
        });
    }
    let module_name = |n: Node| {
        let name = text(n, src);
        (n.kind() == "identifier"
            && file
                .values
                .get(name)
                .is_some_and(|v| v.iter().any(|(_, scope)| scope.is_none())))
        .then_some(name)
    };
    uses.into_iter().find_map(|x| {
        let parent = x.parent()?;
        match parent.kind() {
            // `procs[id] = child`
            "assignment_expression" if parent.child_by_field_name("right") == Some(x) => {
                let left = parent.child_by_field_name("left")?;
                (left.kind() == "subscript_expression")
                    .then(|| left.child_by_field_name("object"))
                    .flatten()
                    .and_then(module_name)
            }
            // `children.add(child)`, `.push(child)`, `.unshift(child)`, `.set(id, child)`
            "arguments" => {
                let callee = parent.parent()?.child_by_field_name("function")?;
                let method = callee.child_by_field_name("property")?;
                matches!(text(method, src), "add" | "push" | "unshift" | "set")
                    .then(|| callee.child_by_field_name("object"))
                    .flatten()
                    .and_then(module_name)
            }
            _ => None,
        }
    })
}

/// The function a class field holds (`stop = () => { ... }`), a method by another syntax.
fn field_function(field: Node) -> Option<Node> {
    if !matches!(field.kind(), "field_definition" | "public_field_definition") {
        return None;
    }
    field.child_by_field_name("value").filter(|v| {
        matches!(
            v.kind(),
            "arrow_function" | "function_expression" | "function"
        )
    })
}

/// The class body a method (or a function held by a class field) belongs to.
fn class_of(function: Node) -> Option<Node> {
    let parent = function.parent()?;
    let parent = if field_function(parent) == Some(function) {
        parent.parent()?
    } else {
        parent
    };
    // An object literal's methods (`const agent = { start() {...}, stop() {...} }`)
    // share `this` as a class's do.
    (parent.kind() == "class_body"
        || (parent.kind() == "object" && function.kind() == "method_definition"))
        .then_some(parent)
}

/// A function (or method) and what it reaches: the other methods of its class, the
/// module's functions named in them, transitively.
fn reach_from<'t>(file: &File<'t, '_>, scope: Node<'t>, class_wide: bool) -> Vec<Node<'t>> {
    let mut reached = vec![scope];
    let class = class_of(scope);
    if let Some(class) = class.filter(|_| class_wide) {
        let mut cursor = class.walk();
        reached.extend(class.named_children(&mut cursor).filter_map(|m| {
            if m.kind() == "method_definition" {
                Some(m)
            } else {
                field_function(m)
            }
        }));
    }
    let mut i = 0;
    while i < reached.len() {
        let mut named = Vec::new();
        syntax::walk(reached[i], &mut |n| {
            // `killTree(child)`, `this.stop()`; not `child.kill()`, another object's.
            let named_here = match n.kind() {
                "identifier" => Some(false),
                "property_identifier" => n
                    .parent()
                    .is_some_and(|m| {
                        m.kind() == "member_expression"
                            && m.child_by_field_name("object")
                                .is_some_and(|o| o.kind() == "this")
                    })
                    .then_some(true),
                _ => None,
            };
            if let Some(of_this) = named_here {
                named.push((text(n, file.src), of_this));
            }
        });
        for (name, of_this) in named {
            for f in file.functions.get(name).into_iter().flatten() {
                // `this.stop()` is a method of this class, `stop()` a function: neither
                // is another class's method of the same name.
                let owner = class_of(*f);
                let ours = if of_this {
                    owner.is_some() && owner == class
                } else {
                    owner.is_none()
                };
                if ours && !reached.contains(f) {
                    reached.push(*f);
                }
            }
        }
        i += 1;
    }
    reached
}

/// Could the object of the method `scope` get hold of the child `call` makes: stored on
/// it (`this.child = spawn(...)`), or bound to a name that escapes the method (handed to
/// a call, put in an array or object, assigned on)? Then every method of the class is in
/// reach; not when it stays a local used in place, or is returned (its callers decide).
fn holds(file: &File, call: Node, scope: Node) -> bool {
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind() {
            "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "non_null_expression" => n = p,
            "return_statement" | "expression_statement" => return false,
            "arrow_function" if p.child_by_field_name("body") == Some(n) => return false,
            "variable_declarator" => {
                return match p.child_by_field_name("name") {
                    Some(name) if name.kind() == "identifier" => {
                        escapes(file, scope, text(name, file.src))
                    }
                    _ => true,
                };
            }
            _ => return true,
        }
    }
    true
}

/// Does the local `name` leave `scope` other than by `return`: passed to a call, put in
/// an array or object, assigned to something else?
fn escapes(file: &File, scope: Node, name: &str) -> bool {
    let src = file.src;
    let mut out = false;
    syntax::walk(scope, &mut |id| {
        if out
            || !matches!(id.kind(), "identifier" | "shorthand_property_identifier")
            || text(id, src) != name
        {
            return;
        }
        if id.kind() == "shorthand_property_identifier" {
            out = true;
            return;
        }
        // Up through `child.pid`, `child.stdout`: it or a part of it. A method's result
        // (`child.on(...)`) is neither.
        let mut n = id;
        while let Some(p) = n.parent() {
            match p.kind() {
                "member_expression" if p.child_by_field_name("object") == Some(n) => n = p,
                "subscript_expression" if p.child_by_field_name("object") == Some(n) => n = p,
                "call_expression" if p.child_by_field_name("function") == Some(n) => return,
                _ => break,
            }
        }
        let Some(p) = n.parent() else { return };
        out |= match p.kind() {
            "assignment_expression" => p.child_by_field_name("right") == Some(n),
            "variable_declarator" => p.child_by_field_name("value") == Some(n),
            "arguments"
            | "array"
            | "pair"
            | "spread_element"
            | "augmented_assignment_expression" => true,
            _ => false,
        };
    });
    out
}

/// The best ending the kills within `reached` show.
fn ending_in(file: &File, reached: &[Node]) -> Ending {
    let within = |n: Node| {
        reached
            .iter()
            .any(|r| r.start_byte() <= n.start_byte() && n.end_byte() <= r.end_byte())
    };
    let tie = file.tie.borrow();
    // A kill whose target (`-a.pid`, `a`) is another spawn's child.
    let foreign = |n: Node, target: Option<Node>| {
        target.is_some_and(|t| tie.foreign(n.byte_range(), text(t, file.src)))
    };
    let kills: Vec<bool> = file
        .group_kills
        .iter()
        .filter(|k| within(**k) && !foreign(**k, k.child_by_field_name("arguments")))
        .map(|k| gated(file, *k))
        .collect();
    if kills.contains(&false) {
        return Ending::Killed;
    }
    if kills.contains(&true) {
        return Ending::Gated;
    }
    let mut leader = false;
    for scope in reached {
        syntax::walk(*scope, &mut |n| {
            if n.kind() == "call_expression"
                && let Some(f) = n.child_by_field_name("function")
                && f.kind() == "member_expression"
                && f.child_by_field_name("property").map(|p| text(p, file.src)) == Some("kill")
                && f.child_by_field_name("object").map(|o| text(o, file.src)) != Some("process")
                && !foreign(n, f.child_by_field_name("object"))
            {
                leader = true;
            }
        });
    }
    if leader {
        Ending::LeaderOnly
    } else {
        Ending::Nothing
    }
}

fn better(a: Ending, b: Ending) -> Ending {
    if a.rank() >= b.rank() { a } else { b }
}

/// The name a function is called by: its own, or the variable, property or export it
/// is assigned to (`const start = () => ...`, `{ start() {} }`, `exports.start = ...`).
fn function_name<'s>(file: &File<'_, 's>, function: Node) -> Option<&'s str> {
    if let Some(name) = function.child_by_field_name("name") {
        return Some(text(name, file.src));
    }
    let parent = function.parent()?;
    let name = match parent.kind() {
        "variable_declarator" => parent.child_by_field_name("name"),
        "pair" => parent.child_by_field_name("key"),
        "assignment_expression" => parent
            .child_by_field_name("left")
            .map(|l| l.child_by_field_name("property").unwrap_or(l)),
        _ => None,
    }?;
    Some(text(name, file.src))
}

/// How the callers of `factory` (a function handing out the child) end its group: each
/// caller in the module must, in its own reach (or its callers', when it hands the
/// child on); the worst of them counts. A factory the module never calls is API for
/// other modules: then the group kills of the module's functions that start nothing
/// themselves count (`function killTree(child)` beside it), not those that end another
/// spawn of their own.
fn handed_ending(file: &File, factory: Node, depth: usize) -> Ending {
    let src = file.src;
    let name = function_name(file, factory);
    let budget = file.handed_budget.get();
    if depth > 4 || budget == 0 {
        return exported_ending(file);
    }
    file.handed_budget.set(budget - 1);
    let mut callers = Vec::new();
    let mut referenced = false;
    let root = root_of(factory);
    let names = file.names.get_or_init(|| {
        let mut names: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        syntax::walk(root, &mut |n| {
            if matches!(n.kind(), "identifier" | "property_identifier") {
                names
                    .entry(text(n, src).into())
                    .or_default()
                    .push((n.start_byte(), n.end_byte()));
            }
        });
        names
    });
    if let Some(name) = name {
        for &(start, end) in names.get(name).into_iter().flatten() {
            let Some(n) = root
                .descendant_for_byte_range(start, end)
                .filter(|n| matches!(n.kind(), "identifier" | "property_identifier"))
            else {
                continue;
            };
            let named = match n.kind() {
                "identifier" => text(n, src) == name,
                "property_identifier" => {
                    text(n, src) == name
                        && n.parent().is_some_and(|m| {
                            m.kind() == "member_expression"
                                && m.child_by_field_name("property") == Some(n)
                        })
                }
                _ => false,
            };
            if !named {
                continue;
            }
            let target = if n.kind() == "property_identifier" {
                n.parent()
            } else {
                Some(n)
            };
            let Some(target) = target else { continue };
            match target.parent() {
                Some(c)
                    if c.kind() == "call_expression"
                        && c.child_by_field_name("function") == Some(target) =>
                {
                    callers.push(c);
                }
                // Handed on as a value (`prompts.map(start)`): where it ends is out of reach.
                Some(a) if a.kind() == "arguments" => referenced = true,
                _ => {}
            }
        }
    }
    // A call inside the factory's own body (a retry calling itself, or a method named
    // like the spawn function it calls) hands nothing out: it is no caller.
    callers.retain(|c| c.start_byte() < factory.start_byte() || factory.end_byte() < c.end_byte());
    if callers.is_empty() || referenced {
        return exported_ending(file);
    }
    let mut worst = Ending::Killed;
    for caller in callers {
        let ending = match spawn_scope(file, caller) {
            None => ending_in(file, &[root_of(caller)]),
            Some((f, _)) if f == factory => continue,
            Some((f, handed)) => {
                let own = ending_in(file, &reach_from(file, f, holds(file, caller, f)));
                if own != Ending::Killed && handed {
                    better(own, handed_ending(file, f, depth + 1))
                } else {
                    own
                }
            }
        };
        if ending.rank() < worst.rank() {
            worst = ending;
        }
    }
    worst
}

/// The name a spawn's child is bound to: `const child = spawn(...)`, `this.child =
/// spawn(...)`, `child = await execa(...)`.
fn handle<'s>(file: &File<'_, 's>, call: Node) -> Option<&'s str> {
    let src = file.src;
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind() {
            "parenthesized_expression"
            | "await_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression" => n = p,
            "variable_declarator" if p.child_by_field_name("value") == Some(n) => {
                return p
                    .child_by_field_name("name")
                    .filter(|l| l.kind() == "identifier")
                    .map(|l| text(l, src));
            }
            "assignment_expression" if p.child_by_field_name("right") == Some(n) => {
                return p
                    .child_by_field_name("left")
                    .filter(|l| matches!(l.kind(), "identifier" | "member_expression"))
                    .map(|l| text(l, src));
            }
            _ => return None,
        }
    }
    None
}

/// The handles of the other spawns of the function `call` is in (its callbacks
/// included; the module for a spawn at module level), and the names bound to values
/// taken from them (`const pid = a.pid`): a kill naming one of them ends that child, not
/// this one.
fn tie<'t>(file: &File<'t, '_>, call: Node<'t>) -> syntax::Tie {
    let src = file.src;
    let own = handle(file, call).map(str::to_string);
    let home = |n: Node<'t>| spawn_scope(file, n).map_or_else(|| root_of(n), |(s, _)| s);
    let scope = home(call);
    let mut others: Vec<(String, usize, usize)> = Vec::new();
    syntax::walk(scope, &mut |n| {
        if matches!(n.kind(), "call_expression" | "new_expression")
            && n.id() != call.id()
            && is_spawn(file, n)
            && let Some(h) = handle(file, n)
            && own.as_deref() != Some(h)
        {
            // `this.child` means that child in every method of the class; a local, in
            // the function that binds it.
            let home = home(n);
            let range = if h.starts_with("this.") {
                class_of(home).unwrap_or(home)
            } else {
                home
            };
            others.push((h.to_string(), range.start_byte(), range.end_byte()));
        }
    });
    // `b = spawn(...)` into a module `let b` in another function: `b` is that child in the
    // whole module, a handler killing both (`process.kill(-b.pid, ...)`, `a.kill()`) included.
    let root = root_of(call);
    syntax::walk(root, &mut |n| {
        if matches!(n.kind(), "call_expression" | "new_expression")
            && n.id() != call.id()
            && is_spawn(file, n)
            && let Some(h) = module_variable(file, n)
            && own.as_deref() != Some(h)
        {
            others.push((h.to_string(), root.start_byte(), root.end_byte()));
        }
    });
    let mut tie = syntax::Tie { own, others };
    tie.derive(scope, src, "variable_declarator", "name", "value");
    tie
}

/// Does a call starting a process sit anywhere inside the node?
fn spawns(file: &File, node: Node) -> bool {
    let mut found = false;
    syntax::walk(node, &mut |n| {
        found =
            found || matches!(n.kind(), "call_expression" | "new_expression") && is_spawn(file, n);
    });
    found
}

/// Does the call start a process (any program)?
fn is_spawn(file: &File, call: Node) -> bool {
    let js = &file.rules.javascript;
    call.child_by_field_name("function")
        .or_else(|| call.child_by_field_name("constructor"))
        .is_some_and(|callee| {
            let name = resolve(file, callee);
            name.strip_prefix("child_process.")
                .is_some_and(|f| js.child_process.iter().any(|c| c == f))
                || name
                    .strip_prefix("execa.")
                    .is_some_and(|f| js.execa.iter().any(|c| c == f))
                || js.no_group_option.contains(&name)
        })
}

/// The group kills of the module's functions that start no process of their own
/// (directly or through a function of the module).
fn exported_ending(file: &File) -> Ending {
    // The same for every spawn: no spawn's handles decide which of these kills count.
    let tie = file.tie.take();
    let ending = exported_kills(file);
    file.tie.replace(tie);
    ending
}

fn exported_kills(file: &File) -> Ending {
    *file.exported.get_or_init(|| {
        let spawns_directly = |f: Node| {
            let mut found = false;
            syntax::walk(f, &mut |n| {
                found |=
                    matches!(n.kind(), "call_expression" | "new_expression") && is_spawn(file, n);
            });
            found
        };
        let spawns = |f: Node| {
            let mut found = spawns_directly(f);
            syntax::walk(f, &mut |n| {
                if !found
                    && n.kind() == "call_expression"
                    && let Some(c) = n.child_by_field_name("function")
                    && c.kind() == "identifier"
                {
                    found = file
                        .functions
                        .get(text(c, file.src))
                        .into_iter()
                        .flatten()
                        .any(|g| spawns_directly(*g));
                }
            });
            found
        };
        let quiet: Vec<Node> = file
            .functions
            .values()
            .flatten()
            .copied()
            .filter(|f| !spawns(*f))
            .collect();
        let kills: Vec<bool> = file
            .group_kills
            .iter()
            .filter(|k| {
                quiet
                    .iter()
                    .any(|r| r.start_byte() <= k.start_byte() && k.end_byte() <= r.end_byte())
            })
            .map(|k| gated(file, *k))
            .collect();
        if kills.contains(&false) {
            Ending::Killed
        } else if kills.contains(&true) {
            Ending::Gated
        } else {
            Ending::Nothing
        }
    })
}

/// Is the kill inside the branch of an `if`/`while`/`?:` that runs while the leader is
/// alive ([`asks_leader`], [`leader_polarity`]: `if (child.exitCode === null)`, the `else`
/// of `!== null`), or after an `if` asking it that returns or throws once it has exited
/// (`if (child.exitCode !== null) return;`)? A kill in the branch that runs once the
/// leader exited is not gated; a question whose direction the text does not say
/// (`child.killed`) gates both branches. Such an `if` with a spawn between it and the kill asks about an earlier
/// child (an "already running" guard), not the one killed.
fn gated(file: &File, kill: Node) -> bool {
    let asks = |condition: Node| asks_leader(file, condition);
    let mut n = kill.parent();
    let mut child = kill;
    while let Some(p) = n {
        if p.kind() == "statement_block" {
            let guarded = syntax::gate_before(
                p,
                child,
                |s| spawns(file, s),
                |guard| returns_once_exited(file, guard),
            );
            if guarded {
                return true;
            }
        }
        if matches!(
            p.kind(),
            "if_statement" | "while_statement" | "ternary_expression"
        ) && let Some(condition) = p.child_by_field_name("condition")
            && asks(condition)
        {
            // The kill in an `else` (or after `:`) runs when the condition is false.
            let otherwise = p.child_by_field_name("alternative") == Some(child);
            match leader_polarity(file, condition) {
                Some(alive) if alive == otherwise => {}
                _ => return true,
            }
        }
        child = p;
        n = p.parent();
    }
    false
}

/// `if (child.exitCode !== null) return;`: an `if` asking about the leader that returns
/// or throws unless it is alive, so what follows it runs only while the leader lives.
fn returns_once_exited(file: &File, guard: Node) -> bool {
    if guard.kind() != "if_statement" {
        return false;
    }
    let exits = |s: Node| matches!(s.kind(), "return_statement" | "throw_statement");
    let returns = guard.child_by_field_name("consequence").is_some_and(|b| {
        exits(b) || {
            let mut cursor = b.walk();
            b.named_children(&mut cursor).any(exits)
        }
    });
    // An exit taken while the leader is alive leaves the kill for after it exited.
    returns
        && guard
            .child_by_field_name("condition")
            .is_some_and(|c| asks_leader(file, c) && leader_polarity(file, c) != Some(true))
}

/// Which way a condition asking about the leader points ([`syntax::leader_alive_polarity`]),
/// through a name bound to the question too (`const alive = child.exitCode === null`,
/// `if (!alive)`).
fn leader_polarity(file: &File, condition: Node) -> Option<bool> {
    let src = file.src;
    let t = text(condition, src);
    if file
        .rules
        .leader_alive
        .iter()
        .any(|l| t.contains(l.as_str()))
    {
        return syntax::leader_alive_polarity(t, None);
    }
    let (name, negated) = syntax::strip_negations(t);
    match lookup(file, name, condition).as_slice() {
        [value] => syntax::leader_alive_polarity(text(*value, src), None).map(|p| p != negated),
        _ => None,
    }
}

/// Does a condition ask whether the leader is alive (`child.exitCode === null`,
/// `!child.killed`), itself or through a name bound to such a question (`const alive =
/// child.exitCode === null`, then `if (alive)`)?
fn asks_leader(file: &File, condition: Node) -> bool {
    let src = file.src;
    let asks = |t: &str| {
        file.rules
            .leader_alive
            .iter()
            .any(|l| t.contains(l.as_str()))
    };
    if asks(text(condition, src)) {
        return true;
    }
    let mut bound = false;
    syntax::walk(condition, &mut |n| {
        bound |= n.kind() == "identifier"
            && lookup(file, text(n, src), n)
                .iter()
                .any(|v| asks(text(*v, src)));
    });
    bound
}

enum Kind {
    ChildProcess,
    Execa,
    Runtime,
}

/// `cp.spawn` -> `child_process.spawn`; `spawn` -> `child_process.spawn`; `Bun.spawn`.
fn resolve(file: &File, callee: Node) -> String {
    // `require('child_process').exec(...)`, the module required in place.
    if callee.kind() == "member_expression"
        && let (Some(object), Some(property)) = (
            callee.child_by_field_name("object"),
            callee.child_by_field_name("property"),
        )
        && let Some(module) = required_module(object, file.src)
    {
        return format!("{}.{}", canonical(&module), text(property, file.src));
    }
    syntax::resolve_dotted(text(callee, file.src), &file.aliases)
}

fn program_words(file: &File, node: Node, depth: usize) -> Vec<String> {
    if depth > DEPTH || !file.steps.take() {
        return Vec::new();
    }
    let src = file.src;
    // A string expression's own text (`${BIN_DIR}/claude`, `BIN_DIR + '/claude'`).
    if matches!(
        node.kind(),
        "string" | "template_string" | "binary_expression" | "call_expression"
    ) && let Some(value) = string_value(file, node, depth)
    {
        return first_words(&value);
    }
    match node.kind() {
        // `[AGENT, '-p']`, `[...FLEET_RUN, 'claude']`, `['env', 'A=1', 'claude']`: the
        // whole argv, so a wrapper is seen past whatever piece holds the program.
        "array" => {
            let mut cursor = node.walk();
            let items: Vec<Node> = node
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .collect();
            let mut words = Vec::new();
            let rest = match items.first() {
                Some(first) if first.kind() != "spread_element" => {
                    let program = program_words(file, *first, depth + 1).into_iter().next();
                    let Some(program) = program else {
                        return Vec::new();
                    };
                    words.push(program);
                    &items[1..]
                }
                _ => &items[..],
            };
            argv_items(file, rest, depth + 1, &mut words);
            words
        }
        // `AGENTS.claude` of a `const AGENTS = { claude: 'claude', ... }`.
        "member_expression" => {
            let (Some(object), Some(property)) = (
                node.child_by_field_name("object"),
                node.child_by_field_name("property"),
            ) else {
                return Vec::new();
            };
            // `this.bin`, assigned in the class (`this.bin = bin` in the constructor, a
            // field `bin = 'claude'`).
            if object.kind() == "this" {
                return this_field_words(file, node, text(property, src), depth);
            }
            if object.kind() != "identifier" {
                return Vec::new();
            }
            let mut values = property_values(file, object, property, node);
            // `A.BIN` of `class A { static BIN = 'claude' }`.
            if values.is_empty() {
                values = static_field_values(file, object, text(property, src));
            }
            let words = values
                .into_iter()
                .map(|v| program_words(file, v, depth + 1))
                .collect();
            syntax::pick_agent(words, file.rules)
        }
        "identifier" => {
            // Any declaration that makes it an agent counts, the latest first.
            let words = lookup(file, text(node, src), node)
                .iter()
                .rev()
                .map(|v| program_words(file, *v, depth + 1))
                .collect();
            syntax::pick_agent(words, file.rules)
        }
        "object" => {
            // Bun.spawn({ cmd: [...] }), Deno.run({ cmd: [...] })
            let mut cursor = node.walk();
            let pairs: Vec<Node> = node.named_children(&mut cursor).collect();
            pairs
                .iter()
                .find_map(|p| {
                    let key = p.child_by_field_name("key")?;
                    (text(key, src) == "cmd")
                        .then(|| p.child_by_field_name("value"))
                        .flatten()
                })
                .map(|v| program_words(file, v, depth + 1))
                .unwrap_or_default()
        }
        "binary_expression" => {
            let operator = node
                .child_by_field_name("operator")
                .map(|o| text(o, src))
                .unwrap_or("");
            let left = node
                .child_by_field_name("left")
                .map(|n| program_words(file, n, depth + 1))
                .unwrap_or_default();
            // `process.env.BIN || 'claude'`, `?? 'claude'`: either side may be it.
            let left_is_agent = left.first().is_some_and(|p| file.rules.agent(p).is_some());
            if matches!(operator, "||" | "??") && !left_is_agent {
                let right = node
                    .child_by_field_name("right")
                    .map(|n| program_words(file, n, depth + 1))
                    .unwrap_or_default();
                if right.first().is_some_and(|p| file.rules.agent(p).is_some()) {
                    return right;
                }
            }
            left
        }
        // `[...BASE, prompt]`: the spread's own words.
        "spread_element" => node
            .named_child(0)
            .map(|n| program_words(file, n, depth + 1))
            .unwrap_or_default(),
        // `CMD[0]`: the array's first word.
        "subscript_expression" => {
            let zero = node
                .child_by_field_name("index")
                .is_some_and(|i| text(i, src) == "0");
            if !zero {
                return Vec::new();
            }
            node.child_by_field_name("object")
                .map(|n| program_words(file, n, depth + 1))
                .unwrap_or_default()
                .into_iter()
                .take(1)
                .collect()
        }
        // `BASE.concat([...])`, `CMD.slice(0)`, `` `${AGENT}`.trim() ``: the receiver's words.
        "call_expression" => {
            let Some(f) = node.child_by_field_name("function") else {
                return Vec::new();
            };
            let method = f
                .child_by_field_name("property")
                .map(|p| text(p, src))
                .unwrap_or("");
            if f.kind() == "member_expression" && matches!(method, "concat" | "trim" | "toString") {
                return f
                    .child_by_field_name("object")
                    .map(|n| program_words(file, n, depth + 1))
                    .unwrap_or_default();
            }
            Vec::new()
        }
        "parenthesized_expression"
        | "as_expression"
        | "satisfies_expression"
        | "non_null_expression" => node
            .named_child(0)
            .map(|n| program_words(file, n, depth + 1))
            .unwrap_or_default(),
        "binary" | "logical_expression" => Vec::new(),
        _ => {
            // process.env.CLAUDE_BIN ?? 'claude', process.env.X || 'claude'
            if let Some(right) = node.child_by_field_name("right") {
                return program_words(file, right, depth + 1);
            }
            Vec::new()
        }
    }
}

/// How many words of an argument list are read: past any wrapper chain met in practice
/// (`sudo -u agent env A=1 nice -n 5 claude`).
const ARGV_WORDS: usize = 12;

/// The words of an argument list (an array, or a name bound to one), appended to `out`.
fn argv_words(file: &File, node: Node, depth: usize, out: &mut Vec<String>) {
    if depth > DEPTH || !file.steps.take() {
        return;
    }
    let node = uncast(node);
    match node.kind() {
        "array" => {
            let mut cursor = node.walk();
            let items: Vec<Node> = node
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .collect();
            argv_items(file, &items, depth + 1, out);
        }
        "identifier" => {
            if let Some(array) = lookup(file, text(node, file.src), node)
                .into_iter()
                .rev()
                .map(uncast)
                .find(|v| v.kind() == "array" || array_call(file, *v))
            {
                argv_words(file, array, depth + 1, out);
                argv_items(file, &pushed_items(file, node, array), depth + 1, out);
            }
        }
        // `CMD.slice(1)`: the array's words from there on; `BASE.concat([q])`: the
        // array's words, then the arguments'.
        "call_expression" => {
            let Some(f) = node
                .child_by_field_name("function")
                .filter(|f| f.kind() == "member_expression")
            else {
                return;
            };
            let (Some(object), Some(method), Some(args)) = (
                f.child_by_field_name("object"),
                f.child_by_field_name("property"),
                node.child_by_field_name("arguments"),
            ) else {
                return;
            };
            let mut cursor = args.walk();
            let given: Vec<Node> = args
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .collect();
            match (text(method, file.src), given.as_slice()) {
                ("slice", [from]) => {
                    let Ok(from) = text(*from, file.src).parse::<usize>() else {
                        return;
                    };
                    let mut words = Vec::new();
                    argv_words(file, object, depth + 1, &mut words);
                    out.extend(words.into_iter().skip(from));
                }
                ("concat", _) => {
                    argv_words(file, object, depth + 1, out);
                    for arg in given {
                        argv_words(file, arg, depth + 1, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// The words of array items, one per item: an item is one argument, whole (`NO_COLOR=1`
/// after `env` is an assignment to step over, not a command line to read); a spread
/// (`...BASE`) gives its array's words; an item out of reach holds its place as `?`.
fn argv_items(file: &File, items: &[Node], depth: usize, out: &mut Vec<String>) {
    for item in items {
        if out.len() >= ARGV_WORDS {
            return;
        }
        if item.kind() == "spread_element" {
            let before = out.len();
            if let Some(inner) = item.named_child(0) {
                argv_words(file, inner, depth + 1, out);
            }
            if out.len() == before {
                out.push("?".into());
            }
            continue;
        }
        let word = string_value(file, *item, depth + 1)
            .or_else(|| program_words(file, *item, depth + 1).into_iter().next())
            .unwrap_or_else(|| "?".into());
        out.push(word);
    }
}

/// What `name` holds where `at` uses it: declarations in the enclosing functions
/// (innermost first), else at module level; never another function's.
/// The program `this.NAME` holds: what the class assigns to it, in its methods
/// (`this.bin = bin`) or as a field (`bin = 'claude'`), one naming an agent first.
fn this_field_words(file: &File, at: Node, name: &str, depth: usize) -> Vec<String> {
    let src = file.src;
    let mut class = at.parent();
    while let Some(c) = class
        && c.kind() != "class_body"
    {
        class = c.parent();
    }
    let Some(class) = class else {
        return Vec::new();
    };
    let mut values = Vec::new();
    syntax::walk(class, &mut |n| match n.kind() {
        "assignment_expression" => {
            if let (Some(left), Some(right)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ) && left.kind() == "member_expression"
                && left
                    .child_by_field_name("object")
                    .is_some_and(|o| o.kind() == "this")
                && left
                    .child_by_field_name("property")
                    .is_some_and(|p| text(p, src) == name)
            {
                values.push(right);
            }
        }
        "field_definition" | "public_field_definition" => {
            let key = n
                .child_by_field_name("property")
                .or_else(|| n.child_by_field_name("name"));
            if key.is_some_and(|k| text(k, src) == name)
                && let Some(value) = n.child_by_field_name("value")
            {
                values.push(value);
            }
        }
        // A TypeScript parameter property (`constructor(private readonly bin =
        // 'claude')`) is a field set from the parameter, its default when none is given.
        "required_parameter" | "optional_parameter" => {
            let mut cursor = n.walk();
            let property = n
                .children(&mut cursor)
                .any(|c| matches!(c.kind(), "accessibility_modifier" | "readonly"));
            if property
                && n.child_by_field_name("pattern")
                    .is_some_and(|p| text(p, src) == name)
                && let Some(value) = n.child_by_field_name("value")
            {
                values.push(value);
            }
        }
        _ => {}
    });
    let words = values
        .iter()
        .map(|v| program_words(file, *v, depth + 1))
        .collect();
    syntax::pick_agent(words, file.rules)
}

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

fn template_words(file: &File, node: Node) -> Vec<String> {
    string_value(file, node, 1)
        .map(|v| first_words(&v))
        .unwrap_or_default()
}

/// A part of a string out of reach: no word, no path, never an agent.
const UNKNOWN: &str = "\u{0}";

/// How deep one value may be followed (a name to its value, a list to its items, an
/// operand): enough for a program built from constants in eight steps (`BASE`, `BASE +
/// [...]`, ...), each a few levels; [`syntax::Steps`] bounds the work however deep.
const DEPTH: usize = 40;

/// The longest string [`string_value`] builds: enough for any command line, and a bound
/// on constants that repeat each other.
const MAX_VALUE: usize = 4096;

/// The text a string expression makes, with literal text around its constants
/// (`` `${BIN_DIR}/claude` ``, `BIN_DIR + '/claude'`): string and template literals,
/// `+` of them, names and `const` object properties bound to them. A part out of reach
/// (an argument, a call) is [`UNKNOWN`], so literal text after it still names the program.
/// `None` when the node is not a string expression (an array, most calls).
fn string_value(file: &File, node: Node, depth: usize) -> Option<String> {
    if depth > DEPTH || !file.steps.take() {
        return None;
    }
    let src = file.src;
    let value = match node.kind() {
        // Its parts, not its text trimmed of quotes (`"bash -c 'x'"` ends in one).
        "string" => {
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.named_children(&mut cursor).collect();
            parts
                .iter()
                .map(|p| match p.kind() {
                    "escape_sequence" => escape_value(text(*p, src)),
                    _ => text(*p, src).to_string(),
                })
                .collect()
        }
        "template_string" => {
            let mut out = String::new();
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.named_children(&mut cursor).collect();
            if parts.is_empty() {
                out.push_str(text(node, src).trim_matches('`'));
            }
            for part in parts {
                match part.kind() {
                    "string_fragment" => out.push_str(text(part, src)),
                    "escape_sequence" => out.push_str(&escape_value(text(part, src))),
                    "template_substitution" => {
                        out.push_str(&part_value(file, part.named_child(0), depth));
                    }
                    _ => {}
                }
            }
            out
        }
        "identifier" => {
            let values: Vec<String> = lookup(file, text(node, src), node)
                .iter()
                .rev()
                .filter_map(|v| string_value(file, *v, depth + 1))
                .collect();
            let agent = values.iter().position(|v| {
                first_words(v)
                    .first()
                    .is_some_and(|p| file.rules.agent(p).is_some())
            });
            values.into_iter().nth(agent.unwrap_or(0))?
        }
        "member_expression" => {
            let object = node.child_by_field_name("object")?;
            let property = node.child_by_field_name("property")?;
            property_values(file, object, property, node)
                .into_iter()
                .find_map(|v| string_value(file, v, depth + 1))?
        }
        // `BIN_DIR + '/claude'`: one side a string is enough (not arrays).
        "binary_expression" => {
            let (left, right) = (
                node.child_by_field_name("left")?,
                node.child_by_field_name("right")?,
            );
            if node.child_by_field_name("operator").map(|o| text(o, src)) != Some("+")
                || [left, right].iter().any(|n| n.kind() == "array")
            {
                return None;
            }
            let (l, r) = (
                string_value(file, left, depth + 1),
                string_value(file, right, depth + 1),
            );
            if l.is_none() && r.is_none() {
                return None;
            }
            l.unwrap_or_else(|| UNKNOWN.into()) + &r.unwrap_or_else(|| UNKNOWN.into())
        }
        "parenthesized_expression"
        | "as_expression"
        | "satisfies_expression"
        | "non_null_expression" => return string_value(file, node.named_child(0)?, depth + 1),
        "call_expression" => path_call_value(file, node, depth)?,
        _ => return None,
    };
    Some(value.chars().take(MAX_VALUE).collect())
}

/// The path a call builds: `path.join(BIN_DIR, 'claude')` (`resolve`, `normalize`, the
/// `posix` forms), `String(...)`, `CMD.join(' ')` of an array, `.trim()`/`.toString()`.
fn path_call_value(file: &File, call: Node, depth: usize) -> Option<String> {
    let src = file.src;
    let callee = call.child_by_field_name("function")?;
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let given: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect();
    let joined = |parts: &[Node], sep: &str| {
        parts
            .iter()
            .map(|n| string_value(file, *n, depth + 1).unwrap_or_else(|| UNKNOWN.into()))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let name: String = text(callee, src).split_whitespace().collect();
    let name = name
        .strip_prefix("path.posix.")
        .or(name.strip_prefix("path."));
    match name {
        Some("join" | "resolve" | "normalize") => return Some(joined(&given, "/")),
        _ if text(callee, src) == "String" => {
            return string_value(file, *given.first()?, depth + 1);
        }
        _ => {}
    }
    if callee.kind() == "identifier" {
        let body = constant_function(file, text(callee, src))?;
        return string_value(file, body, depth + 1);
    }
    if callee.kind() != "member_expression" {
        return None;
    }
    let object = callee.child_by_field_name("object")?;
    match text(callee.child_by_field_name("property")?, src) {
        // `CMD.join(' ')`, `[AGENT, '-p'].join(' ')`: the items, joined.
        "join" => {
            let sep = match given.first() {
                Some(s) => string_value(file, *s, depth + 1)?,
                None => ",".into(),
            };
            // `BASE.concat(args).join(' ')`, `[...BASE, x].join(' ')`: the command's first
            // words, then the rest out of reach.
            let leading = || {
                let words = program_words(file, object, depth + 1);
                (!words.is_empty()).then(|| format!("{}{sep}{UNKNOWN}", words.join(&sep)))
            };
            let array = match uncast(object).kind() {
                "array" => uncast(object),
                "identifier" => match lookup(file, text(object, src), object)
                    .into_iter()
                    .rev()
                    .map(uncast)
                    .find(|v| v.kind() == "array")
                {
                    Some(array) => array,
                    None => return bound_call_joined(file, object, &sep, depth),
                },
                _ => return leading(),
            };
            let mut cursor = array.walk();
            let items: Vec<Node> = array
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .collect();
            if items.iter().any(|n| n.kind() == "spread_element") {
                return leading();
            }
            Some(joined(&items, &sep))
        }
        "trim" | "toString" if given.is_empty() => string_value(file, object, depth + 1),
        _ => None,
    }
}

/// What a module-level function returns when its whole body is one `return` of an
/// expression and it takes no parameters (`function bin() { return 'claude' }`, `const
/// bin = () => CLAUDE`): that expression. A function with any other statement,
/// parameters, or a second definition of its name stays out of reach.
fn constant_function<'t>(file: &File<'t, '_>, name: &str) -> Option<Node<'t>> {
    let [function] = file.functions.get(name)?.as_slice() else {
        return None;
    };
    let mut at = function.parent()?;
    while matches!(
        at.kind(),
        "variable_declarator" | "lexical_declaration" | "variable_declaration" | "export_statement"
    ) {
        at = at.parent()?;
    }
    if at.kind() != "program"
        || !matches!(
            function.kind(),
            "function_declaration" | "arrow_function" | "function_expression" | "function"
        )
        || function.child_by_field_name("parameter").is_some()
        || function
            .child_by_field_name("parameters")
            .is_some_and(|p| p.named_child_count() > 0)
    {
        return None;
    }
    let body = function.child_by_field_name("body")?;
    if body.kind() != "statement_block" {
        return Some(body);
    }
    syntax::sole_return(body)
}

/// One `${...}` of a template: its text when it is a string expression, else the first
/// words of the command it stands for, else [`UNKNOWN`].
fn part_value(file: &File, node: Option<Node>, depth: usize) -> String {
    let Some(node) = node else {
        return UNKNOWN.into();
    };
    if let Some(value) = string_value(file, node, depth + 1) {
        return value;
    }
    let words = program_words(file, node, depth + 1);
    if words.is_empty() {
        UNKNOWN.into()
    } else {
        words.join(" ")
    }
}

/// A TypeScript cast or assertion around a value (`{...} as const`, `satisfies T`,
/// `x!`), and parentheses: the value itself.
fn uncast(mut node: Node) -> Node {
    for _ in 0..16 {
        match node.kind() {
            "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "parenthesized_expression" => match node.named_child(0) {
                Some(inner) => node = inner,
                None => break,
            },
            _ => break,
        }
    }
    node
}

/// `AGENTS.claude` of a `const AGENTS = { claude: 'claude', ... }` (`as const` too):
/// the values of that property.
fn property_values<'t>(
    file: &File<'t, '_>,
    object: Node,
    property: Node,
    at: Node,
) -> Vec<Node<'t>> {
    let src = file.src;
    if object.kind() != "identifier" {
        return Vec::new();
    }
    let key = text(property, src);
    lookup(file, text(object, src), at)
        .iter()
        .map(|v| uncast(*v))
        .filter(|v| v.kind() == "object")
        .filter_map(|v| {
            let mut cursor = v.walk();
            let pairs: Vec<Node> = v.named_children(&mut cursor).collect();
            pairs.into_iter().find_map(|p| {
                let k = p.child_by_field_name("key")?;
                (text(k, src).trim_matches(['"', '\'']) == key)
                    .then(|| p.child_by_field_name("value"))
                    .flatten()
            })
        })
        .collect()
}

/// An options object (or a `const` holding one) that asks for a group of its own on unix
/// ([`detached_says`]).
fn object_is_detached(file: &File, node: Node, depth: usize) -> bool {
    detached_says(file, node, depth) == Some(true)
}

/// What an options value says of `detached` on unix: `Some(true)` for a value not false
/// there ([`on_unix`]), `Some(false)` for one the file shows false, `None` when it does not
/// say. Keys are set in order at run time, so in an object literal the last of its keys
/// (a spread's included) that says `detached` decides: `{ detached: true, ...NOGROUP }`
/// with `NOGROUP = { detached: false }` is not detached. A name is read through its value
/// and what the function writes to it key by key ([`filled_detached`]).
fn detached_says(file: &File, node: Node, depth: usize) -> Option<bool> {
    if depth > 4 {
        return None;
    }
    let src = file.src;
    match node.kind() {
        "object" => {
            let mut cursor = node.walk();
            let pairs: Vec<Node> = node.named_children(&mut cursor).collect();
            pairs
                .iter()
                .filter_map(|p| match p.kind() {
                    "pair"
                        if p.child_by_field_name("key")
                            .map(|k| text(k, src).trim_matches(['"', '\'']))
                            == Some("detached") =>
                    {
                        Some(
                            p.child_by_field_name("value")
                                .is_some_and(|v| on_unix(file, v, 0) != Some(false)),
                        )
                    }
                    // `{ detached }`, the name bound to its value.
                    "shorthand_property_identifier" if text(*p, src) == "detached" => {
                        Some(on_unix(file, *p, 0) != Some(false))
                    }
                    "spread_element" => p
                        .named_child(0)
                        .and_then(|inner| detached_says(file, inner, depth + 1)),
                    _ => None,
                })
                .last()
        }
        "identifier" => {
            let bound: Vec<bool> = lookup(file, text(node, src), node)
                .iter()
                .filter_map(|v| detached_says(file, *v, depth + 1))
                .collect();
            // Of several bindings, any that asks for a group may be the one passed.
            let bound = (!bound.is_empty()).then(|| bound.contains(&true));
            filled_detached(file, node, bound, depth)
        }
        // `{ detached: true } as SpawnOptions`, `as const`, `satisfies T`.
        "as_expression" | "satisfies_expression" | "parenthesized_expression" => {
            detached_says(file, uncast(node), depth + 1)
        }
        "call_expression" => assigned_detached(file, node, depth),
        _ => None,
    }
}

/// What the options object named `at` says of `detached` once the function around `at`
/// (else the module) has given it keys one by one (`opts.detached = true`,
/// `opts['detached'] = false`, `Object.assign(opts, { detached: false })`), starting from
/// what its binding says (`bound`). As at run time, the last write in straight-line code
/// before `at` ([`straight_before`]) decides over the binding and over the writes before
/// it; a write elsewhere (in a branch or a callback, or after `at`) that asks for a group
/// may be the one in force, so it counts as before.
fn filled_detached(file: &File, at: Node, bound: Option<bool>, depth: usize) -> Option<bool> {
    let src = file.src;
    let name = text(at, src);
    let mut scope = at;
    while let Some(p) = scope.parent() {
        scope = p;
        if scope_of(at) == Some(p.id()) {
            break;
        }
    }
    // Each write to `name` that says `detached`, in the order written.
    let mut writes: Vec<(Node, bool)> = Vec::new();
    syntax::walk(scope, &mut |n| {
        let says = match n.kind() {
            "assignment_expression" => {
                let (Some(left), Some(right)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) else {
                    return;
                };
                let key = match left.kind() {
                    "member_expression" => left.child_by_field_name("property"),
                    "subscript_expression" => left.child_by_field_name("index"),
                    _ => None,
                };
                let sets = left
                    .child_by_field_name("object")
                    .is_some_and(|o| text(uncast(o), src) == name)
                    && key
                        .is_some_and(|k| text(k, src).trim_matches(['"', '\'', '`']) == "detached");
                sets.then(|| on_unix(file, right, 0) != Some(false))
            }
            "call_expression" => {
                let (Some(callee), Some(args)) = (
                    n.child_by_field_name("function"),
                    n.child_by_field_name("arguments"),
                ) else {
                    return;
                };
                if text(callee, src).replace(char::is_whitespace, "") != "Object.assign" {
                    return;
                }
                let mut cursor = args.walk();
                let given: Vec<Node> = args
                    .named_children(&mut cursor)
                    .filter(|a| a.kind() != "comment")
                    .collect();
                if given.first().is_none_or(|t| text(*t, src) != name) {
                    return;
                }
                // A later source's key wins; a source naming the target itself adds nothing.
                given[1..]
                    .iter()
                    .rev()
                    .filter(|o| text(**o, src) != name)
                    .find_map(|o| detached_says(file, *o, depth + 1))
            }
            _ => None,
        };
        if let Some(says) = says {
            writes.push((n, says));
        }
    });
    let last = writes
        .iter()
        .rposition(|(w, _)| straight_before(*w, at))
        .map(|i| (writes[i].0, writes[i].1));
    let Some((decided, value)) = last else {
        if writes.iter().any(|(_, says)| *says) {
            return Some(true);
        }
        return bound.or((!writes.is_empty()).then_some(false));
    };
    // Writes run before the deciding one in the same function are overridden by it.
    let overridden = |w: Node| w.end_byte() <= decided.start_byte() && scope_of(w) == scope_of(at);
    let elsewhere = writes
        .iter()
        .any(|(w, says)| *says && w.id() != decided.id() && !overridden(*w));
    Some(value || elsewhere)
}

/// Is the write `w` a statement of its own in a block around `at`, of the same function,
/// ended before `at`: so it runs, every time, before `at` does?
fn straight_before(w: Node, at: Node) -> bool {
    let Some(statement) = w.parent().filter(|s| s.kind() == "expression_statement") else {
        return false;
    };
    let Some(block) = statement.parent() else {
        return false;
    };
    matches!(block.kind(), "statement_block" | "program")
        && block.start_byte() <= at.start_byte()
        && at.end_byte() <= block.end_byte()
        && scope_of(w) == scope_of(at)
        && w.end_byte() <= at.start_byte()
}

/// What a `detached:` value is on unix, as far as the file says: `true`, `false`,
/// `null`, `undefined`, `0`, a `const` bound to one (`const DETACHED = true`), `!` of
/// one, or a test of the platform (`process.platform !== 'win32'` is true there, `===
/// 'win32'` false: no group on unix). `None` when the file does not say (a parameter,
/// even one with a default, or a call): such a value is taken to ask for a group.
fn on_unix(file: &File, value: Node, depth: usize) -> Option<bool> {
    if depth > 8 {
        return None;
    }
    let src = file.src;
    let value = uncast(value);
    match value.kind() {
        "true" => Some(true),
        "false" | "null" | "undefined" => Some(false),
        "number" => Some(text(value, src).trim() != "0"),
        "identifier" | "shorthand_property_identifier" => {
            let name = text(value, src);
            if name == "undefined" {
                return Some(false);
            }
            let bound = lookup(file, name, value);
            // One `const` says; several assignments (or none) leave it open.
            // A parameter's default (`detached = false`) is the caller's to change.
            let default = |v: &Node| {
                v.parent().is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "assignment_pattern" | "required_parameter" | "optional_parameter"
                    )
                })
            };
            match bound.as_slice() {
                [only] if only.id() != value.id() && !default(only) => {
                    on_unix(file, *only, depth + 1)
                }
                _ => None,
            }
        }
        "unary_expression" => {
            let negated = value
                .child_by_field_name("operator")
                .is_some_and(|o| text(o, src) == "!");
            negated
                .then(|| value.child_by_field_name("argument"))
                .flatten()
                .and_then(|a| on_unix(file, a, depth + 1))
                .map(|t| !t)
        }
        "binary_expression" => {
            let (Some(left), Some(right), Some(operator)) = (
                value.child_by_field_name("left"),
                value.child_by_field_name("right"),
                value.child_by_field_name("operator"),
            ) else {
                return None;
            };
            let platform = |n: Node| {
                matches!(
                    text(n, src).replace(char::is_whitespace, "").as_str(),
                    "process.platform" | "os.platform()" | "platform()"
                )
            };
            let literal = |n: Node| {
                (n.kind() == "string")
                    .then(|| text(n, src).trim_matches(['"', '\'', '`']).to_string())
            };
            let named = if platform(left) {
                literal(right)
            } else if platform(right) {
                literal(left)
            } else {
                None
            }?;
            let unix = named != "win32";
            match text(operator, src) {
                "===" | "==" => Some(unix),
                "!==" | "!=" => Some(!unix),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `process.kill(-pid, 0)`: signal 0 only asks whether the group is there, it kills
/// nothing.
fn signal_probe(call: Node, src: &str) -> bool {
    call.child_by_field_name("arguments")
        .and_then(|a| {
            let mut cursor = a.walk();
            a.named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .nth(1)
        })
        .is_some_and(|s| text(s, src).trim() == "0")
}

/// Is `name` declared at module level without a value (`let child;`, `var proc;`, each
/// of `let a, b;`, `export let current;`, TypeScript's `let child: ChildProcess |
/// undefined;`)? Such a variable holds whatever a function later assigns to it, as
/// much as `let child = null;` does.
fn declared_bare(file: &File, root: Node, name: &str) -> bool {
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|statement| {
        let declaration = if statement.kind() == "export_statement" {
            statement.child_by_field_name("declaration")
        } else {
            Some(statement)
        };
        declaration
            .filter(|d| matches!(d.kind(), "lexical_declaration" | "variable_declaration"))
            .is_some_and(|d| {
                let mut inner = d.walk();
                d.named_children(&mut inner).any(|declarator| {
                    declarator.kind() == "variable_declarator"
                        && declarator.child_by_field_name("value").is_none()
                        && declarator
                            .child_by_field_name("name")
                            .is_some_and(|n| n.kind() == "identifier" && text(n, file.src) == name)
                })
            })
    })
}

/// `exec("setsid claude -p x & pid=$!; ...; kill -- -$pid")`, the same with `{ shell:
/// true }`: a command string that starts its agent in a session and kills that group
/// itself, checked as a shell script ([`super::shell::owns_its_sessions`]); nothing is
/// left for the module to kill.
fn shell_string_owns_its_session(file: &File, args: Node) -> bool {
    args.kind() == "arguments"
        && first_argument(args)
            .and_then(|first| string_value(file, first, 1))
            .is_some_and(|line| super::shell::owns_its_sessions(&line, file.rules))
}

/// `spawn('setsid', ['--fork', 'claude'])`, `spawn('setsid', ['claude'], { detached: true
/// })`: setsid forks (asked to, or because the detached child already leads a group), its
/// child makes the session, and no `process.kill(-child.pid, ..)` reaches it
/// ([`syntax::forked_session_finding`]).
fn forked_session(
    file: &File,
    at: Node,
    args: Node,
    agent: &str,
    api: &str,
    forks: bool,
) -> Option<syntax::Raw> {
    let detached = options_detached(file, args);
    if !forks && !detached {
        return None;
    }
    let (message, help) = syntax::forked_session_finding(
        agent,
        api,
        "`child.pid`",
        "`process.kill(-child.pid, 'SIGKILL')`",
        (!forks).then_some("`detached: true`"),
    );
    Some(raw_at(at, file.src, message, help))
}

/// Is `value` an array built by a call on one (`['env'].concat(['claude', '-p'])`,
/// `BASE.slice(1)`), whose words [`argv_words`] reads?
fn array_call(file: &File, value: Node) -> bool {
    value.kind() == "call_expression"
        && value
            .child_by_field_name("function")
            .filter(|f| f.kind() == "member_expression")
            .and_then(|f| f.child_by_field_name("property"))
            .is_some_and(|p| matches!(text(p, file.src), "concat" | "slice"))
}

/// `CMD.join(sep)` of a `const CMD = ['codex'].concat(['exec'])`: the words the call
/// builds, joined; none when `name` is bound to no such call.
fn bound_call_joined(file: &File, name: Node, sep: &str, depth: usize) -> Option<String> {
    let bound = lookup(file, text(name, file.src), name)
        .into_iter()
        .map(uncast)
        .any(|v| array_call(file, v));
    if !bound {
        return None;
    }
    let mut words = Vec::new();
    argv_words(file, name, depth + 1, &mut words);
    (!words.is_empty()).then(|| words.join(sep))
}

/// Whether a spawn's arguments after its program hold an options object with
/// `detached: true` ([`object_is_detached`]).
fn options_detached(file: &File, args: Node) -> bool {
    if args.kind() != "arguments" {
        return false;
    }
    let mut cursor = args.walk();
    let options: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .skip(1)
        .collect();
    options.iter().any(|o| object_is_detached(file, *o, 0))
}

/// `new Deno.Command('sh', { args: ['-c', '...'] })`: an options object's `args` is the
/// argument array; any other node is its own.
fn options_args<'t>(file: &File<'t, '_>, node: Node<'t>) -> Node<'t> {
    let object = uncast(node);
    if object.kind() != "object" {
        return node;
    }
    let mut cursor = object.walk();
    let pairs: Vec<Node> = object.named_children(&mut cursor).collect();
    pairs
        .into_iter()
        .filter(|p| p.kind() == "pair")
        .find_map(|p| {
            let key = p.child_by_field_name("key")?;
            (text(key, file.src).trim_matches(['"', '\'']) == "args")
                .then(|| p.child_by_field_name("value"))
                .flatten()
        })
        .unwrap_or(node)
}

/// Is `value` a negated pid, `-child.pid`, past the TypeScript wrappers around it and
/// its receiver: `-child!.pid!` (which the parser reads as `(-child)!.pid!`, a `!`
/// binding as tightly as the minus), `-this.child!.pid!`, `-(child.pid as number)`,
/// `(-child.pid)`, `-<number>child.pid`, `-child?.pid`? `-0` is the caller's own group,
/// which a detached child has left: not a kill of the child's.
fn negated_pid(value: Node, src: &str) -> bool {
    let mut n = value;
    for _ in 0..16 {
        let inner = match n.kind() {
            "unary_expression" => {
                let t = text(n, src);
                return t.starts_with('-') && t[1..].trim() != "0";
            }
            "non_null_expression"
            | "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression" => n.named_child(0),
            // `<number>-child.pid`: the type comes first.
            "type_assertion" => n.named_child((n.named_child_count() as u32).saturating_sub(1)),
            // `(-child)!.pid`: the minus read as applying to the receiver.
            "member_expression" | "subscript_expression" => n
                .child_by_field_name("object")
                .filter(|o| o.kind() == "non_null_expression"),
            _ => None,
        };
        match inner {
            Some(i) => n = i,
            None => return false,
        }
    }
    false
}

/// `Object.assign({}, BASE, { detached: true })` given as the options: what the last of
/// its objects (the target included) that says `detached` says ([`detached_says`]), as
/// at run time, where a later source's key wins.
fn assigned_detached(file: &File, call: Node, depth: usize) -> Option<bool> {
    let src = file.src;
    let (Some(callee), Some(args)) = (
        call.child_by_field_name("function"),
        call.child_by_field_name("arguments"),
    ) else {
        return None;
    };
    if text(callee, src).replace(char::is_whitespace, "") != "Object.assign" {
        return None;
    }
    let mut cursor = args.walk();
    let sources: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .collect();
    sources
        .into_iter()
        .rev()
        .find_map(|o| detached_says(file, o, depth + 1))
}

/// The value of one JavaScript escape sequence: a character written by its code
/// (`\x20`, `\u0020`, `\u{20}`, legacy octal `\040`, `\0`) is that character, so
/// `"cd /r;\x20claude -p hi"` runs `claude`; the others as
/// [`super::shell::unescape_literal`] reads them.
fn escape_value(escape: &str) -> String {
    let Some(body) = escape.strip_prefix('\\') else {
        return super::shell::unescape_literal(escape);
    };
    let code = if let Some(hex) = body.strip_prefix("u{").and_then(|b| b.strip_suffix('}')) {
        u32::from_str_radix(hex, 16).ok()
    } else if let Some(hex) = body.strip_prefix(['x', 'u']) {
        (hex.len() == if body.starts_with('x') { 2 } else { 4 })
            .then(|| u32::from_str_radix(hex, 16).ok())
            .flatten()
    } else if !body.is_empty()
        && body.len() <= 3
        && body.bytes().all(|b| (b'0'..=b'7').contains(&b))
    {
        u32::from_str_radix(body, 8).ok()
    } else {
        None
    };
    match code.and_then(char::from_u32) {
        Some(c) => c.to_string(),
        None => super::shell::unescape_literal(escape),
    }
}

/// The values a static field of the module's class `object` is given (`A.BIN` of `class
/// A { static BIN = 'claude' }`).
fn static_field_values<'t>(file: &File<'t, '_>, object: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let src = file.src;
    let class_name = text(object, src);
    let mut values = Vec::new();
    syntax::walk(root_of(object), &mut |n| {
        if n.kind() != "class_declaration"
            || n.child_by_field_name("name")
                .is_none_or(|c| text(c, src) != class_name)
        {
            return;
        }
        let Some(body) = n.child_by_field_name("body") else {
            return;
        };
        let mut cursor = body.walk();
        for field in body.named_children(&mut cursor) {
            if !matches!(field.kind(), "field_definition" | "public_field_definition") {
                continue;
            }
            let mut inner = field.walk();
            let is_static = field.children(&mut inner).any(|c| c.kind() == "static");
            let key = field
                .child_by_field_name("property")
                .or_else(|| field.child_by_field_name("name"));
            if is_static
                && key.is_some_and(|k| text(k, src) == name)
                && let Some(value) = field.child_by_field_name("value")
            {
                values.push(value);
            }
        }
    });
    values
}

/// The items pushed onto the array `name` names, after `array` (its value) and before
/// `name` is read, in the same function (`const a = ['-c']; a.push('claude -p hi');
/// spawn('bash', a)`), in order.
fn pushed_items<'t>(file: &File<'t, '_>, name: Node<'t>, array: Node<'t>) -> Vec<Node<'t>> {
    let src = file.src;
    let var = text(name, src);
    let mut scope = name.parent();
    while let Some(s) = scope
        && !FUNCTIONS.contains(&s.kind())
        && s.kind() != "program"
    {
        scope = s.parent();
    }
    let Some(scope) = scope else {
        return Vec::new();
    };
    let mut items = Vec::new();
    syntax::walk(scope, &mut |n| {
        if n.kind() != "call_expression"
            || n.start_byte() < array.end_byte()
            || n.end_byte() > name.start_byte()
        {
            return;
        }
        let Some(f) = n
            .child_by_field_name("function")
            .filter(|f| f.kind() == "member_expression")
        else {
            return;
        };
        let pushes = f
            .child_by_field_name("object")
            .is_some_and(|o| o.kind() == "identifier" && text(o, src) == var)
            && f.child_by_field_name("property")
                .is_some_and(|p| text(p, src) == "push");
        if pushes && let Some(args) = n.child_by_field_name("arguments") {
            let mut cursor = args.walk();
            items.extend(
                args.named_children(&mut cursor)
                    .filter(|a| a.kind() != "comment"),
            );
        }
    });
    items
}
