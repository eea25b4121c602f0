//! `aot-fuzz`: runs a fuzz campaign against one target, minimizes a
//! finding, or executes one input in-process (with the panic's backtrace).
//!
//! `aot-fuzz --worker <target> <address-space-MiB> <alloc-MiB>` is the
//! worker mode the driver starts itself in; it is not meant for users.

use aot_fuzz::driver::{campaign, minimize, Config, MinimizeConfig};
use aot_fuzz::targets::Target;
use aot_fuzz::worker::{apply_limits, worker_main, WorkerLimits};
use clap::{Args as ClapArgs, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(name = "aot-fuzz", about = "Fuzz the aot compiler: roundtrip, pipeline and run targets", version = aot::VERSION)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(ClapArgs, Debug, Clone)]
struct LimitArgs {
    /// Seconds of CPU time one input may run before it counts as a hang
    /// (or ten times as long on the wall clock while it computes nothing).
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Address-space limit of the worker (RLIMIT_AS), in MiB; 0 for none.
    #[arg(long, default_value_t = 4096)]
    address_space_mb: u64,
    /// The compiler's allocation limit in the worker, in MiB.
    #[arg(long, default_value_t = 256)]
    alloc_mb: u64,
}

impl LimitArgs {
    fn limits(&self) -> Result<WorkerLimits, String> {
        if !(self.timeout > 0.0 && self.timeout.is_finite()) {
            return Err("--timeout must be a positive number of seconds".into());
        }
        Ok(WorkerLimits {
            address_space_mb: self.address_space_mb,
            alloc_mb: self.alloc_mb,
            timeout: Duration::from_secs_f64(self.timeout),
        })
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a campaign: replay the seeds, mutate, record findings.
    Run {
        /// roundtrip, pipeline or run.
        target: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Stop after this many executions.
        #[arg(long)]
        runs: Option<u64>,
        /// Stop after this many seconds.
        #[arg(long)]
        max_seconds: Option<f64>,
        /// Where findings go (a folder per target).
        #[arg(long, default_value = "fuzz/artifacts")]
        artifacts: PathBuf,
        /// The repository whose test/ folder gives the seeds (default: this one).
        #[arg(long)]
        repo: Option<PathBuf>,
        /// Artifacts kept per distinct finding.
        #[arg(long, default_value_t = 3)]
        keep: usize,
        /// Print every new error message (the corpus feedback) to stderr.
        #[arg(long)]
        print_novel: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Shrink a finding while it fails the same way.
    Minimize {
        target: String,
        file: PathBuf,
        /// Where the minimized input goes (default: <file>.min).
        #[arg(short = 'o')]
        output: Option<PathBuf>,
        #[arg(long, default_value_t = 5000)]
        max_runs: u64,
        #[arg(long, default_value_t = 600.0)]
        max_seconds: f64,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Run one input in this process (a panic prints its backtrace with
    /// RUST_BACKTRACE=1; a crash takes this process down).
    Exec {
        target: String,
        file: PathBuf,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

fn worker(args: &[String]) -> Result<(), String> {
    let [target, as_mb, alloc_mb] = args else {
        return Err("usage: aot-fuzz --worker <target> <address-space-MiB> <alloc-MiB>".into());
    };
    let num = |s: &str| s.parse::<u64>().map_err(|_| format!("--worker: '{s}' is not a number"));
    let limits = WorkerLimits { address_space_mb: num(as_mb)?, alloc_mb: num(alloc_mb)?, timeout: Duration::ZERO };
    worker_main(Target::parse(target)?, &limits)
}

fn exe() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| format!("cannot find the aot-fuzz executable: {e}"))
}

fn run(cli: Cli) -> Result<bool, String> {
    match cli.command {
        Command::Run { target, seed, runs, max_seconds, artifacts, repo, keep, print_novel, limits } => {
            let target = Target::parse(&target)?;
            if runs.is_none() && max_seconds.is_none() {
                return Err("give --runs N or --max-seconds S (or both)".into());
            }
            let cfg = Config {
                target,
                seed,
                runs,
                max_seconds,
                limits: limits.limits()?,
                artifacts,
                repo: repo.unwrap_or_else(aot_fuzz::corpus::default_repo),
                exe: exe()?,
                keep_per_finding: keep.max(1),
                progress: Some(Duration::from_secs(30)),
                print_novel,
            };
            let report = campaign(&cfg)?;
            print!("{}", report.render(target));
            Ok(report.findings.is_empty())
        }
        Command::Minimize { target, file, output, max_runs, max_seconds, limits } => {
            let target = Target::parse(&target)?;
            let input = std::fs::read(&file).map_err(|e| format!("could not read '{}': {e}", file.display()))?;
            let cfg = MinimizeConfig { target, limits: limits.limits()?, exe: exe()?, max_runs, max_seconds };
            let (min, crash, tries) = minimize(&cfg, &input)?;
            let out = output.unwrap_or_else(|| PathBuf::from(format!("{}.min", file.display())));
            std::fs::write(&out, &min).map_err(|e| format!("could not write '{}': {e}", out.display()))?;
            println!(
                "aot-fuzz: minimized [{}] from {} to {} bytes in {tries} tries: {}\n{}",
                crash.key,
                input.len(),
                min.len(),
                out.display(),
                crash.reason
            );
            Ok(true)
        }
        Command::Exec { target, file, limits } => {
            let target = Target::parse(&target)?;
            let input = std::fs::read(&file).map_err(|e| format!("could not read '{}': {e}", file.display()))?;
            apply_limits(&limits.limits()?)?;
            aot::init();
            let o = target.execute(&input);
            for m in &o.messages {
                println!("error: {m}");
            }
            match o.finding {
                Some(f) => {
                    println!("finding: {f}");
                    Ok(false)
                }
                None => Ok(true),
            }
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--worker") {
        return match worker(&args[2..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(m) => {
                eprintln!("aot-fuzz worker: {m}");
                ExitCode::from(2)
            }
        };
    }
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(m) => {
            eprintln!("aot-fuzz: error: {m}");
            ExitCode::from(2)
        }
    }
}
