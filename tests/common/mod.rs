//! Helpers shared by the integration tests (each test uses some of them).
#![allow(dead_code)]

pub mod parallel;

use std::path::{Path, PathBuf};

/// Every file below `dir` whose name ends with `suffix`, in sorted order.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
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

/// The test corpus folder `test/<sub>` of this repository.
pub fn corpus_dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test").join(sub)
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
