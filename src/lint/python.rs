//! Python: `subprocess`, `asyncio`, `os` and `pexpect` spawns of an agent CLI, parsed
//! with tree-sitter. Imports under another name, programs held in variables or
//! constants (module level or the same function), `shutil.which` look-ups, environment
//! defaults, lists (built up with `append`/`extend`/`+=` too), f-strings, `%`, `+` and
//! `.format` (with literal text around the constant: `f"{BIN_DIR}/codex"`), path
//! helpers (`os.path.join`, `Path(...) / "x"`), `shlex.split`, `shell=True` strings and
//! `bash -c`/`env` argument lists are all followed. A new session
//! passes only with a group kill in reach ([`group_ending`]); dynamic values (arguments,
//! `sys.argv`, files) are out of reach and not findings.

use std::collections::HashMap;

use tree_sitter::Node;

use super::rules::Rules;
use super::syntax::{self, Checked, first_words, raw_at, text};

/// Names bound in one scope, each to the expressions assigned to it.
type Scope<'t> = HashMap<String, Vec<Node<'t>>>;

struct File<'t, 's> {
    src: &'s str,
    rules: &'s Rules,
    /// Local name -> what it stands for (`sp` -> `subprocess`, `run` -> `subprocess.run`).
    aliases: HashMap<String, String>,
    module_scope: Scope<'t>,
    /// Every function and method of the module by name, for the kills a spawn reaches.
    functions: HashMap<String, Vec<Node<'t>>>,
    /// Every class of the module by name: a child handed to one is held by its methods.
    classes: HashMap<String, Vec<Node<'t>>>,
    /// The module's dotted path (`pkg/tool.py` -> `pkg.tool`), for helper names.
    module: String,
    /// How many more hand-offs (`return Popen(...)` to a caller) may be followed: each
    /// walks the module, and chains of callers are bounded against hostile input.
    handed_budget: std::cell::Cell<usize>,
    /// The ending of a factory the module never calls, the same for every one of them.
    exported: std::cell::OnceCell<Ending>,
    /// Where every identifier of the module is (byte range), by its text, for the
    /// callers of a factory.
    names: std::cell::OnceCell<HashMap<String, Vec<(usize, usize)>>>,
    /// What is left of the evaluation budget of the spawn being checked.
    steps: syntax::Steps,
    /// Which kills are another spawn's, for the spawn being checked ([`tie`]).
    tie: std::cell::RefCell<syntax::Tie>,
}

pub fn check(src: &str, path: &str, rules: &Rules) -> Checked {
    let tree = match syntax::parse_bounded(tree_sitter_python::LANGUAGE.into(), src, "Python") {
        Ok(tree) => tree,
        Err(checked) => return checked,
    };
    let root = tree.root_node();
    let mut file = File {
        src,
        rules,
        aliases: HashMap::new(),
        module_scope: Scope::new(),
        functions: HashMap::new(),
        handed_budget: std::cell::Cell::new(64),
        exported: std::cell::OnceCell::new(),
        names: std::cell::OnceCell::new(),
        classes: HashMap::new(),
        module: module_path(path),
        steps: syntax::Steps::new(),
        tie: std::cell::RefCell::default(),
    };
    collect_imports(root, &mut file);
    syntax::walk(root, &mut |node| {
        if node.kind() == "function_definition"
            && let Some(name) = node.child_by_field_name("name")
        {
            file.functions
                .entry(text(name, src).into())
                .or_default()
                .push(node);
        }
        if node.kind() == "class_definition"
            && let Some(name) = node.child_by_field_name("name")
        {
            file.classes
                .entry(text(name, src).into())
                .or_default()
                .push(node);
        }
    });
    collect_assignments(root, src, &mut file.module_scope);
    let mut findings = Vec::new();
    syntax::walk(root, &mut |node| {
        if node.kind() == "call"
            && let Some(raw) = check_call(&file, node)
        {
            findings.push(raw);
        }
    });
    Checked {
        findings,
        parse_error: syntax::first_error(&tree),
        too_deep: None,
    }
}

fn module_path(path: &str) -> String {
    let stem = path.trim_end_matches(".py").trim_end_matches("/__init__");
    stem.replace('/', ".")
}

fn collect_imports(root: Node, file: &mut File) {
    let src = file.src;
    syntax::walk(root, &mut |node| match node.kind() {
        "import_statement" => {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                match name.kind() {
                    "aliased_import" => {
                        if let (Some(n), Some(a)) = (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) {
                            file.aliases
                                .insert(text(a, src).into(), text(n, src).into());
                        }
                    }
                    _ => {
                        let full = text(name, src);
                        let first = full.split('.').next().unwrap_or(full);
                        file.aliases.insert(first.into(), first.into());
                    }
                }
            }
        }
        "import_from_statement" => {
            let Some(module) = node.child_by_field_name("module_name") else {
                return;
            };
            let module = text(module, src).to_string();
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                let (real, local) = match name.kind() {
                    "aliased_import" => (
                        name.child_by_field_name("name").map(|n| text(n, src)),
                        name.child_by_field_name("alias").map(|n| text(n, src)),
                    ),
                    _ => (Some(text(name, src)), Some(text(name, src))),
                };
                if let (Some(real), Some(local)) = (real, local) {
                    file.aliases
                        .insert(local.into(), format!("{module}.{real}"));
                }
            }
        }
        _ => {}
    });
}

/// Assignments directly in `scope_node` (a module or a function body), not in nested
/// functions or classes.
fn collect_assignments<'t>(scope_node: Node<'t>, src: &str, scope: &mut Scope<'t>) {
    let mut stack = vec![scope_node];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "function_definition" | "class_definition" | "lambda" => {}
                "assignment" => {
                    if let (Some(left), Some(right)) = (
                        child.child_by_field_name("left"),
                        child.child_by_field_name("right"),
                    ) && left.kind() == "identifier"
                    {
                        scope.entry(text(left, src).into()).or_default().push(right);
                    }
                    stack.push(child);
                }
                // `cmd += [...]`, `cmd.append(x)`, `cmd.extend([...])`: what a list built
                // up from empty holds, under `NAME.+`, in order.
                "augmented_assignment" => {
                    if let (Some(left), Some(right)) = (
                        child.child_by_field_name("left"),
                        child.child_by_field_name("right"),
                    ) && left.kind() == "identifier"
                        && child
                            .child_by_field_name("operator")
                            .is_some_and(|o| text(o, src) == "+=")
                    {
                        scope
                            .entry(format!("{}.+", text(left, src)))
                            .or_default()
                            .push(right);
                    }
                    stack.push(child);
                }
                "call" => {
                    if let Some(callee) = child.child_by_field_name("function")
                        && callee.kind() == "attribute"
                        && let (Some(object), Some(method)) = (
                            callee.child_by_field_name("object"),
                            callee.child_by_field_name("attribute"),
                        )
                        && object.kind() == "identifier"
                        && matches!(text(method, src), "append" | "extend" | "insert")
                        && let Some(args) = child.child_by_field_name("arguments")
                    {
                        let mut cursor = args.walk();
                        let positional: Vec<Node> = args
                            .named_children(&mut cursor)
                            .filter(|c| c.kind() != "comment")
                            .collect();
                        // `insert(0, x)` puts x first; any other index, not the program.
                        let item = match text(method, src) {
                            "insert" => positional
                                .first()
                                .filter(|i| text(**i, src) == "0")
                                .and(positional.get(1)),
                            _ => positional.first(),
                        };
                        if let Some(item) = item {
                            scope
                                .entry(format!("{}.+", text(object, src)))
                                .or_default()
                                .push(*item);
                        }
                    }
                    stack.push(child);
                }
                _ => stack.push(child),
            }
        }
    }
}

/// A callee's dotted name with the first part resolved through the imports.
fn resolve_callee(file: &File, callee: Node) -> String {
    syntax::resolve_dotted(text(callee, file.src), &file.aliases)
}

fn enclosing_function(node: Node) -> Option<Node> {
    let mut n = node.parent();
    while let Some(p) = n {
        if p.kind() == "function_definition" {
            return Some(p);
        }
        n = p.parent();
    }
    None
}

fn check_call(file: &File, call: Node) -> Option<syntax::Raw> {
    let callee = call.child_by_field_name("function")?;
    let mut name = resolve_callee(file, callee);
    let py = &file.rules.python;
    let function = enclosing_function(call);
    // `run = functools.partial(subprocess.Popen, start_new_session=True)`: the spawn
    // function, its keywords preset.
    let mut preset = None;
    if !py.spawn.contains(&name) {
        let (spawn, keywords) = partial_spawn(file, callee, function)?;
        name = spawn;
        preset = Some(keywords);
    }
    let args = call.child_by_field_name("arguments")?;
    let mut local = Scope::new();
    if let Some(f) = function
        && let Some(body) = f.child_by_field_name("body")
    {
        collect_assignments(body, file.src, &mut local);
        // A parameter's default (`def run(prompt, bin="claude")`): what it holds when
        // no caller says otherwise.
        if let Some(parameters) = f.child_by_field_name("parameters") {
            let mut cursor = parameters.walk();
            for p in parameters.named_children(&mut cursor) {
                if matches!(p.kind(), "default_parameter" | "typed_default_parameter")
                    && let (Some(name), Some(value)) = (
                        p.child_by_field_name("name"),
                        p.child_by_field_name("value"),
                    )
                {
                    local
                        .entry(text(name, file.src).into())
                        .or_default()
                        .insert(0, value);
                }
            }
        }
    }
    file.steps.reset();
    let program_arg = program_argument(file, args, &name)?;
    // `create_subprocess_exec("bash", "-lc", "..")`, `os.execvp("sh", ["sh", "-c", ..])`:
    // the argv is spread over the arguments.
    let items = spread_argv(file, args, &name, &local);
    let mut argv = match &items {
        Some(items) => argv_words(items),
        None => program_words(file, program_arg, &local, 0),
    };
    if let Some(program) = executable_keyword(file, args, &local)
        && let Some(first) = argv.first_mut()
    {
        *first = program;
    }
    let words = syntax::past_wrappers(&argv, file.rules);
    let forks = syntax::session_forks(&words);
    // `["setsid", "claude", ...]`: the session `start_new_session=True` would make.
    let (words, setsid) = match syntax::past_session(&words, file.rules) {
        Some(command) => (command, true),
        None => (words, false),
    };
    let blocking = py.blocking.contains(&name);
    if setsid && !blocking && shell_string_owns_its_session(file, program_arg, &local) {
        return None;
    }
    // No program past the first words' wrappers (`sudo -u agent nice -n 5 codex` is
    // longer than they are): a command string is still read whole, as a script.
    let program = words.first().map_or("", String::as_str);
    // `fleet run -- claude` as an argv; a command string is read whole below (`fleet run
    // -- claude -p a; codex exec b` still runs codex outside it).
    if program == "fleet"
        && words.get(1).map(String::as_str) == Some("run")
        && string_value(file, program_arg, &local, 1).is_none()
    {
        return None;
    }
    let agent = match file.rules.agent(program) {
        Some(agent) => agent.to_string(),
        None if let Some(agent) = syntax::package_agent(&words, file.rules) => agent,
        None => {
            wrapped_agent(file, program, program_arg, items.as_deref(), &local).or_else(|| {
                blocking.then(|| {
                    super::shell::scripts_unchecked(|| {
                        wrapped_agent(file, program, program_arg, items.as_deref(), &local)
                    })
                })?
            })?
        }
    };
    if let Some(f) = function
        && let Some(fname) = f.child_by_field_name("name")
        && file
            .rules
            .is_helper(&format!("{}.{}", file.module, text(fname, file.src)))
    {
        return None;
    }
    let no_option = py.no_group_option.contains(&name);
    // `os.spawnlp(...)`, `os.execvp(...)`: positional arguments only, no keyword that
    // could start a session.
    let positional_only = name.starts_with("os.spawn") || name.starts_with("os.exec");
    let grouped = setsid
        || (!no_option
            && !positional_only
            && (has_cleanup(file, args, &local)
                || preset.is_some_and(|p| has_cleanup(file, p, &local))));
    if setsid && !no_option {
        let leader = !positional_only
            && (has_cleanup(file, args, &local)
                || preset.is_some_and(|p| has_cleanup(file, p, &local)));
        if forks || leader {
            return Some(forked_session(file, callee, &agent, &name, forks));
        }
    }
    file.tie.replace(tie(file, call, function));
    let ending = group_ending(file, call, function);
    let fix = format!(
        "start it with subprocess.Popen([...], start_new_session=True) and kill the whole group \
         with os.killpg(proc.pid, signal.SIGKILL) in a `finally` (on timeout, error and exit), \
         or run it as `fleet run --timeout DUR -- {agent} ...`"
    );
    let (message, help) = if setsid && no_option {
        (
            format!(
                "`{agent}` is started by `{name}` through `setsid` in a new session that nothing \
                 can kill"
            ),
            format!("`{name}` returns no pid to kill the group with: {fix}"),
        )
    } else if no_option {
        (
            format!("`{agent}` is started by `{name}` without a process group of its own"),
            format!(
                "`{name}` cannot start a new process group: use subprocess.Popen([...], \
                 start_new_session=True) and os.killpg(proc.pid, signal.SIGKILL) on timeout, \
                 error and exit, or run it as `fleet run --timeout DUR -- {agent} ...`"
            ),
        )
    } else if positional_only && !setsid {
        let how = if name.starts_with("os.exec") {
            "runs the agent in place of this process, in this process's group, and takes no \
             option for a new session"
        } else {
            "takes no option for a new session (`start_new_session` is subprocess.Popen's)"
        };
        (
            format!("`{agent}` is started by `{name}` without a process group of its own"),
            format!("`{name}` {how}: {fix}"),
        )
    } else if !grouped {
        let help = if ending == Ending::LeaderOnly {
            format!(
                "a leader-only kill (`proc.kill()`, `terminate()`) leaves its helpers running: {fix}"
            )
        } else {
            format!(
                "pass start_new_session=True and kill the whole group with os.killpg(proc.pid, \
                 signal.SIGKILL) on timeout, error and exit, or run it as `fleet run --timeout \
                 DUR -- {agent} ...`"
            )
        };
        (
            format!("`{agent}` is started by `{name}` without a process group of its own"),
            help,
        )
    } else if py.blocking.contains(&name) {
        (
            format!(
                "`{agent}` is started by `{name}` in a new session that nothing can kill: \
                 `{name}` kills only the leader on timeout or Ctrl-C"
            ),
            format!("`{name}` returns no pid to kill the group with: {fix}"),
        )
    } else {
        match ending {
            Ending::Killed => return None,
            Ending::Gated => (
                format!(
                    "`{agent}` is started by `{name}` in a new session whose group is killed \
                     only while the leader is alive"
                ),
                "the group kill is gated on the leader (`if proc.poll() is None:`): when the \
                 leader exits first, its helpers survive. Call os.killpg(proc.pid, \
                 signal.SIGKILL) unconditionally in a `finally` (ProcessLookupError means the \
                 group is gone)"
                    .to_string(),
            ),
            Ending::LeaderOnly => (
                format!(
                    "`{agent}` is started by `{name}` in a new session, but only the leader is killed"
                ),
                "`proc.kill()`/`terminate()` signal the leader alone: kill the whole group with \
                 os.killpg(proc.pid, signal.SIGKILL) (or os.kill(-proc.pid, ...)) in a `finally`"
                    .to_string(),
            ),
            Ending::Nothing => (
                format!(
                    "`{agent}` is started by `{name}` in a new session, but nothing kills the group"
                ),
                "a new session is half the cleanup: kill the whole group with \
                 os.killpg(proc.pid, signal.SIGKILL) in a `finally` (on timeout, error and exit)"
                    .to_string(),
            ),
        }
    };
    Some(raw_at(callee, file.src, message, help))
}

/// The spawn function a name bound to `functools.partial(subprocess.Popen, **kw)` (or
/// `partial(...)` imported from `functools`) calls, in the function the call is in or the
/// module, with the partial's arguments (where the preset keywords are). A partial that
/// presets positional arguments too (the argv) is out of reach.
fn partial_spawn<'t>(
    file: &File<'t, '_>,
    callee: Node,
    function: Option<Node<'t>>,
) -> Option<(String, Node<'t>)> {
    if callee.kind() != "identifier"
        || !file
            .aliases
            .values()
            .any(|v| v == "functools" || v == "functools.partial")
    {
        return None;
    }
    let name = text(callee, file.src);
    let mut local = Scope::new();
    if let Some(body) = function.and_then(|f| f.child_by_field_name("body")) {
        collect_assignments(body, file.src, &mut local);
    }
    let value = *local
        .get(name)
        .or_else(|| file.module_scope.get(name))?
        .last()?;
    if value.kind() != "call"
        || resolve_callee(file, value.child_by_field_name("function")?) != "functools.partial"
    {
        return None;
    }
    let args = value.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let positional: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|c| {
            !matches!(
                c.kind(),
                "keyword_argument" | "dictionary_splat" | "comment"
            )
        })
        .collect();
    let [spawn] = positional.as_slice() else {
        return None;
    };
    let spawn = resolve_callee(file, *spawn);
    file.rules
        .python
        .spawn
        .contains(&spawn)
        .then_some((spawn, args))
}

/// The agent an argument list runs through a wrapper program: a shell's `-c` script
/// (`["bash", "-lc", "claude -p hi"]`) or `/usr/bin/env` (`["env", "claude", "-p"]`).
fn wrapped_agent(
    file: &File,
    program: &str,
    argv: Node,
    spread: Option<&[Option<String>]>,
    local: &Scope,
) -> Option<String> {
    // A command string (`shell=True`, `os.system`, `os.popen`, `getoutput`,
    // `create_subprocess_shell`) is a whole shell script: every command of its lists,
    // pipelines, subshells and loops, its own variables, `bash -lc '...'` inside it.
    if spread.is_none()
        && let Some(line) = string_value(file, argv, local, 1)
    {
        return super::shell::script_agent(&line, file.rules);
    }
    let name = program.rsplit('/').next().unwrap_or(program);
    let shell = file.rules.shell.shells.iter().any(|s| s == name);
    if !shell && name != "env" && name != "su" {
        return None;
    }
    // The argv's items past the program, however the list was built.
    let items: Vec<Option<String>> = match spread {
        Some(items) => items.iter().skip(1).cloned().collect(),
        None => argv_items(file, argv, local, 1)?
            .into_iter()
            .skip(1)
            .collect(),
    };
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
    /// A group kill in reach, not gated on the leader.
    Killed,
    /// Only group kills gated on the leader being alive (`if p.poll() is None:`).
    Gated,
    /// Only kills of the leader (`p.kill()`, `p.terminate()`, `p.send_signal(...)`).
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

/// The kills in reach of a spawn: its function (nested functions included), the
/// functions of the module it names (called, or registered as a handler, transitively),
/// and, for a method, the other methods of its class (the object holds the child). A
/// spawn at module level reaches the whole module. A spawn handed to the caller
/// ([`returned`]) is followed to its callers in the module ([`handed_ending`]). Which
/// pid a kill names is not checked, except that a kill naming another spawn's child is
/// that child's ([`tie`]).
fn group_ending(file: &File, call: Node, function: Option<Node>) -> Ending {
    let Some(start) = function else {
        return kills_in(file, &[call_root(call)]);
    };
    let mut reached = reach_from(file, start, holds(file, call, start));
    for method in subclass_holders(file, call, start) {
        if !reached.contains(&method) {
            reached.extend(reach_from(file, method, false));
        }
    }
    // `global _proc; _proc = Popen(...)`: the module's functions that use `_proc`
    // (`def stop(): os.killpg(_proc.pid, ...)`) hold the same child.
    if let Some(name) = global_target(file, call, start)
        .or_else(|| global_alias(file, call, start))
        .or_else(|| module_collection(file, call, start))
    {
        for f in file.functions.values().flatten() {
            let mut uses = false;
            syntax::walk(*f, &mut |n| {
                uses |= n.kind() == "identifier" && text(n, file.src) == name;
            });
            if uses && !reached.contains(f) {
                reached.extend(reach_from(file, *f, true));
            }
        }
        // `atexit.register(lambda: os.killpg(_proc.pid, ...))` at module level.
        for s in syntax::module_statements_naming(call_root(call), file.src, name) {
            reached.extend(reach_from(file, s, true));
        }
    }
    let own = kills_in(file, &reached);
    if own == Ending::Killed || !returned(file, call, start) {
        return own;
    }
    better(own, handed_ending(file, start, 0))
}

/// The module-level collection the child is put in (`_PROCS[name] = Popen(...)`, or
/// `p = Popen(...)` then `_CHILDREN.append(p)`): no `global` is needed to fill one, and
/// the module's functions that use it (`for p in _CHILDREN: os.killpg(...)`) hold the
/// child as much as a `global` would.
fn module_collection<'s>(file: &File<'_, 's>, call: Node, function: Node) -> Option<&'s str> {
    let src = file.src;
    // The call itself, and the local it is bound to, wherever that is used.
    let bound = call
        .parent()
        .filter(|p| p.kind() == "assignment")
        .and_then(|a| a.child_by_field_name("left"))
        .filter(|l| l.kind() == "identifier")
        .map(|l| text(l, src));
    let mut uses = vec![call];
    if let Some(local) = bound {
        syntax::walk(function, &mut |n| {
            if n.kind() == "identifier" && text(n, src) == local {
                uses.push(n);
            }
        });
    }
    let module_name = |n: Node| {
        (n.kind() == "identifier" && file.module_scope.contains_key(text(n, src)))
            .then(|| text(n, src))
    };
    uses.into_iter().find_map(|x| {
        let parent = x.parent()?;
        match parent.kind() {
            // `_PROCS[name] = x`
            "assignment" if parent.child_by_field_name("right") == Some(x) => {
                let left = parent.child_by_field_name("left")?;
                (left.kind() == "subscript")
                    .then(|| left.child_by_field_name("value"))
                    .flatten()
                    .and_then(module_name)
            }
            // `_CHILDREN.append(x)`, `.add(x)`, `.insert(i, x)`, `.setdefault(k, x)`
            "argument_list" => {
                let callee = parent.parent()?.child_by_field_name("function")?;
                let method = callee.child_by_field_name("attribute")?;
                matches!(
                    text(method, src),
                    "append" | "add" | "insert" | "setdefault"
                )
                .then(|| callee.child_by_field_name("object"))
                .flatten()
                .and_then(module_name)
            }
            _ => None,
        }
    })
}

/// The module variable the child is assigned to, declared `global` in `function`.
fn global_target<'s>(file: &File<'_, 's>, call: Node, function: Node) -> Option<&'s str> {
    let assignment = call.parent().filter(|p| p.kind() == "assignment")?;
    let left = assignment
        .child_by_field_name("left")
        .filter(|l| l.kind() == "identifier")?;
    let name = text(left, file.src);
    let mut declared = false;
    syntax::walk(function, &mut |n| {
        if n.kind() == "global_statement" {
            let mut cursor = n.walk();
            declared |= n
                .named_children(&mut cursor)
                .any(|g| text(g, file.src) == name);
        }
    });
    declared.then_some(name)
}

/// Could the object of `function`'s class get hold of the child `call` makes: stored on
/// it (`self.proc = Popen(...)`), or bound to a name that escapes the function
/// (handed to a call, put in a collection, stored)? Then every method of the class is
/// in reach; not when the child stays a local used in place, or is returned (its callers
/// decide) or dropped.
fn holds(file: &File, call: Node, function: Node) -> bool {
    let src = file.src;
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind() {
            "parenthesized_expression" | "await" => n = p,
            "return_statement" | "expression_statement" => return false,
            // `self.proc = proc = Popen(...)`: stored as well.
            "assignment" if p.parent().is_some_and(|q| q.kind() == "assignment") => return true,
            "assignment" if p.child_by_field_name("right") == Some(n) => {
                return match p.child_by_field_name("left") {
                    Some(l) if l.kind() == "identifier" => escapes(file, function, text(l, src)),
                    _ => true,
                };
            }
            "as_pattern" | "with_item" => {
                let alias = p
                    .child_by_field_name("alias")
                    .or_else(|| p.parent().and_then(|w| w.child_by_field_name("alias")));
                return alias.is_none_or(|a| escapes(file, function, text(a, src).trim()));
            }
            _ => return true,
        }
    }
    true
}

/// Does the local `name` leave `function` other than by `return`: passed to a call, put
/// in a collection, assigned to something else?
fn escapes(file: &File, function: Node, name: &str) -> bool {
    let src = file.src;
    let mut out = false;
    syntax::walk(function, &mut |id| {
        if out || id.kind() != "identifier" || text(id, src) != name {
            return;
        }
        // Up through `proc.pid`, `proc.stdout`: it or a part of it. A method's result
        // (`out = proc.communicate()`) is neither.
        let mut n = id;
        while let Some(p) = n.parent() {
            match p.kind() {
                "attribute" if p.child_by_field_name("object") == Some(n) => n = p,
                "subscript" if p.child_by_field_name("value") == Some(n) => n = p,
                "call" if p.child_by_field_name("function") == Some(n) => return,
                _ => break,
            }
        }
        let Some(p) = n.parent() else { return };
        out |= match p.kind() {
            "assignment" => p.child_by_field_name("right") == Some(n),
            "augmented_assignment"
            | "argument_list"
            | "list"
            | "tuple"
            | "set"
            | "pair"
            | "dictionary"
            | "keyword_argument"
            | "yield"
            | "lambda"
            | "list_splat"
            | "dictionary_splat"
            | "as_pattern_target"
            | "global_statement"
            | "nonlocal_statement" => true,
            _ => false,
        };
    });
    out
}

/// The functions a function reaches: itself, the other methods of its class (when the
/// object may hold the child: `class_wide`), and the module's functions they name,
/// transitively.
fn reach_from<'t>(file: &File<'t, '_>, start: Node<'t>, class_wide: bool) -> Vec<Node<'t>> {
    let mut reached = vec![start];
    let class = enclosing_class(start).filter(|_| class_wide);
    let named_class = enclosing_class(start);
    if let Some(class) = class {
        syntax::walk(class, &mut |n| {
            if n.kind() == "function_definition" && !reached.contains(&n) {
                reached.push(n);
            }
        });
    }
    let mut i = 0;
    while i < reached.len() {
        let mut named = Vec::new();
        syntax::walk(reached[i], &mut |n| {
            // `kill_group(p)`, `atexit.register(kill_group)`, `self.stop()`; not
            // `proc.kill()`, a method of another object.
            let attribute = n.parent().filter(|a| {
                a.kind() == "attribute" && a.child_by_field_name("attribute") == Some(n)
            });
            let method_of_other = attribute.is_some_and(|a| {
                a.child_by_field_name("object")
                    .is_none_or(|o| !matches!(text(o, file.src), "self" | "cls"))
            });
            // A definition's own name (`def stop(self)`) names no other function.
            let defined = n.parent().is_some_and(|d| {
                d.kind() == "function_definition" && d.child_by_field_name("name") == Some(n)
            });
            if n.kind() == "identifier" && !method_of_other && !defined {
                named.push((text(n, file.src), attribute.is_some()));
            }
        });
        for (name, of_self) in named {
            // `self.stop()` is a method of this class, `stop()` a function of the module:
            // neither is another class's method of the same name.
            let scope = if of_self { named_class } else { None };
            for f in file.functions.get(name).into_iter().flatten() {
                if enclosing_class(*f) == scope && !reached.contains(f) {
                    reached.push(*f);
                }
            }
            // `Runner(proc)`: a class of the module handed the child; its methods hold it.
            for c in file.classes.get(name).into_iter().flatten() {
                syntax::walk(*c, &mut |m| {
                    if m.kind() == "function_definition" && !reached.contains(&m) {
                        reached.push(m);
                    }
                });
            }
        }
        i += 1;
    }
    reached
}

/// The better of two endings.
fn better(a: Ending, b: Ending) -> Ending {
    if a.rank() >= b.rank() { a } else { b }
}

/// How the callers of `factory` (a function handing out the child) end its group:
/// each caller in the module must, in its own reach (or its callers', when it hands the
/// child on); the worst of them counts. A factory the module never calls is API for
/// other modules: then the kills of the module's functions that start nothing
/// themselves count (`def stop(proc): os.killpg(...)` beside it), not those that end
/// another spawn of their own.
fn handed_ending(file: &File, factory: Node, depth: usize) -> Ending {
    let src = file.src;
    let Some(name) = factory.child_by_field_name("name").map(|n| text(n, src)) else {
        return Ending::Nothing;
    };
    let budget = file.handed_budget.get();
    if depth > 4 || budget == 0 {
        return exported_ending(file);
    }
    file.handed_budget.set(budget - 1);
    let method = enclosing_class(factory).is_some();
    let mut callers = Vec::new();
    let mut referenced = false;
    let root = call_root(factory);
    let names = file.names.get_or_init(|| {
        let mut names: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        syntax::walk(root, &mut |n| {
            if n.kind() == "identifier" {
                names
                    .entry(text(n, src).into())
                    .or_default()
                    .push((n.start_byte(), n.end_byte()));
            }
        });
        names
    });
    for &(start, end) in names.get(name).into_iter().flatten() {
        let Some(id) = root
            .descendant_for_byte_range(start, end)
            .filter(|n| n.kind() == "identifier")
        else {
            continue;
        };
        // A method is named as an attribute (`self.start(...)`), a function by itself.
        let n = if method {
            match id.parent() {
                Some(a)
                    if a.kind() == "attribute"
                        && a.child_by_field_name("attribute") == Some(id) =>
                {
                    a
                }
                _ => continue,
            }
        } else {
            id
        };
        if factory.child_by_field_name("name") == Some(n) {
            continue;
        }
        let parent = n.parent();
        // `other.make`, `make=...`: another object's attribute, a keyword's name.
        let not_it = parent.is_some_and(|p| {
            (p.kind() == "attribute" && p.child_by_field_name("attribute") == Some(n))
                || (p.kind() == "keyword_argument" && p.child_by_field_name("name") == Some(n))
        });
        match parent {
            Some(c) if c.kind() == "call" && c.child_by_field_name("function") == Some(n) => {
                callers.push(c);
            }
            // Handed on as a value (`pool.submit(make)`): where it ends is out of reach.
            Some(p) if !not_it && p.kind() != "attribute" => referenced = true,
            _ => {}
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
        let ending = match enclosing_function(caller) {
            None => kills_in(file, &[call_root(caller)]),
            Some(f) if f == factory => continue,
            Some(f) => {
                let own = kills_in(file, &reach_from(file, f, holds(file, caller, f)));
                if own != Ending::Killed && returned(file, caller, f) {
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

/// The kills of the module's functions that start no process of their own (directly
/// or through a function of the module).
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
                found |= n.kind() == "call"
                    && n.child_by_field_name("function").is_some_and(|c| {
                        file.rules.python.spawn.contains(&resolve_callee(file, c))
                    });
            });
            found
        };
        let spawns = |f: Node| {
            let mut found = spawns_directly(f);
            syntax::walk(f, &mut |n| {
                if !found
                    && n.kind() == "call"
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
        kills_in(file, &quiet)
    })
}

/// Does the function hand the child to its caller (`return Popen(...)`, or the name it
/// is assigned to returned)? Then its callers decide ([`handed_ending`]).
fn returned(file: &File, call: Node, function: Node) -> bool {
    let mut n = call.parent();
    let mut name = None;
    while let Some(p) = n {
        match p.kind() {
            "return_statement" => return true,
            // `return start(p).wait()`: what is returned is the method's result.
            "attribute" => return false,
            "assignment" => {
                name = p
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                    .map(|l| text(l, file.src));
                break;
            }
            "function_definition" | "expression_statement" => break,
            _ => n = p.parent(),
        }
    }
    let Some(name) = name else {
        return false;
    };
    let mut found = false;
    syntax::walk(function, &mut |r| {
        if r.kind() == "return_statement"
            && r.named_child(0).is_some_and(|v| text(v, file.src) == name)
        {
            found = true;
        }
    });
    found
}

/// Is `name` assigned a negative pid (`pgid = -p.pid`) in the function around `at` (or
/// the module)?
fn bound_negative(file: &File, at: Node, name: &str) -> bool {
    let mut scope = at;
    while let Some(p) = scope.parent() {
        scope = p;
        if p.kind() == "function_definition" {
            break;
        }
    }
    let mut found = false;
    syntax::walk(scope, &mut |n| {
        found |= n.kind() == "assignment"
            && n.child_by_field_name("left")
                .is_some_and(|l| l.kind() == "identifier" && text(l, file.src) == name)
            && n.child_by_field_name("right")
                .is_some_and(|r| text(r, file.src).trim_start().starts_with('-'));
    });
    found
}

fn call_root(node: Node) -> Node {
    let mut n = node;
    while let Some(p) = n.parent() {
        n = p;
    }
    n
}

fn enclosing_class(function: Node) -> Option<Node> {
    let mut n = function.parent();
    while let Some(p) = n {
        match p.kind() {
            "class_definition" => return Some(p),
            "function_definition" => return None,
            _ => n = p.parent(),
        }
    }
    None
}

fn kills_in(file: &File, scopes: &[Node]) -> Ending {
    let py = &file.rules.python;
    let tie = file.tie.borrow();
    // A kill whose target (`a.pid`, `a`) is another spawn's child.
    let foreign = |n: Node, target: Option<Node>| {
        target.is_some_and(|t| tie.foreign(n.byte_range(), text(t, file.src)))
    };
    let mut best = Ending::Nothing;
    for scope in scopes {
        syntax::walk(*scope, &mut |n| {
            if best == Ending::Killed {
                return;
            }
            // `atexit.register(os.killpg, pgid, signal.SIGKILL)`,
            // `stack.callback(killpg, ...)`: the kill handed over to run later.
            if matches!(n.kind(), "attribute" | "identifier")
                && n.parent().is_some_and(|a| a.kind() == "argument_list")
                && py.group_kill.contains(&resolve_callee(file, n))
                && !n
                    .next_named_sibling()
                    .is_some_and(|pid| own_group_pid(file, pid, 0))
                && !foreign(n, n.parent())
            {
                best = if gated(file, n) {
                    Ending::Gated
                } else {
                    Ending::Killed
                };
                return;
            }
            if n.kind() != "call" {
                return;
            }
            let Some(callee) = n.child_by_field_name("function") else {
                return;
            };
            let name = resolve_callee(file, callee);
            let first = n
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .map(|a| text(a, file.src).trim_start());
            let negative = first.is_some_and(|a| a.starts_with('-') || bound_negative(file, n, a));
            // `os.killpg(0, sig)`, `os.kill(-0, sig)`: pid 0 is the caller's own group,
            // which a child started with `start_new_session=True` has left.
            let own_group = n
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .is_some_and(|a| own_group_pid(file, a, 0));
            // `os.killpg(pgid, 0)` only asks whether the group is there: no kill.
            let probe = n
                .child_by_field_name("arguments")
                .and_then(|a| a.named_child(1))
                .is_some_and(|s| text(s, file.src).trim() == "0");
            let group = !probe
                && !own_group
                && (py.group_kill.contains(&name)
                    || (py.kill_negative.contains(&name) && negative)
                    || kill_program_of_group(file, n, &name))
                && !foreign(n, n.child_by_field_name("arguments"));
            if group {
                best = if gated(file, n) {
                    Ending::Gated
                } else {
                    Ending::Killed
                };
            } else if best == Ending::Nothing
                && !own_group
                && callee.kind() == "attribute"
                && callee.child_by_field_name("attribute").is_some_and(|a| {
                    matches!(text(a, file.src), "kill" | "terminate" | "send_signal")
                })
                && !foreign(n, callee.child_by_field_name("object"))
            {
                best = Ending::LeaderOnly;
            }
        });
    }
    best
}

/// Is the kill inside the branch of an `if`/`while` (of its function) that runs while the
/// leader is alive ([`asks_leader`], [`leader_polarity`]: the body of `if proc.poll() is
/// None:`, the `else` of `is not None`), or after an `if` asking it whose body returns or
/// raises once it has exited (`if proc.poll() is not None: return`)? A kill in the branch
/// that runs once the leader exited is not gated on it; a question whose direction the
/// text does not say gates both branches. Such an `if` with a spawn
/// between it and the kill asks about an earlier process (an "already running" guard), not the one killed.
fn gated(file: &File, kill: Node) -> bool {
    let asks = |condition: Node| asks_leader(file, condition);
    let mut n = kill.parent();
    let mut child = kill;
    while let Some(p) = n {
        if p.kind() == "function_definition" {
            return false;
        }
        if p.kind() == "block" {
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
        if matches!(p.kind(), "if_statement" | "elif_clause" | "while_statement")
            && let Some(condition) = p.child_by_field_name("condition")
            && asks(condition)
        {
            // The kill in an `else`/`elif` runs when the condition is false.
            let otherwise = matches!(child.kind(), "else_clause" | "elif_clause");
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

/// `if p.poll() is not None: return`: an `if` asking about the leader that returns or
/// raises unless it is alive, so what follows it runs only while the leader lives.
fn returns_once_exited(file: &File, guard: Node) -> bool {
    if guard.kind() != "if_statement" {
        return false;
    }
    let returns = guard.child_by_field_name("consequence").is_some_and(|b| {
        let mut cursor = b.walk();
        b.named_children(&mut cursor)
            .any(|s| matches!(s.kind(), "return_statement" | "raise_statement"))
    });
    // An exit taken while the leader is alive leaves the kill for after it exited.
    returns
        && guard
            .child_by_field_name("condition")
            .is_some_and(|c| asks_leader(file, c) && leader_polarity(file, c) != Some(true))
}

/// Which way a condition asking about the leader points ([`syntax::leader_alive_polarity`]),
/// through a name bound to the question too (`alive = proc.poll() is None`, `if not alive:`).
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
    let scope = enclosing_function(condition).unwrap_or_else(|| call_root(condition));
    let mut bound = Vec::new();
    syntax::walk(scope, &mut |n| {
        if n.kind() == "assignment"
            && n.child_by_field_name("left")
                .is_some_and(|l| l.kind() == "identifier" && text(l, src) == name)
            && let Some(r) = n.child_by_field_name("right")
        {
            bound.push(syntax::leader_alive_polarity(text(r, src), None));
        }
    });
    match bound.as_slice() {
        [Some(p)] => Some(*p != negated),
        _ => None,
    }
}

/// Does a condition ask whether the leader is alive (`proc.poll() is None`,
/// `proc.returncode`), itself or through a name the function (or the module) binds to
/// such a question (`alive = proc.poll() is None`, then `if alive:`)?
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
    let mut names = Vec::new();
    syntax::walk(condition, &mut |n| {
        if n.kind() == "identifier" {
            names.push(text(n, src));
        }
    });
    if names.is_empty() {
        return false;
    }
    let scope = enclosing_function(condition).unwrap_or_else(|| call_root(condition));
    let mut found = false;
    syntax::walk(scope, &mut |n| {
        found |= n.kind() == "assignment"
            && n.child_by_field_name("left")
                .is_some_and(|l| l.kind() == "identifier" && names.contains(&text(l, src)))
            && n.child_by_field_name("right")
                .is_some_and(|r| asks(text(r, src)));
    });
    found
}

/// The name a spawn's child is bound to: `proc = Popen(...)`, `self.proc = Popen(...)`,
/// `with Popen(...) as proc`.
fn handle<'s>(file: &File<'_, 's>, call: Node) -> Option<&'s str> {
    let src = file.src;
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind() {
            "parenthesized_expression" | "await" => n = p,
            "assignment" if p.child_by_field_name("right") == Some(n) => {
                return p
                    .child_by_field_name("left")
                    .filter(|l| matches!(l.kind(), "identifier" | "attribute"))
                    .map(|l| text(l, src));
            }
            "as_pattern" | "with_item" => {
                return p
                    .child_by_field_name("alias")
                    .or_else(|| p.parent().and_then(|w| w.child_by_field_name("alias")))
                    .map(|a| text(a, src).trim());
            }
            _ => return None,
        }
    }
    None
}

/// The handles of the other spawns of the function `call` is in (the module for a spawn
/// at module level), and the names bound to values taken from them (`pgid =
/// os.getpgid(a.pid)`): a kill naming one of them ends that child, not this one.
fn tie(file: &File, call: Node, function: Option<Node>) -> syntax::Tie {
    let src = file.src;
    let own = handle(file, call).map(str::to_string);
    let scope = function.unwrap_or_else(|| call_root(call));
    let mut others: Vec<(String, usize, usize)> = Vec::new();
    syntax::walk(scope, &mut |n| {
        if n.kind() == "call"
            && n.id() != call.id()
            && n.child_by_field_name("function")
                .is_some_and(|c| file.rules.python.spawn.contains(&resolve_callee(file, c)))
            && let Some(h) = handle(file, n)
            && own.as_deref() != Some(h)
        {
            // `self.proc` means that child in every method of the class; a local, in
            // the function that binds it.
            let home = enclosing_function(n).unwrap_or_else(|| call_root(n));
            let range = if h.starts_with("self.") || h.starts_with("cls.") {
                enclosing_class(home).unwrap_or(home)
            } else {
                home
            };
            others.push((h.to_string(), range.start_byte(), range.end_byte()));
        }
    });
    // `global _b; _b = Popen(...)` in another function: `_b` is that child in the whole
    // module, a handler killing both (`os.killpg(_b.pid, ...)`, `_a.kill()`) included.
    let root = call_root(call);
    syntax::walk(root, &mut |n| {
        if n.kind() == "call"
            && n.id() != call.id()
            && n.child_by_field_name("function")
                .is_some_and(|c| file.rules.python.spawn.contains(&resolve_callee(file, c)))
            && let Some(h) = enclosing_function(n).and_then(|f| global_target(file, n, f))
            && own.as_deref() != Some(h)
        {
            others.push((h.to_string(), root.start_byte(), root.end_byte()));
        }
    });
    let mut tie = syntax::Tie { own, others };
    tie.derive(scope, src, "assignment", "left", "right");
    tie
}

/// Does a spawn call sit anywhere inside the node?
fn spawns(file: &File, node: Node) -> bool {
    let mut found = false;
    syntax::walk(node, &mut |n| {
        found = found
            || n.kind() == "call"
                && n.child_by_field_name("function")
                    .is_some_and(|c| file.rules.python.spawn.contains(&resolve_callee(file, c)));
    });
    found
}

/// The argument that names the program of a call of `api`: the first positional one
/// (the second for `os.spawn*`, whose first is the mode, `os.P_NOWAIT`), or
/// `args=`/`cmd=`.
fn program_argument<'t>(file: &File, args: Node<'t>, api: &str) -> Option<Node<'t>> {
    let mut cursor = args.walk();
    let children: Vec<Node> = args.named_children(&mut cursor).collect();
    let skip = usize::from(api.starts_with("os.spawn"));
    if let Some(first) = children
        .iter()
        .filter(|c| !matches!(c.kind(), "keyword_argument" | "comment"))
        .nth(skip)
    {
        return Some(*first);
    }
    children.iter().find_map(|c| {
        let name = c.child_by_field_name("name")?;
        matches!(text(name, file.src), "args" | "cmd" | "command" | "argv")
            .then(|| c.child_by_field_name("value"))
            .flatten()
    })
}

/// The first words of the command a value stands for (program first), following
/// variables, lists, f-strings, concatenation, `which` and environment defaults.
fn program_words(file: &File, node: Node, local: &Scope, depth: usize) -> Vec<String> {
    if depth > DEPTH || !file.steps.take() {
        return Vec::new();
    }
    let src = file.src;
    if is_interpreter(file, node, local) {
        return vec!["python".into()];
    }
    // A string expression's own text (a name is followed below, through each of its
    // assignments).
    if node.kind() != "identifier"
        && let Some(value) = string_value(file, node, local, depth)
    {
        return first_words(&value);
    }
    match node.kind() {
        // `[AGENT] + args`: the list on the left.
        "binary_operator" => {
            let left = node
                .child_by_field_name("left")
                .map(|n| program_words(file, n, local, depth + 1))
                .unwrap_or_default();
            let operator = node
                .child_by_field_name("operator")
                .map(|o| text(o, src))
                .unwrap_or("");
            // `Path.home() / ".claude/local/claude"`: the file name is the program's.
            if operator == "/" {
                return node
                    .child_by_field_name("right")
                    .map(|n| program_words(file, n, local, depth + 1))
                    .unwrap_or_default();
            }
            // `"%s -p" % AGENT`, `"%s -p %s" % (AGENT, x)`: the first value is the program.
            if operator == "%" && left.first().is_some_and(|w| w.starts_with("%s")) {
                let Some(right) = node.child_by_field_name("right") else {
                    return Vec::new();
                };
                let value = if right.kind() == "tuple" {
                    right.named_child(0)
                } else {
                    Some(right)
                };
                return value
                    .map(|v| program_words(file, v, local, depth + 1))
                    .unwrap_or_default();
            }
            // `["nice", "-n", "5"] + [AGENT, "--yes"]`: a left side that is all wrapper
            // runs what the right side names.
            if operator == "+" && all_wrapper(file, &left) {
                let mut words = left;
                if let Some(right) = node.child_by_field_name("right") {
                    words.extend(program_words(file, right, local, depth + 1));
                }
                return words;
            }
            left
        }
        "list" | "tuple" => {
            let mut cursor = node.walk();
            let items: Vec<Node> = node.named_children(&mut cursor).collect();
            let mut words = items
                .first()
                .map(|n| program_words(file, *n, local, depth + 1))
                .unwrap_or_default();
            // The first word of each next item (`["nohup", "claude", ...]` is seen past
            // its wrapper); one that is not known holds its place.
            if items.len() > 1 {
                words.truncate(1);
                for item in items.iter().skip(1).take(11) {
                    // An item is one word: `"A=1"` after `env` too.
                    let literal = (item.kind() == "string")
                        .then(|| text(*item, src).trim_matches(|c| c == '"' || c == '\''))
                        .filter(|w| !w.contains(char::is_whitespace) && !w.contains('{'));
                    let word = match literal {
                        Some(w) => w.to_string(),
                        None => program_words(file, *item, local, depth + 1)
                            .into_iter()
                            .next()
                            .unwrap_or_else(|| "?".into()),
                    };
                    words.push(word);
                }
            }
            words
        }
        "identifier" => {
            let name = text(node, src);
            let candidates = local
                .get(name)
                .or_else(|| file.module_scope.get(name))
                .cloned()
                .unwrap_or_default();
            // Any assignment that makes it an agent counts, the latest first.
            let words: Vec<Vec<String>> = candidates
                .iter()
                .rev()
                .map(|value| program_words(file, *value, local, depth + 1))
                .collect();
            let words = pick_agent(file, words);
            let key = format!("{name}.+");
            let mut added = local
                .get(&key)
                .or_else(|| file.module_scope.get(&key))
                .cloned()
                .unwrap_or_default();
            added.sort_by_key(|n| n.start_byte());
            // `cmd = ["sudo", "-u", "agent"]` then `cmd.append("codex")`: a list that is
            // all wrapper runs what is added to it next, in order.
            if all_wrapper(file, &words) {
                let mut words = words;
                for item in &added {
                    let item_words = program_words(file, *item, local, depth + 1);
                    if is_appended(file, *item) {
                        words.push(item_words.into_iter().next().unwrap_or_else(|| "?".into()));
                    } else {
                        words.extend(item_words);
                    }
                    if !all_wrapper(file, &words) {
                        break;
                    }
                }
                return words;
            }
            if !words.is_empty() {
                return words;
            }
            // A list built up from empty: its first `append`/`extend`/`+=` (an `insert(0,
            // x)` goes first).
            let first = added
                .iter()
                .find(|n| {
                    n.parent()
                        .and_then(|a| a.parent())
                        .and_then(|c| c.child_by_field_name("function"))
                        .is_some_and(|f| text(f, src).ends_with(".insert"))
                })
                .or(added.first());
            first
                .map(|n| program_words(file, *n, local, depth + 1))
                .unwrap_or_default()
        }
        "call" => {
            let Some(callee) = node.child_by_field_name("function") else {
                return Vec::new();
            };
            let name = resolve_callee(file, callee);
            let Some(args) = node.child_by_field_name("arguments") else {
                return Vec::new();
            };
            let mut cursor = args.walk();
            let positional: Vec<Node> = args
                .named_children(&mut cursor)
                .filter(|c| c.kind() != "keyword_argument")
                .collect();
            // `" ".join([AGENT, "-p"])`: the list's words.
            if callee.kind() == "attribute"
                && callee
                    .child_by_field_name("attribute")
                    .is_some_and(|a| text(a, src) == "join")
                && callee
                    .child_by_field_name("object")
                    .is_some_and(|o| o.kind() == "string")
            {
                return positional
                    .first()
                    .map(|n| program_words(file, *n, local, depth + 1))
                    .unwrap_or_default();
            }
            // `cmd.split()`, `"claude -p".split(" ")`: the string's words (not a
            // module's `split`, `shlex.split` above or `re.split`).
            if let Some(object) = callee
                .child_by_field_name("attribute")
                .filter(|a| callee.kind() == "attribute" && text(*a, src) == "split")
                .and_then(|_| callee.child_by_field_name("object"))
                .filter(|o| {
                    let root = text(*o, src).split('.').next().unwrap_or_default();
                    !file.aliases.contains_key(root)
                })
            {
                return program_words(file, object, local, depth + 1);
            }
            let pick = if file.rules.python.which.contains(&name)
                || matches!(
                    name.as_str(),
                    "str"
                        | "os.fspath"
                        | "pathlib.Path"
                        | "Path"
                        | "shlex.split"
                        | "list"
                        | "tuple"
                        | "os.path.expanduser"
                        | "os.path.expandvars"
                        | "os.path.abspath"
                        | "os.path.realpath"
                        | "os.path.normpath"
                ) {
                positional.first()
            } else if matches!(name.as_str(), "os.path.join" | "pathlib.Path.joinpath") {
                // `os.path.join(BIN_DIR, "claude")`: the last part names the program.
                positional.last()
            } else if matches!(
                name.as_str(),
                "os.environ.get" | "os.getenv" | "environ.get" | "getenv"
            ) {
                positional.get(1)
            } else {
                None
            };
            pick.map(|n| program_words(file, *n, local, depth + 1))
                .unwrap_or_default()
        }
        // `shutil.which("claude") or "/usr/local/bin/claude"`, `a if cond else b`: either
        // side may be the program; one that names an agent wins.
        "boolean_operator" | "conditional_expression" => {
            let mut cursor = node.walk();
            let sides: Vec<Node> = node
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .collect();
            let candidates: Vec<Vec<String>> = if node.kind() == "conditional_expression" {
                [sides.first(), sides.get(2)]
                    .into_iter()
                    .flatten()
                    .map(|n| program_words(file, *n, local, depth + 1))
                    .collect()
            } else {
                sides
                    .iter()
                    .map(|n| program_words(file, *n, local, depth + 1))
                    .collect()
            };
            pick_agent(file, candidates)
        }
        // `self.BIN`, `cls.BIN` of a class attribute (`class Runner: BIN = "claude"`), or
        // assigned in a method (`self.bin = shutil.which("claude")` in `__init__`).
        "attribute" => {
            let mut words: Vec<Vec<String>> = attribute_values(file, node)
                .iter()
                .rev()
                .map(|value| program_words(file, *value, local, depth + 1))
                .collect();
            // `@property def bin(self): return "claude"`, read as `self.bin`.
            if let Some(value) = constant_method(file, node, true) {
                words.push(program_words(file, value, &Scope::new(), depth + 1));
            }
            pick_agent(file, words)
        }
        "parenthesized_expression" | "await" | "list_splat" => node
            .named_child(0)
            .map(|n| program_words(file, n, local, depth + 1))
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Are `words` a command line that is only wrappers (`nice -n 5`, `sudo -u agent`), so
/// the program is in the piece that follows them? Empty words are not: nothing is known.
/// `["setsid", "--fork"] + argv` too: a `setsid` with options and no command of its own
/// runs what the right side names, as a wrapper does.
fn all_wrapper(file: &File, words: &[String]) -> bool {
    let past = syntax::past_wrappers(words, file.rules);
    let bare_setsid = past.first().is_some_and(|program| {
        let name = program.rsplit('/').next().unwrap_or(program);
        file.rules.shell.session_only.iter().any(|s| s == name)
            && past[1..].iter().all(|w| w.starts_with('-'))
    });
    !words.is_empty() && (past.is_empty() || bare_setsid)
}

/// Is this list item added by `append`/`insert` (one word), not `extend`/`+=` (a list)?
fn is_appended(file: &File, item: Node) -> bool {
    item.parent()
        .and_then(|a| a.parent())
        .and_then(|c| c.child_by_field_name("function"))
        .is_some_and(|f| {
            let f = text(f, file.src);
            f.ends_with(".append") || f.ends_with(".insert")
        })
}

/// What `self.NAME` / `cls.NAME` is assigned in its class: the class attribute, and
/// `self.NAME = ...` in any method (`__init__`), in order.
fn attribute_values<'t>(file: &File<'t, '_>, node: Node<'t>) -> Vec<Node<'t>> {
    let src = file.src;
    let (Some(object), Some(name)) = (
        node.child_by_field_name("object"),
        node.child_by_field_name("attribute"),
    ) else {
        return Vec::new();
    };
    let Some(body) =
        attribute_class(file, node, object).and_then(|c| c.child_by_field_name("body"))
    else {
        return Vec::new();
    };
    let mut values = class_attribute_values(file, body, text(name, src));
    // Not set in the class itself: a base class of the module's may (`class Runner(Cfg)`).
    if values.is_empty()
        && let Some(class) = body.parent()
    {
        values = inherited_attribute_values(file, class, text(name, src));
    }
    values
}

/// The values the class body `body` gives attribute `name`: a class attribute (`BIN =
/// "claude"`), or `self.name = ...`/`cls.name = ...` in one of its methods.
fn class_attribute_values<'t>(file: &File<'t, '_>, body: Node<'t>, name: &str) -> Vec<Node<'t>> {
    let src = file.src;
    let mut attributes = Scope::new();
    collect_assignments(body, src, &mut attributes);
    let mut values: Vec<Node> = attributes.get(name).cloned().unwrap_or_default();
    syntax::walk(body, &mut |n| {
        if n.kind() == "assignment"
            && let (Some(left), Some(right)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            )
            && left.kind() == "attribute"
            && left
                .child_by_field_name("object")
                .is_some_and(|o| matches!(text(o, src), "self" | "cls"))
            && left
                .child_by_field_name("attribute")
                .is_some_and(|a| text(a, src) == name)
        {
            values.push(right);
        }
    });
    values
}

fn pick_agent(file: &File, candidates: Vec<Vec<String>>) -> Vec<String> {
    syntax::pick_agent(candidates, file.rules)
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
/// (`f"{BIN_DIR}/codex"`, `"%s/claude" % BIN_DIR`, `BIN_DIR + "/claude"`): string
/// literals and f-strings, `+` and `%` of them, and names bound to them. A part out of
/// reach (an argument, a call) is [`UNKNOWN`], so literal text after it still names the
/// program (`f"{home}/bin/claude"` runs `claude`). `None` when the node is not a string
/// expression (a list, most calls).
fn string_value(file: &File, node: Node, local: &Scope, depth: usize) -> Option<String> {
    if depth > DEPTH || !file.steps.take() {
        return None;
    }
    let src = file.src;
    let value = match node.kind() {
        "string" => {
            let mut out = String::new();
            // A raw string (`r"a\"b"`) keeps its backslashes.
            let raw = text(node, src)
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| c == 'r' || c == 'R');
            let bytes = text(node, src)
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .any(|c| c == 'b' || c == 'B');
            let mut cursor = node.walk();
            for part in node.named_children(&mut cursor) {
                match part.kind() {
                    // The content holds its escapes (`\"`) as children of its own.
                    "string_content" | "escape_sequence" if raw => out.push_str(text(part, src)),
                    "string_content" | "escape_sequence" => {
                        out.push_str(&python_unescape(text(part, src), bytes))
                    }
                    "interpolation" => {
                        out.push_str(&part_value(file, part.named_child(0), local, depth))
                    }
                    _ => {}
                }
            }
            out
        }
        "concatenated_string" => {
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.named_children(&mut cursor).collect();
            parts
                .into_iter()
                .map(|p| part_value(file, Some(p), local, depth))
                .collect()
        }
        "parenthesized_expression" => {
            return string_value(file, node.named_child(0)?, local, depth + 1);
        }
        "identifier" => {
            let name = text(node, src);
            let candidates = local.get(name).or_else(|| file.module_scope.get(name))?;
            // Any assignment that makes it an agent counts, the latest first.
            let values: Vec<String> = candidates
                .iter()
                .rev()
                .filter_map(|v| string_value(file, *v, local, depth + 1))
                .collect();
            let agent = values.iter().position(|v| {
                first_words(v)
                    .first()
                    .is_some_and(|p| file.rules.agent(p).is_some())
            });
            values.into_iter().nth(agent.unwrap_or(0))?
        }
        "binary_operator" => {
            let (left, right) = (
                node.child_by_field_name("left")?,
                node.child_by_field_name("right")?,
            );
            match node.child_by_field_name("operator").map(|o| text(o, src)) {
                // `BIN_DIR + "/claude"`, `Path(BIN_DIR) / "claude"`: one side a string is
                // enough (not lists).
                Some(op @ ("+" | "/")) => {
                    let (l, r) = (
                        string_value(file, left, local, depth + 1),
                        string_value(file, right, local, depth + 1),
                    );
                    if l.is_none() && r.is_none() || [left, right].iter().any(|n| is_list(*n)) {
                        return None;
                    }
                    let sep = if op == "/" { "/" } else { "" };
                    l.unwrap_or_else(|| UNKNOWN.into()) + sep + &r.unwrap_or_else(|| UNKNOWN.into())
                }
                // `"%s/claude" % BIN_DIR`, `"%s -p %s" % (AGENT, x)`: each `%s` in turn.
                Some("%") => {
                    let template = string_value(file, left, local, depth + 1)?;
                    // `"%(bin)s -p" % {"bin": CLAUDE}`: each `%(key)s` from the dict.
                    let dict = match right.kind() {
                        "dictionary" => Some(right),
                        "identifier" => {
                            let name = text(right, src);
                            local
                                .get(name)
                                .or_else(|| file.module_scope.get(name))
                                .and_then(|vs| vs.last().copied())
                                .filter(|v| v.kind() == "dictionary")
                        }
                        _ => None,
                    };
                    if let Some(dict) = dict {
                        return Some(percent_named(&template, |key| {
                            dict_value(file, dict, key, local, depth)
                        }));
                    }
                    let values: Vec<Node> = if right.kind() == "tuple" {
                        let mut cursor = right.walk();
                        right.named_children(&mut cursor).collect()
                    } else {
                        vec![right]
                    };
                    percent(&template, |i| {
                        part_value(file, values.get(i).copied(), local, depth)
                    })
                }
                _ => return None,
            }
        }
        "call" => format_value(file, node, local, depth)
            .or_else(|| path_call_value(file, node, local, depth))?,
        "subscript" => dict_subscript(file, node, local, depth)?,
        _ => return None,
    };
    Some(value.chars().take(MAX_VALUE).collect())
}

/// The path a call builds: `os.path.join(BIN_DIR, "claude")`, `"/".join([...])`,
/// `str(...)`, `Path(...)`, `os.path.expanduser(...)` and `Path(...).resolve()`.
fn path_call_value(file: &File, call: Node, local: &Scope, depth: usize) -> Option<String> {
    let src = file.src;
    let callee = call.child_by_field_name("function")?;
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let positional: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|c| !matches!(c.kind(), "keyword_argument" | "comment"))
        .collect();
    let joined = |parts: &[Node], sep: &str| {
        parts
            .iter()
            .map(|n| string_value(file, *n, local, depth + 1).unwrap_or_else(|| UNKNOWN.into()))
            .collect::<Vec<_>>()
            .join(sep)
    };
    let name = resolve_callee(file, callee);
    match name.as_str() {
        "os.path.join" | "posixpath.join" => return Some(joined(&positional, "/")),
        "str" | "os.fspath" | "pathlib.Path" | "Path" | "pathlib.PurePath" | "PurePath"
        | "os.path.expanduser" | "os.path.expandvars" | "os.path.abspath" | "os.path.realpath"
        | "os.path.normpath" => {
            return string_value(file, *positional.first()?, local, depth + 1);
        }
        _ => {}
    }
    if callee.kind() == "identifier" {
        let body = constant_function(file, text(callee, src))?;
        return string_value(file, body, &Scope::new(), depth + 1);
    }
    if callee.kind() != "attribute" {
        return None;
    }
    if positional.is_empty()
        && let Some(body) = constant_method(file, callee, false)
    {
        return string_value(file, body, &Scope::new(), depth + 1);
    }
    let object = callee.child_by_field_name("object")?;
    match text(callee.child_by_field_name("attribute")?, src) {
        // `"/".join([BIN_DIR, "claude"])`, `" ".join(CMD)`: the items, joined.
        "join" if object.kind() == "string" => {
            let sep = string_value(file, object, local, depth + 1)?;
            let mut list = *positional.first()?;
            if list.kind() == "identifier" {
                let name = text(list, src);
                list = *local
                    .get(name)
                    .or_else(|| file.module_scope.get(name))?
                    .iter()
                    .rev()
                    .find(|v| matches!(v.kind(), "list" | "tuple"))?;
            }
            if !matches!(list.kind(), "list" | "tuple") {
                return None;
            }
            let mut cursor = list.walk();
            let items: Vec<Node> = list.named_children(&mut cursor).collect();
            Some(joined(&items, &sep))
        }
        "resolve" | "absolute" | "expanduser" | "as_posix" | "strip" if positional.is_empty() => {
            string_value(file, object, local, depth + 1)
        }
        _ => None,
    }
}

/// What a module-level function returns when its whole body is one `return` of an
/// expression without parameters to read (`def agent_bin(): return "claude"`, `return
/// CLAUDE`): that expression, read in the module's scope. A function with any other
/// statement, parameters, or a second definition of its name stays out of reach.
fn constant_function<'t>(file: &File<'t, '_>, name: &str) -> Option<Node<'t>> {
    let [function] = file.functions.get(name)?.as_slice() else {
        return None;
    };
    // A decorated function (its parent the decoration) may return anything.
    if function.parent()?.kind() != "module" {
        return None;
    }
    if function
        .child_by_field_name("parameters")
        .is_some_and(|p| p.named_child_count() > 0)
    {
        return None;
    }
    let body = function.child_by_field_name("body")?;
    syntax::sole_return(body)
}

/// One interpolated part of a string: its text when it is a string expression, else the
/// first words of the command it stands for, else [`UNKNOWN`].
fn part_value(file: &File, node: Option<Node>, local: &Scope, depth: usize) -> String {
    let Some(node) = node else {
        return UNKNOWN.into();
    };
    if let Some(value) = string_value(file, node, local, depth + 1) {
        return value;
    }
    let words = program_words(file, node, local, depth + 1);
    if words.is_empty() {
        UNKNOWN.into()
    } else {
        words.join(" ")
    }
}

/// A list or tuple display: `+` of it is a list, not a string.
fn is_list(node: Node) -> bool {
    matches!(node.kind(), "list" | "tuple" | "list_comprehension")
}

/// A `%` template filled in: `%s`, `%r`, `%d` take the next value, `%%` is `%`.
fn percent(template: &str, value: impl FnMut(usize) -> String) -> String {
    syntax::fill_percent(template, &['s', 'r', 'd', 'i'], value)
}

/// A `%` template filled from a mapping: `%(key)s` (also `r`, `d`, `i`) takes
/// `value(key)`, `%%` is `%`, anything else stays as written.
fn percent_named(template: &str, mut value: impl FnMut(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('%') {
            out.push('%');
            rest = tail;
        } else if let Some(named) = after.strip_prefix('(')
            && let Some(close) = named.find(')')
            && named[close + 1..].starts_with(['s', 'r', 'd', 'i'])
        {
            out.push_str(&value(&named[..close]));
            rest = &named[close + 2..];
        } else {
            out.push('%');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The value under a string key of a dict display (`{"bin": CLAUDE}`), as
/// [`part_value`] reads it; [`UNKNOWN`] when no key of it is that string.
fn dict_value(file: &File, dict: Node, key: &str, local: &Scope, depth: usize) -> String {
    let mut cursor = dict.walk();
    let pair = dict.named_children(&mut cursor).find(|p| {
        p.kind() == "pair"
            && p.child_by_field_name("key")
                .and_then(|k| string_value(file, k, local, depth + 1))
                .is_some_and(|k| k == key)
    });
    part_value(
        file,
        pair.and_then(|p| p.child_by_field_name("value")),
        local,
        depth,
    )
}

/// Does the call start a new session or group (`start_new_session=True`,
/// `process_group=...`, `preexec_fn=os.setsid`), directly or through `**options`?
fn has_cleanup(file: &File, args: Node, local: &Scope) -> bool {
    let src = file.src;
    let mut cursor = args.walk();
    for arg in args.named_children(&mut cursor) {
        match arg.kind() {
            "keyword_argument" => {
                let (Some(k), Some(v)) = (
                    arg.child_by_field_name("name"),
                    arg.child_by_field_name("value"),
                ) else {
                    continue;
                };
                if is_cleanup(file, text(k, src), v, local) {
                    return true;
                }
            }
            "dictionary_splat" => {
                let Some(inner) = arg.named_child(0) else {
                    continue;
                };
                let dicts = match inner.kind() {
                    "identifier" => local
                        .get(text(inner, src))
                        .or_else(|| file.module_scope.get(text(inner, src)))
                        .cloned()
                        .unwrap_or_default(),
                    // `**self.popen_options`, set in the class or its `__init__`.
                    "attribute" => attribute_values(file, inner),
                    _ => vec![inner],
                };
                if dicts.iter().any(|d| dict_has_cleanup(file, *d))
                    || (inner.kind() == "identifier"
                        && (dict_filled(file, args, text(inner, src))
                            || (local.get(text(inner, src)).is_none()
                                && file.module_scope.contains_key(text(inner, src))
                                && module_dict_filled(file, args, text(inner, src)))))
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Is the dict `name` filled with a new session where `at` is (its function, else the
/// module): `opts["start_new_session"] = True`, `opts.update(start_new_session=True)`,
/// `kwargs.setdefault("start_new_session", True)`?
fn dict_filled(file: &File, at: Node, name: &str) -> bool {
    filled_in(
        file,
        enclosing_function(at).unwrap_or_else(|| call_root(at)),
        name,
    )
}

/// Is the module constant `name` filled with a new session by a statement at the top of
/// the module (`POPEN_KW["start_new_session"] = True`, `POPEN_KW.update(...)` after `POPEN_KW
/// = {...}`)? Such a statement runs at import, before any function using `**POPEN_KW`.
fn module_dict_filled(file: &File, at: Node, name: &str) -> bool {
    let root = call_root(at);
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|s| {
            !matches!(
                s.kind(),
                "function_definition" | "class_definition" | "decorated_definition"
            )
        })
        .any(|s| filled_in(file, s, name))
}

/// Does a statement under `scope` fill the dict `name` with a new session?
fn filled_in(file: &File, scope: Node, name: &str) -> bool {
    let src = file.src;
    let mut found = false;
    syntax::walk(scope, &mut |n| {
        if found {
            return;
        }
        match n.kind() {
            "assignment" => {
                if let (Some(left), Some(right)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) && left.kind() == "subscript"
                    && left
                        .child_by_field_name("value")
                        .is_some_and(|v| text(v, src) == name)
                    && let Some(key) = left.child_by_field_name("subscript")
                {
                    let key = text(key, src).trim_matches(|c| c == '"' || c == '\'');
                    found = is_cleanup(file, key, right, &Scope::new());
                }
            }
            "call" => {
                let Some(callee) = n.child_by_field_name("function") else {
                    return;
                };
                let (Some(object), Some(method)) = (
                    callee.child_by_field_name("object"),
                    callee.child_by_field_name("attribute"),
                ) else {
                    return;
                };
                if callee.kind() != "attribute" || text(object, src) != name {
                    return;
                }
                let Some(args) = n.child_by_field_name("arguments") else {
                    return;
                };
                match text(method, src) {
                    "update" => {
                        let mut cursor = args.walk();
                        let positional: Vec<Node> = args
                            .named_children(&mut cursor)
                            .filter(|a| a.kind() != "keyword_argument")
                            .collect();
                        found = has_cleanup(file, args, &Scope::new())
                            || positional.iter().any(|d| dict_has_cleanup(file, *d));
                    }
                    "setdefault" => {
                        let mut cursor = args.walk();
                        let items: Vec<Node> = args.named_children(&mut cursor).collect();
                        if let (Some(key), Some(value)) = (items.first(), items.get(1)) {
                            let key = text(*key, src).trim_matches(|c| c == '"' || c == '\'');
                            found = is_cleanup(file, key, *value, &Scope::new());
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    });
    found
}

fn dict_has_cleanup(file: &File, dict: Node) -> bool {
    let src = file.src;
    match dict.kind() {
        "dictionary" => {
            let mut cursor = dict.walk();
            dict.named_children(&mut cursor).any(|pair| {
                let (Some(k), Some(v)) = (
                    pair.child_by_field_name("key"),
                    pair.child_by_field_name("value"),
                ) else {
                    return false;
                };
                let key = text(k, src).trim_matches(|c| c == '"' || c == '\'');
                is_cleanup(file, key, v, &Scope::new())
            })
        }
        "call" if dict.child_by_field_name("function").map(|f| text(f, src)) == Some("dict") => {
            dict.child_by_field_name("arguments")
                .is_some_and(|a| has_cleanup(file, a, &Scope::new()))
        }
        _ => false,
    }
}

/// Does `keyword=value` start a new session or group? A value is followed through the
/// names it is bound to (`NEW_SESSION = True`, in the function or the module). A yes/no
/// option (`start_new_session`, listed with `True`) asks for it unless the file says the
/// value is false on POSIX ([`truth`]): `(os.name == "posix")` or a parameter asks; an
/// option taking any value (`process_group`) asks for one unless it is `None`.
fn is_cleanup(file: &File, keyword: &str, value: Node, local: &Scope) -> bool {
    let value = bound(file, value, local, 0);
    let src = file.src;
    let options = || {
        file.rules
            .python
            .cleanup
            .iter()
            .filter(move |c| c.keyword == keyword)
    };
    // `process_group=None` is the default: no group.
    if value.kind() == "none" {
        return false;
    }
    if options().any(|c| c.values.iter().any(|v| v == "True"))
        && truth(file, value, local, 0) != Some(false)
    {
        return true;
    }
    let value = text(value, src);
    // `preexec_fn=lambda: os.setsid()` calls what `preexec_fn=os.setsid` names.
    let value = value
        .trim()
        .strip_prefix("lambda")
        .and_then(|v| v.trim_start().strip_prefix(':'))
        .and_then(|v| v.trim().strip_suffix("()"))
        .unwrap_or(value);
    // `preexec_fn=o.setsid` after `import os as o`.
    let resolved = syntax::resolve_dotted(value.trim(), &file.aliases);
    let value = resolved.as_str();
    let listed = |keyword: &str, value: &str| {
        file.rules
            .python
            .cleanup
            .iter()
            .any(|c| c.keyword == keyword && c.values.iter().any(|v| v == "*" || v == value))
    };
    if listed(keyword, value.trim()) {
        return true;
    }
    // `preexec_fn=_child_preexec`, a function of the module that calls `os.setsid()`.
    keyword == "preexec_fn"
        && file
            .functions
            .get(value.trim())
            .into_iter()
            .flatten()
            .any(|f| {
                let mut found = false;
                syntax::walk(*f, &mut |n| {
                    found |= n.kind() == "call"
                        && n.child_by_field_name("function")
                            .is_some_and(|c| listed(keyword, &resolve_callee(file, c)));
                });
                found
            })
}

/// A value with the names it is bound to followed (`NEW = True` for `NEW`, the last
/// assignment in the function, else the module; not a parameter's default), and
/// parentheses looked through.
fn bound<'t>(file: &File<'t, '_>, value: Node<'t>, local: &Scope<'t>, depth: usize) -> Node<'t> {
    match value.kind() {
        "parenthesized_expression" if depth < 8 => match value.named_child(0) {
            Some(inner) => bound(file, inner, local, depth + 1),
            None => value,
        },
        "identifier" if depth < 8 => {
            let name = text(value, file.src);
            match local
                .get(name)
                .or_else(|| file.module_scope.get(name))
                .and_then(|v| v.last())
            {
                // A parameter's default (`def run(t, session=False)`) is the caller's to
                // change: the parameter stays what the value is.
                Some(next)
                    if next.parent().is_some_and(|p| {
                        matches!(p.kind(), "default_parameter" | "typed_default_parameter")
                    }) =>
                {
                    value
                }
                Some(next) if next.id() != value.id() => bound(file, *next, local, depth + 1),
                _ => value,
            }
        }
        _ => value,
    }
}

/// What a yes/no value is on POSIX, as far as the file says: `True`, `False`, `0`,
/// `None`, a name bound to one, `not` of one, or a test of the platform (`os.name ==
/// "posix"` is true there, `sys.platform == "win32"` false). `None` when the file does
/// not say (a parameter, a call).
fn truth(file: &File, value: Node, local: &Scope, depth: usize) -> Option<bool> {
    if depth > 8 {
        return None;
    }
    let value = bound(file, value, local, 0);
    let src = file.src;
    match value.kind() {
        "true" => Some(true),
        "false" | "none" => Some(false),
        "integer" => Some(text(value, src).trim() != "0"),
        "not_operator" => value
            .child_by_field_name("argument")
            .and_then(|a| truth(file, a, local, depth + 1))
            .map(|t| !t),
        "comparison_operator" => {
            let mut cursor = value.walk();
            let parts: Vec<Node> = value.named_children(&mut cursor).collect();
            let operators: Vec<&str> = value
                .children(&mut cursor)
                .filter(|c| !c.is_named())
                .map(|c| text(c, src))
                .collect();
            let ([left, right], [operator]) = (parts.as_slice(), operators.as_slice()) else {
                return None;
            };
            let platform = |n: Node| {
                matches!(
                    syntax::resolve_dotted(text(n, src), &file.aliases).as_str(),
                    "os.name" | "sys.platform"
                )
            };
            let literal = |n: Node| {
                (n.kind() == "string").then(|| text(n, src).trim_matches(['"', '\'']).to_string())
            };
            let named = if platform(*left) {
                literal(*right)
            } else if platform(*right) {
                literal(*left)
            } else {
                None
            }?;
            let posix = !matches!(named.as_str(), "nt" | "win32" | "cygwin" | "msys");
            match *operator {
                "==" => Some(posix),
                "!=" => Some(!posix),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `os.system("setsid claude -p x & pid=$!; ...; kill -- -$pid")`: a command string the
/// shell runs that starts its agent in a session and kills that group itself, checked
/// as a shell script ([`super::shell::owns_its_sessions`]); nothing is left for Python
/// to kill. Not under a blocking call (`subprocess.run(..., shell=True)`): on timeout
/// or Ctrl-C it kills the shell with SIGKILL, and the script never gets to its kill.
fn shell_string_owns_its_session(file: &File, program_arg: Node, local: &Scope) -> bool {
    string_value(file, program_arg, local, 1)
        .is_some_and(|line| super::shell::owns_its_sessions(&line, file.rules))
}

/// `subprocess.run(["kill", "-TERM", "--", f"-{p.pid}"])`, `os.system(f"kill -- -{pgid}")`:
/// the `kill` program given a negative pid (a word of `-` then a value: `f"-{pgid}"`,
/// `"-" + str(pgid)`, `"-%d" % pgid`, `f"{-pgid}"`) signals the group as `os.killpg`
/// does. `-TERM`, `-9` and `-0` are signals or the caller's own group, not a child's.
fn kill_program_of_group(file: &File, call: Node, name: &str) -> bool {
    if !file.rules.python.spawn.iter().any(|s| s == name) {
        return false;
    }
    let Some(first) = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
    else {
        return false;
    };
    let bare = |t: &str| {
        t.trim_start_matches(['f', 'F', 'r', 'R', 'b', 'B'])
            .trim_matches(['"', '\''])
            .to_string()
    };
    let words: Vec<String> = match first.kind() {
        "list" | "tuple" => {
            let mut cursor = first.walk();
            first
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| match n.kind() {
                    "binary_operator" => n
                        .child_by_field_name("left")
                        .map(|l| format!("{}{{}}", bare(text(l, file.src))))
                        .unwrap_or_default(),
                    "call" if negative_str(file, call, n) => "-{}".to_string(),
                    _ => bare(text(n, file.src)),
                })
                .collect()
        }
        // `os.system("kill -9 -%d" % p.pid)`: the template's words.
        "string" | "binary_operator" => {
            let line = if first.kind() == "string" {
                text(first, file.src)
            } else {
                first
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "string")
                    .map_or("", |l| text(l, file.src))
            };
            bare(line).split_whitespace().map(str::to_string).collect()
        }
        _ => return false,
    };
    let is_kill = words
        .first()
        .is_some_and(|w| w.rsplit('/').next() == Some("kill"));
    is_kill
        && words[1..].iter().any(|w| {
            let w = w.trim_matches(['"', '\'']);
            w.starts_with("-{") || w.starts_with("-%") || w.starts_with("{-")
        })
}

/// `Popen(["setsid", "--fork", "claude"])`, `Popen(["setsid", "claude"],
/// start_new_session=True)`: setsid forks, its child makes the session, and no
/// `os.killpg(proc.pid, ..)` reaches it ([`syntax::forked_session_finding`]).
fn forked_session(file: &File, at: Node, agent: &str, api: &str, forks: bool) -> syntax::Raw {
    let group = (!forks).then_some("`start_new_session=True`, `process_group` or `preexec_fn`");
    let (message, help) = syntax::forked_session_finding(
        agent,
        api,
        "`proc.pid`",
        "`os.killpg(proc.pid, signal.SIGKILL)`",
        group,
    );
    raw_at(at, file.src, message, help)
}

/// The module variable the child reaches through the local it is bound to: `p =
/// Popen(...)` then `_proc = p`, `_proc` declared `global` in `function`. The module's
/// functions that use `_proc` hold the child as with `_proc = Popen(...)`
/// ([`global_target`]).
fn global_alias<'s>(file: &File<'_, 's>, call: Node, function: Node) -> Option<&'s str> {
    let src = file.src;
    let local = call
        .parent()
        .filter(|p| p.kind() == "assignment")
        .and_then(|a| a.child_by_field_name("left"))
        .filter(|l| l.kind() == "identifier")
        .map(|l| text(l, src))?;
    let mut globals: Vec<&'s str> = Vec::new();
    let mut aliases: Vec<&'s str> = Vec::new();
    syntax::walk(function, &mut |n| match n.kind() {
        "global_statement" => {
            let mut cursor = n.walk();
            globals.extend(n.named_children(&mut cursor).map(|g| text(g, src)));
        }
        "assignment" => {
            if let (Some(left), Some(right)) = (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ) && left.kind() == "identifier"
                && right.kind() == "identifier"
                && text(right, src) == local
            {
                aliases.push(text(left, src));
            }
        }
        _ => {}
    });
    aliases.into_iter().find(|a| globals.contains(a))
}

/// `Popen(["agent", "-p", x], executable="/usr/local/bin/claude")`: the program run is
/// the `executable` keyword's, `argv[0]` only its name. Not with `shell=True`, where
/// `executable` replaces the shell (`/bin/bash`) that runs the string.
fn executable_keyword(file: &File, args: Node, local: &Scope) -> Option<String> {
    let mut cursor = args.walk();
    let keywords: Vec<(String, Node)> = args
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "keyword_argument")
        .filter_map(|k| {
            let name = k.child_by_field_name("name")?;
            Some((
                text(name, file.src).to_string(),
                k.child_by_field_name("value")?,
            ))
        })
        .collect();
    let shell = keywords
        .iter()
        .any(|(name, value)| name == "shell" && text(*value, file.src) != "False");
    if shell {
        return None;
    }
    let (_, value) = keywords.iter().find(|(name, _)| name == "executable")?;
    string_value(file, *value, local, 1)
}

/// `"cd /r && {} --yes".format(AGENT)`, `"{bin} -p".format(bin=AGENT)`,
/// `"{}/{}".format(BIN_DIR, AGENT)`: the template's text with every placeholder filled
/// by its argument ([`syntax::fill_braces`]), literal text around them included, so a
/// shell string is read whole and a path keeps its file name. A field that names an
/// attribute or an item (`{0.name}`, `{cfg[bin]}`) is out of reach.
fn format_value(file: &File, call: Node, local: &Scope, depth: usize) -> Option<String> {
    let src = file.src;
    let callee = call
        .child_by_field_name("function")
        .filter(|c| c.kind() == "attribute")?;
    callee
        .child_by_field_name("attribute")
        .filter(|a| text(*a, src) == "format")?;
    let template = string_value(
        file,
        callee.child_by_field_name("object")?,
        local,
        depth + 1,
    )?;
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let (keywords, positional): (Vec<Node>, Vec<Node>) = args
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .partition(|c| c.kind() == "keyword_argument");
    Some(syntax::fill_braces(&template, |field| {
        let value = match field {
            syntax::BraceField::Index(i) => positional.get(i).copied(),
            syntax::BraceField::Name(name) => keywords
                .iter()
                .find(|k| {
                    k.child_by_field_name("name")
                        .is_some_and(|n| text(n, src) == name)
                })
                .and_then(|k| k.child_by_field_name("value")),
        }?;
        Some(part_value(file, Some(value), local, depth))
    }))
}

/// The class an attribute is read from: `self.BIN`/`cls.BIN` in the class around it,
/// `Cfg.BIN` of a class the module defines at its top level.
fn attribute_class<'t>(file: &File<'t, '_>, node: Node<'t>, object: Node<'t>) -> Option<Node<'t>> {
    let name = text(object, file.src);
    if matches!(name, "self" | "cls") {
        let mut class = node.parent();
        while let Some(c) = class
            && c.kind() != "class_definition"
        {
            class = c.parent();
        }
        return class;
    }
    if object.kind() != "identifier" {
        return None;
    }
    module_class(file, call_root(node), name)
}

/// The class named `name` that the module defines at its top level (decorated or not).
fn module_class<'t>(file: &File<'t, '_>, root: Node<'t>, name: &str) -> Option<Node<'t>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .map(|n| match n.kind() {
            "decorated_definition" => n.child_by_field_name("definition").unwrap_or(n),
            _ => n,
        })
        .find(|n| {
            n.kind() == "class_definition"
                && n.child_by_field_name("name")
                    .is_some_and(|c| text(c, file.src) == name)
        })
}

/// The items of an argv however it is built, each a string when known: a list or tuple
/// display (`*ARGS` spliced in), `+` of lists, and a name whose list is then grown by
/// `append`/`extend`/`+=` in order. `None` when it is no list this can read.
fn argv_items(file: &File, node: Node, local: &Scope, depth: usize) -> Option<Vec<Option<String>>> {
    if depth > DEPTH || !file.steps.take() {
        return None;
    }
    let src = file.src;
    match node.kind() {
        "list" | "tuple" => {
            let mut cursor = node.walk();
            let mut items = Vec::new();
            for item in node
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
            {
                if item.kind() == "list_splat" {
                    match item
                        .named_child(0)
                        .and_then(|inner| argv_items(file, inner, local, depth + 1))
                    {
                        Some(spliced) => items.extend(spliced),
                        None => items.push(None),
                    }
                } else {
                    items.push(string_value(file, item, local, depth + 1));
                }
            }
            Some(items)
        }
        "parenthesized_expression" => argv_items(file, node.named_child(0)?, local, depth + 1),
        "binary_operator" => {
            let operator = node.child_by_field_name("operator").map(|o| text(o, src));
            if operator != Some("+") {
                return None;
            }
            let mut items = argv_items(file, node.child_by_field_name("left")?, local, depth + 1)?;
            match argv_items(file, node.child_by_field_name("right")?, local, depth + 1) {
                Some(right) => items.extend(right),
                None => items.push(None),
            }
            Some(items)
        }
        "identifier" => {
            let name = text(node, src);
            let candidates = local.get(name).or_else(|| file.module_scope.get(name))?;
            let mut items = candidates
                .iter()
                .rev()
                .find_map(|v| argv_items(file, *v, local, depth + 1))?;
            let key = format!("{name}.+");
            let mut added = local
                .get(&key)
                .or_else(|| file.module_scope.get(&key))
                .cloned()
                .unwrap_or_default();
            added.sort_by_key(|n| n.start_byte());
            for item in added {
                if is_appended(file, item) {
                    items.push(string_value(file, item, local, depth + 1));
                } else {
                    match argv_items(file, item, local, depth + 1) {
                        Some(more) => items.extend(more),
                        None => items.push(None),
                    }
                }
            }
            Some(items)
        }
        _ => None,
    }
}

/// The words of argv items as the program checks read them: an item out of reach holds
/// its place as `?`.
fn argv_words(items: &[Option<String>]) -> Vec<String> {
    items
        .iter()
        .map(|v| v.clone().unwrap_or_else(|| "?".into()))
        .collect()
}

/// The argv of a spawn that takes it spread over its arguments, program first:
/// `asyncio.create_subprocess_exec(program, *args)`; `os.execl*(path, arg0, *args)` and
/// `os.spawnl*(mode, path, arg0, *args)`, whose `arg0` is the program's own name;
/// `os.execv*(path, argv)` and `os.spawnv*(mode, path, argv)`; `pexpect.spawn(command,
/// args)`. `None` for every other spawn: its argv is one argument.
fn spread_argv(file: &File, args: Node, api: &str, local: &Scope) -> Option<Vec<Option<String>>> {
    let mut cursor = args.walk();
    let positional: Vec<Node> = args
        .named_children(&mut cursor)
        .filter(|c| !matches!(c.kind(), "keyword_argument" | "comment"))
        .collect();
    let value = |n: &Node| string_value(file, *n, local, 1);
    let list_tail = |n: Option<&Node>| -> Vec<Option<String>> {
        n.and_then(|n| argv_items(file, *n, local, 1))
            .map(|items| items.into_iter().skip(1).collect())
            .unwrap_or_else(|| vec![None])
    };
    let splice = |nodes: &[Node]| -> Vec<Option<String>> {
        nodes
            .iter()
            .flat_map(|n| match n.kind() {
                "list_splat" => n
                    .named_child(0)
                    .and_then(|inner| argv_items(file, inner, local, 1))
                    .unwrap_or_else(|| vec![None]),
                _ => vec![value(n)],
            })
            .collect()
    };
    let mut items = match api {
        "asyncio.create_subprocess_exec" => splice(&positional),
        _ if api.starts_with("os.execl") => {
            let mut items = vec![value(positional.first()?)];
            items.extend(splice(positional.get(2..).unwrap_or_default()));
            items
        }
        _ if api.starts_with("os.spawnl") => {
            let mut items = vec![value(positional.get(1)?)];
            items.extend(splice(positional.get(3..).unwrap_or_default()));
            items
        }
        _ if api.starts_with("os.execv") => {
            let mut items = vec![value(positional.first()?)];
            items.extend(list_tail(positional.get(1)));
            items
        }
        _ if api.starts_with("os.spawnv") => {
            let mut items = vec![value(positional.get(1)?)];
            items.extend(list_tail(positional.get(2)));
            items
        }
        "pexpect.spawn" => {
            let keyword_args = {
                let mut cursor = args.walk();
                args.named_children(&mut cursor)
                    .filter(|c| c.kind() == "keyword_argument")
                    .find(|c| {
                        c.child_by_field_name("name")
                            .is_some_and(|n| text(n, file.src) == "args")
                    })
                    .and_then(|c| c.child_by_field_name("value"))
            };
            let list = positional.get(1).copied().or(keyword_args)?;
            let mut items = vec![value(positional.first()?)];
            items.extend(argv_items(file, list, local, 1).unwrap_or_else(|| vec![None]));
            items
        }
        _ => return None,
    };
    // The program out of reach: nothing to read past it.
    items.first().cloned().flatten()?;
    items.truncate(64);
    Some(items)
}

/// `sys.executable` (or `executable` imported from `sys`, not bound in the module or the
/// function): the interpreter running the module, so `[sys.executable, "-m", "aider"]`
/// is `python -m aider` ([`syntax::package_agent`] reads the module as the agent).
fn is_interpreter(file: &File, node: Node, local: &Scope) -> bool {
    match node.kind() {
        "attribute" => resolve_callee(file, node) == "sys.executable",
        "identifier" => {
            let name = text(node, file.src);
            !local.contains_key(name)
                && !file.module_scope.contains_key(name)
                && resolve_callee(file, node) == "sys.executable"
        }
        _ => false,
    }
}

/// Does a kill's pid argument name the caller's own process group, not a child's: `0`,
/// `-0`, `os.getpgrp()`, `os.getpgid(0)`, `os.getpgid(os.getpid())`, `os.getpid()`
/// (negated too: `os.kill(-os.getpgrp(), sig)`), or a name of the function (or module)
/// bound only to one of them (`me = os.getpgid(0)`)? A child started in a new session has
/// left that group, so such a kill never reaches it.
fn own_group_pid(file: &File, pid: Node, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    let src = file.src;
    match pid.kind() {
        "integer" => matches!(text(pid, src).trim(), "0" | "-0"),
        "unary_operator" | "parenthesized_expression" => pid
            .child_by_field_name("argument")
            .or_else(|| pid.named_child(0))
            .is_some_and(|a| own_group_pid(file, a, depth + 1)),
        "call" => {
            let Some(callee) = pid.child_by_field_name("function") else {
                return false;
            };
            let args: Vec<Node> = pid
                .child_by_field_name("arguments")
                .map(|a| {
                    let mut cursor = a.walk();
                    a.named_children(&mut cursor)
                        .filter(|c| c.kind() != "comment")
                        .collect()
                })
                .unwrap_or_default();
            match (resolve_callee(file, callee).as_str(), args.as_slice()) {
                ("os.getpgrp" | "os.getpid", []) => true,
                ("os.getpgid", [of]) => own_group_pid(file, *of, depth + 1),
                _ => false,
            }
        }
        "identifier" => {
            let name = text(pid, src);
            let mut scope = pid;
            while let Some(p) = scope.parent() {
                scope = p;
                if p.kind() == "function_definition" {
                    break;
                }
            }
            let mut values = Vec::new();
            syntax::walk(scope, &mut |n| {
                if n.kind() == "assignment"
                    && n.child_by_field_name("left")
                        .is_some_and(|l| l.kind() == "identifier" && text(l, src) == name)
                    && let Some(right) = n.child_by_field_name("right")
                {
                    values.push(right);
                }
            });
            if values.is_empty() {
                values.extend(file.module_scope.get(name).cloned().unwrap_or_default());
            }
            !values.is_empty() && values.iter().all(|v| own_group_pid(file, *v, depth + 1))
        }
        _ => false,
    }
}

/// What `self.NAME()` / `cls.NAME()` returns when the method of the class around the
/// call is one `return` of an expression (`def bin(self): return "claude"`, `return
/// CLAUDE`), read in the module's scope as [`constant_function`] reads a function: a
/// method with a parameter past `self`/`cls`, another statement, a decorator other than
/// `staticmethod`/`classmethod`, or a second definition of its name stays out of reach.
/// With `property`, `callee` is the attribute read (`self.bin`) and the method must be
/// a `@property`.
fn constant_method<'t>(file: &File<'t, '_>, callee: Node<'t>, property: bool) -> Option<Node<'t>> {
    let src = file.src;
    let object = callee.child_by_field_name("object")?;
    if !matches!(text(object, src), "self" | "cls") {
        return None;
    }
    let name = text(callee.child_by_field_name("attribute")?, src);
    let mut class = callee.parent();
    while let Some(c) = class
        && c.kind() != "class_definition"
    {
        class = c.parent();
    }
    let body = class?.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let methods: Vec<(Node, Option<Node>)> = body
        .named_children(&mut cursor)
        .filter_map(|statement| match statement.kind() {
            "function_definition" => Some((statement, None)),
            "decorated_definition" => statement
                .child_by_field_name("definition")
                .filter(|d| d.kind() == "function_definition")
                .map(|d| (d, Some(statement))),
            _ => None,
        })
        .filter(|(method, _)| {
            method
                .child_by_field_name("name")
                .is_some_and(|n| text(n, src) == name)
        })
        .collect();
    let [(method, decorated)] = methods.as_slice() else {
        return None;
    };
    let mut is_static = false;
    let mut is_property = false;
    if let Some(decorated) = decorated {
        let mut cursor = decorated.walk();
        for decorator in decorated
            .named_children(&mut cursor)
            .filter(|d| d.kind() == "decorator")
        {
            match text(decorator, src).trim_start_matches('@').trim() {
                "staticmethod" => is_static = true,
                "classmethod" => {}
                "property" | "functools.cached_property" | "cached_property" => is_property = true,
                _ => return None,
            }
        }
    }
    if is_property != property {
        return None;
    }
    let params = method
        .child_by_field_name("parameters")
        .map_or(0, |p| p.named_child_count());
    if params > usize::from(!is_static) {
        return None;
    }
    syntax::sole_return(method.child_by_field_name("body")?)
}

/// The value of a Python string literal's escapes (not a raw string's): the quotes,
/// `\\`, `\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v`, `\xHH`, octal `\ooo`, and
/// outside bytes literals `\uHHHH` and `\UHHHHHHHH`, so `"cd /repo;\x20claude -p hi"`
/// is the script `cd /repo; claude -p hi`; a backslash-newline is nothing. Any other
/// escape (`\N{...}`, an invalid one) is kept as written, as Python keeps `\q`.
fn python_unescape(escaped: &str, bytes: bool) -> String {
    let mut out = String::with_capacity(escaped.len());
    let mut chars = escaped.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let digits = match e {
            'x' => Some((16, 2)),
            'u' if !bytes => Some((16, 4)),
            'U' if !bytes => Some((16, 8)),
            '0'..='7' => Some((8, 3)),
            _ => None,
        };
        if let Some((radix, len)) = digits {
            let mut code: Vec<char> = Vec::new();
            if radix == 8 {
                code.push(e);
            }
            while code.len() < len
                && let Some(d) = chars.peek().copied().filter(|d| d.is_digit(radix))
            {
                code.push(d);
                chars.next();
            }
            let decoded = (radix == 8 || code.len() == len)
                .then(|| u32::from_str_radix(&code.iter().collect::<String>(), radix).ok())
                .flatten()
                .and_then(char::from_u32);
            match decoded {
                Some(d) => out.push(d),
                None => {
                    out.push('\\');
                    if radix != 8 {
                        out.push(e);
                    }
                    out.extend(code);
                }
            }
            continue;
        }
        match e {
            q @ ('"' | '\'' | '\\') => out.push(q),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\n' => {}
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// The methods of the module's subclasses of `function`'s class (`class Managed(Base)`,
/// transitively) that name the attribute the child is stored on (`self.proc =
/// Popen(...)` in `Base`, `os.killpg(self.proc.pid, ...)` in `Managed.stop`): the
/// object of a subclass is one the base's method stored the child on, so such a method
/// holds the same child. A subclass's method that does not name the attribute is not
/// in reach (it may end a child of its own).
fn subclass_holders<'t>(file: &File<'t, '_>, call: Node, function: Node) -> Vec<Node<'t>> {
    let src = file.src;
    let Some(attribute) = call
        .parent()
        .filter(|p| p.kind() == "assignment" && p.child_by_field_name("right") == Some(call))
        .and_then(|a| a.child_by_field_name("left"))
        .filter(|l| {
            l.kind() == "attribute"
                && l.child_by_field_name("object")
                    .is_some_and(|o| matches!(text(o, src), "self" | "cls"))
        })
        .and_then(|l| l.child_by_field_name("attribute"))
        .map(|a| text(a, src))
    else {
        return Vec::new();
    };
    let Some(base) = enclosing_class(function)
        .and_then(|c| c.child_by_field_name("name"))
        .map(|n| text(n, src))
    else {
        return Vec::new();
    };
    // The names of the subclasses, found in rounds until no class is added.
    let mut family: Vec<&str> = vec![base];
    let mut subclasses: Vec<Node<'t>> = Vec::new();
    loop {
        let before = subclasses.len();
        for class in file.classes.values().flatten() {
            let Some(name) = class.child_by_field_name("name").map(|n| text(n, src)) else {
                continue;
            };
            if family.contains(&name) {
                continue;
            }
            let Some(supers) = class.child_by_field_name("superclasses") else {
                continue;
            };
            let mut cursor = supers.walk();
            let derives = supers.named_children(&mut cursor).any(|s| {
                let last = text(s, src).rsplit('.').next().unwrap_or_default();
                matches!(s.kind(), "identifier" | "attribute") && family.contains(&last)
            });
            if derives {
                family.push(name);
                subclasses.push(*class);
            }
        }
        if subclasses.len() == before {
            break;
        }
    }
    let mut methods = Vec::new();
    for class in subclasses {
        syntax::walk(class, &mut |m| {
            if m.kind() != "function_definition" || enclosing_class(m) != Some(class) {
                return;
            }
            let mut names = false;
            syntax::walk(m, &mut |n| {
                names |= n.kind() == "attribute"
                    && n.child_by_field_name("object")
                        .is_some_and(|o| matches!(text(o, src), "self" | "cls"))
                    && n.child_by_field_name("attribute")
                        .is_some_and(|a| text(a, src) == attribute);
            });
            if names {
                methods.push(m);
            }
        });
    }
    methods
}

/// `str(-p.pid)`, `str(-pgid)`, `str(neg)` with `neg = -p.pid`: the text of a negative
/// pid, an argument of the `kill` program that names a group.
fn negative_str(file: &File, call: Node, node: Node) -> bool {
    let src = file.src;
    let is_str = node
        .child_by_field_name("function")
        .is_some_and(|f| text(f, src) == "str");
    let Some(value) = node
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
    else {
        return false;
    };
    let value_text = text(value, src).trim_start();
    is_str
        && (value_text.starts_with('-')
            || (value.kind() == "identifier" && bound_negative(file, call, value_text)))
}

/// `NAME["key"]` of a dict display of the module's or the function's (`AGENTS = {"c":
/// "claude"}`) and a constant key: the value it gives that key. `None` for any other
/// subscript, or a key the dict does not give.
fn dict_subscript(file: &File, node: Node, local: &Scope, depth: usize) -> Option<String> {
    let src = file.src;
    let value = node.child_by_field_name("value")?;
    let key = node.child_by_field_name("subscript")?;
    if value.kind() != "identifier" || key.kind() != "string" {
        return None;
    }
    let name = text(value, src);
    let dict = local
        .get(name)
        .or_else(|| file.module_scope.get(name))?
        .last()
        .copied()
        .filter(|v| v.kind() == "dictionary")?;
    let key = string_value(file, key, local, depth + 1)?;
    let found = dict_value(file, dict, &key, local, depth);
    (found != UNKNOWN).then_some(found)
}

/// The values a base class of the module's gives attribute `name`, for `self.name` read
/// in a subclass (`class Runner(Cfg)` of `class Cfg: BIN = "codex"`): the nearest base
/// that sets it, bases in order, a few levels up.
fn inherited_attribute_values<'t>(
    file: &File<'t, '_>,
    class: Node<'t>,
    name: &str,
) -> Vec<Node<'t>> {
    let src = file.src;
    let root = call_root(class);
    let mut seen = vec![class.id()];
    let mut next = vec![class];
    for _ in 0..8 {
        let mut bases = Vec::new();
        for class in next {
            let Some(list) = class.child_by_field_name("superclasses") else {
                continue;
            };
            let mut cursor = list.walk();
            for base in list.named_children(&mut cursor) {
                if base.kind() != "identifier" {
                    continue;
                }
                let found = module_class(file, root, text(base, src));
                if let Some(found) = found
                    && !seen.contains(&found.id())
                {
                    seen.push(found.id());
                    bases.push(found);
                }
            }
        }
        for base in &bases {
            if let Some(body) = base.child_by_field_name("body") {
                let values = class_attribute_values(file, body, name);
                if !values.is_empty() {
                    return values;
                }
            }
        }
        if bases.is_empty() {
            break;
        }
        next = bases;
    }
    Vec::new()
}
