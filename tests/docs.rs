//! `docs/passes.md` is generated from the pass registry; this test fails when
//! it is stale. Regenerate with `AOT_BLESS=1 cargo test --test docs` (or
//! `aot-opt --generate-pass-docs > docs/passes.md`).

use std::path::Path;

#[test]
fn pass_reference_is_up_to_date() {
    aot::init();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/passes.md");
    let generated = aot::ir::pass::render_pass_docs();
    if std::env::var_os("AOT_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(on_disk == generated, "docs/passes.md is stale; regenerate it with `AOT_BLESS=1 cargo test --test docs`");
}

#[test]
fn every_pass_has_a_lit_file() {
    aot::init();
    // Codegen passes are tested with the codegen suite.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("test");
    for p in aot::ir::pass::all_passes() {
        let f = ["passes", "codegen"]
            .iter()
            .map(|d| root.join(d).join(format!("{}.mlir", p.argument)))
            .find(|f| f.exists());
        assert!(f.is_some(), "pass '{}' has no lit file test/passes/{0}.mlir or test/codegen/{0}.mlir", p.argument);
        assert!(!p.summary.is_empty() && !p.description.is_empty(), "pass '{}' lacks documentation", p.argument);
    }
}
