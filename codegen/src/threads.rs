//! Fork-join for a call's parallel steps (split kernels, GEMMs): rayon's
//! pool by default, or a team of threads the host process already keeps.
//!
//! Two pools that each want every core fight over them. PyTorch's CPU ops
//! run on an OpenMP team whose threads, by OpenMP's default wait policy,
//! spin for a while after each parallel region; a compiled call that starts
//! right after one (a training step's backward right after the eager loss
//! and its gradient) then shares its cores with the spinners: on two cores,
//! a CNN's backward took 14.0 ms instead of 10.3 ms, its first split kernel
//! 1.5 ms instead of 35 µs. An embedder installs the host's team with
//! [`set_host_team`] (the PyTorch package installs PyTorch's OpenMP
//! runtime, [`OpenMp`]); every split then runs on that team, whose spinning
//! becomes our work, as PyTorch's own kernels (and Inductor's) do.
//!
//! Invariant: [`for_each`]`(n, job)` returns only after `job(i)` has run
//! exactly once for every `i < n`, on any thread of the team, the caller
//! included; a panicking job is re-raised on the caller after all returned.

use std::any::Any;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// A team of threads that runs fork-join jobs.
pub trait Team: Send + Sync {
    /// What the team is (for profiles and errors).
    fn name(&self) -> String;
    /// How many threads a split should use by default.
    fn threads(&self) -> usize;
    /// Runs `job(i)` once for every `i < n`, on up to `n` threads, the
    /// calling thread among them; returns when every job has returned.
    fn run(&self, n: usize, job: &(dyn Fn(usize) + Sync));
}

static HOST: OnceLock<Box<dyn Team>> = OnceLock::new();

/// Makes `team` run every parallel step of this process from now on. Once
/// per process: a second call returns its team back.
pub fn set_host_team(team: Box<dyn Team>) -> Result<(), Box<dyn Team>> {
    HOST.set(team)
}

/// The team installed with [`set_host_team`], if any.
pub fn host_team() -> Option<&'static dyn Team> {
    HOST.get().map(|t| &**t)
}

/// Runs `job(i)` for every `i < n` in parallel: on the host's team when one
/// is installed, else on rayon's pool.
pub fn for_each(n: usize, job: &(dyn Fn(usize) + Sync)) {
    match (n, host_team()) {
        (0, _) => {}
        (1, _) => job(0),
        (_, Some(team)) => team.run(n, job),
        (_, None) => {
            use rayon::prelude::*;
            (0..n).into_par_iter().for_each(job);
        }
    }
}

/// The default thread count of a runtime: `AOT_NUM_THREADS`, else the host
/// team's, else every core.
pub fn default_threads() -> usize {
    std::env::var("AOT_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .or_else(|| host_team().map(|t| t.threads()))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

type GompParallel = unsafe extern "C" fn(unsafe extern "C" fn(*mut c_void), *mut c_void, c_uint, c_uint);
type OmpGetMaxThreads = unsafe extern "C" fn() -> c_int;

/// An OpenMP runtime's team, through the entry point GCC's `#pragma omp
/// parallel` compiles to (`GOMP_parallel`), which GNU libgomp, LLVM's
/// libomp and Intel's libiomp5 all export.
pub struct OpenMp {
    path: String,
    parallel: GompParallel,
    max_threads: OmpGetMaxThreads,
    // Keeps the runtime loaded as long as the function pointers live.
    _lib: libloading::Library,
}

impl OpenMp {
    /// The OpenMP runtime at `path`. When the process has already loaded
    /// it (PyTorch's), this is the same runtime and the same team.
    pub fn load(path: &str) -> Result<OpenMp, String> {
        let err = |e: libloading::Error| format!("OpenMP runtime '{path}': {e}");
        // SAFETY: loading runs the library's initialisers; an OpenMP
        // runtime's only set up its global state.
        let lib = unsafe { libloading::Library::new(path) }.map_err(err)?;
        // SAFETY: the types are the OpenMP ABI's for these two symbols.
        let (parallel, max_threads) = unsafe {
            let p: GompParallel = *lib.get::<GompParallel>(b"GOMP_parallel\0").map_err(err)?;
            let m: OmpGetMaxThreads = *lib.get::<OmpGetMaxThreads>(b"omp_get_max_threads\0").map_err(err)?;
            (p, m)
        };
        Ok(OpenMp { path: path.to_string(), parallel, max_threads, _lib: lib })
    }
}

/// What the team's threads share during one [`OpenMp::run`].
struct Shared<'a> {
    job: &'a (dyn Fn(usize) + Sync),
    n: usize,
    next: AtomicUsize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// The body every thread of the team runs: it takes jobs until none are
/// left, so the caller runs them all when the others are slow to wake.
unsafe extern "C" fn team_body(data: *mut c_void) {
    // SAFETY: `data` is the `Shared` that `run` keeps alive until
    // `GOMP_parallel` returns, which is after every thread left this body.
    let s = unsafe { &*(data as *const Shared<'_>) };
    loop {
        let i = s.next.fetch_add(1, Ordering::Relaxed);
        if i >= s.n {
            break;
        }
        // A panic must not unwind through the OpenMP runtime's frames.
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (s.job)(i))) {
            let mut slot = s.panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(p);
            s.next.store(s.n, Ordering::Relaxed);
        }
    }
}

impl Team for OpenMp {
    fn name(&self) -> String {
        format!("OpenMP ({})", self.path)
    }

    fn threads(&self) -> usize {
        // SAFETY: a query of the calling thread's OpenMP settings.
        usize::try_from(unsafe { (self.max_threads)() }).unwrap_or(1).max(1)
    }

    fn run(&self, n: usize, job: &(dyn Fn(usize) + Sync)) {
        let shared = Shared { job, n, next: AtomicUsize::new(0), panic: Mutex::new(None) };
        let threads = c_uint::try_from(n).unwrap_or(c_uint::MAX);
        // SAFETY: `team_body` only reads `shared` through the pointer, and
        // `GOMP_parallel` returns after the whole team has finished.
        unsafe { (self.parallel)(team_body, &shared as *const Shared<'_> as *mut c_void, threads, 0) };
        let panic = shared.panic.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = panic {
            std::panic::resume_unwind(p);
        }
    }
}
