//! Whole-document requests, as `derive` (SPEC §1) and the "Preview derived MCP Tool" command
//! (SPEC §6) make them: which processes a request names, and the JSON value to print.
use serde_json::{Map, Value};

use crate::analysis::DocumentContext;
use crate::cwl::{CwlView, Process};
use crate::document::yaml::YamlDoc;

use super::view::{Location, derive_process};
use super::{Derivation, DeriveOptions, Problem};

/// Which Tools a request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request<'r> {
    /// `FILE`: a plain document's root process (one Tool); every `$graph` process of a
    /// `$graph` document (`{ID: Tool}`).
    Default,
    /// `FILE#ID`: one process, by its key (`main`, `main/s1/run`) or its id as written.
    Id(&'r str),
    /// `--all`: every process, inline `run:` processes included (`{ID: Tool}`), the shape of
    /// the exporter's whole-document export.
    All,
}

/// Why a request gives no value.
#[derive(Clone, Debug, PartialEq)]
pub enum RequestError {
    /// The document holds no process (not CWL, or not parsed).
    NoProcess,
    /// No process has that id.
    UnknownId(String),
    /// Some requested Tools are refused: each with its blocking problems.
    Refused(Vec<(String, Vec<Problem>)>),
}

impl std::fmt::Display for RequestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestError::NoProcess => write!(f, "the document holds no CWL process"),
            RequestError::UnknownId(id) => write!(f, "no process has the id `{id}`"),
            RequestError::Refused(list) => {
                let mut first = true;
                for (key, problems) in list {
                    for p in problems {
                        if !first {
                            writeln!(f)?;
                        }
                        first = false;
                        write!(f, "{key}: {} [{}]", p.message, p.code)?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// The requested processes of a document, each with its key and derivation.
pub struct DocumentDerivation {
    /// `true` when the answer is a single Tool rather than a `{key: Tool}` map.
    pub single: bool,
    pub tools: Vec<(String, Derivation)>,
}

impl DocumentDerivation {
    /// The value `derive` prints (a Tool, or `{key: Tool}`), or why there is none.
    pub fn value(&self) -> Result<Value, RequestError> {
        let refused: Vec<(String, Vec<Problem>)> = self
            .tools
            .iter()
            .filter(|(_, d)| d.is_refused())
            .map(|(k, d)| {
                let blocking = d.problems.iter().filter(|p| p.blocking).cloned().collect();
                (k.clone(), blocking)
            })
            .collect();
        if !refused.is_empty() {
            return Err(RequestError::Refused(refused));
        }
        let mut tools = self
            .tools
            .iter()
            .filter_map(|(k, d)| d.exported().map(|t| (k.clone(), t.clone())));
        if self.single {
            return tools.next().map(|(_, t)| t).ok_or(RequestError::NoProcess);
        }
        let mut sorted: Vec<(String, Value)> = tools.collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Value::Object(
            sorted.into_iter().collect::<Map<String, Value>>(),
        ))
    }
}

/// The key a process is exported under (`Process::key`, else the document URI).
pub fn key_of(process: &Process, context: &DocumentContext) -> String {
    process.key.clone().unwrap_or_else(|| context.uri.clone())
}

/// The processes `request` names, derived.
pub fn derive_document(
    yaml: &YamlDoc,
    context: &DocumentContext,
    location: Location,
    opts: &DeriveOptions,
    request: Request,
) -> Result<DocumentDerivation, RequestError> {
    let view = CwlView::new(yaml);
    if view.processes.is_empty() {
        return Err(RequestError::NoProcess);
    }
    let root = yaml.to_json().unwrap_or(Value::Null);
    let graph = root.get("$graph").is_some();
    let (single, chosen): (bool, Vec<&Process>) = match request {
        Request::Default if graph => (false, view.processes.iter().filter(|p| !p.inline).collect()),
        Request::Default => (
            true,
            view.processes
                .iter()
                .filter(|p| p.path.is_empty())
                .collect(),
        ),
        Request::All => (false, view.processes.iter().collect()),
        Request::Id(id) => {
            let wanted = id.trim_start_matches('#');
            let found = view.processes.iter().find(|p| {
                p.key.as_deref() == Some(wanted)
                    || p.id
                        .is_some_and(|i| i == id || i.trim_start_matches('#') == wanted)
            });
            match found {
                Some(p) => (true, vec![p]),
                None => return Err(RequestError::UnknownId(id.to_string())),
            }
        }
    };
    if chosen.is_empty() {
        return Err(RequestError::NoProcess);
    }
    let tools = chosen
        .into_iter()
        .map(|p| {
            let d = derive_process(&root, &view, p, context, location, opts);
            (key_of(p, context), d)
        })
        .collect();
    Ok(DocumentDerivation { single, tools })
}

/// The `processId` argument of the preview command for a cursor at byte `offset`: the id (as
/// written) of the innermost process there, or `None` for the document's default.
pub fn preview_target(yaml: &YamlDoc, offset: usize) -> Option<String> {
    let view = CwlView::new(yaml);
    let p = view.process_at(offset)?;
    p.key.clone().or_else(|| p.id.map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Profile;

    const GRAPH: &str = r#"
cwlVersion: v1.2
$graph:
  - class: CommandLineTool
    id: tool
    inputs: {a: string}
    outputs: {}
  - class: Workflow
    id: main
    inputs: {a: string}
    outputs: {}
    steps:
      s1:
        run:
          class: ExpressionTool
          id: inner
          inputs: {}
          outputs: {}
          expression: "$({})"
        in: {}
        out: []
"#;

    fn ctx() -> DocumentContext {
        DocumentContext::from_uri("file:///w/packed.cwl")
    }

    #[test]
    fn requests_choose_processes_like_the_cli() {
        let yaml = YamlDoc::parse(GRAPH);
        let opts = DeriveOptions::for_profile(Profile::Cwl2mcp);
        let run = |r| {
            derive_document(&yaml, &ctx(), Location::default(), &opts, r)
                .unwrap()
                .value()
        };
        let default = run(Request::Default).unwrap();
        let keys: Vec<&String> = default.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["main", "tool"]);
        assert_eq!(run(Request::Id("tool")).unwrap()["name"], "tool");
        assert_eq!(run(Request::Id("#tool")).unwrap()["name"], "tool");
        // The inline process is keyed by its step path, which cwl2mcp cannot name.
        let err = run(Request::All).unwrap_err();
        let RequestError::Refused(list) = &err else {
            panic!("{err:?}")
        };
        assert_eq!(list[0].0, "main/s1/run/inner");
        assert!(err.to_string().contains("name-invalid"));
        let missing = derive_document(&yaml, &ctx(), Location::default(), &opts, Request::Id("x"));
        assert!(matches!(missing, Err(RequestError::UnknownId(_))));
        // Under the extension profile the inline process takes its own id.
        let ext = DeriveOptions::for_profile(Profile::Extension);
        let all = derive_document(&yaml, &ctx(), Location::default(), &ext, Request::All)
            .unwrap()
            .value()
            .unwrap();
        assert_eq!(all["main/s1/run/inner"]["name"], "inner");
    }

    #[test]
    fn a_plain_document_gives_its_root_tool() {
        let yaml = YamlDoc::parse(
            "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\ninputs: {}\noutputs: {}\n",
        );
        let opts = DeriveOptions::for_profile(Profile::Extension);
        let v = derive_document(&yaml, &ctx(), Location::default(), &opts, Request::Default)
            .unwrap()
            .value()
            .unwrap();
        assert_eq!(v["name"], "t");
        let not_cwl = YamlDoc::parse("just: text\n");
        assert!(matches!(
            derive_document(
                &not_cwl,
                &ctx(),
                Location::default(),
                &opts,
                Request::Default
            ),
            Err(RequestError::NoProcess)
        ));
    }

    #[test]
    fn preview_targets_the_innermost_process() {
        let yaml = YamlDoc::parse(GRAPH);
        let at = GRAPH.find("expression").unwrap();
        assert_eq!(
            preview_target(&yaml, at).as_deref(),
            Some("main/s1/run/inner")
        );
        let at = GRAPH.find("inputs: {a: string}").unwrap();
        assert_eq!(preview_target(&yaml, at).as_deref(), Some("tool"));
    }
}
