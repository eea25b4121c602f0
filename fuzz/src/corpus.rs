//! Seed corpora, generated at start-up from the repository's tests.
//!
//! `roundtrip` and `pipeline` start from every chunk (split on `// -----`,
//! as `aot-opt --split-input-file` does) of every `.mlir` file under
//! `test/`; `run` from every `X.mlir` under `test/run/` and `test/golden/`
//! that has an `X.inputs.json` (and its `X.tangents.json` when there is
//! one), the pairs the differential and golden tests run. Files in
//! `fuzz/corpus/<target>/` (kept regressions and interesting inputs) are
//! added as they are. Seeds come in a fixed (sorted) order so that a
//! campaign is reproducible from its seed.

use crate::targets::{join_run_input, Target};
use std::path::{Path, PathBuf};

/// The repository this crate lives in.
pub fn default_repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

/// Every file below `dir` whose name ends with `suffix`, sorted; nothing
/// when `dir` does not exist.
pub fn files_ending(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
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

/// The seed inputs of `target` from the repository at `repo`.
pub fn seeds(target: Target, repo: &Path) -> Vec<Vec<u8>> {
    let mut out = match target {
        Target::Roundtrip | Target::Pipeline => mlir_chunks(&repo.join("test")),
        Target::Run => {
            let mut v = run_pairs(&repo.join("test/run"));
            v.extend(run_pairs(&repo.join("test/golden")));
            v
        }
        Target::Selftest => vec![b"fine".to_vec()],
    };
    out.extend(kept(&repo.join("fuzz/corpus").join(target.name())));
    out
}

/// The chunks of every `.mlir` file below `dir`.
pub fn mlir_chunks(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for f in files_ending(dir, ".mlir") {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        for (chunk, _) in aot::ir::verify_diagnostics::split_input(&text) {
            if !chunk.trim().is_empty() {
                out.push(chunk.into_bytes());
            }
        }
    }
    out
}

/// Program + inputs (+ tangents) of every case below `dir`.
pub fn run_pairs(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for inputs_path in files_ending(dir, ".inputs.json") {
        let stem = inputs_path.to_string_lossy().trim_end_matches(".inputs.json").to_string();
        let Ok(program) = std::fs::read_to_string(format!("{stem}.mlir")) else { continue };
        let Ok(inputs) = std::fs::read_to_string(&inputs_path) else { continue };
        let tangents = std::fs::read_to_string(format!("{stem}.tangents.json")).ok();
        out.push(join_run_input(&program, Some(&inputs), tangents.as_deref()).into_bytes());
    }
    out
}

/// The kept inputs of a `fuzz/corpus/<target>/` folder (hidden files and
/// `README*` skipped).
pub fn kept(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            !name.starts_with('.') && !name.starts_with("README")
        })
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::split_run_input;

    #[test]
    fn seeds_come_from_the_test_folders() {
        let repo = default_repo();
        let chunks = seeds(Target::Roundtrip, &repo);
        let files = files_ending(&repo.join("test"), ".mlir").len();
        assert!(files > 100, "found only {files} .mlir files");
        assert!(chunks.len() > files, "{} chunks from {files} files: split_input not applied?", chunks.len());
        assert!(chunks.iter().all(|c| !String::from_utf8_lossy(c).contains("\n// -----\n")));

        let runs = seeds(Target::Run, &repo);
        assert!(runs.len() > 100, "found only {} run cases", runs.len());
        let with_tangents = runs
            .iter()
            .filter(|r| {
                let s = String::from_utf8_lossy(r);
                let (p, i, t) = split_run_input(&s);
                assert!(p.contains("func.func") && i.is_some());
                t.is_some()
            })
            .count();
        assert!(with_tangents > 10, "{with_tangents} cases with tangents");
    }

    #[test]
    fn missing_folders_give_no_seeds() {
        assert!(mlir_chunks(Path::new("/nonexistent/aot")).is_empty());
        assert!(kept(Path::new("/nonexistent/aot")).is_empty());
    }
}
