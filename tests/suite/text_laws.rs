//! The text-format laws, checked over every `.mlir` file of the lit suite:
//!
//! 1. print(parse(x)) parses back to a module that prints identically;
//! 2. the generic form of a module parses back to the same module (its custom
//!    print and its generic print are both unchanged);
//! 3. every registered op appears in some valid test chunk, so laws 1 and 2
//!    cover every op of every dialect.
//!
//! Chunks that are invalid on purpose (they carry `expected-*` comments, or
//! their file's RUN lines expect failure) are skipped.

use crate::common;
use aot::ir::verify_diagnostics::split_input;
use aot::ir::{parse_module, print_op, verify, Context, ParseOptions, PrintOptions};
use std::collections::BTreeSet;

fn parse_print(text: &str, file: &str, generic: bool) -> Result<(String, Context, aot::ir::Op), String> {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: file.into(), first_line: 1 })
        .map_err(|d| d.message.clone())?;
    verify(&ctx, m).map_err(|ds| ds[0].message.clone())?;
    let s = print_op(&ctx, m, PrintOptions { generic, debug_info: false });
    Ok((s, ctx, m))
}

#[test]
fn round_trip_and_generic_form_over_the_suite() {
    aot::init();
    let root = common::corpus_dir("");
    let files = common::files_ending(&root, ".mlir");
    assert!(files.len() >= 10, "expected the lit suite under {root:?}");
    let mut seen_ops = BTreeSet::new();
    let mut checked = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let expects_failure =
            text.lines().any(|l| l.contains("RUN:") && (l.contains("not ") || l.contains("--verify-diagnostics")));
        let name = path.display().to_string();
        for (chunk, _) in split_input(&text) {
            if chunk.contains("expected-")
                || chunk.trim().lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with("//"))
            {
                continue;
            }
            let (custom, ctx, m) = match parse_print(&chunk, &name, false) {
                Ok(x) => x,
                Err(e) if expects_failure => {
                    let _ = e;
                    continue;
                }
                Err(e) => panic!("{name}: a chunk of a test that expects success does not parse/verify: {e}"),
            };
            ctx.walk_pre(m, &mut |op| {
                seen_ops.insert(ctx.op_name(op).to_string());
            });
            let (again, _, _) = parse_print(&custom, "<printed>", false)
                .unwrap_or_else(|e| panic!("{name}: printed form does not parse: {e}\n{custom}"));
            assert_eq!(custom, again, "{name}: print(parse(print(x))) differs");
            let generic = print_op(&ctx, m, PrintOptions { generic: true, debug_info: false });
            let (from_generic, _, _) = parse_print(&generic, "<generic>", false)
                .unwrap_or_else(|e| panic!("{name}: generic form does not parse: {e}\n{generic}"));
            assert_eq!(custom, from_generic, "{name}: the generic form does not round-trip");
            let (generic_again, _, _) = parse_print(&generic, "<generic>", true).unwrap();
            assert_eq!(generic, generic_again, "{name}: print-generic is not stable");
            checked += 1;
        }
    }
    assert!(checked > 0);
    let missing: Vec<&str> = aot::ir::registry::all_ops()
        .into_iter()
        .map(|d| d.name)
        .filter(|n| *n != "builtin.unresolved_forward_reference" && !seen_ops.contains(*n))
        .collect();
    assert!(missing.is_empty(), "ops never exercised by a valid test chunk: {missing:?}");
}
