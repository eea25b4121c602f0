//! The documentation is part of the repository and must stay true to it.
//!
//! - `docs/passes.md` and `docs/reference/ops.md` are generated from the pass
//!   and op registries; these tests fail when they are stale. Regenerate
//!   both with `AOT_BLESS=1 cargo test --test suite docs::` (or `aot-opt
//!   --generate-pass-docs` / `--generate-op-docs`).
//! - Every relative link in the Markdown documentation resolves to a file or
//!   folder of the repository, and no document or module comment points at a
//!   design document that is not in the repository: a newcomer needs nothing
//!   but the repository.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Compares a generated document with the file on disk, or rewrites it
/// under `AOT_BLESS`.
fn check_generated(rel: &str, generated: &str) {
    let path = root().join(rel);
    if std::env::var_os("AOT_BLESS").is_some() {
        std::fs::write(&path, generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(on_disk == generated, "{rel} is stale; regenerate it with `AOT_BLESS=1 cargo test --test suite docs::`");
}

#[test]
fn pass_reference_is_up_to_date() {
    aot::init();
    check_generated("docs/passes.md", &aot::ir::pass::render_pass_docs());
}

#[test]
fn op_reference_is_up_to_date() {
    aot::init();
    check_generated("docs/reference/ops.md", &aot::dialects::docs::render_op_docs());
}

#[test]
fn op_reference_lists_every_op_with_its_layers() {
    aot::init();
    let doc = aot::dialects::docs::render_op_docs();
    for d in aot::ir::registry::all_ops() {
        assert!(doc.contains(&format!("\n### {}\n", d.name)), "op '{}' missing from the op reference", d.name);
    }
    // Facts the generator reads from interfaces, spot-checked.
    let section = |name: &str| {
        let start = doc.find(&format!("\n### {name}\n")).unwrap();
        let rest = &doc[start + 1..];
        rest[..rest[1..].find("\n### ").map_or(rest.len(), |e| e + 1)].to_string()
    };
    assert!(section("tensor.mul").contains("Derivative: yes. Native: yes (scalar formula, fused)."));
    assert!(section("tensor.argmax").contains("Derivative: no."));
    assert!(section("tensor.sum").contains("MLIR export: yes."));
    assert!(section("view.transpose").contains("MLIR export: yes."));
    assert!(section("tensor.exp").contains("MLIR export: yes (scalar formula)."));
    assert!(section("tensor.argmax").contains("MLIR export: no."));
    assert!(section("view.slice").contains("| `dim` | an integer | required |"));
}

#[test]
fn every_pass_has_a_lit_file() {
    aot::init();
    // Codegen passes are tested with the codegen suite.
    let root = root().join("test");
    for p in aot::ir::pass::all_passes() {
        let f = ["passes", "codegen"]
            .iter()
            .map(|d| root.join(d).join(format!("{}.mlir", p.argument)))
            .find(|f| f.exists());
        assert!(f.is_some(), "pass '{}' has no lit file test/passes/{0}.mlir or test/codegen/{0}.mlir", p.argument);
        assert!(!p.summary.is_empty() && !p.description.is_empty(), "pass '{}' lacks documentation", p.argument);
    }
}

/// Files under `dir` (recursively) whose name ends with `suffix`, skipping
/// build outputs, virtual environments and hidden folders.
fn files_under(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                files_under(&p, suffix, out);
            }
        } else if name.ends_with(suffix) {
            out.push(p);
        }
    }
}

/// The documents whose links must resolve.
fn linked_documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("bench/README.md")];
    files_under(&root().join("docs"), ".md", &mut docs);
    let mut test_mds = Vec::new();
    files_under(&root().join("test"), ".md", &mut test_mds);
    docs.extend(test_mds.into_iter().filter(|p| p.file_name().is_some_and(|n| n == "README.md")));
    docs
}

/// The targets of the inline Markdown links `[text](target)` in `text`,
/// outside code spans and fenced code blocks.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans so that `a[i](x)` in code is not a link.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(pos) = rest.find("](") {
            let after = &rest[pos + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn link_target_extraction() {
    let t = "see [a](x.md) and [b](../y.md#sec)\n`[c](no.md)`\n```\n[d](no2.md)\n```\n[e](https://e.invalid)";
    assert_eq!(link_targets(t), vec!["x.md", "../y.md#sec", "https://e.invalid"]);
}

#[test]
fn relative_links_resolve_inside_the_repository() {
    let root = root().canonicalize().unwrap();
    let mut broken = Vec::new();
    let docs = linked_documents();
    assert!(docs.len() > 5, "found too few documents: {docs:?}");
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.starts_with('#') {
                continue;
            }
            let file = target.split('#').next().unwrap_or("");
            let resolved = doc.parent().unwrap().join(file);
            match resolved.canonicalize() {
                Ok(p) if p.starts_with(&root) => {}
                Ok(_) => broken.push(format!("{}: '{target}' leaves the repository", doc.display())),
                Err(_) => broken.push(format!("{}: '{target}' does not exist", doc.display())),
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// The names of documents outside the repository (the private design notes
/// and the folder they live in beside a developer's checkout). They are
/// spelled in pieces so that this check does not itself name them.
fn banned_names() -> [String; 3] {
    [["ir", "contract"].join("-"), ["aotautograd", "md"].join("."), ["..", "shared"].join("/")]
}

/// Why `line` points outside the repository, if it does; `exists` says
/// whether a `design/...` or `reference/...` document is in the repository.
fn outside_reference(line: &str, exists: &dyn Fn(&str) -> bool) -> Option<String> {
    for banned in banned_names() {
        if line.contains(banned.as_str()) {
            return Some(format!("mentions '{banned}'"));
        }
    }
    // `design/x.md` or `reference/x.md` must name a document of the repository.
    for dir in ["design/", "reference/"] {
        let mut rest = line;
        while let Some(pos) = rest.find(dir) {
            let tail = &rest[pos..];
            let end = tail.find(|c: char| !(c.is_alphanumeric() || "/_-.".contains(c))).unwrap_or(tail.len());
            let name = tail[..end].trim_end_matches('.');
            if name.ends_with(".md") && !exists(name) {
                return Some(format!("names '{name}', which is not in the repository"));
            }
            rest = &tail[dir.len()..];
        }
    }
    None
}

/// Whether a `design/...` or `reference/...` document is in the repository
/// (relative to `docs/` or to the root).
fn in_repository(name: &str) -> bool {
    root().join("docs").join(name).exists() || root().join(name).exists()
}

#[test]
fn outside_reference_detection() {
    let only_semantics = |n: &str| n == "reference/semantics.md";
    let [contract, notes, folder] = banned_names();
    assert!(outside_reference(&format!("see design/{contract}.md §2"), &only_semantics).is_some());
    assert!(outside_reference(&format!("(`reference/{notes}` §3)"), &only_semantics).is_some());
    assert!(outside_reference("as design/architecture.md says", &only_semantics).is_some());
    assert!(outside_reference(&format!("from {folder}/notes"), &only_semantics).is_some());
    assert!(outside_reference("see docs/reference/semantics.md.", &only_semantics).is_none());
    assert!(outside_reference("see docs/reference/other.md", &only_semantics).is_some());
    assert!(outside_reference("plain text", &only_semantics).is_none());
}

#[test]
fn no_reference_to_documents_outside_the_repository() {
    let mut bad = Vec::new();
    let mut mds = Vec::new();
    files_under(root(), ".md", &mut mds);
    for f in mds {
        for (i, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            if let Some(why) = outside_reference(line, &in_repository) {
                bad.push(format!("{}:{}: {why}", f.display(), i + 1));
            }
        }
    }
    let mut rs = Vec::new();
    files_under(root(), ".rs", &mut rs);
    for f in rs {
        for (i, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            if !line.trim_start().starts_with("//!") {
                continue;
            }
            if let Some(why) = outside_reference(line, &in_repository) {
                bad.push(format!("{}:{}: {why}", f.display(), i + 1));
            }
        }
    }
    assert!(bad.is_empty(), "references to documents outside the repository:\n{}", bad.join("\n"));
}
