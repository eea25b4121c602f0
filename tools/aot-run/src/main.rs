//! `aot-run`: executes a function eagerly (the reference interpreter) or
//! compiled, and writes what happened as JSON (ir-contract §4): outputs with
//! their layout, `alias_of_arg` and `requires_grad`; every argument's final
//! state; and with `--grad`, gradients. Bad input (malformed JSON, a shape
//! mismatch, a view outside its storage) is a clear error naming the
//! argument and a non-zero exit.

use aot::ir::{Context, ParseOptions, SourceMgr};
use aot::run::json::{parse_inputs, parse_tangents, TangentSpec};
use aot::run::{fd, run_eager_calls, Calls, RunError};
use clap::{Parser as _, ValueEnum};
use serde_json::Value as Json;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Mode {
    Eager,
    Compiled,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Backend {
    Interp,
    Cranelift,
    Llvm,
    Cuda,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum GradMethod {
    Ad,
    Fd,
}

#[derive(clap::Parser, Debug)]
#[command(name = "aot-run", about = "Execute an aot function eagerly or compiled; JSON in and out", version = aot::VERSION)]
struct Args {
    /// The module to run.
    file: String,
    /// The function to call (default: the only public function, else @main).
    #[arg(long)]
    entry: Option<String>,
    /// Input file (ir-contract §4).
    #[arg(long, conflicts_with = "random_inputs")]
    inputs: Option<String>,
    /// Generate inputs from the signature with this seed.
    #[arg(long, value_name = "SEED")]
    random_inputs: Option<u64>,
    #[arg(long, value_enum, default_value = "eager")]
    mode: Mode,
    /// Pipeline for --mode compiled (a named pipeline or MLIR pipeline text;
    /// default: aot-train with --grad, else aot-inference).
    #[arg(long)]
    pipeline: Option<String>,
    #[arg(long, value_enum, default_value = "interp")]
    backend: Backend,
    /// Also compute gradients.
    #[arg(long)]
    grad: bool,
    /// Tangents for --grad (default: all ones).
    #[arg(long, requires = "grad")]
    tangents: Option<String>,
    /// How to compute gradients (default: fd in eager mode, ad when compiled).
    #[arg(long, value_enum)]
    grad_method: Option<GradMethod>,
    /// Seed of the Philox generator before the call.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the inputs used (e.g. random ones) to this file.
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
    /// Output file (default: stdout).
    #[arg(short = 'o')]
    output: Option<String>,
}

fn main() -> ExitCode {
    aot::init();
    let args = Args::parse();
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

fn backend_name(b: Backend) -> &'static str {
    match b {
        Backend::Interp => "interp",
        Backend::Cranelift => "cranelift",
        Backend::Llvm => "llvm",
        Backend::Cuda => "cuda",
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
    let func = aot::dialects::func::entry_func(&ctx, module, args.entry.as_deref()).map_err(RunError::input)?.op;

    let spec = match (&args.inputs, args.random_inputs) {
        (Some(path), _) => parse_inputs(&read(path, "inputs")?)?,
        (None, Some(seed)) => aot::run::random_inputs(&ctx, func, seed)?,
        (None, None) => return Err(RunError::input("give --inputs FILE or --random-inputs SEED")),
    };
    if let Some(path) = &args.dump_inputs {
        let text = serde_json::to_string_pretty(&aot::run::inputs_to_json(&spec)).expect("JSON serializes");
        std::fs::write(path, text + "\n").map_err(|e| RunError::input(format!("could not write '{path}': {e}")))?;
    }
    let tangents = match &args.tangents {
        Some(path) => parse_tangents(&read(path, "tangents")?)?,
        None => TangentSpec::default(),
    };

    let calls = Calls { seed: args.seed, count: args.calls as usize, grad: None };
    let result = match args.mode {
        Mode::Eager => {
            if args.dump_ir.is_some() || args.compile_for.is_some() || args.pipeline.is_some() {
                return Err(RunError::input("--pipeline, --dump-ir and --compile-for need --mode compiled"));
            }
            if args.grad && args.calls > 1 {
                return Err(RunError::input("--grad reports one call: drop --calls"));
            }
            let r = run_eager_calls(&ctx, &sources, func, &spec, calls, false)?;
            let mut out = r.to_json();
            if args.grad {
                match args.grad_method.unwrap_or(GradMethod::Fd) {
                    GradMethod::Fd => {
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
            let backend = aot::compile::Backend::parse(backend_name(args.backend)).map_err(RunError::input)?;
            if args.grad && args.grad_method == Some(GradMethod::Fd) {
                return Err(RunError::input("--grad-method fd differentiates the eager program: use --mode eager"));
            }
            let calls = Calls { grad: args.grad.then_some(&tangents), ..calls };
            let pipeline = args
                .pipeline
                .clone()
                .unwrap_or_else(|| if args.grad { "aot-train" } else { "aot-inference" }.to_string());
            let compile_for = match &args.compile_for {
                Some(path) => Some(parse_inputs(&read(path, "compile-for inputs")?)?),
                None => None,
            };
            let opts = aot::compile::CompileOptions { pipeline, backend, keep_ir: args.dump_ir.is_some(), compile_for };
            let r = aot::run::run_compiled(ctx, &sources, module, func, &spec, &opts, calls)?;
            if let (Some(path), Some(ir)) = (&args.dump_ir, &r.ir) {
                std::fs::write(path, ir).map_err(|e| RunError::input(format!("could not write '{path}': {e}")))?;
            }
            let mut out = aot::run::outputs_json(&r.outputs, &r.args);
            if let Some((grads, storage_grads)) = r.grads {
                out["grads"] = grads;
                out["storage_grads"] = storage_grads;
            }
            out
        }
    };
    let text = serde_json::to_string_pretty(&result).expect("JSON serializes") + "\n";
    match &args.output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| RunError::input(format!("could not write '{path}': {e}")))?
        }
        None => print!("{text}"),
    }
    Ok(())
}
