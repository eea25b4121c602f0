//! Helpers shared by the integration tests (each test uses some of them).
#![allow(dead_code)]

pub mod parallel;

use std::path::{Path, PathBuf};

/// The module of `text` (named `file` in diagnostics) after
/// `aot-inference`, with its entry function; `None` where it does not
/// parse, verify or go through the pipeline.
pub fn pipelined(text: &str, file: &str) -> Option<(aot::ir::Context, aot::ir::Op)> {
    use aot::ir::{parse_module, verify, Context, ParseOptions};
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, text, &ParseOptions { file: file.into(), first_line: 1 }).ok()?;
    verify(&ctx, m).ok()?;
    aot::ir::pass::PassManager::parse("builtin.module(aot-inference)")
        .ok()?
        .run(&mut ctx, m, &mut std::io::sink())
        .ok()?;
    let f = aot::dialects::func::entry_func(&ctx, m, None).ok()?.op;
    Some((ctx, f))
}

/// For the program `name` of `test/symbolic` (its file name without the
/// extension): the sizes it is compiled for, and the sizes it is then
/// called with, all within its ranges and guards.
pub fn symbolic_sizes(name: &str) -> (&'static str, &'static [&'static str]) {
    match name {
        // Spatial sizes of at least 4 (the function's ranges).
        "cnn" => ("s0=4,s1=5,s2=6", &["s0=2,s1=4,s2=4", "s0=3,s1=9,s2=5", "s0=5,s1=6,s2=11"]),
        // Multiples of 4 (its guard).
        "reshape_by_guard" => ("s0=4,s1=5,s2=6", &["s0=4", "s0=12", "s0=36"]),
        // s2 = 2 makes its strided view's last size 1 (the strides tie).
        "intermediate_layout" => ("s0=4,s1=5,s2=6", &["s0=2,s1=3,s2=2", "s0=3,s1=2,s2=5", "s0=2,s1=4,s2=7"]),
        // Even heights and widths (its guard).
        "crop_and_area_guard" => ("s0=4,s1=6,s2=8", &["s0=2,s1=2,s2=4", "s0=3,s1=8,s2=2", "s0=2,s1=10,s2=6"]),
        // Even lengths (its guard).
        "stepped_view_by_guard" => ("s0=4,s1=6,s2=8", &["s0=2,s1=2", "s0=3,s1=8", "s0=5,s1=6"]),
        _ => ("s0=4,s1=5,s2=6", &["s0=2,s1=2", "s0=3,s1=7", "s0=9,s1=3", "s0=4,s1=5"]),
    }
}

/// Every file below `dir` whose name ends with `suffix`, in sorted order.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            // Hidden folders are not corpus: the test command keeps a
            // Python venv (thousands of files) in `test/.venv`.
            if p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')) {
                continue;
            }
            if p.is_dir() {
                walk(&p, suffix, out);
            } else if p.to_string_lossy().ends_with(suffix) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, suffix, &mut out);
    out
}

/// The test corpus folder `test/<sub>` of this repository: of the checkout
/// named by `AOT_SOURCE_ROOT` where that is set (a suite binary built on one
/// machine and run from another checkout, as `scripts/gpu-check.sh` does on a
/// GPU machine without a Rust toolchain), else of the checkout it was built in.
pub fn corpus_dir(sub: &str) -> PathBuf {
    let root =
        std::env::var_os("AOT_SOURCE_ROOT").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    root.join("test").join(sub)
}

/// Whether this machine has a GPU for the CUDA backend; where it has none,
/// says why (the caller then skips, and passes).
#[cfg(feature = "cuda")]
pub fn gpu_or_skip() -> bool {
    match aot::runtime::cuda::gpu() {
        Ok(g) => {
            eprintln!("GPU: {} (sm_{}{})", g.name, g.capability.0, g.capability.1);
            true
        }
        Err(why) => {
            eprintln!("skipped: no GPU ({why})");
            false
        }
    }
}

/// `f` of every item, computed on every core: threads take the next item
/// from a shared counter, and the results come back in the items' order, so
/// a corpus suite reports exactly what a loop would. A panic in `f` fails
/// the caller's test.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, items.len().max(1));
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        mine.push((i, f(item)));
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    done.sort_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// How many seeded cases a heavy randomized suite runs: `subset` in the
/// test command, `full` with `AOT_FULL=1` (`scripts/test-full.sh`). Both are
/// fixed counts, never a time limit, so every machine runs the same cases;
/// the subset is a prefix of the full run's cases.
pub fn cases(subset: u64, full: u64) -> u64 {
    if full_run() {
        full
    } else {
        subset
    }
}

/// Whether `AOT_FULL` asks for the full run of the heavy suites.
fn full_run() -> bool {
    matches!(std::env::var("AOT_FULL"), Ok(v) if !v.is_empty() && v != "0")
}

/// The corpus files a heavy per-backend corpus suite checks: every
/// `every`-th of the sorted list in the test command (a fixed sample, the
/// same on every machine), all of them with `AOT_FULL=1`. For the
/// backends whose whole cost is their own compiler (MLIR's pipeline and
/// JIT), where the code every backend shares is checked on the whole
/// corpus by the interpreter and Cranelift suites.
pub fn corpus_sample(files: Vec<PathBuf>, every: usize) -> Vec<PathBuf> {
    if full_run() || every <= 1 {
        return files;
    }
    files.into_iter().step_by(every).collect()
}

/// A suite's least number of checked cases, scaled down as
/// [`corpus_sample`] scales its corpus.
pub fn sampled_least(least: usize, every: usize) -> usize {
    if full_run() || every <= 1 {
        least
    } else {
        least / every
    }
}

/// A seeded splitmix64 stream: random cases and directions that are the
/// same on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 for n = 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// Uniform in [-1, 1), on a grid of 2^-52.
    pub fn symmetric(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// Runs `body` in a process of its own: the test binary runs again with
/// only the test `path` (as libtest names it, `module::name`) selected and
/// `env` set, and this test fails with the child's output when the child
/// fails. For the tests that set up process-wide state (the thread pool's
/// size, the host thread team) or measure it (tensor storage counters),
/// which the other tests of the binary, running on other threads, would
/// disturb. In the child, `body` runs in place.
pub fn in_own_process(path: &str, env: &[(&str, &str)], body: impl FnOnce()) {
    const MARK: &str = "AOT_TEST_OWN_PROCESS";
    if std::env::var(MARK).is_ok_and(|p| p == path) {
        body();
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    // The child's output is kept: inherited, its own "test result" lines
    // would mix with this harness's (and count twice in the test command).
    let out = std::process::Command::new(exe)
        .args([path, "--exact", "--test-threads=1", "--nocapture"])
        .env(MARK, path)
        .envs(env.iter().copied())
        .output()
        .expect("the test binary runs again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{path} failed in its own process ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // A filter that selected nothing would pass: the child must have run it.
    assert!(stdout.contains("1 passed"), "{path} did not run in its own process:\n{stdout}");
}

/// Whether a backend's resident calls must copy nothing across the bus:
/// the host-memory device's. The CUDA backend still copies a strided
/// view's values through the host (`docs/devices.md`), so its suites check
/// values only.
pub fn resident_calls_copy_nothing(backend: aot::compile::Backend) -> bool {
    backend.name() == "hostdev"
}
