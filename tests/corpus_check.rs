//! Second tier: `check` over `../shared/corpus/real/` under the default profile reports only
//! `yaml-syntax`, exactly on the files cwltool's YAML loader (ruamel.yaml) rejects, as the
//! recorded exporter runs show (`runs.tsv`: `ruamel.yaml.*` errors), and never crashes.
mod common;

use std::collections::BTreeSet;

use cwl_mcp_lsp::base::project::Layer;
use cwl_mcp_lsp::cli::check;

#[test]
fn corpus_gets_yaml_syntax_only_where_ruamel_rejects() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let real = shared.join("corpus/real");
    let runs = std::fs::read_to_string(shared.join("reference/cwl2mcp-0.1.0-corpus-runs/runs.tsv"))
        .unwrap();
    let rejected: BTreeSet<String> = runs
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.get(2).is_some_and(|t| t.starts_with("ruamel.yaml.")))
                .then(|| cols[0].to_string())
        })
        .collect();
    assert_eq!(rejected.len(), 7);
    let files = check::collect_files(std::slice::from_ref(&real)).unwrap();
    assert!(files.len() > 1000);
    let mut with_syntax = BTreeSet::new();
    let mut other = Vec::new();
    for file in &files {
        let reported = check::check_file(file, &Layer::default()).unwrap();
        let rel = file
            .strip_prefix(&real)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for r in &reported {
            if r.code == "yaml-syntax" {
                with_syntax.insert(rel.clone());
            } else {
                other.push(format!("{rel}:{}: {} {}", r.line, r.code, r.message));
            }
        }
    }
    assert!(other.is_empty(), "non-syntax diagnostics: {other:#?}");
    assert_eq!(with_syntax, rejected);
    // SPEC §2: tree-sitter-yaml rejects these, ruamel.yaml accepts them.
    for strict in [
        "genome__analysis-workflows/definitions/tools/star_fusion_detect.cwl",
        "genome__analysis-workflows/definitions/subworkflows/gatk_haplotypecaller_iterator.cwl",
        "kids-first__kf-alignment-workflow/tools/gatk_haplotypecaller.cwl",
    ] {
        assert!(real.join(strict).exists(), "{strict}");
        assert!(!with_syntax.contains(strict), "{strict}");
    }
}
