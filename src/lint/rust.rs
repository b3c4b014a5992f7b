//! Rust: `std::process::Command`, `tokio::process::Command`, duct's `cmd!`/`cmd` and the
//! command-group / process-wrap wrappers, parsed with syn. A command is compliant when
//! its method chain, or a statement of the same function using the variable that holds
//! it, shows a new group or session (`.process_group(0)`, `setsid` in `pre_exec`,
//! `group_spawn`, `ProcessGroup`/`ProcessSession`, `setsid` as the argv's program but
//! not `setsid --fork`: [`Through`]) and a group kill is in reach of it
//! (`Visitor::reached_kills`), or it runs inside an approved helper. Programs are
//! followed through `let`s, consts and statics of the file, `format!`, `which` and
//! `self.field` set by a struct literal of the type ([`struct_fields`]); a
//! constructor's whole argv (duct's `cmd!` arguments, the array given to `duct::cmd`) is
//! read past wrappers and into `sh -c` scripts ([`Visitor::argv_agent`]).

use std::collections::HashMap;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Lit};

use super::rules::Rules;
use super::syntax::{Checked, Raw, Through, TooDeep};

pub fn check(src: &str, path: &str, rules: &Rules) -> Checked {
    if let Some(at) = too_deep(src, &rules.rust.macros) {
        return Checked {
            too_deep: Some(at),
            ..Checked::default()
        };
    }
    let file = match syn::parse_file(src) {
        Ok(f) => f,
        Err(e) => {
            let at = e.span().start();
            return Checked {
                findings: Vec::new(),
                parse_error: Some(format!(
                    "syntax error at line {}:{}: {e}",
                    at.line,
                    at.column + 1
                )),
                too_deep: None,
            };
        }
    };
    let consts = collect_consts(&file);
    let returns = constant_returns(&file);
    let statics = holder_statics(&file);
    let mut aliases = HashMap::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            collect_renames(&u.tree, &mut aliases);
        }
    }
    let mut visitor = Visitor {
        rules,
        consts,
        returns,
        in_return: std::cell::Cell::new(false),
        fields: struct_fields(&file),
        in_field: std::cell::Cell::new(false),
        statics,
        aliases,
        module: module_path(path),
        functions: Vec::new(),
        owners: Vec::new(),
        summaries: summaries(&file, rules),
        findings: Vec::new(),
        handed_budget: std::cell::Cell::new(64),
        tie: Tie::default(),
        group_helpers: group_helpers(&file, rules),
    };
    visitor.visit_file(&file);
    Checked {
        findings: visitor.findings,
        parse_error: None,
        too_deep: None,
    }
}

/// How many levels syn may be asked to go down (see [`too_deep`]). The lint's worker
/// threads have the stack for it (`super::WORKER_STACK`), with room to spare.
pub const MAX_DEPTH: usize = 2000;

/// Where `src` may nest deeper than [`MAX_DEPTH`], judged from its tokens alone.
///
/// syn parses by recursive descent, and its tree is walked by recursion too (the
/// visitor, the printer, drop): a thousand parentheses, or a chain of a hundred
/// thousand `+ 1`, overflow any stack. proc-macro2 lexes and drops token trees without
/// recursion, so the bound comes from them: a syntax tree path goes down through nested
/// groups, and inside one group through at most the tokens of one *run*, a stretch that
/// no syntax node spans across. A run ends at `;`; at `,` unless a `<` (generics) or a
/// `|` (closure parameters) is open; and after a `{...}` group that an identifier, a
/// literal or an attribute follows (the next item, statement or match arm; `else` and
/// `as` continue). The bound is the sum of the runs along the way down. Attributes (doc
/// comments too) are lists, never nested: they add nothing. The body of a macro syn
/// does not parse (any but `macros`, the spawning ones) adds only its nesting of
/// groups, which printing it recurses over. Code that does not lex is left to syn.
fn too_deep(src: &str, macros: &[String]) -> Option<TooDeep> {
    use proc_macro2::{Delimiter, TokenStream, TokenTree};
    let body = src.strip_prefix('\u{feff}').unwrap_or(src);
    // A `#!` line that is not an inner attribute is not Rust (syn skips it too); the
    // newline after it stays, so lines keep their numbers.
    let body = match body.strip_prefix("#!") {
        Some(rest) if !rest.trim_start().starts_with('[') => {
            rest.find('\n').map_or("", |i| &rest[i..])
        }
        _ => body,
    };
    let tokens: TokenStream = body.parse().ok()?;
    let parsed_macros: Vec<&str> = macros
        .iter()
        .map(|m| m.rsplit("::").next().unwrap_or(m))
        .collect();
    /// What the last tokens were, for attributes and macro calls.
    #[derive(Clone, PartialEq)]
    enum Before {
        Nothing,
        /// `#` or `#!`: an attribute's `[...]` comes next.
        Attribute,
        /// `name!`: a macro call's body comes next, unless it is a spawning macro's.
        Bang {
            parsed: bool,
        },
        /// `macro_rules!` and then its name.
        MacroRules,
        MacroName,
    }
    struct Run {
        tokens: proc_macro2::token_stream::IntoIter,
        /// The bound where this group starts (the runs around it, its own token too).
        base: usize,
        length: usize,
        angles: usize,
        closure: bool,
        after_brace: bool,
        before: Before,
        last_ident: Option<String>,
        /// Inside a macro body syn leaves as tokens: only groups count.
        tokens_only: bool,
    }
    impl Run {
        fn new(tokens: TokenStream, base: usize, tokens_only: bool) -> Run {
            Run {
                tokens: tokens.into_iter(),
                base,
                length: 0,
                angles: 0,
                closure: false,
                after_brace: false,
                before: Before::Nothing,
                last_ident: None,
                tokens_only,
            }
        }
        fn end(&mut self) {
            self.length = 0;
            self.angles = 0;
            self.closure = false;
        }
    }
    const KEYWORDS: [&str; 12] = [
        "if", "while", "match", "return", "break", "in", "let", "else", "for", "yield", "move",
        "await",
    ];
    let mut stack = vec![Run::new(tokens, 0, false)];
    while let Some(run) = stack.last_mut() {
        let Some(token) = run.tokens.next() else {
            stack.pop();
            continue;
        };
        let before = std::mem::replace(&mut run.before, Before::Nothing);
        let last_ident = run.last_ident.take();
        if let TokenTree::Ident(i) = &token {
            run.last_ident = Some(i.to_string());
        }
        if std::mem::take(&mut run.after_brace) {
            let next_starts_anew = match &token {
                TokenTree::Ident(i) => i != "else" && i != "as",
                TokenTree::Literal(_) => true,
                TokenTree::Punct(p) => p.as_char() == '#',
                TokenTree::Group(_) => false,
            };
            if next_starts_anew {
                run.end();
            }
        }
        // Set when this token counts for nothing in the run.
        let mut free = run.tokens_only;
        let mut body_tokens_only = run.tokens_only;
        match &token {
            TokenTree::Punct(p) => match p.as_char() {
                ';' => {
                    run.end();
                    continue;
                }
                ',' if run.angles == 0 && !run.closure => {
                    run.end();
                    continue;
                }
                '#' => {
                    run.before = Before::Attribute;
                    free = true;
                }
                '!' if before == Before::Attribute => {
                    run.before = Before::Attribute;
                    free = true;
                }
                '!' if last_ident.as_deref() == Some("macro_rules") => {
                    run.before = Before::MacroRules;
                }
                '!' if last_ident
                    .as_deref()
                    .is_some_and(|name| !KEYWORDS.contains(&name)) =>
                {
                    let name = last_ident.unwrap_or_default();
                    run.before = Before::Bang {
                        parsed: parsed_macros.contains(&name.as_str()),
                    };
                }
                '<' => run.angles += 1,
                '>' => run.angles = run.angles.saturating_sub(1),
                '|' => run.closure = !run.closure,
                // No closure parameter list holds `=` (so `a |= b` opens none).
                '=' => run.closure = false,
                _ => {}
            },
            TokenTree::Ident(_) if before == Before::MacroRules => {
                run.before = Before::MacroName;
            }
            TokenTree::Group(_) => match before {
                Before::Attribute => free = true,
                Before::Bang { parsed: false } | Before::MacroName => body_tokens_only = true,
                _ => {}
            },
            _ => {}
        }
        if !free {
            run.length += 1;
        }
        let bound = run.base + run.length;
        if bound > MAX_DEPTH {
            let at = token.span().start();
            return Some(TooDeep {
                line: at.line,
                column: at.column + 1,
                limit: MAX_DEPTH,
            });
        }
        if let TokenTree::Group(group) = token {
            run.after_brace = group.delimiter() == Delimiter::Brace;
            // A group always costs a level, even where its tokens do not.
            let base = if free { bound + 1 } else { bound };
            stack.push(Run::new(group.stream(), base, body_tokens_only));
        }
    }
    None
}

fn module_path(path: &str) -> String {
    let p = path.trim_end_matches(".rs");
    let p = p.strip_prefix("src/").unwrap_or(p);
    let p = p
        .trim_end_matches("/mod")
        .trim_end_matches("lib")
        .trim_end_matches("main");
    p.trim_end_matches('/').replace('/', "::")
}

/// One function being visited: its name and body, for bindings and evidence.
struct Function {
    name: String,
    /// The kills in its body (closures included, nested functions not).
    kills: Vec<Aimed>,
    /// The identifiers it names: the file's functions it may call.
    idents: Vec<String>,
    /// It hands the child to its caller (its return type names a `Child`): its callers
    /// in the file must kill the group ([`Visitor::handed_kills`]).
    returns_child: bool,
    /// `let NAME = EXPR` bindings.
    bindings: HashMap<String, Expr>,
    /// Each statement's tokens as text.
    statements: Vec<String>,
    /// Every `arg`/`args` call on a variable (`cmd.arg("claude")`), by the variable and
    /// where its method name stands, for a wrapper bound by `let` ([`Visitor::argv_wrapper`]).
    var_args: Vec<VarArg>,
    /// The fields it gives values (`Pair { a, b }`, `self.child = child`), each with the
    /// value's tokens: where a child goes on a type, for [`Tie`].
    fields: Vec<(String, String)>,
}

/// One `arg`/`args` call whose chain starts at a variable.
struct VarArg {
    var: String,
    at: (usize, usize),
    call: syn::ExprMethodCall,
}

struct Visitor<'r> {
    rules: &'r Rules,
    consts: HashMap<String, Expr>,
    /// What the file's functions that only return a value return ([`constant_returns`]).
    returns: Returns,
    /// Reading a function's returned value now: a call inside it is not followed again,
    /// so same-named functions calling each other (`fn bin(&self) -> &str { self.bin() }`
    /// in a hundred `impl`s) cost one pass, as [`Visitor::in_field`] does for fields.
    in_return: std::cell::Cell<bool>,
    /// What the file's struct literals give each field of a type (`Agent { bin:
    /// DEFAULT_BIN.to_string() }` in `new()`), for a program read from `self.bin`.
    fields: HashMap<(String, String), Vec<Expr>>,
    /// Reading a field's values now: a `self.field` inside one is not followed again,
    /// so literals that name each other (`Self { bin: self.bin.clone() }`) cost one pass.
    in_field: std::cell::Cell<bool>,
    /// The file's statics that can keep a child ([`holder_statics`]).
    statics: Vec<String>,
    /// `use std::process::Command as Cmd`: `Cmd` -> `Command`.
    aliases: HashMap<String, String>,
    module: String,
    functions: Vec<Function>,
    /// The type of each `impl` being visited (`None` outside one).
    owners: Vec<Option<String>>,
    summaries: Vec<Summary>,
    findings: Vec<Raw>,
    /// How many more hand-offs (a function returning a child, to its callers) may be
    /// followed, bounded against hostile chains of callers.
    handed_budget: std::cell::Cell<usize>,
    /// Which kills are another spawn's, for the spawn being reported ([`Visitor::tie`]).
    tie: Tie,
    /// The file's functions that put a command given them in a group of its own
    /// ([`group_helpers`]).
    group_helpers: Vec<String>,
}

impl Visitor<'_> {
    fn enter(&mut self, name: String, sig: &syn::Signature, block: &syn::Block) {
        let returns_child = returns_child(sig);
        let Summary { kills, idents, .. } =
            summarize(String::new(), None, false, block, self.rules);
        let mut bindings = HashMap::new();
        let mut statements = Vec::new();
        collect_block(block, &mut bindings, &mut statements);
        self.functions.push(Function {
            name,
            kills,
            idents,
            returns_child,
            bindings,
            statements,
            var_args: var_args(block),
            fields: field_values(block),
        });
    }

    fn in_helper(&self) -> bool {
        self.functions.iter().any(|f| {
            let qualified = if self.module.is_empty() {
                f.name.clone()
            } else {
                format!("{}::{}", self.module, f.name)
            };
            self.rules.is_helper(&qualified)
        })
    }

    /// The program a command-constructor argument names, following `let` bindings,
    /// consts, references, `which("x")` and `?`/`.unwrap()`.
    fn program(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth > 6 {
            return None;
        }
        match expr {
            Expr::Lit(l) => match &l.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            Expr::Reference(r) => self.program(&r.expr, depth + 1),
            // `&*CLAUDE` of a `static CLAUDE: Lazy<String>`: the value behind it.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                self.program(&u.expr, depth + 1)
            }
            Expr::Paren(p) => self.program(&p.expr, depth + 1),
            Expr::Try(t) => self.program(&t.expr, depth + 1),
            Expr::MethodCall(m) => {
                // `env::var("BIN").unwrap_or_else(|_| "claude".into())`: the default may be
                // the program; `.to_string()`, `.as_str()` and the like keep the receiver's.
                if matches!(
                    m.method.to_string().as_str(),
                    "unwrap_or" | "unwrap_or_else" | "or" | "or_else" | "map_or" | "get_or_init"
                ) {
                    for arg in &m.args {
                        let arg = match arg {
                            Expr::Closure(c) => &*c.body,
                            other => other,
                        };
                        if let Some(p) = self.program(arg, depth + 1)
                            && self.rules.agent(&p).is_some()
                        {
                            return Some(p);
                        }
                    }
                }
                // `self.bin()`, `runner.bin()`: a method of the file returning one value.
                if m.args.is_empty()
                    && let Some(values) = self.returns.methods.get(&m.method.to_string())
                {
                    return self.first_agent(values, depth);
                }
                // `Path::new(BIN_DIR).join("claude")`: the path joined.
                if m.method == "join"
                    && let [leaf] = m.args.iter().collect::<Vec<_>>()[..]
                    && let Some(leaf) = self.program(leaf, depth + 1)
                {
                    let base = self.program(&m.receiver, depth + 1);
                    return Some(format!("{}/{leaf}", base.as_deref().unwrap_or("\u{0}")));
                }
                self.program(&m.receiver, depth + 1)
            }
            Expr::Block(b) => match b.block.stmts.last() {
                Some(syn::Stmt::Expr(e, None)) => self.program(e, depth + 1),
                _ => None,
            },
            // `self.bin`, set by a struct literal of the type (`Agent { bin: BIN.into() }`
            // in `new()`): the first value that names an agent, else the first.
            Expr::Field(f) if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self")) => {
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                let owner = self.owners.last().cloned().flatten()?;
                if self.in_field.replace(true) {
                    return None;
                }
                let values: Vec<String> = self
                    .fields
                    .get(&(owner, field.to_string()))
                    .into_iter()
                    .flatten()
                    .filter_map(|v| self.program(v, depth + 1))
                    .collect();
                self.in_field.set(false);
                self.agent_or_first(values)
            }
            Expr::Path(p) => {
                let name = p.path.segments.last()?.ident.to_string();
                let bound = self
                    .functions
                    .iter()
                    .rev()
                    .find_map(|f| f.bindings.get(&name))
                    .or_else(|| self.consts.get(&name))?
                    .clone();
                self.program(&bound, depth + 1)
            }
            Expr::Call(c) => {
                let callee = path_text(&c.func);
                // `String::from(BIN)`, `PathBuf::from(BIN)`, `OsStr::new(BIN)`: the same text.
                let conversion = matches!(
                    callee.rsplit("::").nth(1),
                    Some("String" | "PathBuf" | "Path" | "OsString" | "OsStr")
                ) && matches!(callee.rsplit("::").next(), Some("from" | "new"));
                // `Lazy::new(|| "claude".to_string())`, `LazyLock::new(..)` of a static: the
                // one value its closure gives.
                if let Some(value) = lazy_value(&callee, c) {
                    self.program(value, depth + 1)
                } else if conversion
                    || self
                        .rules
                        .rust
                        .which
                        .iter()
                        .any(|w| callee.ends_with(w.as_str()))
                {
                    c.args.first().and_then(|a| self.program(a, depth + 1))
                } else if c.args.is_empty()
                    && let Some(values) = self.returns.functions.get(callee.rsplit("::").next()?)
                {
                    // `agent_bin()`, `Self::bin()`: a function of the file returning one value.
                    self.first_agent(values, depth)
                } else {
                    None
                }
            }
            // `CMD[0]` of a `const CMD: &[&str] = &["claude", "-p"]`, `W[1]` of a `const W:
            // [&str; 2] = ["nohup", "claude"]`.
            Expr::Index(i) => {
                let index: usize = match &*i.index {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Int(n), ..
                    }) => n.base10_parse().ok()?,
                    _ => return None,
                };
                let mut base = &*i.expr;
                let resolved;
                if let Expr::Path(p) = base {
                    let name = p.path.segments.last()?.ident.to_string();
                    resolved = self
                        .functions
                        .iter()
                        .rev()
                        .find_map(|f| f.bindings.get(&name))
                        .or_else(|| self.consts.get(&name))?
                        .clone();
                    base = &resolved;
                }
                while let Expr::Reference(r) = base {
                    base = &r.expr;
                }
                match base {
                    Expr::Array(a) => a
                        .elems
                        .iter()
                        .nth(index)
                        .and_then(|e| self.program(e, depth + 1)),
                    // `argv[0]` of a `let argv = vec!["claude", "-p", q]`.
                    Expr::Macro(m) => vec_elements(m)?
                        .get(index)
                        .and_then(|e| self.program(e, depth + 1)),
                    _ => None,
                }
            }
            Expr::Macro(m) if m.mac.path.is_ident("concat") || m.mac.path.is_ident("format") => {
                let args = m
                    .mac
                    .parse_body_with(
                        syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                    )
                    .ok()?;
                // `concat!("/opt/agents/", "claude")`, `concat!(DIR, "/claude")`: the pieces
                // joined (a piece out of reach is a character no name holds).
                if m.mac.path.is_ident("concat") {
                    let joined: String = args
                        .iter()
                        .map(|a| self.program(a, depth + 1).unwrap_or_else(|| "\u{0}".into()))
                        .collect();
                    return joined.split_whitespace().next().map(str::to_string);
                }
                let mut args = args.into_iter();
                let template = match args.next()? {
                    Expr::Lit(syn::ExprLit {
                        lit: Lit::Str(s), ..
                    }) => s.value(),
                    other => return self.program(&other, depth + 1),
                };
                let first = template.split_whitespace().next()?.to_string();
                // `format!("{AGENT} -p")`, `format!("{} -p", AGENT)`, `format!("{bin}", bin
                // = X)`, `format!("{dir}/{}", AGENT)`: the program's file name may be a
                // placeholder.
                let (dir, name) = first.rsplit_once('/').unwrap_or(("", first.as_str()));
                let Some(field) = name.strip_prefix('{').and_then(|f| f.strip_suffix('}')) else {
                    return Some(first);
                };
                let field = field.split(':').next().unwrap_or("");
                let value = if field.is_empty() || field.parse::<usize>().is_ok() {
                    let index = field
                        .parse::<usize>()
                        .unwrap_or_else(|_| dir.matches("{}").count() + dir.matches("{:").count());
                    args.filter(|a| !matches!(a, Expr::Assign(_))).nth(index)
                } else if let Some(named) = args.find_map(|a| match a {
                    Expr::Assign(x) if x.left.to_token_stream().to_string() == field => {
                        Some(*x.right)
                    }
                    _ => None,
                }) {
                    Some(named)
                } else {
                    syn::parse_str::<Expr>(field).ok()
                };
                value.and_then(|v| self.program(&v, depth + 1))
            }
            _ => None,
        }
    }

    /// Of the values several same-named functions return, the program of the first that
    /// names an agent, else of the first (recall over precision, as for fields).
    fn first_agent(&self, values: &[Expr], depth: usize) -> Option<String> {
        if self.in_return.replace(true) {
            return None;
        }
        let programs: Vec<String> = values
            .iter()
            .filter_map(|v| self.program(v, depth + 1))
            .collect();
        self.in_return.set(false);
        self.agent_or_first(programs)
    }

    /// The program among `programs` that names an agent, else the first: recall over
    /// precision, for a value that several places may give.
    fn agent_or_first(&self, programs: Vec<String>) -> Option<String> {
        let agent = programs.iter().position(|p| self.rules.agent(p).is_some());
        programs.into_iter().nth(agent.unwrap_or(0))
    }

    /// The whole text of a `sh -c` script: a literal, or the template of a `format!` with
    /// its placeholders filled (`format!("nohup claude -p {f} &")`, `format!("cd /w && {}
    /// -p", AGENT)`: its words past the first matter too), through
    /// references and `let` bindings; else what [`Visitor::program`] makes of it.
    fn script_text(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth > 6 {
            return None;
        }
        match expr {
            Expr::Reference(r) => self.script_text(&r.expr, depth + 1),
            Expr::Paren(p) => self.script_text(&p.expr, depth + 1),
            Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                match self
                    .functions
                    .iter()
                    .rev()
                    .find_map(|f| f.bindings.get(&name))
                    .or_else(|| self.consts.get(&name))
                {
                    Some(bound) => self.script_text(&bound.clone(), depth + 1),
                    None => None,
                }
            }
            // The template filled with the values within reach, read as a whole script
            // (`format!("cd /repo && {} -p hi", AGENT)`, [`filled_template`]).
            Expr::Macro(m) if m.mac.path.is_ident("format") => {
                let args: Vec<Expr> = m
                    .mac
                    .parse_body_with(
                        syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                    )
                    .map(|args| args.into_iter().collect())
                    .unwrap_or_default();
                match args.split_first() {
                    Some((
                        Expr::Lit(syn::ExprLit {
                            lit: Lit::Str(s), ..
                        }),
                        values,
                    )) => Some(filled_template(&s.value(), values, &|e| {
                        self.script_text(e, depth + 1)
                    })),
                    _ => self.program(expr, depth + 1),
                }
            }
            other => self.program(other, depth + 1),
        }
    }

    /// Evidence of a new group for the command built at `span_text` (the statement that
    /// holds it) and the variable it is bound to, if any.
    fn has_cleanup(&self, statement: &str, variable: Option<&str>) -> bool {
        self.group_evidence(statement, variable, str::to_string)
    }

    /// [`Visitor::has_cleanup`], reading each text as `read` makes it.
    fn group_evidence(
        &self,
        statement: &str,
        variable: Option<&str>,
        read: fn(&str) -> String,
    ) -> bool {
        let evidence = |text: &str| {
            let text = read(text);
            self.rules
                .rust
                .cleanup
                .iter()
                .any(|c| cleanup_word(&text, c))
        };
        if evidence(statement) {
            return true;
        }
        let Some(var) = variable else {
            return false;
        };
        let Some(f) = self.functions.last() else {
            return false;
        };
        f.statements
            .iter()
            .filter(|s| mentions(s, var))
            .any(|s| evidence(s))
    }

    /// The finding for a spawn of `program` by `api` in `statement`, unless it has both
    /// halves of the cleanup; `through` is the session `setsid` in front of the agent
    /// makes (the group half, when it execs in place; none that can be killed, when it
    /// forks).
    fn report(
        &mut self,
        at: proc_macro2::Span,
        program: &str,
        api: &str,
        statement: &str,
        through: Through,
    ) {
        let Some(agent) = self.rules.agent(program).map(String::from) else {
            return;
        };
        if self.in_helper() {
            return;
        }
        let variable = bound_variable(statement);
        // setsid forks when its process already leads a group: with `.process_group(0)`
        // (or a session in `pre_exec`) on the command, as with `--fork`.
        // The program's own `"setsid"` is no evidence of that: string literals are left out.
        let leader = through == Through::Session
            && self.group_evidence(statement, variable.as_deref(), without_strings);
        if through == Through::ForkedSession || leader {
            let (how, cause, undo) = if leader {
                (
                    "`setsid` in a child that already leads a process group",
                    "the child leads a group of its own, so `setsid` forks",
                    "drop the group on the command (setsid then execs in place and the \
                     session's id is the child's pid) or drop `setsid`",
                )
            } else {
                (
                    "`setsid --fork`",
                    "`setsid --fork` forks",
                    "drop `--fork` (setsid then execs in place and the session's id is the \
                     child's pid)",
                )
            };
            self.push(
                at,
                format!("`{agent}` is started by `{api}` through {how}, in a new session that nothing can kill"),
                format!(
                    "{cause} and makes the session in a child of its own, so the session's id \
                     is not `child.id()` and `libc::killpg(child.id(), ..)` reaches nothing: \
                     {undo}, and kill the group with `libc::killpg(pid, SIGKILL)` on timeout, \
                     error and exit"
                ),
            );
            return;
        }
        self.tie = self.tie(variable.as_deref());
        let fix = "call `.process_group(0)` on the command (std or tokio), `.spawn()` it, and \
                   kill the whole group (`libc::killpg(pid, SIGKILL)`, \
                   `nix::sys::signal::killpg`) on timeout, error and exit, or run it through \
                   `fleet run --timeout DUR -- ...`";
        let grouped = through == Through::Session
            || self.has_cleanup(statement, variable.as_deref())
            || self.grouped_by_helper(statement, variable.as_deref());
        let (message, help) = if !grouped {
            let help = if self.reached_kills(false, true, &[]).contains(&Kill::OnDrop) {
                format!("`kill_on_drop(true)` kills only the leader: {fix}")
            } else {
                fix.to_string()
            };
            (
                format!("`{agent}` is started by `{api}` without a process group of its own"),
                help,
            )
        } else {
            let evidence = self.evidence(statement, variable.as_deref());
            let rust = &self.rules.rust;
            let wrapper = rust.wrappers.iter().any(|w| evidence.contains(w.as_str()));
            let blocking = !wrapper
                && rust.blocking.iter().any(|b| evidence.contains(b.as_str()))
                && !evidence.contains(". spawn (");
            if blocking {
                (
                    format!(
                        "`{agent}` is started by `{api}` in a new process group that nothing \
                         can kill: `.output()`/`.status()` wait for the leader only"
                    ),
                    "`.output()` and `.status()` return no pid to kill the group with: \
                     `.spawn()` it and kill the whole group with `libc::killpg(pid, SIGKILL)` \
                     on timeout, error and exit"
                        .to_string(),
                )
            } else {
                let class_wide = self.holds(variable.as_deref());
                let held = self.held_in(statement, variable.as_deref(), api);
                match ending(&self.reached_kills(wrapper, class_wide, &held), wrapper) {
                    Ending::Killed => return,
                    Ending::Gated => (
                        format!(
                            "`{agent}` is started by `{api}` in a new process group that is \
                             killed only while the leader is alive"
                        ),
                        "the group kill is gated on the leader (`try_wait()`): when the leader \
                         exits first, its helpers survive. Kill the group unconditionally \
                         (`libc::killpg`; ESRCH means it is gone), e.g. in a `Drop`"
                            .to_string(),
                    ),
                    Ending::LeaderOnly => (
                        format!(
                            "`{agent}` is started by `{api}` in a new process group, but only \
                             the leader is killed"
                        ),
                        "`child.kill()`, `start_kill()` and `kill_on_drop(true)` signal the \
                         leader alone: kill the whole group with `libc::killpg(pid, SIGKILL)` \
                         (or `libc::kill(-pgid, ...)`) on timeout, error and exit"
                            .to_string(),
                    ),
                    Ending::Nothing => (
                        format!(
                            "`{agent}` is started by `{api}` in a new process group, but nothing \
                             kills the group"
                        ),
                        if wrapper {
                            "a group of its own is half the cleanup: call the group child's \
                             `.kill()`/`.start_kill()` on timeout, error and exit (dropping it \
                             kills nothing)"
                                .to_string()
                        } else {
                            "a group of its own is half the cleanup: kill the whole group with \
                             `libc::killpg(pid, SIGKILL)` on timeout, error and exit (e.g. in a \
                             `Drop`)"
                                .to_string()
                        },
                    ),
                }
            }
        };
        self.push(at, message, help);
    }

    fn push(&mut self, at: proc_macro2::Span, message: String, help: String) {
        let (start, end) = (at.start(), at.end());
        self.findings.push(Raw {
            line: start.line,
            column: start.column + 1,
            end_line: end.line,
            end_column: end.column + 1,
            message,
            help,
        });
    }

    /// Could the value of the type whose method this is get hold of the child: stored on
    /// it, or the variable holding the command or child (or a `let` made from it) used
    /// other than in place (`child.wait()`, `cmd.arg(..)`): handed to a call, put in a
    /// struct, assigned on. Then the type's other methods (its `Drop`) are in reach;
    /// not for a child kept in a local, or one returned to the callers.
    fn holds(&self, variable: Option<&str>) -> bool {
        let Some(f) = self.functions.last() else {
            return true;
        };
        let Some(var) = variable else {
            return !f.returns_child;
        };
        let tracked = tracked(f, var);
        let word = |c: char| c.is_alphanumeric() || c == '_';
        f.statements.iter().any(|s| {
            tracked.iter().any(|t| {
                s.match_indices(t.as_str()).any(|(at, _)| {
                    let before = s[..at].trim_end();
                    let after = s[at + t.len()..].trim_start();
                    let whole = !s[..at].ends_with(word) && !s[at + t.len()..].starts_with(word);
                    let binding = before.ends_with("let") || before.ends_with("mut");
                    let in_place = after.starts_with('.') && !after.starts_with("..");
                    whole && !binding && !in_place
                })
            })
        })
    }

    /// The statics of the file ([`holder_statics`]) the child is put in: named, ahead of
    /// the command, by the spawning statement (`*AGENT.lock().unwrap() =
    /// Some(Command::new(..).spawn()?)`), or, ahead of the variable holding the child (or
    /// a `let` made from it), by a statement of its function (`*AGENT.lock().unwrap() =
    /// Some(child)`, `PGID.store(child.id() as i32, ..)`); the static itself or a `let`
    /// taken from it (`let slot = CODEX.get_or_init(..)`). A static named after the child
    /// (`.arg(COUNT.load(..))`, `log(child.id(), COUNT.load(..))`) keeps nothing. The
    /// file's functions using such a static (`stop()` taking the child out of it) are in
    /// reach of the spawn, as the methods of a type are for a child stored on it.
    fn held_in(&self, statement: &str, variable: Option<&str>, api: &str) -> Vec<String> {
        let tracked = match (variable, self.functions.last()) {
            (Some(var), Some(f)) => tracked(f, var),
            _ => Vec::new(),
        };
        let statements = self.functions.last().map_or(&[][..], |f| &f.statements[..]);
        // `Command` of `Command::new`, `cmd` of `cmd!`.
        let api = match api.strip_suffix('!') {
            Some(mac) => mac.rsplit("::").next().unwrap_or(mac),
            None => api.rsplit("::").nth(1).unwrap_or(api),
        };
        let ahead =
            |text: &str, holder: &str, of: &str| match (word_at(text, holder), word_at(text, of)) {
                (Some(h), Some(o)) => h < o,
                _ => false,
            };
        self.statics
            .iter()
            .filter(|name| {
                let mut names = vec![name.to_string()];
                names.extend(statements.iter().filter_map(|s| {
                    let bound = bound_variable(s)?;
                    let init = s.split_once(" = ")?.1;
                    let init = init.trim_start_matches(|c: char| "&*{ ".contains(c));
                    let init = init.strip_prefix("unsafe").unwrap_or(init);
                    let init = init.trim_start_matches(|c: char| "&*{ ".contains(c));
                    let init = init.strip_prefix("mut ").unwrap_or(init);
                    word_at(init, name)
                        .is_some_and(|at| at == 0)
                        .then_some(bound)
                }));
                names.iter().any(|n| {
                    ahead(statement, n, api)
                        || statements
                            .iter()
                            .any(|s| tracked.iter().any(|t| ahead(s, n, t)))
                })
            })
            .cloned()
            .collect()
    }

    /// The tie ([`Tie`]) of the spawn bound to `variable` in the current function: its
    /// names, and those of the function's other spawns (each `let` of a statement that
    /// constructs a command), with the `let`s taken from each and the fields given them.
    fn tie(&self, variable: Option<&str>) -> Tie {
        let Some(f) = self.functions.last() else {
            return Tie::default();
        };
        let own = variable.map_or_else(Vec::new, |v| tracked(f, v));
        let constructs = |s: &str| {
            let init = s.split_once(" = ").map_or("", |(_, init)| init);
            self.rules.rust.spawn.iter().any(|p| {
                let p = p.replace("::", " :: ");
                [format!("{p} ("), format!("{p} !")].iter().any(|call| {
                    init.match_indices(call.as_str()).any(|(at, _)| {
                        !init[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                    })
                })
            })
        };
        let mut others: Vec<String> = Vec::new();
        for s in &f.statements {
            if let Some(bound) = bound_variable(s)
                && !own.contains(&bound)
                && constructs(s)
            {
                others.extend(tracked(f, &bound).into_iter().filter(|t| !own.contains(t)));
            }
        }
        let fields = |names: &[String]| -> Vec<String> {
            f.fields
                .iter()
                .filter(|(_, value)| names.iter().any(|n| mentions(value, n)))
                .map(|(field, _)| format!("self.{field}"))
                .collect()
        };
        let own_fields = fields(&own);
        let other_fields: Vec<String> = fields(&others)
            .into_iter()
            .filter(|f| !own_fields.contains(f))
            .collect();
        let mut tie = Tie { own, others };
        tie.own.extend(own_fields);
        tie.others.extend(other_fields);
        tie
    }

    /// The statement and every statement of the function using its variable.
    fn evidence(&self, statement: &str, variable: Option<&str>) -> String {
        let mut out = statement.to_string();
        if let (Some(var), Some(f)) = (variable, self.functions.last()) {
            for s in f.statements.iter().filter(|s| mentions(s, var)) {
                out.push('\n');
                out.push_str(s);
            }
        }
        out
    }

    /// The kills in reach of a spawn in the current function: the enclosing functions
    /// (closures in them too), the file's functions they name (transitively), and the
    /// other methods of the same type (its `Drop` too), the functions using a static the
    /// child is kept in (`held`, [`Visitor::held_in`]). A function that returns a child
    /// adds what its callers do with it ([`Visitor::handed_kills`]).
    fn reached_kills(&self, wrapper: bool, class_wide: bool, held: &[String]) -> Vec<Kill> {
        let kills: Vec<Kill> = self
            .functions
            .iter()
            .flat_map(|f| self.tie.aim(&f.kills, true))
            .collect();
        let names: Vec<String> = self
            .functions
            .iter()
            .flat_map(|f| f.idents.iter().cloned())
            .collect();
        let owner = self.owners.last().cloned().flatten();
        let mut kills = self.reach(kills, names, owner.as_ref(), class_wide, held);
        if let Some(f) = self.functions.last().filter(|f| f.returns_child)
            && ending(&kills, wrapper) != Ending::Killed
        {
            kills.extend(self.handed_kills(&f.name, owner.as_ref(), wrapper, 0));
        }
        kills
    }

    /// `kills` and `names` of a function of type `owner`, with the kills of what they
    /// reach: the file's functions named (transitively), the type's other methods, the
    /// functions using a static in `held` (one the child is kept in).
    fn reach(
        &self,
        mut kills: Vec<Kill>,
        mut names: Vec<String>,
        owner: Option<&String>,
        class_wide: bool,
        held: &[String],
    ) -> Vec<Kill> {
        let mut reached = vec![false; self.summaries.len()];
        // The spawning function's own summary (reached as a method of its type): its
        // locals are the ones the tie names.
        let current = self.functions.last().map(|f| &f.name);
        loop {
            let mut grew = false;
            for (i, s) in self.summaries.iter().enumerate() {
                // A guard built here (`let _g = PgidGuard(pid)`) runs its type's `Drop`.
                let guard = s.name == "drop" && s.owner.as_ref().is_some_and(|o| names.contains(o));
                // A method by its name only for this type or a type named here
                // (`self.stop()` is not another type's `stop`).
                let named = names.contains(&s.name)
                    && (s.owner.is_none()
                        || s.owner.as_ref() == owner
                        || s.owner.as_ref().is_some_and(|o| names.contains(o)));
                let holder = s.idents.iter().any(|i| held.contains(i));
                let reach = named
                    || (class_wide && owner.is_some() && s.owner.as_ref() == owner)
                    || guard
                    || holder;
                if reach && !reached[i] {
                    reached[i] = true;
                    grew = true;
                    let local = Some(&s.name) == current && s.owner.as_ref() == owner;
                    kills.extend(self.tie.aim(&s.kills, local));
                    names.extend(s.idents.iter().cloned());
                }
            }
            if !grew {
                return kills;
            }
        }
    }

    /// What the callers of `factory` (a function returning the child) do with it: the
    /// reach of each caller in the file (and of its callers, when it returns the child
    /// on); the caller that ends the group worst decides. A factory the file never calls
    /// is API for other modules: then the kills of the file's functions that start
    /// nothing themselves count (`fn kill_group(child: &Child)` beside it), not the
    /// kills another spawn's function makes for its own child.
    fn handed_kills(
        &self,
        factory: &str,
        owner: Option<&String>,
        wrapper: bool,
        depth: usize,
    ) -> Vec<Kill> {
        let callers: Vec<&Summary> = self
            .summaries
            .iter()
            .filter(|s| s.calls.iter().any(|c| c == factory))
            .filter(|s| !(s.name == factory && s.owner.as_ref() == owner))
            .collect();
        let budget = self.handed_budget.get();
        if callers.is_empty() || depth > 4 || budget == 0 {
            let spawning: Vec<&String> = self
                .summaries
                .iter()
                .filter(|s| s.spawns)
                .map(|s| &s.name)
                .collect();
            return self
                .summaries
                .iter()
                .filter(|s| !s.spawns && !s.calls.iter().any(|c| spawning.contains(&c)))
                .flat_map(|s| self.tie.aim(&s.kills, false))
                .collect();
        }
        self.handed_budget.set(budget - 1);
        let mut worst: Option<(Ending, Vec<Kill>)> = None;
        for caller in callers {
            let mut kills = self.reach(
                self.tie.aim(&caller.kills, false),
                caller.idents.clone(),
                caller.owner.as_ref(),
                true,
                &[],
            );
            if caller.returns_child && ending(&kills, wrapper) != Ending::Killed {
                kills.extend(self.handed_kills(
                    &caller.name,
                    caller.owner.as_ref(),
                    wrapper,
                    depth + 1,
                ));
            }
            let end = ending(&kills, wrapper);
            if worst.as_ref().is_none_or(|(w, _)| end.rank() < w.rank()) {
                worst = Some((end, kills));
            }
        }
        worst.map(|(_, kills)| kills).unwrap_or_default()
    }
}

/// A kill found in a function body, with the tokens of what it names: the pid given to
/// `killpg`/`kill`, the receiver of `.kill()` (empty for a kill read from a macro's
/// tokens: it names no one, and counts for every spawn).
#[derive(Clone, Debug)]
struct Aimed {
    kill: Kill,
    target: String,
}

impl Aimed {
    fn anywhere(kill: Kill) -> Aimed {
        Aimed {
            kill,
            target: String::new(),
        }
    }
}

/// Which spawn a kill belongs to, when a function starts several: a kill naming another
/// spawn's child (`killpg(a.id() as i32, ..)` beside `b`, `let pa = a.id() as i32;
/// killpg(pa, ..)`, `self.a` of a type given `Pair { a, b }`) is that child's, not this
/// one's. A kill naming neither (a loop over both, a helper's parameter) counts for each.
#[derive(Default)]
struct Tie {
    /// The names this spawn's child goes by: its variable, the `let`s taken from it, the
    /// fields (`self.a`) it is given to.
    own: Vec<String>,
    /// The same for the function's other spawns.
    others: Vec<String>,
}

impl Tie {
    /// The kills that are not another spawn's. A local (`a`, `pa`) means that child only
    /// in the spawning function (`local`); a field (`self.a`) in every function.
    fn aim(&self, kills: &[Aimed], local: bool) -> Vec<Kill> {
        kills
            .iter()
            .filter(|k| {
                let names = |h: &String| names_handle(&k.target, h);
                self.own.iter().any(names)
                    || !self
                        .others
                        .iter()
                        .filter(|h| local || h.starts_with("self."))
                        .any(names)
            })
            .map(|k| k.kill)
            .collect()
    }
}

/// Do a kill's target tokens (`self . a . id () as i32`, `- pa`) name `handle` (`a`,
/// `self.a`) as a whole: `a.id()` and `-pa` do, `self.a` does not name `a`, nor
/// `self.ab` `self.a`.
fn names_handle(target: &str, handle: &str) -> bool {
    let joined = target.replace(" . ", ".");
    joined
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .any(|w| w == handle || w.strip_prefix(handle).is_some_and(|r| r.starts_with('.')))
}

/// Every field a function body gives a value (nested functions not): `Pair { a, b }`,
/// `Pair { a: child }`, `self.child = child`, with the value's tokens.
fn field_values(block: &syn::Block) -> Vec<(String, String)> {
    struct Collect(Vec<(String, String)>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
            for field in &e.fields {
                if let syn::Member::Named(name) = &field.member {
                    let value = field.expr.to_token_stream().to_string();
                    self.0.push((name.to_string(), value));
                }
            }
            syn::visit::visit_expr_struct(self, e);
        }
        fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
            if let Expr::Field(f) = &*e.left
                && matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self"))
                && let syn::Member::Named(name) = &f.member
            {
                self.0
                    .push((name.to_string(), e.right.to_token_stream().to_string()));
            }
            syn::visit::visit_expr_assign(self, e);
        }
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
        fn visit_impl_item_fn(&mut self, _: &'ast syn::ImplItemFn) {}
        fn visit_trait_item_fn(&mut self, _: &'ast syn::TraitItemFn) {}
    }
    let mut collect = Collect(Vec::new());
    collect.visit_block(block);
    collect.0
}

/// A kill found in a function body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kill {
    /// `killpg`, `kill_process_group`, `kill(-pgid, ...)`.
    Group { gated: bool },
    /// `.kill()`, `.start_kill()`, `.signal(...)`: the group for a command-group or
    /// process-wrap child, the leader alone otherwise.
    Method { gated: bool },
    /// `.kill_on_drop(true)`: the leader alone.
    OnDrop,
}

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

fn ending(kills: &[Kill], wrapper: bool) -> Ending {
    let group = |k: &Kill| match *k {
        Kill::Group { gated } => Some(gated),
        Kill::Method { gated } if wrapper => Some(gated),
        _ => None,
    };
    if kills.iter().any(|k| group(k) == Some(false)) {
        Ending::Killed
    } else if kills.iter().any(|k| group(k) == Some(true)) {
        Ending::Gated
    } else if !kills.is_empty() {
        Ending::LeaderOnly
    } else {
        Ending::Nothing
    }
}

/// Is this expression (as tokens) a negative pid: `-pid`, `-(id as i32)`,
/// `Pid::from_raw(-pid)`?
fn negative_pid(tokens: &str) -> bool {
    tokens.starts_with('-') || tokens.contains("from_raw (-")
}

/// Is this pid (as tokens) a number, not a child's: `0`, `-0`, `(-1)`, `0 as i32`,
/// `Pid::from_raw(0)`, `nix::unistd::Pid::from_raw(-0)`?
fn literal_pid(tokens: &str) -> bool {
    let mut t: String = tokens.chars().filter(|c| !c.is_whitespace()).collect();
    loop {
        let before = t.clone();
        if let Some(at) = t.find("from_raw(")
            && t.ends_with(')')
        {
            t = t[at + "from_raw(".len()..t.len() - 1].to_string();
        }
        if let Some(at) = t.find("as")
            && at > 0
            && t[..at].chars().all(|c| c.is_ascii_digit() || c == '-')
        {
            t.truncate(at);
        }
        if t.starts_with('(') && t.ends_with(')') {
            t = t[1..t.len() - 1].to_string();
        }
        if let Some(rest) = t.strip_prefix('-') {
            t = rest.to_string();
        }
        if t == before {
            break;
        }
    }
    !t.is_empty() && t.chars().all(|c| c.is_ascii_digit())
}

/// Does a macro's token text (`tokio::select! { .. => unsafe { libc::killpg(pid, 9) } }`)
/// call a group kill: `killpg(pid, sig)`, `kill(-pid, sig)`, read as in
/// the calls outside macros: not with a pid written as a number ([`literal_pid`]), nor with
/// signal 0 or nix's `None` (the probe).
fn macro_group_kill(text: &str, rust: &super::rules::Rust) -> bool {
    let kills = rust
        .group_kill
        .iter()
        .map(|k| (k, true))
        .chain(rust.kill_negative.iter().map(|k| (k, false)));
    for (kill, group) in kills {
        let call = format!("{kill} (");
        for (at, _) in text.match_indices(&call) {
            let word = |c: char| c.is_alphanumeric() || c == '_';
            if text[..at].ends_with(word) {
                continue;
            }
            let mut args = vec![String::new()];
            let mut depth = 0usize;
            for c in text[at + call.len()..].chars() {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => break,
                    ')' | ']' | '}' => depth -= 1,
                    ',' if depth == 0 => {
                        args.push(String::new());
                        continue;
                    }
                    _ => {}
                }
                if let Some(last) = args.last_mut() {
                    last.push(c);
                }
            }
            let first = args[0].trim();
            let probe = args
                .get(1)
                .is_some_and(|s| matches!(s.trim(), "0" | "None"));
            // `let pg = Pid::from_raw(-pid); kill(pg, sig)` in the same macro.
            let negated = first.chars().all(|c| c.is_alphanumeric() || c == '_')
                && text.contains("from_raw (-");
            if !probe && !literal_pid(first) && (group || negative_pid(first) || negated) {
                return true;
            }
        }
    }
    false
}

/// A function of the file: its name, the type of its `impl` if a method, its kills and
/// the identifiers it names (the functions it may call).
struct Summary {
    name: String,
    owner: Option<String>,
    kills: Vec<Aimed>,
    idents: Vec<String>,
    /// The last segment of every path it calls and every method it calls (`start` of
    /// `Agent::start(..)`, `agent.start()`): the file's functions it may call.
    calls: Vec<String>,
    /// It returns a child (its return type names a `Child`).
    returns_child: bool,
    /// It builds a command or spawns one itself.
    spawns: bool,
}

fn returns_child(sig: &syn::Signature) -> bool {
    match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream().to_string().contains("Child"),
        syn::ReturnType::Default => false,
    }
}

fn summarize(
    name: String,
    owner: Option<String>,
    returns_child: bool,
    block: &syn::Block,
    rules: &Rules,
) -> Summary {
    struct Scan<'r> {
        rules: &'r Rules,
        gated: usize,
        kills: Vec<Aimed>,
        idents: Vec<String>,
        calls: Vec<String>,
        spawns: bool,
        /// Locals bound to a negative pid (`let pgid = Pid::from_raw(-pid);`).
        negated: Vec<String>,
    }
    impl Scan<'_> {
        fn leader_alive(&self, cond: &Expr) -> bool {
            let text = cond.to_token_stream().to_string();
            self.rules
                .leader_alive
                .iter()
                .any(|l| text.contains(l.as_str()))
        }
        /// Which way a condition asking about the leader ([`Scan::leader_alive`]) reads
        /// when it holds; `None` when it asks nothing about it.
        fn asks(&self, cond: &Expr) -> Option<Asks> {
            self.leader_alive(cond)
                .then(|| asks(cond, &|side| self.leader_alive(side)))
        }
    }
    impl<'ast> Visit<'ast> for Scan<'_> {
        fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
            self.idents.push(i.to_string());
        }
        fn visit_local(&mut self, local: &'ast syn::Local) {
            if let (syn::Pat::Ident(name), Some(init)) = (&local.pat, &local.init)
                && negative_pid(&init.expr.to_token_stream().to_string())
            {
                self.negated.push(name.ident.to_string());
            }
            syn::visit::visit_local(self, local);
        }
        // `if let Ok(None) = child.try_wait() { killpg }` kills only while the leader is
        // alive, so does the `else` of `if let Ok(Some(_)) = ...`; the other branch runs
        // once it has exited, and is not gated on it.
        fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
            self.visit_expr(&e.cond);
            let asks = self.asks(&e.cond);
            let then = usize::from(matches!(asks, Some(Asks::Alive | Asks::Unknown)));
            self.gated += then;
            self.visit_block(&e.then_branch);
            self.gated -= then;
            if let Some((_, other)) = &e.else_branch {
                let otherwise = usize::from(matches!(asks, Some(Asks::Reaped | Asks::Unknown)));
                self.gated += otherwise;
                self.visit_expr(other);
                self.gated -= otherwise;
            }
        }
        // `if let Ok(Some(_)) = child.try_wait() { return Ok(()); }` before the kill: the
        // rest of the block runs only while the leader is alive (not so after `if let
        // Ok(None) = ... { return }`).
        fn visit_block(&mut self, b: &'ast syn::Block) {
            let mut added = 0;
            for stmt in &b.stmts {
                self.visit_stmt(stmt);
                let returns_if = matches!(stmt, syn::Stmt::Expr(Expr::If(e), _)
                    if matches!(self.asks(&e.cond), Some(Asks::Reaped | Asks::Unknown))
                        && e.then_branch
                            .stmts
                            .iter()
                            .any(|s| matches!(s, syn::Stmt::Expr(Expr::Return(_), _))));
                // `match child.try_wait() { Ok(Some(_)) => return Ok(()), _ => {} }`.
                let returns_match = matches!(stmt, syn::Stmt::Expr(Expr::Match(m), _)
                if self.leader_alive(&m.expr)
                    && m.arms.iter().any(|a| {
                        let (some, none) = some_none(&a.pat);
                        some && !none && returns(&a.body)
                    }));
                if returns_if || returns_match {
                    self.gated += 1;
                    added += 1;
                }
            }
            self.gated -= added;
        }
        // `match child.try_wait() { Ok(None) => unsafe { libc::killpg(..) }, _ => {} }`:
        // the arm that matches a leader still running (`None`, or the catch-all after a
        // `Some` arm) kills the group only while the leader is alive.
        fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
            self.visit_expr(&e.expr);
            let asks = self.leader_alive(&e.expr);
            let (mut some_before, mut none_before) = (false, false);
            for arm in &e.arms {
                let (some, none) = some_none(&arm.pat);
                let catch_all = matches!(&arm.pat, syn::Pat::Wild(_))
                    || matches!(&arm.pat, syn::Pat::Ident(i) if i.subpat.is_none());
                let g = usize::from(
                    asks && ((none && !some) || (catch_all && some_before && !none_before)),
                );
                self.gated += g;
                self.visit_pat(&arm.pat);
                if let Some((_, guard)) = &arm.guard {
                    self.visit_expr(guard);
                }
                self.visit_expr(&arm.body);
                self.gated -= g;
                some_before |= some;
                none_before |= none;
            }
        }
        fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
            self.visit_expr(&e.cond);
            let g = usize::from(matches!(
                self.asks(&e.cond),
                Some(Asks::Alive | Asks::Unknown)
            ));
            self.gated += g;
            self.visit_block(&e.body);
            self.gated -= g;
        }
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            let path = path_text(&call.func);
            let last = path.rsplit("::").next().unwrap_or("");
            let rust = &self.rules.rust;
            self.calls.push(last.to_string());
            self.spawns |= rust
                .spawn
                .iter()
                .any(|s| path == *s || path.ends_with(&format!("::{s}")));
            let negative = call.args.first().is_some_and(|a| {
                let t = a.to_token_stream().to_string();
                negative_pid(&t) || self.negated.contains(&t)
            });
            // `libc::kill(-pgid, 0)`, `killpg(pgid, 0)`, nix's `killpg(pgid, None)`: signal
            // 0 only asks whether the group is there.
            let probe = call.args.iter().nth(1).is_some_and(|s| {
                let s = s.to_token_stream().to_string();
                s == "0" || s == "None"
            });
            // `libc::kill(-0, sig)`, `killpg(0, sig)`: a pid written as a number is the
            // caller's own group (0) or every process (-1), never the child's.
            let literal = call
                .args
                .first()
                .is_some_and(|a| literal_pid(&a.to_token_stream().to_string()));
            if !probe
                && !literal
                && (rust.group_kill.iter().any(|k| k == last)
                    || (rust.kill_negative.iter().any(|k| k == last) && negative))
            {
                let target = call.args.first().map(|a| a.to_token_stream().to_string());
                self.kills.push(Aimed {
                    kill: Kill::Group {
                        gated: self.gated > 0,
                    },
                    target: target.unwrap_or_default(),
                });
            }
            // `kill_group(&child)`, `Self::stop(..)` name this file's functions;
            // `libc::kill(..)` names none of them.
            match &*call.func {
                Expr::Path(p) => {
                    let own = p.path.segments.len() == 1
                        || p.path.segments.first().is_some_and(|s| s.ident == "Self");
                    if own && let Some(last) = p.path.segments.last() {
                        self.idents.push(last.ident.to_string());
                    }
                }
                other => self.visit_expr(other),
            }
            for arg in &call.args {
                self.visit_expr(arg);
            }
        }
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            self.calls.push(call.method.to_string());
            match call.method.to_string().as_str() {
                "spawn" | "group_spawn" => self.spawns = true,
                "kill" | "start_kill" | "signal" => self.kills.push(Aimed {
                    kill: Kill::Method {
                        gated: self.gated > 0,
                    },
                    target: call.receiver.to_token_stream().to_string(),
                }),
                "kill_on_drop" => self.kills.push(Aimed {
                    kill: Kill::OnDrop,
                    target: String::new(),
                }),
                _ => {}
            }
            // `self.stop()` names a method of the type; `child.kill()` names none of
            // this file's functions.
            if matches!(&*call.receiver, Expr::Path(p) if p.path.is_ident("self")) {
                self.idents.push(call.method.to_string());
            }
            self.visit_expr(&call.receiver);
            if let Some(turbofish) = &call.turbofish {
                self.visit_angle_bracketed_generic_arguments(turbofish);
            }
            for arg in &call.args {
                self.visit_expr(arg);
            }
        }
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
        fn visit_impl_item_fn(&mut self, _: &'ast syn::ImplItemFn) {}
        // `tokio::select! { _ = sleep(t) => unsafe { libc::killpg(..) } }`: a macro's body
        // is tokens to syn, so its kills and names are read from the tokens' text.
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            let text = mac.tokens.to_string();
            let rust = &self.rules.rust;
            let gated = self.gated > 0;
            let group = macro_group_kill(&text, rust);
            if group {
                self.kills.push(Aimed::anywhere(Kill::Group { gated }));
            }
            if [". kill (", ". start_kill (", ". signal ("]
                .iter()
                .any(|m| text.contains(m))
            {
                self.kills.push(Aimed::anywhere(Kill::Method { gated }));
            }
            if text.contains(". kill_on_drop (") {
                self.kills.push(Aimed::anywhere(Kill::OnDrop));
            }
            let words = text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string);
            self.calls.extend(words.clone());
            self.idents.extend(words);
            syn::visit::visit_macro(self, mac);
        }
    }
    let mut scan = Scan {
        rules,
        gated: 0,
        kills: Vec::new(),
        idents: Vec::new(),
        calls: Vec::new(),
        spawns: false,
        negated: Vec::new(),
    };
    scan.visit_block(block);
    Summary {
        name,
        owner,
        kills: scan.kills,
        idents: scan.idents,
        calls: scan.calls,
        returns_child,
        spawns: scan.spawns,
    }
}

/// Does a `match` arm's pattern name `Some` and `None` (`Ok(Some(_))`, `Ok(None)`)?
/// What a condition about the leader (`child.try_wait()`) says when it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Asks {
    /// It is still running: `if let Ok(None) = child.try_wait()`, `...?.is_none()`.
    Alive,
    /// It has exited: `if let Ok(Some(_)) = child.try_wait()`, `...?.is_some()`.
    Reaped,
    /// Either, or a shape not read: both branches count as gated (recall first).
    Unknown,
}

/// Which way `cond` reads: an `if let` pattern matching `None` or `Some` only, a call of
/// `is_none()`/`is_some()`, either negated (`!`) or in parentheses, or the left or
/// right side of an `&&` asking about the leader (`leader`) that does (`Alive` only: `a
/// && b` holding says what `a` says, its failing does not).
fn asks(cond: &Expr, leader: &dyn Fn(&Expr) -> bool) -> Asks {
    match cond {
        Expr::Let(l) => match some_none(&l.pat) {
            (false, true) => Asks::Alive,
            (true, false) => Asks::Reaped,
            _ => Asks::Unknown,
        },
        Expr::Paren(p) => asks(&p.expr, leader),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => match asks(&u.expr, leader) {
            Asks::Alive => Asks::Reaped,
            Asks::Reaped => Asks::Alive,
            Asks::Unknown => Asks::Unknown,
        },
        Expr::MethodCall(m) if m.method == "is_none" => Asks::Alive,
        Expr::MethodCall(m) if m.method == "is_some" => Asks::Reaped,
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            let alive = |side: &Expr| leader(side) && asks(side, leader) == Asks::Alive;
            if alive(&b.left) || alive(&b.right) {
                Asks::Alive
            } else {
                Asks::Unknown
            }
        }
        _ => Asks::Unknown,
    }
}

fn some_none(pat: &syn::Pat) -> (bool, bool) {
    let text = pat.to_token_stream().to_string();
    (mentions(&text, "Some"), mentions(&text, "None"))
}

/// Does a `match` arm's body return (`=> return Ok(())`, `=> { ...; return x; }`)?
fn returns(body: &Expr) -> bool {
    match body {
        Expr::Return(_) => true,
        Expr::Block(b) => b
            .block
            .stmts
            .iter()
            .any(|s| matches!(s, syn::Stmt::Expr(Expr::Return(_), _))),
        _ => false,
    }
}

/// Every function and method of the file, with the type its `impl` is for.
fn summaries(file: &syn::File, rules: &Rules) -> Vec<Summary> {
    struct Collect<'r> {
        rules: &'r Rules,
        owner: Vec<Option<String>>,
        out: Vec<Summary>,
    }
    impl<'ast> Visit<'ast> for Collect<'_> {
        fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
            self.owner.push(Some(self_type(item)));
            syn::visit::visit_item_impl(self, item);
            self.owner.pop();
        }
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            self.out.push(summarize(
                item.sig.ident.to_string(),
                None,
                returns_child(&item.sig),
                &item.block,
                self.rules,
            ));
            syn::visit::visit_item_fn(self, item);
        }
        fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
            let owner = self.owner.last().cloned().flatten();
            self.out.push(summarize(
                item.sig.ident.to_string(),
                owner,
                returns_child(&item.sig),
                &item.block,
                self.rules,
            ));
            syn::visit::visit_impl_item_fn(self, item);
        }
    }
    let mut collect = Collect {
        rules,
        owner: Vec::new(),
        out: Vec::new(),
    };
    collect.visit_file(file);
    collect.out
}

fn self_type(item: &syn::ItemImpl) -> String {
    match &*item.self_ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        other => other.to_token_stream().to_string(),
    }
}

/// The values the file's struct literals give each field, by type and field name
/// (`Self { .. }` inside an `impl` is that type's).
fn struct_fields(file: &syn::File) -> HashMap<(String, String), Vec<Expr>> {
    struct Collect {
        owners: Vec<String>,
        out: HashMap<(String, String), Vec<Expr>>,
    }
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
            self.owners.push(self_type(item));
            syn::visit::visit_item_impl(self, item);
            self.owners.pop();
        }
        fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
            let name = e.path.segments.last().map(|s| s.ident.to_string());
            let ty = match name.as_deref() {
                Some("Self") => self.owners.last().cloned(),
                other => other.map(str::to_string),
            };
            if let Some(ty) = ty {
                for field in &e.fields {
                    if let syn::Member::Named(n) = &field.member {
                        self.out
                            .entry((ty.clone(), n.to_string()))
                            .or_default()
                            .push(field.expr.clone());
                    }
                }
            }
            syn::visit::visit_expr_struct(self, e);
        }
    }
    let mut collect = Collect {
        owners: Vec::new(),
        out: HashMap::new(),
    };
    collect.visit_file(file);
    collect.out
}

/// Token text with its string literals left out (`Command :: new ("setsid")` ->
/// `Command :: new ()`), so words inside them are not read as code.
fn without_strings(tokens: &str) -> String {
    let mut out = String::new();
    let mut chars = tokens.chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            out.push(c);
            continue;
        }
        while let Some(d) = chars.next() {
            match d {
                '\\' => {
                    chars.next();
                }
                '"' => break,
                _ => {}
            }
        }
    }
    out
}

/// The file's functions and methods whose body is one value and nothing else (`fn
/// agent_bin() -> &'static str { "claude" }`, `fn bin(&self) -> &str { AGENT }`, `{ return
/// X; }`), by name: what a call of one with no arguments gives ([`Visitor::program`]). A
/// body with any other statement, or a function taking arguments, gives nothing: its
/// value depends on more than the file says.
#[derive(Default)]
struct Returns {
    /// Free functions and associated functions without `self` (`Self::bin()`).
    functions: HashMap<String, Vec<Expr>>,
    /// Methods taking only `self`.
    methods: HashMap<String, Vec<Expr>>,
}

fn constant_returns(file: &syn::File) -> Returns {
    fn only_value(sig: &syn::Signature, block: &syn::Block) -> Option<Expr> {
        if matches!(sig.output, syn::ReturnType::Default) {
            return None;
        }
        match &block.stmts[..] {
            [syn::Stmt::Expr(Expr::Return(r), _)] => r.expr.as_deref().cloned(),
            [syn::Stmt::Expr(e, None)] => Some(e.clone()),
            _ => None,
        }
    }
    struct Collect(Returns);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            if item.sig.inputs.is_empty()
                && let Some(value) = only_value(&item.sig, &item.block)
            {
                let name = item.sig.ident.to_string();
                self.0.functions.entry(name).or_default().push(value);
            }
            syn::visit::visit_item_fn(self, item);
        }
        fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
            let receiver_only = matches!(
                item.sig.inputs.iter().collect::<Vec<_>>()[..],
                [syn::FnArg::Receiver(_)]
            );
            if (receiver_only || item.sig.inputs.is_empty())
                && let Some(value) = only_value(&item.sig, &item.block)
            {
                let name = item.sig.ident.to_string();
                let to = if receiver_only {
                    &mut self.0.methods
                } else {
                    &mut self.0.functions
                };
                to.entry(name).or_default().push(value);
            }
            syn::visit::visit_impl_item_fn(self, item);
        }
    }
    let mut collect = Collect(Returns::default());
    collect.visit_file(file);
    collect.0
}

/// The one value the closure of a lazy static's constructor gives (`Lazy::new(||
/// "claude".to_string())`, `LazyLock::new(|| { BIN.into() })`): a closure taking nothing
/// whose body is one expression. A body with statements gives nothing.
fn lazy_value<'e>(callee: &str, call: &'e syn::ExprCall) -> Option<&'e Expr> {
    let mut segments = callee.rsplit("::");
    let (Some("new"), Some("Lazy" | "LazyLock" | "LazyCell")) = (segments.next(), segments.next())
    else {
        return None;
    };
    let [Expr::Closure(closure)] = call.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !closure.inputs.is_empty() {
        return None;
    }
    match &*closure.body {
        Expr::Block(b) => match &b.block.stmts[..] {
            [syn::Stmt::Expr(e, None)] => Some(e),
            _ => None,
        },
        other => Some(other),
    }
}

/// Every `const` and `static` of the file by name: module level, in inline modules, in
/// `impl` blocks (`Self::BIN`) and in function bodies.
fn collect_consts(file: &syn::File) -> HashMap<String, Expr> {
    struct Collect(HashMap<String, Expr>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            self.0.insert(c.ident.to_string(), (*c.expr).clone());
        }
        fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
            self.0.insert(s.ident.to_string(), (*s.expr).clone());
        }
        fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
            self.0.insert(c.ident.to_string(), c.expr.clone());
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0.extend(lazy_static_values(mac));
            syn::visit::visit_macro(self, mac);
        }
    }
    let mut collect = Collect(HashMap::new());
    collect.visit_file(file);
    collect.0
}

/// The variable holding the command or child and every `let` of `f` made from it
/// (`let c = child;`, `let pid = child.id();`).
fn tracked(f: &Function, var: &str) -> Vec<String> {
    let mut tracked = vec![var.to_string()];
    for s in &f.statements {
        if let Some(bound) = bound_variable(s)
            && !tracked.contains(&bound)
            && tracked.iter().any(|t| mentions(s, t))
        {
            tracked.push(bound);
        }
    }
    tracked
}

/// The file's statics that can keep a child (or its pid) for other functions: `static
/// mut`, or one whose type names a `Child` or can change behind a shared reference
/// (`Mutex<Option<Child>>`, `OnceLock<..>`, `LazyLock<..>`, `AtomicI32`). A `static BIN:
/// &str` holds a program, not a child: the functions naming it are not in reach. The
/// statics of `thread_local!` count too.
fn holder_statics(file: &syn::File) -> Vec<String> {
    const HOLDERS: [&str; 7] = ["Child", "Mutex", "RwLock", "Cell", "Once", "Lazy", "Atomic"];
    struct Collect(Vec<String>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
            let ty = s.ty.to_token_stream().to_string();
            if matches!(s.mutability, syn::StaticMutability::Mut(_))
                || HOLDERS.iter().any(|h| ty.contains(h))
            {
                self.0.push(s.ident.to_string());
            }
        }
        // `thread_local! { static AGENT: RefCell<Option<Child>> = .. }`: each `static NAME:
        // TYPE =` of the body.
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if mac
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "thread_local")
            {
                let text = mac.tokens.to_string();
                for declaration in text.split("static ").skip(1) {
                    let Some((name, rest)) = declaration.split_once(':') else {
                        continue;
                    };
                    let ty = rest.split('=').next().unwrap_or("");
                    let name = name.trim();
                    if HOLDERS.iter().any(|h| ty.contains(h))
                        && !name.is_empty()
                        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
                    {
                        self.0.push(name.to_string());
                    }
                }
            }
            syn::visit::visit_macro(self, mac);
        }
    }
    let mut collect = Collect(Vec::new());
    collect.visit_file(file);
    collect.0
}

/// Where `word` first stands in `text` as a whole token.
fn word_at(text: &str, word: &str) -> Option<usize> {
    let token = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word)
        .find(|(at, _)| {
            !text[..*at].ends_with(token) && !text[at + word.len()..].starts_with(token)
        })
        .map(|(at, _)| at)
}

/// `mentions("cmd . arg (x)", "cmd")`: the statement uses the variable as a token.
fn mentions(statement: &str, var: &str) -> bool {
    statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == var)
}

/// `let mut cmd = Command :: new (...)` -> `cmd`.
fn bound_variable(statement: &str) -> Option<String> {
    let rest = statement.trim_start().strip_prefix("let ")?;
    let rest = rest
        .trim_start()
        .strip_prefix("mut ")
        .unwrap_or(rest)
        .trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every `let` binding and every statement of a function body, nested blocks included.
fn collect_block(
    block: &syn::Block,
    bindings: &mut HashMap<String, Expr>,
    statements: &mut Vec<String>,
) {
    struct Collect<'a> {
        bindings: &'a mut HashMap<String, Expr>,
        statements: &'a mut Vec<String>,
    }
    impl<'ast> Visit<'ast> for Collect<'_> {
        fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
            if let syn::Stmt::Local(local) = stmt
                && let syn::Pat::Ident(id) = strip_type(&local.pat)
                && let Some(init) = &local.init
            {
                self.bindings
                    .insert(id.ident.to_string(), (*init.expr).clone());
            }
            if let syn::Stmt::Item(syn::Item::Const(c)) = stmt {
                self.bindings.insert(c.ident.to_string(), (*c.expr).clone());
            }
            if let syn::Stmt::Item(syn::Item::Static(s)) = stmt {
                self.bindings.insert(s.ident.to_string(), (*s.expr).clone());
            }
            self.statements.push(stmt.to_token_stream().to_string());
            syn::visit::visit_stmt(self, stmt);
        }
        // A nested function is visited on its own.
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
        fn visit_impl_item_fn(&mut self, _: &'ast syn::ImplItemFn) {}
        fn visit_trait_item_fn(&mut self, _: &'ast syn::TraitItemFn) {}
    }
    Collect {
        bindings,
        statements,
    }
    .visit_block(block);
}

/// Every `arg`/`args` call of a function body (nested functions not) whose chain starts
/// at a variable: `cmd.arg("A=1")`, both calls of `cmd.arg("-n").arg("10")`.
fn var_args(block: &syn::Block) -> Vec<VarArg> {
    struct Collect(Vec<VarArg>);
    impl<'ast> Visit<'ast> for Collect {
        fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
            if call.method == "arg" || call.method == "args" {
                let mut root = &*call.receiver;
                while let Expr::MethodCall(m) = root {
                    root = &m.receiver;
                }
                if let Expr::Path(p) = root
                    && p.path.segments.len() == 1
                {
                    let at = call.method.span().start();
                    self.0.push(VarArg {
                        var: p.path.segments[0].ident.to_string(),
                        at: (at.line, at.column),
                        call: call.clone(),
                    });
                }
            }
            syn::visit::visit_expr_method_call(self, call);
        }
        fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
        fn visit_impl_item_fn(&mut self, _: &'ast syn::ImplItemFn) {}
        fn visit_trait_item_fn(&mut self, _: &'ast syn::TraitItemFn) {}
    }
    let mut collect = Collect(Vec::new());
    collect.visit_block(block);
    collect.0
}

/// The elements of a `vec![a, b, c]` (not `vec![x; n]`), read as an array's are.
fn vec_elements(m: &syn::ExprMacro) -> Option<Vec<Expr>> {
    if !m.mac.path.is_ident("vec") {
        return None;
    }
    let elements = m
        .mac
        .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        .ok()?;
    Some(elements.into_iter().collect())
}

fn strip_type(pat: &syn::Pat) -> &syn::Pat {
    match pat {
        syn::Pat::Type(t) => strip_type(&t.pat),
        other => other,
    }
}

fn path_text(expr: &Expr) -> String {
    match expr {
        Expr::Path(p) => p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::"),
        _ => String::new(),
    }
}

/// The statement (of the innermost function) whose text contains the construction at
/// `span`; falls back to the construction's own text.
fn statement_of(functions: &[Function], needle: &str) -> String {
    functions
        .last()
        .and_then(|f| {
            f.statements
                .iter()
                .filter(|s| s.contains(needle))
                .min_by_key(|s| s.len())
                .cloned()
        })
        .unwrap_or_else(|| needle.to_string())
}

impl Visitor<'_> {
    /// The agent a constructor's whole argv runs (`cmd!("nohup", "claude")`,
    /// `cmd!("sh", "-c", "claude -p hi")`, `duct::cmd("env", &["A=1", "claude"])`): the
    /// words of its arguments, an array among them (through references, `let`s and
    /// consts) spread into its elements, read past wrappers and into a `sh -c` script
    /// ([`super::syntax::argv_agent`]), and whether `setsid` in front makes its session
    /// ([`Through`]). A value out of reach is a word that is no option and no agent.
    fn argv_agent<'e>(
        &self,
        args: impl IntoIterator<Item = &'e Expr>,
    ) -> Option<(String, Through)> {
        let mut exprs: Vec<Expr> = Vec::new();
        for arg in args {
            match self.array_of(arg, 0) {
                Some(elements) if !exprs.is_empty() => exprs.extend(elements),
                _ => exprs.push(arg.clone()),
            }
        }
        let mut words: Vec<String> = Vec::new();
        for e in exprs.iter().take(16) {
            let script = words
                .last()
                .is_some_and(|w| super::shell::is_script_flag(w));
            let word = if script {
                self.script_text(e, 0)
            } else {
                self.program(e, 0)
            };
            words.push(word.unwrap_or_else(|| "\u{0}".into()));
        }
        super::syntax::agent_through(&words, self.rules, super::syntax::argv_agent)
    }

    /// The elements of an array literal `expr` is, through references, `let`s and consts.
    fn array_of(&self, expr: &Expr, depth: usize) -> Option<Vec<Expr>> {
        if depth > 6 {
            return None;
        }
        match expr {
            Expr::Reference(r) => self.array_of(&r.expr, depth + 1),
            Expr::Paren(p) => self.array_of(&p.expr, depth + 1),
            Expr::Array(a) => Some(a.elems.iter().cloned().collect()),
            Expr::Macro(m) => vec_elements(m),
            // `&W[1..]`, `&CMD[1..3]`: a range of one with literal bounds.
            Expr::Index(i) => {
                let Expr::Range(range) = &*i.index else {
                    return None;
                };
                let bound = |e: &Option<Box<Expr>>, default: usize| match e.as_deref() {
                    None => Some(default),
                    Some(Expr::Lit(syn::ExprLit {
                        lit: Lit::Int(n), ..
                    })) => n.base10_parse::<usize>().ok(),
                    Some(_) => None,
                };
                let elements = self.array_of(&i.expr, depth + 1)?;
                let start = bound(&range.start, 0)?;
                let end = match range.limits {
                    syn::RangeLimits::HalfOpen(_) => bound(&range.end, elements.len())?,
                    syn::RangeLimits::Closed(_) => bound(&range.end, elements.len())? + 1,
                };
                elements
                    .get(start..end.min(elements.len()))
                    .map(<[Expr]>::to_vec)
            }
            Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                let bound = self
                    .functions
                    .iter()
                    .rev()
                    .find_map(|f| f.bindings.get(&name))
                    .or_else(|| self.consts.get(&name))?
                    .clone();
                self.array_of(&bound, depth + 1)
            }
            _ => None,
        }
    }

    /// `Command::new("sh").arg("-c").arg(script)` or `.args(["-c", script])`, and `su`'s
    /// `Command::new("su").args(["agent", "-c", script])`: the agent the script starts, reported at the command's constructor like a direct spawn.
    /// Only the argument right after `-c` is read, so a chain is reported once.
    fn shell_script(&mut self, call: &syn::ExprMethodCall) {
        // `-c`, and `-c` among other single-letter flags (`-lc`, `-ec`).
        let is_c = |e: &Expr| {
            matches!(e, Expr::Lit(l) if matches!(&l.lit, Lit::Str(s) if {
                let v = s.value();
                v.strip_prefix('-').is_some_and(|f| {
                    f.contains('c') && f.chars().all(|c| c.is_ascii_alphabetic())
                })
            }))
        };
        let script = match call.method.to_string().as_str() {
            "arg" => match &*call.receiver {
                Expr::MethodCall(prev)
                    if prev.method == "arg" && prev.args.first().is_some_and(is_c) =>
                {
                    call.args.first().cloned()
                }
                // `cmd.arg("-c"); cmd.arg(script);`: the call on the variable before this one.
                Expr::Path(p) if p.path.segments.len() == 1 => {
                    let var = p.path.segments[0].ident.to_string();
                    let at = call.method.span().start();
                    let previous = self.functions.last().and_then(|f| {
                        f.var_args
                            .iter()
                            .filter(|a| a.var == var && a.at < (at.line, at.column))
                            .max_by_key(|a| a.at)
                    });
                    previous
                        .filter(|a| a.call.method == "arg" && a.call.args.first().is_some_and(is_c))
                        .and_then(|_| call.args.first().cloned())
                }
                _ => None,
            },
            // `.args(["-c", script])`, also through a `let` or const of the array.
            "args" => call
                .args
                .first()
                .and_then(|list| self.array_of(list, 0))
                .and_then(|a| a.into_iter().skip_while(|e| !is_c(e)).nth(1)),
            _ => None,
        };
        let Some(script) = script else {
            return;
        };
        // Down the chain to its constructor, through a `let` binding of it.
        let mut receiver = (*call.receiver).clone();
        let mut bound_by_let = false;
        for _ in 0..64 {
            receiver = match receiver {
                Expr::MethodCall(m) => *m.receiver,
                Expr::Path(ref p) if p.path.segments.len() == 1 => {
                    let name = p.path.segments[0].ident.to_string();
                    bound_by_let = true;
                    match self.functions.last().and_then(|f| f.bindings.get(&name)) {
                        Some(bound) => bound.clone(),
                        None => return,
                    }
                }
                _ => break,
            };
        }
        let Expr::Call(new) = receiver else {
            return;
        };
        let callee = self.unalias(&path_text(&new.func));
        let is_spawn = self
            .rules
            .rust
            .spawn
            .iter()
            .any(|s| callee == *s || callee.ends_with(&format!("::{s}")));
        let shell = new
            .args
            .first()
            .and_then(|a| self.program(a, 0))
            .is_some_and(|p| {
                let name = p.rsplit('/').next().unwrap_or(&p).to_string();
                // `su agent -c script`: su's user shell runs the script as `sh -c` does.
                self.rules.shell.shells.contains(&name) || name == "su"
            });
        if !is_spawn || !shell {
            return;
        }
        let Some(line) = self.script_text(&script, 0) else {
            return;
        };
        // Checked as a shell script, as every language's `sh -c` is: each of its commands
        // (`cd /work && claude -p ...`), and none for a session the script kills itself.
        let Some(agent) = super::shell::script_agent(&line, self.rules) else {
            return;
        };
        // A bound command is judged from its `let`, so its variable's statements count.
        let needle = if bound_by_let {
            new.to_token_stream().to_string()
        } else {
            call.to_token_stream().to_string()
        };
        let statement = statement_of(&self.functions, &needle);
        self.report(new.func.span(), &agent, &callee, &statement, Through::Plain);
    }

    /// `Command::new("nohup").arg("claude")`, `Command::new("/usr/bin/env").arg("claude")`,
    /// `Command::new("nice").args(["-n", "10", "claude"])`: a wrapper that runs the rest of
    /// its argv in the same process group ([`super::syntax::past_wrappers`]), and
    /// `Command::new("npx").args(["-y", "@anthropic-ai/claude-code"])`, a package runner
    /// given an agent's package ([`super::syntax::package_agent`]), reported at the
    /// command's constructor like a direct spawn of the agent. Only the `arg`/`args` call
    /// that supplies the agent's word reports, so a chain is reported once.
    fn argv_wrapper(&mut self, call: &syn::ExprMethodCall) {
        /// The words one `arg`/`args` call adds (a value out of reach is a word that
        /// is no option and no agent).
        fn words(v: &Visitor, call: &syn::ExprMethodCall) -> Option<Vec<String>> {
            let word = |e: &Expr| v.program(e, 0).unwrap_or_else(|| "\u{0}".into());
            match call.method.to_string().as_str() {
                "arg" => Some(call.args.first().map(word).into_iter().collect()),
                // `.args(["-n", "10", "claude"])`, also through a `let` or const of the array.
                "args" => match call.args.first().and_then(|list| v.array_of(list, 0)) {
                    Some(elements) => Some(elements.iter().map(word).collect()),
                    None => Some(vec!["\u{0}".into()]),
                },
                _ => None,
            }
        }
        let Some(last) = words(self, call) else {
            return;
        };
        // Down the chain of `arg`/`args` to the constructor, gathering the words; through
        // a `let` holding the command (`let mut cmd = Command::new("env"); cmd.arg(..)`),
        // with the words of the calls on it before this chain.
        let mut before: Vec<Vec<String>> = Vec::new();
        let mut receiver = &*call.receiver;
        let mut innermost = call.method.span().start();
        let mut binding: Option<String> = None;
        let new = loop {
            match receiver {
                Expr::MethodCall(m) => {
                    before.push(words(self, m).unwrap_or_default());
                    innermost = m.method.span().start();
                    receiver = &m.receiver;
                }
                Expr::Call(new) => break new,
                Expr::Path(p) if binding.is_none() && p.path.segments.len() == 1 => {
                    let var = p.path.segments[0].ident.to_string();
                    let Some(f) = self.functions.last() else {
                        return;
                    };
                    let Some(expr) = f.bindings.get(&var) else {
                        return;
                    };
                    let at = (innermost.line, innermost.column);
                    let mut earlier: Vec<&VarArg> = f
                        .var_args
                        .iter()
                        .filter(|a| a.var == var && a.at < at)
                        .collect();
                    earlier.sort_by_key(|a| a.at);
                    for a in earlier.into_iter().rev() {
                        before.push(words(self, &a.call).unwrap_or_default());
                    }
                    receiver = expr;
                    binding = Some(var);
                }
                _ => return,
            }
        };
        let new = new.clone();
        let callee = self.unalias(&path_text(&new.func));
        let is_spawn = self
            .rules
            .rust
            .spawn
            .iter()
            .any(|s| callee == *s || callee.ends_with(&format!("::{s}")));
        let Some(wrapper) = new.args.first().and_then(|a| self.program(a, 0)) else {
            return;
        };
        if !is_spawn || self.rules.agent(&wrapper).is_some() {
            return;
        }
        let mut argv = vec![wrapper];
        argv.extend(before.into_iter().rev().flatten());
        // The agent is found by this call, not before it (a chain reports once): the
        // words before it alone run none, whether a wrapper still waits for its command
        // (`timeout` before the `--foreground` this call adds) or a runner its package.
        let agent_of = |argv: &[String]| {
            super::syntax::agent_through(argv, self.rules, super::syntax::command_agent)
        };
        if agent_of(&argv).is_some() {
            return;
        }
        argv.extend(last);
        let Some((agent, through)) = agent_of(&argv) else {
            return;
        };
        // A bound command is judged from its `let`, so its variable's statements count.
        let needle = match binding {
            Some(_) => new.to_token_stream().to_string(),
            None => call.to_token_stream().to_string(),
        };
        let statement = statement_of(&self.functions, &needle);
        self.report(new.func.span(), &agent, &callee, &statement, through);
    }

    /// A path with its first segment renamed back (`Cmd::new` -> `Command::new`).
    fn unalias(&self, path: &str) -> String {
        let (first, rest) = path.split_once("::").unwrap_or((path, ""));
        match self.aliases.get(first) {
            Some(real) if rest.is_empty() => real.clone(),
            Some(real) => format!("{real}::{rest}"),
            None => path.to_string(),
        }
    }
}

/// `use a::b::C as D;` (also inside groups) -> `D` maps to `C`.
fn collect_renames(tree: &syn::UseTree, out: &mut HashMap<String, String>) {
    match tree {
        syn::UseTree::Path(p) => collect_renames(&p.tree, out),
        syn::UseTree::Rename(r) => {
            out.insert(r.rename.to_string(), r.ident.to_string());
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                collect_renames(t, out);
            }
        }
        _ => {}
    }
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        self.owners.push(Some(self_type(item)));
        syn::visit::visit_item_impl(self, item);
        self.owners.pop();
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.enter(item.sig.ident.to_string(), &item.sig, &item.block);
        syn::visit::visit_item_fn(self, item);
        self.functions.pop();
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.enter(item.sig.ident.to_string(), &item.sig, &item.block);
        syn::visit::visit_impl_item_fn(self, item);
        self.functions.pop();
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.enter(item.sig.ident.to_string(), &item.sig, block);
            syn::visit::visit_trait_item_fn(self, item);
            self.functions.pop();
        }
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        let callee = self.unalias(&path_text(&call.func));
        let is_spawn = self
            .rules
            .rust
            .spawn
            .iter()
            .any(|s| callee == *s || callee.ends_with(&format!("::{s}")));
        if is_spawn && let Some((program, through)) = self.argv_agent(&call.args) {
            let needle = call.to_token_stream().to_string();
            let statement = statement_of(&self.functions, &needle);
            self.report(call.func.span(), &program, &callee, &statement, through);
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.shell_script(call);
        self.argv_wrapper(call);
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::");
        if self.rules.rust.macros.contains(&name)
            && let Ok(args) = mac.parse_body_with(
                syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
            )
            && let Some((program, through)) = self.argv_agent(&args)
        {
            let needle = mac.to_token_stream().to_string();
            let statement = statement_of(&self.functions, &needle);
            self.report(
                mac.path.span(),
                &program,
                &format!("{name}!"),
                &statement,
                through,
            );
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// The statics of a `lazy_static! { static ref CLAUDE: String = "claude".to_string(); }`
/// by name, with the value each is initialised with (read from the macro's tokens).
fn lazy_static_values(mac: &syn::Macro) -> Vec<(String, Expr)> {
    if mac
        .path
        .segments
        .last()
        .is_none_or(|s| s.ident != "lazy_static")
    {
        return Vec::new();
    }
    let text = mac.tokens.to_string();
    text.split("static ref ")
        .skip(1)
        .filter_map(|declaration| {
            let (name, rest) = declaration.split_once(':')?;
            let name = name.trim();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let (_, value) = rest.split_once('=')?;
            let value = &value[..value.rfind(';')?];
            let value = syn::parse_str::<Expr>(value).ok()?;
            Some((name.to_string(), value))
        })
        .collect()
}

/// A `format!` template with its placeholders filled (`format!("cd /repo && {} -p hi",
/// AGENT)`, `{AGENT}` captured inline, `{0}`, `{bin}` with `bin = X`, a spec after `:`
/// dropped), each value read by `value`; `{{`/`}}` are the braces they escape, and a
/// placeholder whose value is out of reach stays as written, a word that is no agent.
fn filled_template(
    template: &str,
    args: &[Expr],
    value: &dyn Fn(&Expr) -> Option<String>,
) -> String {
    let positional: Vec<&Expr> = args
        .iter()
        .filter(|a| !matches!(a, Expr::Assign(_)))
        .collect();
    let named = |field: &str| {
        args.iter().find_map(|a| match a {
            Expr::Assign(x) if x.left.to_token_stream().to_string() == field => {
                Some((*x.right).clone())
            }
            _ => None,
        })
    };
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
        let field = tail[1..end].split(':').next().unwrap_or("").trim();
        let expr = if field.is_empty() {
            next += 1;
            positional.get(next - 1).map(|e| (*e).clone())
        } else if let Ok(index) = field.parse::<usize>() {
            positional.get(index).map(|e| (*e).clone())
        } else {
            named(field).or_else(|| syn::parse_str::<Expr>(field).ok())
        };
        match expr.as_ref().and_then(value) {
            Some(filled) => out.push_str(&filled),
            None => out.push_str(&tail[..=end]),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The file's functions taking a command (`mut cmd: Command`, `cmd: &mut Command`) that
/// give that parameter a group of its own: `.process_group(0)` on it, or `setpgid` or
/// `setsid` in its `pre_exec` (`fn spawn_with_pgid(mut cmd: Command)`). A command passed
/// to one has the group half ([`Visitor::grouped_by_helper`]); the wrappers' groups
/// (`group_spawn`) are left out, their kills differ.
fn group_helpers(file: &syn::File, rules: &Rules) -> Vec<String> {
    struct Collect<'r> {
        rules: &'r Rules,
        out: Vec<String>,
    }
    impl Collect<'_> {
        fn function(&mut self, sig: &syn::Signature, block: &syn::Block) {
            let rust = &self.rules.rust;
            let params: Vec<String> = sig
                .inputs
                .iter()
                .filter_map(|input| match input {
                    syn::FnArg::Typed(t)
                        if t.ty.to_token_stream().to_string().ends_with("Command") =>
                    {
                        match strip_type(&t.pat) {
                            syn::Pat::Ident(id) => Some(id.ident.to_string()),
                            _ => None,
                        }
                    }
                    _ => None,
                })
                .collect();
            if params.is_empty() {
                return;
            }
            let mut bindings = HashMap::new();
            let mut statements = Vec::new();
            collect_block(block, &mut bindings, &mut statements);
            let groups = statements.iter().any(|s| {
                let code = without_strings(s);
                params.iter().any(|p| mentions(&code, p))
                    && rust
                        .cleanup
                        .iter()
                        .filter(|c| !rust.wrappers.contains(c))
                        .any(|c| cleanup_word(&code, c))
            });
            if groups {
                self.out.push(sig.ident.to_string());
            }
        }
    }
    impl<'ast> Visit<'ast> for Collect<'_> {
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            self.function(&item.sig, &item.block);
            syn::visit::visit_item_fn(self, item);
        }
        fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
            self.function(&item.sig, &item.block);
            syn::visit::visit_impl_item_fn(self, item);
        }
    }
    let mut collect = Collect {
        rules,
        out: Vec::new(),
    };
    collect.visit_file(file);
    collect.out.sort();
    collect.out.dedup();
    collect.out
}

impl Visitor<'_> {
    /// Is the command passed to one of the file's [`group_helpers`]: the variable holding
    /// it (`spawn_with_pgid(cmd)`, `set_group(&mut cmd)`), or the spawn itself in the
    /// helper's arguments (`spawn_with_pgid(Command::new("claude"))`)?
    fn grouped_by_helper(&self, statement: &str, variable: Option<&str>) -> bool {
        // The argument lists of each helper call in `s`, parentheses balanced.
        let passes = |s: &str, given: &dyn Fn(&str) -> bool| {
            self.group_helpers.iter().any(|h| {
                let mut rest = s;
                while let Some(at) = word_at(rest, h) {
                    rest = &rest[at + h.len()..];
                    let Some(args) = rest.trim_start().strip_prefix('(') else {
                        continue;
                    };
                    let mut depth = 1usize;
                    let end = args
                        .char_indices()
                        .find(|&(_, c)| {
                            match c {
                                '(' => depth += 1,
                                ')' => depth -= 1,
                                _ => {}
                            }
                            depth == 0
                        })
                        .map_or(args.len(), |(i, _)| i);
                    if given(&args[..end]) {
                        return true;
                    }
                }
                false
            })
        };
        let code = without_strings(statement);
        if passes(&code, &|args| args.contains("Command :: new")) {
            return true;
        }
        let Some(var) = variable else {
            return false;
        };
        let Some(f) = self.functions.last() else {
            return false;
        };
        f.statements
            .iter()
            .any(|s| passes(&without_strings(s), &|args| mentions(args, var)))
    }
}

/// Does `text` hold the cleanup evidence `keyword` where a name starts (`. process_group
/// (0)`, `libc :: setsid ()`), not inside a longer name: a kill helper called
/// `kill_process_group(&child)` makes no group.
fn cleanup_word(text: &str, keyword: &str) -> bool {
    let name = |c: char| c.is_alphanumeric() || c == '_';
    let starts_name = keyword.starts_with(name);
    text.match_indices(keyword)
        .any(|(at, _)| !starts_name || !text[..at].ends_with(name))
}
