//! Malformed input must produce diagnostics, never a panic: every chunk of
//! the lit suite is truncated and mutated at random positions, then parsed,
//! verified and printed, and what verifies is compiled by the calling-
//! convention pipeline (functionalize ... rng-functionalize), whose passes
//! must reject what they cannot handle with a diagnostic.

use aot::ir::verify_diagnostics::split_input;
use aot::ir::{parse_module, print_op, verify, Context, ParseOptions, PrintOptions};
use proptest::prelude::*;

/// Every chunk of every `.mlir` file under `test/`, read once per process
/// (the property below runs 1,500 cases).
fn corpus() -> &'static [String] {
    static CORPUS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        crate::common::files_ending(&crate::common::corpus_dir(""), ".mlir")
            .iter()
            .flat_map(|p| {
                split_input(&std::fs::read_to_string(p).unwrap()).into_iter().map(|(c, _)| c).collect::<Vec<_>>()
            })
            .collect()
    })
}

fn exercise(text: &str) {
    let mut ctx = Context::new();
    if let Ok(m) = parse_module(&mut ctx, text, &ParseOptions { file: "fuzz".into(), first_line: 1 }) {
        if verify(&ctx, m).is_ok() {
            let _ = print_op(&ctx, m, PrintOptions::default());
            let _ = print_op(&ctx, m, PrintOptions { generic: true, debug_info: true });
            let mut pm = aot::ir::pass::PassManager::parse("builtin.module(aot-inference)").expect("pipeline");
            let _ = pm.run(&mut ctx, m, &mut std::io::sink());
        }
    }
}

#[rustfmt::skip]
const PIECES: &[&str] = &[
    "%", "%0", "(", ")", "{", "}", "<", ">", "[", "]", ":", ",", "=", "->", "\"", "#", "!", "^bb0", "@f", "tensor<",
    "x", "?", "-", "1e", "0x", "dense<", "array<i64:", "loc(", "func.func", "return", "\n", "//", "\u{e9}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]
    #[test]
    fn mutated_inputs_never_panic(seed in any::<u64>(), cut in any::<usize>(), at in any::<usize>(), piece in 0..PIECES.len(), del in 0..8usize) {
        aot::init();
        let corpus = corpus();
        let base = &corpus[(seed as usize) % corpus.len()];
        // Truncation.
        let mut cut_at = cut % (base.len() + 1);
        while !base.is_char_boundary(cut_at) { cut_at -= 1; }
        exercise(&base[..cut_at]);
        // Insertion of a token fragment plus a small deletion.
        let mut pos = at % (base.len() + 1);
        while !base.is_char_boundary(pos) { pos -= 1; }
        let mut end = (pos + del).min(base.len());
        while !base.is_char_boundary(end) { end -= 1; }
        let mutated = format!("{}{}{}", &base[..pos], PIECES[piece], &base[end..]);
        exercise(&mutated);
    }
}
