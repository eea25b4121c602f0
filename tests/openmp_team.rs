//! Native code's parallel steps on a host's OpenMP team
//! (`aot::codegen::threads`): the team runs every job once, on several
//! threads at once, and re-raises a job's panic on the caller; installed as
//! the host team, split kernels and GEMMs (batched, split by rows and by
//! columns) run on it and give the exact results they give on aot's pool.
//!
//! Needs GNU libgomp (Debian's `libgomp1`, which GCC depends on). The only
//! test of this binary: it installs the process's host team.

mod common;

use aot::codegen::threads::{self, OpenMp, Team};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn libgomp() -> OpenMp {
    OpenMp::load("libgomp.so.1").unwrap_or_else(|e| panic!("{e} (this test needs GNU libgomp: Debian's libgomp1)"))
}

/// The OpenMP team, counting the splits it runs.
struct Counting(OpenMp, &'static AtomicUsize);

impl Team for Counting {
    fn name(&self) -> String {
        self.0.name()
    }
    fn threads(&self) -> usize {
        self.0.threads()
    }
    fn run(&self, n: usize, job: &(dyn Fn(usize) + Sync)) {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.run(n, job)
    }
}

#[test]
fn parallel_steps_run_on_an_openmp_team() {
    std::env::set_var("AOT_NUM_THREADS", "3");
    aot::init();
    let team = libgomp();
    assert!(team.name().starts_with("OpenMP ("), "{}", team.name());
    assert!(team.threads() >= 1);

    // Every job exactly once.
    let hits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
    team.run(hits.len(), &|i| {
        hits[i].fetch_add(1, Ordering::Relaxed);
    });
    let wrong: Vec<usize> = (0..hits.len()).filter(|&i| hits[i].load(Ordering::Relaxed) != 1).collect();
    assert!(wrong.is_empty(), "jobs not run exactly once: {wrong:?}");

    // Two jobs that each wait for the other: only two threads at once
    // finish them (one thread would wait out the deadline in the first).
    let arrived = AtomicUsize::new(0);
    let met = AtomicUsize::new(0);
    team.run(2, &|_| {
        arrived.fetch_add(1, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_secs(20);
        while arrived.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
            std::hint::spin_loop();
        }
        if arrived.load(Ordering::SeqCst) == 2 {
            met.fetch_add(1, Ordering::SeqCst);
        }
    });
    assert_eq!(met.load(Ordering::SeqCst), 2, "the two jobs did not run at the same time");

    // A panicking job: the others stop being handed out, the panic reaches
    // the caller after the team has returned.
    // (Quietly: the default hook would print the expected panic.)
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        team.run(4, &|i| {
            if i == 2 {
                panic!("job 2 failed");
            }
        })
    }));
    std::panic::set_hook(hook);
    let payload = caught.expect_err("the job's panic reaches the caller");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"job 2 failed"));

    // Installed: the runtime's splits and GEMMs run on it, with the results
    // they have on aot's own pool.
    static SPLITS: AtomicUsize = AtomicUsize::new(0);
    assert!(threads::host_team().is_none());
    assert!(threads::set_host_team(Box::new(Counting(team, &SPLITS))).is_ok());
    assert!(threads::set_host_team(Box::new(libgomp())).is_err(), "a second team is refused");
    assert_eq!(threads::default_threads(), 3, "AOT_NUM_THREADS still decides the count");
    common::parallel::matmul_layouts_are_exact();
    let after_gemm = SPLITS.load(Ordering::Relaxed);
    assert!(after_gemm > 0, "no GEMM ran on the team");
    common::parallel::philox_splits_draw_what_one_thread_draws();
    assert!(SPLITS.load(Ordering::Relaxed) > after_gemm, "no split kernel ran on the team");
}
