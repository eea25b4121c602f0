//! `aot-opt`: the MLIR-style pass driver.
//!
//! Reads a module (or `--split-input-file` chunks), verifies it, runs a pass
//! pipeline with the requested instrumentation and prints the result. Every
//! error is a located diagnostic on stderr and a non-zero exit; with
//! `--verify-diagnostics` the diagnostics are instead checked against the
//! `expected-*` comments of the input.

use aot::ir::pass::{self, PassManager, TimingDisplay, TimingNode};
use aot::ir::verify_diagnostics::{check, collect_expectations, split_input};
use aot::ir::{print_op, Context, Diagnostic, ParseOptions, PrintOptions, SourceMgr};
use clap::{Parser as _, ValueEnum};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Copy, Clone, Debug, ValueEnum)]
enum TimingMode {
    List,
    Tree,
}

#[derive(clap::Parser, Debug)]
#[command(name = "aot-opt", about = "aot modular optimizer driver", version = aot::VERSION)]
struct Args {
    /// Input file (`-` for stdin).
    #[arg(default_value = "-")]
    input: String,
    /// Output file (`-` for stdout).
    #[arg(short = 'o', default_value = "-")]
    output: String,
    /// The pass pipeline, in MLIR's textual grammar.
    #[arg(long = "pass-pipeline", default_value = "")]
    pass_pipeline: String,
    /// Split the input at `// -----` lines and process each chunk independently.
    #[arg(long)]
    split_input_file: bool,
    /// Check diagnostics against `expected-*` comments instead of printing them.
    #[arg(long)]
    verify_diagnostics: bool,
    /// Print every op in the generic form.
    #[arg(long)]
    print_generic: bool,
    /// Print the location of every op.
    #[arg(long)]
    print_debuginfo: bool,
    /// Verify the IR after each pass.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    verify_each: bool,
    /// Print the IR before every pass, to stderr, each dump headed
    /// `// -----// IR Dump Before NAME (argument) //----- //`.
    #[arg(long)]
    print_ir_before_all: bool,
    /// Print the IR after every pass, to stderr, each dump headed
    /// `// -----// IR Dump After NAME (argument) //----- //`.
    #[arg(long)]
    print_ir_after_all: bool,
    /// Print the IR before the given pass (repeatable).
    #[arg(long = "print-ir-before", value_name = "PASS")]
    print_ir_before: Vec<String>,
    /// Print the IR after the given pass (repeatable).
    #[arg(long = "print-ir-after", value_name = "PASS")]
    print_ir_after: Vec<String>,
    /// Print the IR after a pass only when it changed.
    #[arg(long)]
    print_ir_after_change: bool,
    /// Print the IR after a pass that failed.
    #[arg(long)]
    print_ir_after_failure: bool,
    /// Report per-pass wall time.
    #[arg(long)]
    timing: bool,
    /// How --timing reports: `list` (one line per pass, summed over
    /// anchors) or `tree` (nested as the pipeline is).
    #[arg(long, value_enum, default_value = "list")]
    timing_display: TimingMode,
    /// Report pass statistics.
    #[arg(long)]
    pass_statistics: bool,
    /// List the registered passes and pipelines.
    #[arg(long)]
    list_passes: bool,
    /// Print the pass reference (docs/passes.md) generated from the registry.
    #[arg(long)]
    generate_pass_docs: bool,
    /// Print the op reference (docs/reference/ops.md) generated from the registry.
    #[arg(long)]
    generate_op_docs: bool,
    /// Print the resolved pipeline (explicit nesting, named pipelines expanded).
    #[arg(long)]
    dump_pass_pipeline: bool,
    /// What to print: `ir` (default: this project's IR), `dot` (a Graphviz
    /// picture of the IR after the pipeline: ops coloured by dialect, views
    /// dashed, in-place writes in red, and after `partition` the saved
    /// values and the cut between forward and backward), `dot-partition`
    /// (the partition alone: each forward's saved values, the backward
    /// arguments that receive them and the cut; for modules too large to
    /// draw whole), `mlir` (upstream
    /// MLIR: func, tensor, linalg, arith and math, verified by MLIR 19;
    /// builds with the `mlir` feature), `clif` (the Cranelift IR of every
    /// kernel), `clif-opt` (that IR after Cranelift's optimizations),
    /// `llvm` (the optimized LLVM IR of every kernel; builds with
    /// the `llvm` feature), `asm` (their machine code, from the backend
    /// `--backend` names) or `ptx` (every kernel as a PTX entry for the GPU
    /// `--gpu-arch` names; builds with the `cuda` feature); functions still
    /// over tensors are lowered to loops first.
    #[arg(long, default_value = "ir")]
    emit: String,
    /// The native backend whose machine code `--emit=asm` prints:
    /// `cranelift` (default) or `llvm`.
    #[arg(long, default_value = "cranelift")]
    backend: String,
    /// The GPU architecture `--emit=ptx` generates for: `sm_80` (default)
    /// or `sm_90`; several, comma-separated (`sm_80,sm_90`), print each
    /// one's PTX in turn after a `// gpu-arch NAME` line, from one run of
    /// the pipelines.
    #[arg(long, default_value = "sm_80")]
    gpu_arch: String,
    /// Largest single allocation in bytes (suffixes k, M, G, T; default: the
    /// AOT_MAX_ALLOC_BYTES environment variable, else half of physical memory).
    #[arg(long, value_parser = parse_alloc_limit, value_name = "BYTES")]
    max_alloc_bytes: Option<u64>,
}

fn parse_alloc_limit(s: &str) -> Result<u64, String> {
    aot::ir::size::parse_size(s).ok_or_else(|| format!("expected a byte count such as 1048576, 512M or 4G, got '{s}'"))
}

fn main() -> ExitCode {
    aot::init();
    let args = Args::parse();
    if let Some(n) = args.max_alloc_bytes {
        aot::ir::size::Limits::set(aot::ir::size::Limit::AllocBytes, n);
    }
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(msg) => {
            eprintln!("aot-opt: error: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn read_input(path: &str) -> Result<(String, String), String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| format!("could not read stdin: {e}"))?;
        Ok(("<stdin>".to_string(), s))
    } else {
        let s = std::fs::read_to_string(path).map_err(|e| format!("could not open input file '{path}': {e}"))?;
        Ok((path.to_string(), s))
    }
}

/// Writes `text` to standard output: an error (not print!'s panic) when
/// the reader has gone (`| head`).
fn write_stdout(text: &str) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()).map_err(|e| format!("could not write output: {e}"))
}

fn run(args: &Args) -> Result<bool, String> {
    if args.list_passes {
        write_stdout(&pass::render_pass_list())?;
        return Ok(true);
    }
    if args.generate_pass_docs {
        write_stdout(&pass::render_pass_docs())?;
        return Ok(true);
    }
    if args.generate_op_docs {
        write_stdout(&aot::dialects::docs::render_op_docs())?;
        return Ok(true);
    }
    let dot = matches!(args.emit.as_str(), "dot" | "dot-partition");
    let emit = if dot { Vec::new() } else { emit_kind(&args.emit, &args.backend, &args.gpu_arch)? };
    let mut pm = match PassManager::parse(&args.pass_pipeline) {
        Ok(pm) => pm,
        Err(e) => {
            eprintln!("{e}");
            return Ok(false);
        }
    };
    pm.options.verify_each = args.verify_each;
    pm.options.print.before_all = args.print_ir_before_all;
    pm.options.print.after_all = args.print_ir_after_all;
    pm.options.print.before = args.print_ir_before.clone();
    pm.options.print.after = args.print_ir_after.clone();
    pm.options.print.after_change = args.print_ir_after_change;
    pm.options.print.after_failure = args.print_ir_after_failure;
    pm.options.print.check_pass_names()?;
    pm.options.print.generic = args.print_generic;
    // With --emit=clif/llvm/asm, functions still over tensors go through the
    // codegen pipeline, under the same instrumentation as the main one.
    // (Targets that take functions over tensors, the MLIR export, have none.)
    let codegen_target = emit.first().map(|(n, _)| n.target).filter(|t| t.capabilities().lowered_input);
    let mut codegen_pm = match codegen_target {
        Some(t) => Some(aot::codegen::pass_manager_for(t, pm.options.clone())?),
        None => None,
    };
    if args.dump_pass_pipeline {
        eprintln!("Pass Manager with {}", pm.resolved_text());
        if let Some(c) = &codegen_pm {
            eprintln!("Pass Manager with {}", c.resolved_text());
        }
    }

    let (file, text) = read_input(&args.input)?;
    let mut sources = SourceMgr::new();
    sources.add(&file, Arc::from(text.as_str()));
    let chunks = if args.split_input_file { split_input(&text) } else { vec![(text.clone(), 1)] };

    let mut ok = true;
    let mut outputs = Vec::new();
    let (mut t_parse, mut t_verify, mut t_output) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut stderr = std::io::stderr();
    for (chunk, first_line) in &chunks {
        let mut ctx = Context::new();
        let mut diags: Vec<Diagnostic> = Vec::new();
        let t0 = Instant::now();
        let parsed =
            aot::ir::parse_module(&mut ctx, chunk, &ParseOptions { file: file.clone(), first_line: *first_line });
        t_parse += t0.elapsed();
        let mut printed = None;
        match parsed {
            Err(d) => diags.push(d),
            Ok(module) => {
                let t0 = Instant::now();
                let verified = aot::ir::verify(&ctx, module);
                t_verify += t0.elapsed();
                match verified {
                    Err(ds) => diags.extend(ds),
                    Ok(()) => match pm.run(&mut ctx, module, &mut stderr) {
                        Err(f) => diags.extend(f.diagnostics),
                        Ok(()) => {
                            let t0 = Instant::now();
                            if !emit.is_empty() {
                                // A target without a codegen pipeline gets an
                                // empty one it never runs.
                                let mut none = PassManager::parse("").map_err(|e| e.to_string())?;
                                let cpm = codegen_pm.as_mut().unwrap_or(&mut none);
                                match emit_native(&mut ctx, module, &emit, cpm, &mut stderr) {
                                    Ok(t) => printed = Some(t),
                                    Err(d) => diags.push(d),
                                }
                            } else if args.emit == "dot" {
                                printed = Some(aot::dot::render(&ctx, module));
                            } else if dot {
                                // (Nothing partitioned: an empty picture.)
                                printed = Some(aot::dot::render_partition(&ctx, module).unwrap_or_else(|| {
                                    "digraph \"aot\" {\n  label=\"no partition\";\n}\n".to_string()
                                }));
                            } else {
                                let opts =
                                    PrintOptions { generic: args.print_generic, debug_info: args.print_debuginfo };
                                printed = Some(print_op(&ctx, module, opts));
                            }
                            t_output += t0.elapsed();
                        }
                    },
                }
            }
        }
        if args.verify_diagnostics {
            let mut expected = match collect_expectations(chunk, *first_line) {
                Ok(e) => e,
                Err(m) => {
                    eprintln!("{file}: error: {m}");
                    ok = false;
                    continue;
                }
            };
            let failures = check(&mut ctx, &file, &mut expected, &diags);
            for f in &failures {
                eprint!("{}", f.render(&ctx, &sources));
            }
            ok &= failures.is_empty();
        } else {
            for d in &diags {
                eprint!("{}", d.render(&ctx, &sources));
            }
            ok &= !diags.iter().any(|d| d.severity == aot::ir::Severity::Error);
        }
        // A chunk that failed prints nothing, but keeps its place between
        // the separators (as in mlir-opt): the k-th output is the k-th
        // chunk's, so a caller can tell which chunks failed.
        outputs.push(printed);
    }

    let mut out_text = String::new();
    for (i, o) in outputs.iter().enumerate() {
        if i > 0 {
            out_text.push_str("// -----\n");
        }
        if let Some(o) = o {
            out_text.push_str(o);
            out_text.push('\n');
        }
    }
    if args.output == "-" {
        write_stdout(&out_text)?;
    } else {
        std::fs::write(&args.output, out_text).map_err(|e| format!("could not write '{}': {e}", args.output))?;
    }

    if args.timing {
        let mut roots = vec![
            TimingNode { name: "Parser".into(), time: t_parse, children: vec![] },
            TimingNode { name: "Verifier".into(), time: t_verify, children: vec![] },
            pm.timing(),
        ];
        // The codegen pipeline runs inside the output step: report it
        // apart, and the output step without it.
        if let Some(c) = &codegen_pm {
            let t = c.timing();
            t_output = t_output.saturating_sub(t.time);
            roots.push(t);
        }
        roots.push(TimingNode { name: "Output".into(), time: t_output, children: vec![] });
        let display = match args.timing_display {
            TimingMode::List => TimingDisplay::List,
            TimingMode::Tree => TimingDisplay::Tree,
        };
        eprint!("{}", pass::instrument::render_timing(&roots, display));
    }
    if args.pass_statistics {
        eprint!("{}", pm.statistics_report());
        if let Some(c) = &codegen_pm {
            eprint!("{}", c.statistics_report());
        }
    }
    Ok(ok)
}

/// What `--emit` prints for a module: the text of each code generator in
/// turn, each after its header line where it has one (several
/// architectures of `--emit=ptx`: the module goes through the codegen
/// pipeline once, the first emission lowers it and the others find it
/// lowered).
fn emit_native(
    ctx: &mut Context,
    module: aot::ir::Op,
    emissions: &[Emission],
    cpm: &mut PassManager,
    sink: &mut dyn std::io::Write,
) -> Result<String, Diagnostic> {
    let mut out = String::new();
    for (k, (native, header)) in emissions.iter().enumerate() {
        if let Some(h) = header {
            if k > 0 {
                out.push('\n');
            }
            out.push_str(h);
            out.push('\n');
        }
        out.push_str(&aot::codegen::emit_text(ctx, module, native, cpm, sink)?);
    }
    Ok(out)
}

/// A code generator `--emit` runs, with the line printed before its text
/// (`// gpu-arch NAME` when `--gpu-arch` lists several).
type Emission = (aot::codegen::Native, Option<String>);

/// The code generators and outputs `--emit`, `--backend` and `--gpu-arch`
/// ask for (none: print the IR), from the list of targets: the first that
/// writes the kind, or the one `--backend` names among those.
fn emit_kind(emit: &str, backend: &str, gpu_arch: &str) -> Result<Vec<Emission>, String> {
    use aot::codegen::target::{self, TARGETS};
    if emit == "ir" {
        return Ok(Vec::new());
    }
    let writers: Vec<&target::Registration> = TARGETS.iter().filter(|r| r.emits.contains(&emit)).collect();
    if writers.is_empty() {
        let mut kinds = vec!["ir", "dot", "dot-partition"];
        for r in TARGETS {
            for k in r.emits {
                if !kinds.contains(k) {
                    kinds.push(k);
                }
            }
        }
        return Err(format!("unknown --emit kind '{emit}' (available: {})", kinds.join(", ")));
    }
    let chosen = if writers.len() == 1 {
        writers[0]
    } else {
        writers.iter().copied().find(|r| r.name == backend).ok_or_else(|| {
            let names: Vec<&str> = writers.iter().map(|r| r.name).collect();
            format!("unknown --backend '{backend}' (available: {})", names.join(", "))
        })?
    };
    let t = chosen.target.ok_or_else(|| chosen.missing(&format!("--emit={emit}"), "aot-opt"))?;
    // The registration's own spelling: options hold a `'static` kind.
    let kind: &'static str = chosen.emits.iter().copied().find(|k| *k == emit).unwrap_or("ir");
    let native = |gpu_arch: Option<String>| -> Result<aot::codegen::Native, String> {
        let options = target::Options { emit: Some(kind), gpu_arch, ..Default::default() };
        t.check(&options)?;
        Ok(aot::codegen::Native { target: t, options })
    };
    if !t.capabilities().gpu_arch {
        return Ok(vec![(native(None)?, None)]);
    }
    let archs: Vec<&str> = gpu_arch.split(',').map(str::trim).collect();
    let mut emissions = Vec::new();
    for (k, &arch) in archs.iter().enumerate() {
        if archs[..k].contains(&arch) {
            return Err(format!("--gpu-arch names {arch} twice"));
        }
        let header = (archs.len() > 1).then(|| format!("// gpu-arch {arch}"));
        emissions.push((native(Some(arch.to_string()))?, header));
    }
    Ok(emissions)
}

#[cfg(test)]
mod tests {
    use super::Args;
    use clap::CommandFactory;

    #[test]
    fn every_flag_has_help_text() {
        let cmd = Args::command();
        for a in cmd.get_arguments() {
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(!help.trim().is_empty(), "aot-opt argument '{}' has no help text", a.get_id());
        }
    }

    #[test]
    fn max_alloc_bytes_accepts_suffixes() {
        assert_eq!(super::parse_alloc_limit("4G"), Ok(4 << 30));
        assert_eq!(super::parse_alloc_limit("512"), Ok(512));
        assert!(super::parse_alloc_limit("lots").is_err());
    }
}
