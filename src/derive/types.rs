//! The CWL type layer shared by both renderers: Salad's type DSL (`T[]`, `T?`), union
//! flattening, `SchemaDefRequirement` definitions (with `$import`) and named-type lookup.
use crate::base::Code;
use serde_json::{Map, Value};

use super::resolve::{Loader, Source, Unresolved};
use super::{PathSeg, Problem};

/// Deepest nesting of types followed before giving up.
pub const MAX_DEPTH: usize = 64;
/// Most schema nodes one parameter list may produce (named types expand inline, so a DAG of
/// names can blow up exponentially).
pub const MAX_NODES: usize = 200_000;

/// A named type from a `SchemaDefRequirement`.
#[derive(Debug)]
pub struct TypeDef {
    pub source: Source,
    /// The fragment of its name (`Node`, `types/Node`), without a leading `#`.
    pub fragment: String,
    /// The mapping that defines it.
    pub value: Value,
    /// Where it is written (its name is an identifier relative to this).
    pub scope: Base,
}

impl TypeDef {
    /// The name's last segment (after the last `/` or `#`).
    pub fn local(&self) -> &str {
        local_name(&self.fragment)
    }
}

/// Where a reference is written, as the Salad loaders of cwl-utils see it: the source file and
/// the fragment of the nearest enclosing object with an identifier (`main/m` for input `m`
/// of process `main`, `main/Pair/left` for field `left` of type `main/Pair`). `frag: None`
/// stands for an anonymous record, whose generated `_:` identifier no name can reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    pub source: Source,
    pub frag: Option<String>,
}

impl Base {
    /// The identifier `name` gets when written here (Salad `scoped_id`): appended to the
    /// fragment, unless absolute.
    pub fn child(&self, env: &TypeEnv, name: &str) -> Base {
        if name.contains("://") || name.starts_with('#') || name.contains('#') {
            let (source, frag) = env.parse_ref(name, &self.source);
            return Base {
                source,
                frag: Some(frag),
            };
        }
        Base {
            source: self.source.clone(),
            frag: self.frag.as_ref().map(|f| {
                if f.is_empty() {
                    name.to_string()
                } else {
                    format!("{f}/{name}")
                }
            }),
        }
    }
}

/// The text after the last `/` or `#`.
pub fn local_name(s: &str) -> &str {
    // Bytes, not chars: both are ASCII, so the cut is at a character boundary (a search by
    // char decoded every id, 2,800 of them per keystroke in a 50,000-line tool).
    let cut = memchr::memrchr2(b'/', b'#', s.as_bytes()).map_or(0, |i| i + 1);
    &s[cut..]
}

/// Why rendering a type was abandoned.
#[derive(Debug, Clone)]
pub enum Abort {
    /// A named type contains itself (cwl2ogc raises `RecursionError`).
    Recursive(String),
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
    /// More than [`MAX_NODES`] schema nodes.
    TooLarge,
}

/// Named types and reference resolution for one process.
pub struct TypeEnv<'a> {
    pub loader: &'a Loader,
    /// The whole document, for same-document `$import: "#fragment"` targets.
    pub document: Option<&'a Value>,
    pub namespaces: &'a Map<String, Value>,
    pub defs: Vec<TypeDef>,
    /// The process fragment (`main`), used to match scoped names such as `main/Foo`.
    pub scope: Option<String>,
    /// What identifies the process's surroundings (everything outside its parameters that
    /// rendering reads: the settings and [`TypeEnv::identity`]) when its parameters' schemas
    /// are memoized ([`ParamMemo`]); `None`: nothing memoized.
    pub memo_env: Option<String>,
    /// What holds the memoized parameters' memos (the section they are the entries of), so
    /// that a renderer's next pass can recognise them by address ([`Run`]).
    pub memo_holder: Option<Holder>,
}

/// What holds a list of parameter memos alive: while it is, no two of them share an address
/// with any other live memo.
pub type Holder = std::sync::Weak<dyn std::any::Any + Send + Sync>;

/// A short name for each memo environment seen ([`TypeEnv::memo_env_of`]): the memo keys of
/// 2,800 parameters per keystroke start with it, so it is kept short.
static SEEN: std::sync::Mutex<(u64, Vec<(String, u64)>)> = std::sync::Mutex::new((0, Vec::new()));

impl<'a> TypeEnv<'a> {
    /// Collects the `SchemaDefRequirement` types of `process` (`requirements` only, or also
    /// `hints` when `with_hints`). Unresolved `$import`s become problems.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        loader: &'a Loader,
        document: Option<&'a Value>,
        namespaces: &'a Map<String, Value>,
        process: &Value,
        scope: Option<String>,
        with_hints: bool,
        problems: &mut Vec<Problem>,
        blocking_unresolved: bool,
    ) -> TypeEnv<'a> {
        let mut env = TypeEnv {
            loader,
            document,
            namespaces,
            defs: Vec::new(),
            scope,
            memo_env: None,
            memo_holder: None,
        };
        let doc = loader.document_source();
        let mut sections = vec!["requirements"];
        if with_hints {
            sections.push("hints");
        }
        for section in sections {
            let Some(value) = process.get(section) else {
                continue;
            };
            let path = vec![PathSeg::Key(section.into())];
            let mut found = Vec::new();
            env.requirement_entries(
                value,
                &doc,
                path,
                0,
                &mut found,
                problems,
                blocking_unresolved,
            );
            for (path, req, source) in found {
                let Some(types) = req.get("types") else {
                    continue;
                };
                let mut p = path;
                p.push(PathSeg::Key("types".into()));
                // Names written in the process itself are scoped by its fragment; names in
                // imported files by nothing.
                let scope = if source == doc {
                    env.scope.clone().unwrap_or_default()
                } else {
                    String::new()
                };
                let base = Base {
                    source,
                    frag: Some(scope),
                };
                env.collect(types, &base, p, 0, problems, blocking_unresolved);
            }
        }
        env
    }

    /// Everything of this environment that rendering a parameter's schema reads, written out:
    /// where the loader reads from, the scope, the namespaces and every type definition. The
    /// whole document (`document`) is read only to follow a `$import`, and schemas are not
    /// memoized for documents with any (`model::split`). A field added to `TypeEnv` that
    /// rendering reads belongs here.
    pub fn identity(&self) -> String {
        use std::fmt::Write;
        let mut out = format!("{}|{:?}|", self.loader.whereabouts(), self.scope);
        out.push_str(&serde_json::to_string(self.namespaces).unwrap_or_default());
        for def in &self.defs {
            let _ = write!(out, "|{:?}|{}|{:?}|", def.source, def.fragment, def.scope);
            out.push_str(&serde_json::to_string(&def.value).unwrap_or_default());
        }
        out
    }

    /// The memo environment of schemas rendered here under `settings` (the settings as text):
    /// a short name for them and [`TypeEnv::identity`], the same for the same pair.
    pub fn memo_env_of(&self, settings: &str) -> String {
        let whole = format!("{settings}\u{0}{}", self.identity());
        let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = seen.1.iter().position(|(w, _)| *w == whole) {
            let entry = seen.1.remove(i);
            let id = entry.1;
            seen.1.insert(0, entry);
            return id.to_string();
        }
        seen.0 += 1;
        let id = seen.0;
        seen.1.insert(0, (whole, id));
        seen.1.truncate(8);
        id.to_string()
    }

    /// The `SchemaDefRequirement` entries of a `requirements`/`hints` value in list or map
    /// form, following `$import`s of the whole section or of list items.
    #[allow(clippy::too_many_arguments)]
    fn requirement_entries(
        &self,
        value: &Value,
        from: &Source,
        path: Vec<PathSeg>,
        depth: usize,
        out: &mut Vec<(Vec<PathSeg>, Value, Source)>,
        problems: &mut Vec<Problem>,
        blocking: bool,
    ) {
        if depth > 4 {
            return;
        }
        const CLASS: &str = "SchemaDefRequirement";
        match value {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(PathSeg::Index(i));
                    if item.get("$import").is_some() {
                        self.requirement_entries(item, from, p, depth + 1, out, problems, blocking);
                    } else if item.get("class").and_then(Value::as_str) == Some(CLASS) {
                        out.push((p, item.clone(), from.clone()));
                    }
                }
            }
            Value::Object(m) => {
                if let Some(Value::String(target)) = m.get("$import") {
                    match self.load_target(target, from) {
                        Ok((v, src)) => {
                            // An imported file holds one requirement, a list or a map of them.
                            if v.get("class").and_then(Value::as_str) == Some(CLASS) {
                                out.push((path, v, src));
                            } else {
                                self.requirement_entries(
                                    &v,
                                    &src,
                                    path,
                                    depth + 1,
                                    out,
                                    problems,
                                    blocking,
                                );
                            }
                        }
                        Err(e) => {
                            let mut p = path;
                            p.push(PathSeg::Key("$import".into()));
                            problems.push(unresolved_problem(&e, p, blocking));
                        }
                    }
                } else if let Some(req) = m.get(CLASS) {
                    let mut p = path;
                    p.push(PathSeg::Key(CLASS.into()));
                    out.push((p, req.clone(), from.clone()));
                }
            }
            _ => {}
        }
    }

    fn collect(
        &mut self,
        types: &Value,
        base: &Base,
        path: Vec<PathSeg>,
        depth: usize,
        problems: &mut Vec<Problem>,
        blocking: bool,
    ) {
        if depth > 8 {
            return;
        }
        match types {
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(PathSeg::Index(i));
                    self.collect(item, base, p, depth + 1, problems, blocking);
                }
            }
            Value::Object(m) => {
                if let Some(Value::String(target)) = m.get("$import") {
                    match self.load_target(target, &base.source) {
                        Ok((v, src)) => {
                            let inner = if src == base.source {
                                base.clone()
                            } else {
                                Base {
                                    source: src,
                                    frag: Some(String::new()),
                                }
                            };
                            self.collect(&v, &inner, path, depth + 1, problems, blocking)
                        }
                        Err(e) => {
                            let mut p = path;
                            p.push(PathSeg::Key("$import".into()));
                            problems.push(unresolved_problem(&e, p, blocking));
                        }
                    }
                    return;
                }
                if let Some(Value::String(name)) = m.get("name") {
                    let id = base.child(self, name);
                    self.defs.push(TypeDef {
                        source: id.source,
                        fragment: id.frag.unwrap_or_default(),
                        value: types.clone(),
                        scope: base.clone(),
                    });
                }
            }
            _ => {}
        }
    }

    /// Splits a reference into the source it names and its fragment, as Salad would expand it.
    pub fn parse_ref(&self, reference: &str, from: &Source) -> (Source, String) {
        let expanded;
        let mut r = reference;
        if !r.contains("://")
            && let Some((prefix, rest)) = r.split_once(':')
            && let Some(Value::String(ns)) = self.namespaces.get(prefix)
        {
            expanded = format!("{ns}{rest}");
            r = &expanded;
        }
        if let Some(frag) = r.strip_prefix('#') {
            return (from.clone(), frag.to_string());
        }
        match r.split_once('#') {
            Some((base, frag)) => (self.loader.locate(base, from), frag.to_string()),
            None if r.contains("://") => (self.loader.locate(r, from), String::new()),
            None => (from.clone(), r.to_string()),
        }
    }

    /// Finds the definition a type name refers to.
    pub fn lookup(&self, reference: &str, from: &Source) -> Option<usize> {
        let (source, fragment) = self.parse_ref(reference, from);
        let same: Vec<usize> = (0..self.defs.len())
            .filter(|&i| self.defs[i].source == source)
            .collect();
        if let Some(&i) = same.iter().find(|&&i| self.defs[i].fragment == fragment) {
            return Some(i);
        }
        let unscoped = self.unscope(&fragment);
        if let Some(&i) = same
            .iter()
            .find(|&&i| self.unscope(&self.defs[i].fragment) == unscoped)
        {
            return Some(i);
        }
        same.into_iter()
            .find(|&i| self.defs[i].local() == local_name(&fragment) && !fragment.is_empty())
    }

    /// Finds the definition a type name refers to exactly as cwl-utils resolves it (what
    /// cwl2mcp 0.1.0 sees): a relative name drops the last two segments of the base fragment
    /// (`refScope: 2`) and is appended to the rest, with no search up the scopes; the result
    /// must equal a definition's full name.
    pub fn lookup_exact(&self, reference: &str, base: &Base) -> Option<usize> {
        let (source, fragment) = self.resolve_exact(reference, base)?;
        (0..self.defs.len())
            .find(|&i| self.defs[i].source == source && self.defs[i].fragment == fragment)
    }

    fn resolve_exact(&self, reference: &str, base: &Base) -> Option<(Source, String)> {
        let absolute = reference.contains("://")
            || reference.contains('#')
            || reference
                .split_once(':')
                .is_some_and(|(p, _)| self.namespaces.contains_key(p));
        if absolute {
            return Some(self.parse_ref(reference, &base.source));
        }
        let frag = base.frag.as_ref()?;
        let mut segs: Vec<&str> = frag.split('/').filter(|s| !s.is_empty()).collect();
        for _ in 0..2 {
            segs.pop();
        }
        segs.push(reference);
        Some((base.source.clone(), segs.join("/")))
    }

    fn unscope<'s>(&self, fragment: &'s str) -> &'s str {
        match &self.scope {
            Some(scope) => fragment
                .strip_prefix(scope.as_str())
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or(fragment),
            None => fragment,
        }
    }

    /// Replaces a `{$import: ...}` type by the document it names.
    pub fn deref_import(
        &self,
        value: &Value,
        from: &Source,
    ) -> Option<Result<(Value, Source), Unresolved>> {
        let target = value.as_object()?.get("$import")?.as_str()?;
        Some(self.load_target(target, from))
    }

    /// Loads an `$import` target: a file or URL, optionally with a `#fragment` naming a node
    /// (by `id` or `name`) inside it; `#fragment` alone names a node of this document.
    pub fn load_target(&self, target: &str, from: &Source) -> Result<(Value, Source), Unresolved> {
        let (base, frag) = match target.split_once('#') {
            Some((b, f)) => (b, f),
            None => (target, ""),
        };
        let src = if base.is_empty() {
            from.clone()
        } else {
            self.loader.locate(base, from)
        };
        let in_memory = match self.document {
            Some(doc) if src == self.loader.document_source() => Some(doc),
            _ => None,
        };
        let loaded;
        let whole = match in_memory {
            Some(doc) => doc,
            None => {
                loaded = self.loader.load(&src)?;
                &loaded
            }
        };
        if frag.is_empty() {
            return Ok((whole.clone(), src));
        }
        find_by_id(whole, frag, 0)
            .map(|v| (v.clone(), src))
            .ok_or_else(|| {
                Unresolved::Unreadable(target.to_string(), "no node with that id".into())
            })
    }
}

/// Whether `value` nests more than `limit` levels of lists and mappings (bounded recursion).
pub fn nesting_exceeds(value: &Value, limit: usize) -> bool {
    match value {
        Value::Array(items) => limit == 0 || items.iter().any(|v| nesting_exceeds(v, limit - 1)),
        Value::Object(m) => limit == 0 || m.values().any(|v| nesting_exceeds(v, limit - 1)),
        _ => false,
    }
}

/// Deepest nesting of a process value the engine accepts (keeps every later clone and
/// drop of its parts shallow).
pub const MAX_VALUE_NESTING: usize = 256;

/// The first mapping whose `id` or `name` is `fragment` (with or without a leading `#` or a
/// base before it).
pub fn find_by_id<'v>(value: &'v Value, fragment: &str, depth: usize) -> Option<&'v Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Object(m) => {
            for key in ["id", "name"] {
                if let Some(Value::String(s)) = m.get(key) {
                    let f = s.rsplit_once('#').map(|(_, f)| f).unwrap_or(s);
                    if f == fragment {
                        return Some(value);
                    }
                }
            }
            m.values().find_map(|v| find_by_id(v, fragment, depth + 1))
        }
        Value::Array(items) => items
            .iter()
            .find_map(|v| find_by_id(v, fragment, depth + 1)),
        _ => None,
    }
}

/// Applies Salad's type DSL to a `type` value: `T[]` → array, `T?` → `["null", T]`; a list is
/// flattened one level and de-duplicated, as schema-salad does.
pub fn normalize_type(value: &Value) -> Value {
    match value {
        Value::String(s) => type_dsl(s),
        Value::Array(items) => {
            let mut out: Vec<Value> = Vec::new();
            for item in items {
                let item = match item {
                    Value::String(s) => type_dsl(s),
                    other => other.clone(),
                };
                match item {
                    Value::Array(inner) => {
                        for v in inner {
                            if !out.contains(&v) {
                                out.push(v);
                            }
                        }
                    }
                    v => {
                        if !out.contains(&v) {
                            out.push(v);
                        }
                    }
                }
            }
            Value::Array(out)
        }
        other => other.clone(),
    }
}

/// `^([^[?]+)(\[\])?(\?)?$`
fn type_dsl(s: &str) -> Value {
    let (rest, optional) = match s.strip_suffix('?') {
        Some(r) => (r, true),
        None => (s, false),
    };
    let (base, array) = match rest.strip_suffix("[]") {
        Some(b) => (b, true),
        None => (rest, false),
    };
    if base.is_empty() || base.contains(['[', '?']) {
        return Value::String(s.to_string());
    }
    let mut t = Value::String(base.to_string());
    if array {
        let mut m = Map::new();
        m.insert("type".into(), Value::String("array".into()));
        m.insert("items".into(), t);
        t = Value::Object(m);
    }
    if optional {
        t = Value::Array(vec![Value::String("null".into()), t]);
    }
    t
}

/// Whether a normalized type admits `null` (a list containing `"null"`).
pub fn is_nullable(normalized: &Value) -> bool {
    normalized
        .as_array()
        .is_some_and(|a| a.iter().any(|v| v == "null"))
}

/// Where one parameter's rendered schema is kept across derivations, by everything else the
/// rendering depends on (a key the renderer writes: the process's surroundings, the profile,
/// the parameter's place). The model keeps one per large input, with the input's text: an
/// edit in one input renders that input's schema again, not all of them (issue 14).
pub trait ParamMemo: Send + Sync {
    fn get(&self, key: &str) -> Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>;
    fn put(&self, key: String, value: std::sync::Arc<dyn std::any::Any + Send + Sync>);
    /// The parameter's JSON form, built anew (read through a [`Body::Lazy`]).
    fn body(&self) -> Option<Value>;
}

impl std::fmt::Debug for dyn ParamMemo + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParamMemo")
    }
}

/// The part of a renderer's memo key that names the parameter: its place and id (cheaper
/// than their `Debug` form, which this is read for once per parameter and derivation).
/// It is appended to `out`.
pub fn push_param_key(out: &mut String, p: &Param) {
    out.push('/');
    out.push_str(p.section);
    match p.place {
        Place::Key(k) => {
            out.push('/');
            if k.contains(['~', '/']) {
                out.push_str(&k.replace('~', "~0").replace('/', "~1"));
            } else {
                out.push_str(k);
            }
        }
        Place::Index(i) => {
            out.push_str("/#");
            out.push_str(&i.to_string());
        }
    }
    out.push('|');
    out.push_str(p.id);
}

/// A renderer's last pass over a list of memoized parameters, kept under its memo prefix
/// (the surroundings and the pass, everything but the parameter): for each parameter, its
/// memo's address, id and place, and what was rendered (`T`, by value). The next pass with
/// the same prefix takes each unchanged parameter's output from here, reading only this
/// list, where looking it up in the parameter's own memo reads half a dozen allocations per
/// parameter (2,800 per keystroke in a 50,000-line tool, issue 14). Addresses are compared
/// only while both lists' holders are alive, so the same address is the same memo, hence the
/// same entry text; with the same prefix and place, the same output ([`ParamMemo`]).
struct Run<T> {
    holder: Holder,
    items: Vec<RunItem<T>>,
    /// The parameters' ids one after the other (read beside `items`, not one allocation
    /// each).
    ids: String,
}

struct RunItem<T> {
    memo: usize,
    /// Where its id is in [`Run::ids`].
    id: std::ops::Range<usize>,
    index: Option<usize>,
    /// Taken by the next pass when it reuses it.
    value: Option<T>,
}

impl<T> Run<T> {
    fn push(&mut self, memo: usize, id: &str, index: Option<usize>, value: T) {
        let start = self.ids.len();
        self.ids.push_str(id);
        self.items.push(RunItem {
            memo,
            id: start..self.ids.len(),
            index,
            value: Some(value),
        });
    }
}

/// Where runs are kept: by prefix, each a `Run<T>` of its renderer's `T` with its holder.
pub type RunStore = std::sync::Mutex<Vec<(String, Holder, Box<dyn std::any::Any + Send + Sync>)>>;

/// The runs kept: a few, for the passes of the documents derived last.
static RUNS: RunStore = std::sync::Mutex::new(Vec::new());
const KEPT_RUNS: usize = 4;

fn memo_address(memo: &dyn ParamMemo) -> usize {
    memo as *const dyn ParamMemo as *const () as usize
}

fn index_of(place: Place) -> Option<usize> {
    match place {
        Place::Key(_) => None,
        Place::Index(i) => Some(i),
    }
}

/// One renderer pass's use of runs: the last pass's, while it is read, and this one's.
pub struct Runs<'s, T> {
    store: &'s RunStore,
    prefix: String,
    /// The last pass, and what keeps its memos alive while it is read.
    last: Option<(Run<T>, std::sync::Arc<dyn std::any::Any + Send + Sync>)>,
    /// Where each parameter's memo is in the last pass.
    places: crate::base::InOrder,
    next: Option<Run<T>>,
}

impl<T: Send + Sync + 'static> Runs<'static, T> {
    /// The pass of a renderer whose memo keys start with `prefix` (`None`: not memoized).
    pub fn start(env: &TypeEnv, prefix: Option<&String>, params: usize) -> Runs<'static, T> {
        Runs::start_in(&RUNS, env.memo_holder.as_ref(), prefix, params)
    }
}

impl<'s, T: Send + Sync + 'static> Runs<'s, T> {
    /// [`Runs::start`] with the runs kept in `store`, the parameters' memos held by `holder`.
    pub fn start_in(
        store: &'s RunStore,
        holder: Option<&Holder>,
        prefix: Option<&String>,
        params: usize,
    ) -> Runs<'s, T> {
        let (Some(prefix), Some(holder)) = (prefix, holder) else {
            return Runs {
                store,
                prefix: String::new(),
                last: None,
                places: Default::default(),
                next: None,
            };
        };
        let last = {
            let mut runs = store.lock().unwrap_or_else(|p| p.into_inner());
            runs.iter()
                .position(|(p, _, _)| p == prefix)
                .map(|i| runs.remove(i).2)
        };
        let last = last
            .and_then(|run| run.downcast::<Run<T>>().ok())
            .and_then(|run| {
                let alive = run.holder.upgrade()?;
                Some((*run, alive))
            });
        Runs {
            store,
            prefix: prefix.clone(),
            last,
            places: Default::default(),
            next: Some(Run {
                holder: holder.clone(),
                items: Vec::with_capacity(params),
                ids: String::with_capacity(params * 24),
            }),
        }
    }

    /// What the last pass rendered for `p`, if `p` is the same memo at the same place, taken
    /// from it: give it back with [`Runs::record`] once used.
    pub fn reused(&mut self, p: &Param) -> Option<T> {
        let memo = memo_address(p.memo?);
        let (run, _) = self.last.as_mut()?;
        let at = self.places.find(&run.items, |i| i.memo, memo)?;
        let item = &mut run.items[at];
        if run.ids[item.id.clone()] != *p.id || item.index != index_of(p.place) {
            return None;
        }
        let value = item.value.take()?;
        self.places.matched(at);
        Some(value)
    }

    /// What is kept for `p` under `prefix`: the last pass's output ([`Runs::reused`]), else
    /// the one in its memo, whose key is then left in `key` (to store a rendering under).
    pub fn kept(
        &mut self,
        p: &Param,
        prefix: Option<&String>,
        key: &mut Option<String>,
    ) -> Option<T>
    where
        T: Clone,
    {
        self.reused(p).or_else(|| {
            *key = memo_key(prefix, p);
            memoized::<T>(p, key.as_ref()).map(|m| (*m).clone())
        })
    }

    /// Records what this pass used for `p` (rendered, found in its memo or reused).
    pub fn record(&mut self, p: &Param, value: T) {
        let (Some(next), Some(memo)) = (self.next.as_mut(), p.memo) else {
            return;
        };
        next.push(memo_address(memo), p.id, index_of(p.place), value);
    }

    /// Keeps this pass for the next one (when it went through every parameter).
    pub fn finish(mut self) {
        self.last = None;
        let Some(next) = self.next.take() else {
            return;
        };
        let mut runs = self.store.lock().unwrap_or_else(|p| p.into_inner());
        // A run whose holder is gone can never be read again: dropped, so that runs keep
        // nothing alive that the memos let go (the outputs of a large file the index read).
        runs.retain(|(p, holder, _)| *p != self.prefix && holder.strong_count() > 0);
        let holder = next.holder.clone();
        runs.insert(
            0,
            (std::mem::take(&mut self.prefix), holder, Box::new(next)),
        );
        runs.truncate(KEPT_RUNS);
    }
}

/// The memo key of `p` under a renderer's `prefix` (`None`: not memoized).
pub fn memo_key(prefix: Option<&String>, p: &Param) -> Option<String> {
    prefix.map(|prefix| {
        let mut key = String::with_capacity(prefix.len() + 64);
        key.push_str(prefix);
        push_param_key(&mut key, p);
        key
    })
}

/// A renderer's memoized output for `p` under `key` (its surroundings, see [`ParamMemo`]).
pub fn memoized<T: std::any::Any + Send + Sync>(
    p: &Param,
    key: Option<&String>,
) -> Option<std::sync::Arc<T>> {
    p.memo?.get(key?)?.downcast::<T>().ok()
}

/// Where a parameter is written in its section: under a key (mapping form) or at an index
/// (list form).
#[derive(Clone, Copy, Debug)]
pub enum Place<'v> {
    Key(&'v str),
    Index(usize),
}

/// One CWL parameter (input or output), in either list or map form. Everything is borrowed
/// from the section's value, and its fields are read when asked for: a 50,000-line tool's
/// 2,800 inputs are listed per derivation without a copy, and an input whose schema is
/// memoized is not read at all.
#[derive(Clone, Copy, Debug)]
pub struct Param<'v> {
    /// The id as written (map key, or the `id` field).
    pub id: &'v str,
    /// The entry's value: a mapping of fields, or (map form) the type itself.
    body: Body<'v>,
    /// The section (`inputs`, `outputs`) and the place in it.
    pub section: &'v str,
    pub place: Place<'v>,
    /// Where its rendered schema is kept, when its body is memoized by content.
    pub memo: Option<&'v dyn ParamMemo>,
}

impl<'v> Param<'v> {
    /// Its path in the process value (`inputs`, then its key or index).
    pub fn path(&self) -> Vec<PathSeg> {
        vec![
            PathSeg::Key(self.section.to_string()),
            match self.place {
                Place::Key(k) => PathSeg::Key(k.to_string()),
                Place::Index(i) => PathSeg::Index(i),
            },
        ]
    }

    /// The entry's value, built now if its body is [`Body::Lazy`].
    fn value(&self) -> &'v Value {
        match self.body {
            Body::Given(value) => value,
            Body::Lazy { cell, memo, .. } => {
                cell.get_or_init(|| memo.body().unwrap_or(Value::Null))
            }
        }
    }

    /// Whether its `default` may name a `File` or `Directory` ([`names_a_file`]), known
    /// without building a lazy body.
    pub fn may_default_to_a_file(&self) -> bool {
        match self.body {
            Body::Given(_) => true,
            Body::Lazy { file_default, .. } => file_default,
        }
    }

    /// The type as written (`None` when absent).
    pub fn ty(&self) -> Option<&'v Value> {
        match self.value() {
            Value::Object(m) => m.get("type"),
            other => Some(other),
        }
    }

    fn field(&self, name: &str) -> Option<&'v Value> {
        self.value()
            .as_object()
            .and_then(|m| m.get(name))
            .filter(|v| !v.is_null())
    }

    pub fn label(&self) -> Option<&'v Value> {
        self.field("label")
    }

    pub fn doc(&self) -> Option<&'v Value> {
        self.field("doc")
    }

    pub fn default(&self) -> Option<&'v Value> {
        self.field("default")
    }
}

/// A parameter's value as the renderers read it.
#[derive(Clone, Copy, Debug)]
pub enum Body<'v> {
    /// Read from the section's JSON.
    Given(&'v Value),
    /// Built from its memo when first read (into `cell`, which the caller keeps for the
    /// derivation): a memoized parameter whose schema is kept is never read, so its JSON form
    /// is neither built nor kept (issue 14). `file_default`: whether its `default` may name a
    /// file ([`names_a_file`]), read by every derivation under the `cwl2mcp` profile.
    Lazy {
        cell: &'v std::sync::OnceLock<Value>,
        memo: &'v dyn ParamMemo,
        file_default: bool,
    },
}

/// The locations (`location`, else `path`) of the `File` or `Directory` objects a
/// parameter's `default` names: the default itself or the items of a list.
pub fn file_defaults(default: &Value) -> impl Iterator<Item = &str> {
    let items: &[Value] = match default {
        Value::Array(items) => items,
        other => std::slice::from_ref(other),
    };
    items.iter().filter_map(|c| {
        let m = c.as_object()?;
        if !matches!(
            m.get("class").and_then(Value::as_str),
            Some("File" | "Directory")
        ) {
            return None;
        }
        m.get("location")
            .or_else(|| m.get("path"))
            .and_then(Value::as_str)
    })
}

/// Whether the parameter `body` (its JSON form) has a `default` naming a file
/// ([`file_defaults`]).
pub fn names_a_file(body: &Value) -> bool {
    body.get("default")
        .filter(|d| !d.is_null())
        .is_some_and(|d| file_defaults(d).next().is_some())
}

/// The parameters of `process[section]` in declaration order.
pub fn params_of<'v>(process: &'v Value, section: &'v str) -> Vec<Param<'v>> {
    let entries: Vec<(Listed, Body, Option<&dyn ParamMemo>)> = match process.get(section) {
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| (Listed::Item(item_id(item)), Body::Given(item), None))
            .collect(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(key, value)| (Listed::Key(key.as_str()), Body::Given(value), None))
            .collect(),
        _ => Vec::new(),
    };
    params_of_entries(&entries, section)
}

/// How a section lists one of its entries: under its key in a mapping, or as an item of a
/// list, with the item's `id` ([`item_id`]; an item without one is no parameter).
#[derive(Clone, Copy, Debug)]
pub enum Listed<'v> {
    Key(&'v str),
    Item(Option<&'v str>),
}

/// The `id` of a list's item: its field `id`, when it is a string.
pub fn item_id(item: &Value) -> Option<&str> {
    item.as_object()?.get("id")?.as_str()
}

/// The parameters of a section given entry by entry (each with where its schema is kept), as
/// `params_of` reads them from the section's JSON. A caller that keeps each item's id
/// ([`item_id`]) passes it: a 50,000-line tool's 2,800 list items are listed on every
/// keystroke, and looking `id` up in each item's JSON was a tenth of the server's time.
pub fn params_of_entries<'v>(
    entries: &[(Listed<'v>, Body<'v>, Option<&'v dyn ParamMemo>)],
    section: &'v str,
) -> Vec<Param<'v>> {
    let mut out = Vec::with_capacity(entries.len());
    for (i, (listed, value, memo)) in entries.iter().enumerate() {
        let (id, place) = match *listed {
            Listed::Item(Some(id)) => (id, Place::Index(i)),
            Listed::Item(None) => continue,
            Listed::Key(key) => (key, Place::Key(key)),
        };
        out.push(Param {
            id,
            body: *value,
            section,
            place,
            memo: *memo,
        });
    }
    out
}

/// Record fields in declaration order: `(name, type, label, doc)`.
pub fn fields_of(
    record: &Map<String, Value>,
) -> Vec<(String, Value, Option<&Value>, Option<&Value>)> {
    let mut out = Vec::new();
    match record.get("fields") {
        Some(Value::Array(items)) => {
            for item in items {
                let Some(m) = item.as_object() else { continue };
                let Some(name) = m.get("name").and_then(Value::as_str) else {
                    continue;
                };
                out.push((
                    name.to_string(),
                    m.get("type").cloned().unwrap_or(Value::Null),
                    m.get("label").filter(|v| !v.is_null()),
                    m.get("doc").filter(|v| !v.is_null()),
                ));
            }
        }
        Some(Value::Object(fields)) => {
            for (name, v) in fields {
                match v {
                    Value::Object(m) if m.contains_key("type") => out.push((
                        name.clone(),
                        m.get("type").cloned().unwrap_or(Value::Null),
                        m.get("label").filter(|v| !v.is_null()),
                        m.get("doc").filter(|v| !v.is_null()),
                    )),
                    other => out.push((name.clone(), other.clone(), None, None)),
                }
            }
        }
        _ => {}
    }
    out
}

/// The problem reported for an unresolved `$import` / `$include`.
pub fn unresolved_problem(e: &Unresolved, path: Vec<PathSeg>, blocking: bool) -> Problem {
    Problem {
        code: Code::UnresolvedReference,
        message: format!("unresolved reference: {e}"),
        path,
        blocking,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn type_dsl_follows_salad() {
        assert_eq!(normalize_type(&json!("string")), json!("string"));
        assert_eq!(normalize_type(&json!("int?")), json!(["null", "int"]));
        assert_eq!(
            normalize_type(&json!("File[]?")),
            json!(["null", {"type": "array", "items": "File"}])
        );
        assert_eq!(normalize_type(&json!("File?[]")), json!("File?[]"));
        assert_eq!(
            normalize_type(&json!(["File?", "null", "string"])),
            json!(["null", "File", "string"])
        );
    }

    /// A parameter memo that keeps nothing (runs are what is tested).
    struct NoMemo(#[allow(dead_code)] u8);
    impl ParamMemo for NoMemo {
        fn get(&self, _: &str) -> Option<std::sync::Arc<dyn std::any::Any + Send + Sync>> {
            None
        }
        fn put(&self, _: String, _: std::sync::Arc<dyn std::any::Any + Send + Sync>) {}
        fn body(&self) -> Option<Value> {
            None
        }
    }

    /// One pass over `(id, memo)` parameters (map form): what it reused for each, and each
    /// recorded as `value`.
    fn pass(
        store: &RunStore,
        holder: &std::sync::Arc<dyn std::any::Any + Send + Sync>,
        prefix: &str,
        params: &[(&str, &NoMemo)],
        value: u32,
    ) -> Vec<Option<u32>> {
        let body = json!({});
        let params: Vec<Param> = params
            .iter()
            .map(|(id, memo)| Param {
                id,
                body: Body::Given(&body),
                section: "inputs",
                place: Place::Key(id),
                memo: Some(*memo as &dyn ParamMemo),
            })
            .collect();
        let weak = std::sync::Arc::downgrade(holder);
        let prefix = prefix.to_string();
        let mut runs = Runs::<u32>::start_in(store, Some(&weak), Some(&prefix), params.len());
        let mut out = Vec::new();
        for p in &params {
            let reused = runs.reused(p);
            out.push(reused);
            runs.record(p, reused.unwrap_or(value));
        }
        runs.finish();
        out
    }

    #[test]
    fn a_run_gives_back_what_the_same_memo_at_the_same_place_had() {
        type Held = std::sync::Arc<dyn std::any::Any + Send + Sync>;
        let store = std::sync::Mutex::new(Vec::new());
        let memos: Vec<std::sync::Arc<NoMemo>> =
            (0..4).map(|i| std::sync::Arc::new(NoMemo(i))).collect();
        let (a, b, c, d) = (&*memos[0], &*memos[1], &*memos[2], &*memos[3]);
        let holder: Held = std::sync::Arc::new(memos.clone());
        assert_eq!(
            pass(&store, &holder, "p", &[("a", a), ("b", b), ("c", c)], 1),
            [None, None, None]
        );
        assert_eq!(
            pass(&store, &holder, "p", &[("a", a), ("b", b), ("c", c)], 2),
            [Some(1), Some(1), Some(1)]
        );
        // An entry inserted, one changed (a new memo), the others found past them.
        assert_eq!(
            pass(
                &store,
                &holder,
                "p",
                &[("a", a), ("x", d), ("b", b), ("c", d)],
                3
            ),
            [Some(1), None, Some(1), None]
        );
        // The same memo under another id is another parameter.
        assert_eq!(
            pass(&store, &holder, "p", &[("b", a), ("a", b)], 4),
            [None, None]
        );
        // Another prefix (surroundings, pass) has runs of its own.
        assert_eq!(pass(&store, &holder, "q", &[("b", a)], 5), [None]);
        assert_eq!(pass(&store, &holder, "p", &[("b", a)], 6), [Some(4)]);
        // Once what held the last pass's memos is gone, nothing is taken from it.
        let other: Held = std::sync::Arc::new(memos.clone());
        drop(holder);
        assert_eq!(pass(&store, &other, "p", &[("b", a)], 7), [None]);
        assert_eq!(pass(&store, &other, "p", &[("b", a)], 8), [Some(7)]);
        // ... and the runs it held are dropped (`q`'s with it).
        let prefixes: Vec<String> = store.lock().unwrap().iter().map(|r| r.0.clone()).collect();
        assert_eq!(prefixes, ["p"]);
    }

    #[test]
    fn local_name_cuts_at_slash_or_hash() {
        assert_eq!(local_name("a/b#c"), "c");
        assert_eq!(local_name("types/Node"), "Node");
        assert_eq!(local_name("plain"), "plain");
    }
}
