//! `aot-run`: executes a function eagerly (the reference interpreter) or
//! compiled, and writes what happened as JSON (`docs/reference/json.md`): outputs with
//! their layout, `alias_of_arg` and `requires_grad`; every argument's final
//! state; and with `--grad`, gradients. Bad input (malformed JSON, a shape
//! mismatch, a view outside its storage) is a clear error naming the
//! argument and a non-zero exit.

use aot::ir::size::{Limit, Limits};
use aot::ir::{Context, ParseOptions, SourceMgr};
use aot_run::json::{parse_tangents, InputSpec, TangentSpec};
use aot_run::{fd, read_inputs, run_eager_calls, subclass, Calls, RunError};
use clap::{Parser as _, ValueEnum};
use serde_json::Value as Json;
use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Mode {
    Eager,
    Compiled,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum GradMethod {
    Ad,
    Fd,
}

#[derive(clap::Parser, Debug)]
#[command(
    name = "aot-run",
    about = "Execute an aot function eagerly or compiled; JSON in and out",
    long_about = "Execute an aot function eagerly (the reference interpreter) or compiled, and write \
                  what happened as JSON: outputs with their layout, alias_of_arg and requires_grad, every \
                  argument's final state, and with --grad, gradients. The input, tangent and output \
                  formats are described in docs/reference/json.md.",
    version = aot::VERSION
)]
struct Args {
    /// The module to run (MLIR text).
    file: String,
    /// The function to call, as `name` or `@name` (default: the only public
    /// function, else @main).
    #[arg(long)]
    entry: Option<String>,
    /// Input file: the arguments as JSON (docs/reference/json.md). A function
    /// without arguments needs neither this nor --random-inputs.
    #[arg(long, conflicts_with = "random_inputs")]
    inputs: Option<String>,
    /// Generate inputs from the signature with this seed: floats uniform in
    /// [-1, 1), integers in [0, 3); {aot.requires_grad} and {aot.same_as} are
    /// honoured.
    #[arg(long, value_name = "SEED")]
    random_inputs: Option<u64>,
    /// The values of symbolic sizes for --random-inputs, as `s0=8,s1=16`
    /// (a function with symbolic sizes takes them from its inputs).
    #[arg(long, value_name = "SYMBOL=SIZE,...", requires = "random_inputs")]
    sizes: Option<String>,
    /// eager: run on the reference interpreter, with PyTorch's eager
    /// semantics; compiled: specialise the function to the inputs' calling
    /// convention, run a pass pipeline and execute the result on --backend.
    #[arg(long, value_enum, default_value = "eager")]
    mode: Mode,
    /// Pipeline for --mode compiled (a named pipeline or MLIR pipeline text;
    /// default: aot-train with --grad, else aot-inference).
    #[arg(long)]
    pipeline: Option<String>,
    /// Backend of --mode compiled: cranelift (native code; the default),
    /// hostdev (Cranelift's code on the host-memory device: arguments are
    /// placed in its memory before each call, and the output file's
    /// `crossings` counts what a call copied across the bus) or interp
    /// (the reference interpreter on the compiled graphs).
    #[cfg_attr(not(feature = "llvm"), arg(long, value_name = "cranelift|hostdev|interp"))]
    #[cfg_attr(
        feature = "llvm",
        arg(
            long,
            value_name = "cranelift|hostdev|llvm|interp",
            help = "Backend of --mode compiled: cranelift (native code; the default), hostdev (Cranelift's code on \
the host-memory device: arguments are placed in its memory before each call, and the output file's `crossings` \
counts what a call copied across the bus), llvm (native code through LLVM's optimizer) or interp (the reference \
interpreter on the compiled graphs)"
        )
    )]
    backend: Option<String>,
    /// Also compute gradients (eager: by finite differences; compiled: by the
    /// compiled backward).
    #[arg(long)]
    grad: bool,
    /// Tangents for --grad: one per output and per argument whose data
    /// mutation autograd sees (default: all ones).
    #[arg(long, requires = "grad")]
    tangents: Option<String>,
    /// How to compute gradients: fd (central finite differences of the eager
    /// forward; the eager default) or ad (the compiled backward; the compiled
    /// default).
    #[arg(long, value_enum)]
    grad_method: Option<GradMethod>,
    /// Seed of the Philox generator before the first call.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the inputs used (e.g. random ones) to this file, in the input
    /// file format.
    #[arg(long)]
    dump_inputs: Option<String>,
    /// With --mode compiled: specialise for the arguments of this input file,
    /// then call with --inputs (the guards check the call).
    #[arg(long)]
    compile_for: Option<String>,
    /// With --mode compiled: write the module after the pipeline to this file.
    #[arg(long)]
    dump_ir: Option<String>,
    /// Call the function this many times, each on fresh inputs, the
    /// generator continuing across calls; report the last call.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    calls: u64,
    /// Largest single allocation in bytes (suffixes k, M, G, T; default: the
    /// AOT_MAX_ALLOC_BYTES environment variable, else half of physical memory).
    #[arg(long, value_parser = parse_alloc_limit, value_name = "BYTES")]
    max_alloc_bytes: Option<u64>,
    /// Output file (default: stdout).
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<String>,
}

fn parse_alloc_limit(s: &str) -> Result<u64, String> {
    aot::ir::size::parse_size(s).ok_or_else(|| format!("expected a byte count such as 1048576, 512M or 4G, got '{s}'"))
}

fn main() -> ExitCode {
    aot::init();
    let args = Args::parse();
    if let Some(n) = args.max_alloc_bytes {
        Limits::set(Limit::AllocBytes, n);
    }
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        // Program errors are already rendered diagnostics with locations.
        Err(RunError::Program(m)) => {
            eprint!("{}", with_newline(&m));
            ExitCode::FAILURE
        }
        Err(e) => {
            eprint!("{}", with_newline(&format!("aot-run: error: {e}")));
            ExitCode::FAILURE
        }
    }
}

fn with_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

fn read(path: &str, what: &str) -> Result<String, RunError> {
    std::fs::read_to_string(path).map_err(|e| RunError::input(format!("could not read {what} '{path}': {e}")))
}

fn run(args: &Args) -> Result<(), RunError> {
    let text = read(&args.file, "input module")?;
    let mut sources = SourceMgr::new();
    sources.add(&args.file, Arc::from(text.as_str()));
    let mut ctx = Context::new();
    let module = aot::ir::parse_module(&mut ctx, &text, &ParseOptions { file: args.file.clone(), first_line: 1 })
        .map_err(|d| RunError::program(&ctx, &sources, &[d]))?;
    aot::ir::verify(&ctx, module).map_err(|ds| RunError::program(&ctx, &sources, &ds))?;
    let entry = args.entry.as_deref().map(|e| e.strip_prefix('@').unwrap_or(e));
    let func = aot::dialects::func::entry_func(&ctx, module, entry).map_err(RunError::input)?.op;
    // A function with subclass values runs as its flattened dense function;
    // the inputs, tangents and results cross the JSON boundary through the
    // plan (see aot_run::subclass).
    let plan = aot::subclass::flatten_entry(&mut ctx, &sources, module, func).map_err(RunError::Program)?;
    let wrapper = plan.as_ref().map(|p| subclass::Wrapper::new(&ctx, p));
    let text = match &wrapper {
        Some(_) => aot::ir::print_op(&ctx, module, aot::ir::PrintOptions { generic: false, debug_info: true }),
        None => text,
    };
    let read_user_inputs = |t: String| match &wrapper {
        Some(w) => w.flatten_inputs(&t),
        None => Ok(t),
    };

    let spec = match (&args.inputs, args.random_inputs) {
        (Some(path), _) => read_inputs(&ctx, func, &read_user_inputs(read(path, "inputs")?)?)?,
        (None, Some(seed)) => {
            let sizes = aot_ir::sym::Bindings::parse(args.sizes.as_deref().unwrap_or(""))
                .map_err(|m| RunError::input(format!("--sizes: {m}")))?;
            aot_run::random_inputs_sized(&ctx, func, seed, &sizes)?
        }
        (None, None) if aot_run::signature(&ctx, func)?.is_empty() => InputSpec::default(),
        (None, None) => return Err(RunError::input("give --inputs FILE or --random-inputs SEED")),
    };
    if let Some(path) = &args.dump_inputs {
        let text = serde_json::to_string_pretty(&aot_run::inputs_to_json(&spec)).expect("JSON serializes");
        std::fs::write(path, text + "\n").map_err(|e| RunError::input(format!("could not write '{path}': {e}")))?;
    }
    if let Some(w) = &wrapper {
        w.plan.check_shared(&spec.convention(&ctx, func).map_err(RunError::input)?).map_err(RunError::Input)?;
    }
    let tangents = match &args.tangents {
        Some(path) => {
            let t = read(path, "tangents")?;
            parse_tangents(&match &wrapper {
                Some(w) => w.flatten_tangents(&t)?,
                None => t,
            })?
        }
        None => TangentSpec::default(),
    };

    let calls = Calls { seed: args.seed, count: args.calls as usize, grad: None };
    let result = match args.mode {
        Mode::Eager => {
            if args.dump_ir.is_some() || args.compile_for.is_some() || args.pipeline.is_some() {
                return Err(RunError::input("--pipeline, --dump-ir and --compile-for need --mode compiled"));
            }
            if args.backend.is_some() {
                return Err(RunError::input(
                    "--backend needs --mode compiled (eager mode always runs the reference interpreter)",
                ));
            }
            if args.grad && args.calls > 1 {
                return Err(RunError::input("--grad reports one call: drop --calls"));
            }
            let r = run_eager_calls(&ctx, &sources, func, &spec, calls, false)?;
            let mut out = r.to_json();
            if args.grad {
                match args.grad_method.unwrap_or(GradMethod::Fd) {
                    GradMethod::Fd => {
                        aot_run::backward_check(&text, &args.file, &sources, entry, &spec)?;
                        let g = fd::finite_differences(&ctx, &sources, func, &spec, &tangents, &r, args.seed)?;
                        out["grads"] = Json::Array(g.grads);
                        out["storage_grads"] = Json::Array(g.storage_grads);
                    }
                    GradMethod::Ad => {
                        return Err(RunError::input(
                            "--grad-method ad runs the compiled backward; use --mode compiled --pipeline aot-train",
                        ))
                    }
                }
            }
            out
        }
        Mode::Compiled => {
            let backend = match &args.backend {
                Some(name) => aot::Backend::parse(name).map_err(RunError::input)?,
                None => aot::Backend::CRANELIFT,
            };
            if args.grad && args.grad_method == Some(GradMethod::Fd) {
                return Err(RunError::input("--grad-method fd differentiates the eager program: use --mode eager"));
            }
            let calls = Calls { grad: args.grad.then_some(&tangents), ..calls };
            let pipeline = args
                .pipeline
                .clone()
                .unwrap_or_else(|| if args.grad { "aot-train" } else { "aot-inference" }.to_string());
            let compile_for = match &args.compile_for {
                Some(path) => read_inputs(&ctx, func, &read_user_inputs(read(path, "compile-for inputs")?)?)?,
                None => spec.clone(),
            };
            let opts =
                aot::compile::CompileOptions { pipeline, backend, keep_ir: args.dump_ir.is_some(), progress: false };
            let r = aot_run::run_compiled_for(ctx, &sources, module, func, &compile_for, &spec, &opts, calls)?;
            if let (Some(path), Some(ir)) = (&args.dump_ir, &r.ir) {
                std::fs::write(path, ir).map_err(|e| RunError::input(format!("could not write '{path}': {e}")))?;
            }
            let mut out = r.to_json();
            if let Some(c) = r.crossings {
                out["crossings"] = serde_json::json!({
                    "uploads": c.uploads,
                    "uploaded_bytes": c.uploaded_bytes,
                    "downloads": c.downloads,
                    "downloaded_bytes": c.downloaded_bytes,
                    "constant_uploads": c.constant_uploads,
                });
            }
            out
        }
    };
    let mut result = result;
    if let Some(w) = &wrapper {
        w.wrap_result(&mut result);
    }
    let text = serde_json::to_string_pretty(&result).expect("JSON serializes") + "\n";
    match &args.output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| RunError::input(format!("could not write '{path}': {e}")))?
        }
        // Not print!, which panics when the reader has gone (`| head`).
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| RunError::input(format!("could not write the output: {e}")))?
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Args;
    use clap::CommandFactory;

    #[test]
    fn every_flag_has_help_text_inside_the_repository() {
        let cmd = Args::command();
        for a in cmd.get_arguments() {
            let help = a.get_long_help().or(a.get_help()).map(|h| h.to_string()).unwrap_or_default();
            assert!(!help.trim().is_empty(), "aot-run argument '{}' has no help text", a.get_id());
            assert!(!help.contains("ir-contract"), "aot-run argument '{}' points outside the repository", a.get_id());
        }
    }

    #[test]
    fn max_alloc_bytes_accepts_suffixes() {
        assert_eq!(super::parse_alloc_limit("4G"), Ok(4 << 30));
        assert_eq!(super::parse_alloc_limit("2k"), Ok(2048));
        assert!(super::parse_alloc_limit("-1").is_err());
    }
}
