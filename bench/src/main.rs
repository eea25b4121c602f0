//! `aot-bench`: reproducible benchmarks. Each subcommand prints a small
//! table; `bench/README.md` records the figures with the command used.
//!
//! ```text
//! cargo run --release -p aot-bench -- ir [--ops N]
//! cargo run --release -p aot-bench -- functionalize [--ops N]
//! cargo run --release -p aot-bench -- overlap [--n N]
//! cargo run --release -p aot-bench -- train [--layers 12 --d-model 256 --heads 4 --ff 1024 --batch 2 --seq 16] [--emit FILE]
//! cargo run --release -p aot-bench -- simplify [--reps 10 --steps 20]
//! cargo run --release -p aot-bench -- native <elementwise|matmul|train|overhead>
//! cargo run --release -p aot-bench -- sizes [--sizes 16 --rows 512 --cols 1024 --calls 200]
//! ```

mod functionalize;
mod ir;
mod native;
mod overlap;
mod simplify;
mod sizes;
mod train;

fn main() {
    aot::init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("usage: aot-bench <ir|functionalize|overlap|train|simplify|native|sizes> [options]");
        std::process::exit(2);
    };
    let rest = &args[1..];
    let r = match cmd.as_str() {
        "ir" => ir::run(rest),
        "functionalize" => functionalize::run(rest),
        "overlap" => overlap::run(rest),
        "train" => train::run(rest),
        "simplify" => simplify::run(rest),
        "native" => native::run(rest),
        "sizes" => sizes::run(rest),
        other => Err(format!(
            "unknown benchmark '{other}' (available: ir, functionalize, overlap, train, simplify, native, sizes)"
        )),
    };
    if let Err(e) = r {
        eprintln!("aot-bench: error: {e}");
        std::process::exit(1);
    }
}

/// Value of `--name N` in `args`, else `default`.
pub fn arg_usize(args: &[String], name: &str, default: usize) -> Result<usize, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} expects a number")),
    }
}

/// Runs `f` `reps` times and returns the fastest wall time in seconds.
pub fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps {
        let t0 = std::time::Instant::now();
        let r = f();
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("at least one repetition"))
}
