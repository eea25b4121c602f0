//! The fuzz targets: each takes arbitrary bytes and exercises one layer of
//! the compiler the way its command-line tool does.
//!
//! A target returns an [`Outcome`]: the error messages the input produced
//! (a rejected input is fine: bad input must give an error, nothing more)
//! and, for a violated law that is not a crash (the text round-trip, a pass
//! whose output does not re-parse), a finding. Crashes are not caught here:
//! a panic unwinds out of the target and the driver's worker reports it, and
//! a stack overflow, abort, OOM or hang kills the worker process. The
//! `fuzz_*` functions have libFuzzer's `fn(&[u8])` shape and panic on a
//! finding, so cargo-fuzz can wrap them unchanged.
//!
//! Inputs of the `run` target are one text: the program, then the inputs
//! file and optionally the tangents file, each after a marker line
//! ([`INPUTS_MARKER`], [`TANGENTS_MARKER`]); without an inputs section the
//! target generates inputs from the signature, as `aot-run --random-inputs`.

use aot::compile::{Backend, CompileOptions};
use aot::ir::pass::PassManager;
use aot::ir::{parse_module, print_op, verify, Context, Op, ParseOptions, PrintOptions, SourceMgr};
use aot_run::json::{parse_inputs, parse_tangents, ArgSpec, InputSpec, TangentSpec};
use aot_run::{run_compiled, run_eager_calls, Calls, RunError};
use std::sync::Arc;

/// The line before the inputs JSON in a `run` input.
pub const INPUTS_MARKER: &str = "// ===== inputs.json";
/// The line before the optional tangents JSON in a `run` input.
pub const TANGENTS_MARKER: &str = "// ===== tangents.json";

/// What one input did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Every error the input produced (first line of each), in order; the
    /// driver's novelty signal.
    pub messages: Vec<String>,
    /// A violated law that did not crash (round-trip mismatch, unparsable
    /// pass output), as a one-line reason.
    pub finding: Option<String>,
}

impl Outcome {
    fn reject(&mut self, m: impl AsRef<str>) {
        self.messages.push(first_line(m.as_ref()));
    }

    fn rejected(m: impl AsRef<str>) -> Outcome {
        let mut o = Outcome::default();
        o.reject(m);
        o
    }

    fn found(mut self, f: String) -> Outcome {
        self.finding = Some(f);
        self
    }
}

/// The targets the driver knows, by name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Roundtrip,
    Pipeline,
    Run,
    /// Crashes on purpose in every way the driver must survive; only the
    /// driver's own tests use it.
    Selftest,
}

impl Target {
    pub const PUBLIC: [Target; 3] = [Target::Roundtrip, Target::Pipeline, Target::Run];

    pub fn parse(s: &str) -> Result<Target, String> {
        match s {
            "roundtrip" => Ok(Target::Roundtrip),
            "pipeline" => Ok(Target::Pipeline),
            "run" => Ok(Target::Run),
            "selftest" => Ok(Target::Selftest),
            other => Err(format!("unknown target '{other}' (available: roundtrip, pipeline, run)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Roundtrip => "roundtrip",
            Target::Pipeline => "pipeline",
            Target::Run => "run",
            Target::Selftest => "selftest",
        }
    }

    /// Runs the target on one input.
    pub fn execute(self, data: &[u8]) -> Outcome {
        match self {
            Target::Roundtrip => roundtrip(data),
            Target::Pipeline => pipeline(data),
            Target::Run => run(data),
            Target::Selftest => selftest(data),
        }
    }
}

fn first_line(s: &str) -> String {
    let line = s.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    line.chars().take(4000).collect()
}

const FILE: &str = "fuzz.mlir";

fn parse(ctx: &mut Context, text: &str) -> Result<Op, String> {
    let module = parse_module(ctx, text, &ParseOptions { file: FILE.into(), first_line: 1 }).map_err(|d| d.message)?;
    verify(ctx, module).map_err(|ds| ds.first().map(|d| d.message.clone()).unwrap_or_default())?;
    Ok(module)
}

fn utf8(data: &[u8]) -> Result<&str, Outcome> {
    std::str::from_utf8(data).map_err(|_| Outcome::rejected("input is not UTF-8"))
}

/// The first line where `a` and `b` differ, for a readable finding.
fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}: `{}` became `{}`", i + 1, clip(x), clip(y));
        }
    }
    format!("{} lines became {} lines", a.lines().count(), b.lines().count())
}

fn clip(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > 120 {
        format!("{}...", s.chars().take(120).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Parse, verify, print in the pretty and generic forms, re-parse each
/// printed text and print it again: the text must be a fixed point, and the
/// generic form must denote the same module as the pretty one.
pub fn roundtrip(data: &[u8]) -> Outcome {
    let text = match utf8(data) {
        Ok(t) => t,
        Err(o) => return o,
    };
    let mut ctx = Context::new();
    let module = match parse(&mut ctx, text) {
        Ok(m) => m,
        Err(m) => return Outcome::rejected(m),
    };
    let out = Outcome::default();
    let pretty = print_op(&ctx, module, PrintOptions { generic: false, debug_info: false });
    for generic in [false, true] {
        let form = if generic { "generic" } else { "pretty" };
        let opts = PrintOptions { generic, debug_info: false };
        let printed = print_op(&ctx, module, opts);
        let mut ctx2 = Context::new();
        let m2 = match parse(&mut ctx2, &printed) {
            Ok(m) => m,
            Err(m) => return out.found(format!("roundtrip: the {form} form does not re-parse: {}", first_line(&m))),
        };
        let again = print_op(&ctx2, m2, opts);
        if again != printed {
            return out.found(format!(
                "roundtrip: the {form} form is not a fixed point: {}",
                first_difference(&printed, &again)
            ));
        }
        if generic {
            let back = print_op(&ctx2, m2, PrintOptions { generic: false, debug_info: false });
            if back != pretty {
                return out.found(format!(
                    "roundtrip: the generic form denotes another module: {}",
                    first_difference(&pretty, &back)
                ));
            }
        }
    }
    out
}

/// The pipelines the `pipeline` target runs, each on a fresh parse.
pub const PIPELINES: [&str; 2] = ["aot-inference", "aot-train"];

/// Parse and verify; then codegen on the module as written (as `aot-opt
/// --emit`), and each of [`PIPELINES`] followed by a re-parse of its output
/// and codegen (`lower-to-loops`, `fuse`, `plan-memory`, Cranelift) of
/// every function it left. The input and each pipeline's output are drawn
/// as `--emit=dot` draws them, too.
pub fn pipeline(data: &[u8]) -> Outcome {
    let text = match utf8(data) {
        Ok(t) => t,
        Err(o) => return o,
    };
    let mut out = Outcome::default();
    let mut ctx = Context::new();
    let module = match parse(&mut ctx, text) {
        Ok(m) => m,
        Err(m) => return Outcome::rejected(m),
    };
    if let Some(f) = picture_finding(&ctx, module, "the input") {
        return out.found(f);
    }
    codegen_all(&mut ctx, module, &mut out);
    for name in PIPELINES {
        let mut ctx = Context::new();
        let Ok(module) = parse(&mut ctx, text) else {
            return out.found(format!("pipeline: the same text parsed once and failed to parse again ({name})"));
        };
        let mut pm = match PassManager::parse(name) {
            Ok(pm) => pm,
            Err(e) => return out.found(format!("pipeline: the named pipeline '{name}' does not parse: {e}")),
        };
        if let Err(f) = pm.run(&mut ctx, module, &mut std::io::sink()) {
            out.reject(f.diagnostics.first().map(|d| d.message.as_str()).unwrap_or("pipeline failed"));
            continue;
        }
        if let Some(f) = picture_finding(&ctx, module, name) {
            return out.found(f);
        }
        let printed = print_op(&ctx, module, PrintOptions::default());
        let mut ctx2 = Context::new();
        if let Err(m) = parse(&mut ctx2, &printed) {
            return out.found(format!("pipeline: the output of {name} does not re-parse: {}", first_line(&m)));
        }
        codegen_all(&mut ctx, module, &mut out);
    }
    out
}

/// What is wrong with `aot-opt --emit=dot`'s picture of `module` at
/// `stage` (a panic in it is a finding of the driver's).
fn picture_finding(ctx: &Context, module: Op, stage: &str) -> Option<String> {
    let one_digraph = |dot: &str| dot.starts_with("digraph \"aot\" {\n") && dot.ends_with("}\n");
    if !one_digraph(&aot::dot::render(ctx, module)) {
        return Some(format!("pipeline: the Graphviz picture of {stage} is not one digraph"));
    }
    match aot::dot::render_partition(ctx, module) {
        Some(p) if !one_digraph(&p) => Some(format!("pipeline: the partition's picture of {stage} is not one digraph")),
        _ => None,
    }
}

/// Compiles every defined function of `module` with the Cranelift backend,
/// lowering the ones still over tensors first.
fn codegen_all(ctx: &mut Context, module: Op, out: &mut Outcome) {
    let native = aot::codegen::Native::default();
    for f in aot::dialects::func::funcs(ctx, module) {
        if f.is_declaration(ctx) {
            continue;
        }
        let lowered = f.args(ctx).iter().all(|&a| aot::dialects::r#loop::analysis::memref(ctx, a).is_some());
        let mut text = String::new();
        let r = if lowered {
            native.target.compile(ctx, f.op, &native.options, &mut text).map(|_| ())
        } else {
            aot::codegen::compile_function(ctx, f.op, &native, &mut text).map(|_| ())
        };
        if let Err(d) = r {
            out.reject(d.message);
        }
    }
}

/// A `run` input split into its program, inputs and tangents texts.
pub fn split_run_input(text: &str) -> (&str, Option<&str>, Option<&str>) {
    let Some((program, rest)) = split_at_marker(text, INPUTS_MARKER) else {
        return (text, None, None);
    };
    match split_at_marker(rest, TANGENTS_MARKER) {
        Some((inputs, tangents)) => (program, Some(inputs), Some(tangents)),
        None => (program, Some(rest), None),
    }
}

fn split_at_marker<'a>(text: &'a str, marker: &str) -> Option<(&'a str, &'a str)> {
    let at = text.find(marker)?;
    let after = &text[at + marker.len()..];
    Some((&text[..at], after.strip_prefix('\n').unwrap_or(after)))
}

/// Joins the parts of a `run` input (the inverse of [`split_run_input`]).
pub fn join_run_input(program: &str, inputs: Option<&str>, tangents: Option<&str>) -> String {
    let mut s = program.to_string();
    if let Some(i) = inputs {
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s.push_str(INPUTS_MARKER);
        s.push('\n');
        s.push_str(i);
        if let Some(t) = tangents {
            if !s.ends_with('\n') {
                s.push('\n');
            }
            s.push_str(TANGENTS_MARKER);
            s.push('\n');
            s.push_str(t);
        }
    }
    s
}

/// Finite differences call the function twice per input element; beyond
/// this many elements they would dominate the run.
const FD_MAX_ELEMENTS: usize = 512;

fn input_elements(spec: &InputSpec) -> usize {
    let own: usize = spec
        .args
        .iter()
        .map(|a| match a {
            ArgSpec::Own { data, .. } => data.len(),
            _ => 0,
        })
        .sum();
    own + spec.storages.iter().map(|s| s.data.len()).sum::<usize>()
}

fn run_error(e: &RunError) -> String {
    // Program errors are rendered diagnostics: `file:line:col: error: msg`.
    let l = first_line(&e.to_string());
    match l.split_once(": error: ") {
        Some((_, m)) => m.to_string(),
        None => l,
    }
}

/// `aot-run`'s readers on the inputs (and tangents) JSON (no inputs
/// section: random inputs from the signature, as `--random-inputs`), then the calls
/// `aot-run` makes on what they accept: eager (with finite-difference
/// gradients when small), and compiled with the interpreter and Cranelift
/// backends, for inference and with `--grad`.
pub fn run(data: &[u8]) -> Outcome {
    let text = match utf8(data) {
        Ok(t) => t,
        Err(o) => return o,
    };
    let (program, inputs, tangents) = split_run_input(text);
    let mut out = Outcome::default();
    let spec = match inputs.map(parse_inputs) {
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return Outcome::rejected(e.to_string()),
        None => None,
    };
    let tangents = match tangents.map(parse_tangents) {
        None => TangentSpec::default(),
        Some(Ok(t)) => t,
        Some(Err(e)) => return Outcome::rejected(e.to_string()),
    };
    let mut sources = SourceMgr::new();
    sources.add(FILE, Arc::from(program));
    let open = |ctx: &mut Context| -> Result<(Op, Op), String> {
        let module = parse(ctx, program)?;
        let func = aot::dialects::func::entry_func(ctx, module, None)?.op;
        Ok((module, func))
    };
    let mut ctx = Context::new();
    let (_, func) = match open(&mut ctx) {
        Ok(x) => x,
        Err(m) => return Outcome::rejected(m),
    };
    // Without an inputs section, inputs come from the signature
    // (`aot-run --random-inputs 3`).
    let spec = match spec.map(Ok).unwrap_or_else(|| aot_run::random_inputs(&ctx, func, 3)) {
        Ok(s) => s,
        Err(e) => return Outcome::rejected(run_error(&e)),
    };
    match run_eager_calls(&ctx, &sources, func, &spec, Calls { seed: 0, count: 1, grad: None }, false) {
        Err(e) => out.reject(run_error(&e)),
        Ok(r) => {
            let _ = r.to_json();
            if input_elements(&spec) <= FD_MAX_ELEMENTS {
                if let Err(e) = aot_run::fd::finite_differences(&ctx, &sources, func, &spec, &tangents, &r, 0) {
                    out.reject(run_error(&e));
                }
            }
        }
    }
    for backend in [Backend::Interp, Backend::CRANELIFT] {
        for grad in [false, true] {
            let mut ctx = Context::new();
            let Ok((module, func)) = open(&mut ctx) else {
                return out.found("run: the same program parsed once and failed to parse again".into());
            };
            let pipeline = if grad { "aot-train" } else { "aot-inference" }.to_string();
            let opts = CompileOptions { pipeline, backend, keep_ir: false, progress: false };
            let calls = Calls { seed: 0, count: 1, grad: grad.then_some(&tangents) };
            match run_compiled(ctx, &sources, module, func, &spec, &opts, calls) {
                Err(e) => out.reject(run_error(&e)),
                Ok(r) => {
                    let _ = aot_run::outputs_json(&r.outputs, &r.args);
                }
            }
        }
    }
    out
}

/// Misbehaves as its input says (`panic`, `abort`, `oom`, `stack`, `hang`,
/// `mismatch`, otherwise an error message): the driver's tests use it to
/// check that each way of dying is caught, classified, recorded and
/// minimized.
pub fn selftest(data: &[u8]) -> Outcome {
    let text = String::from_utf8_lossy(data);
    if text.contains("panic") {
        panic!("selftest panic");
    }
    if text.contains("abort") {
        std::process::abort();
    }
    if text.contains("oom") {
        // Far beyond the worker's address-space limit: the allocation fails
        // and the runtime aborts.
        let v: Vec<u8> = Vec::with_capacity(1 << 40);
        std::hint::black_box(&v);
    }
    if text.contains("stack") {
        fn deep(n: u64) -> u64 {
            let pad = std::hint::black_box([n; 64]);
            if n == 0 {
                0
            } else {
                deep(n - 1).wrapping_add(pad[(n % 64) as usize])
            }
        }
        std::hint::black_box(deep(u64::MAX));
    }
    if text.contains("hang") {
        // Busy, as a compiler that loops is: the driver's timeout counts
        // CPU time.
        let mut x = 0u64;
        loop {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
    if text.contains("mismatch") {
        return Outcome::default().found("selftest: mismatch".into());
    }
    Outcome::rejected(format!("selftest: {} bytes", data.len().min(4)))
}

fn panic_on_finding(o: Outcome) {
    if let Some(f) = o.finding {
        panic!("{f}");
    }
}

/// libFuzzer-shaped entry points: panic on a finding.
pub fn fuzz_roundtrip(data: &[u8]) {
    panic_on_finding(roundtrip(data));
}

pub fn fuzz_pipeline(data: &[u8]) {
    panic_on_finding(pipeline(data));
}

pub fn fuzz_run(data: &[u8]) {
    panic_on_finding(run(data));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_input_sections_split_and_join() {
        let joined = join_run_input("func.func @f()\n", Some("{}\n"), Some("{\"outputs\": []}"));
        assert_eq!(split_run_input(&joined), ("func.func @f()\n", Some("{}\n"), Some("{\"outputs\": []}")));
        assert_eq!(split_run_input("just a program"), ("just a program", None, None));
        let no_tangents = join_run_input("p", Some("{}"), None);
        assert_eq!(split_run_input(&no_tangents), ("p\n", Some("{}"), None));
    }

    #[test]
    fn rejected_input_is_not_a_finding() {
        aot::init();
        let o = roundtrip(b"func.func @f( {");
        assert_eq!(o.finding, None);
        assert_eq!(o.messages.len(), 1, "{o:?}");
        let o = run(b"module {}\n// ===== inputs.json\n{\"args\": [1]}");
        assert!(o.messages[0].contains("argument 0"), "{o:?}");
    }

    #[test]
    fn valid_module_round_trips_and_compiles() {
        aot::init();
        let m = "func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {\n  \
                 %0 = tensor.add %a, %a : tensor<2x3xf32>\n  return %0 : tensor<2x3xf32>\n}\n";
        assert_eq!(roundtrip(m.as_bytes()), Outcome::default());
        assert_eq!(pipeline(m.as_bytes()), Outcome::default());
        let input = join_run_input(
            m,
            Some(r#"{"args": [{"dtype": "f32", "shape": [2, 3], "data": [1, 2, 3, 4, 5, 6], "requires_grad": true}]}"#),
            None,
        );
        assert_eq!(run(input.as_bytes()), Outcome::default());
    }

    #[test]
    #[should_panic(expected = "selftest: mismatch")]
    fn libfuzzer_entry_panics_on_finding() {
        panic_on_finding(selftest(b"mismatch"));
    }
}
