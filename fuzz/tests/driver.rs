//! The driver end to end, through the `aot-fuzz` binary: every way a worker
//! can die is caught, classified and recorded as an artifact, the campaign
//! goes on after it and fails at the end; minimization shrinks a finding to
//! its core; `exec` runs the real targets in-process.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_aot-fuzz"))
}

/// A fresh scratch folder for one test, removed when the test passes and
/// kept, for a look, when it fails (180 of them had piled up in /tmp).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("aot-fuzz-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// A repository whose `fuzz/corpus/selftest/` holds one input per way of dying.
fn selftest_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("repo");
    let kept = repo.join("fuzz/corpus/selftest");
    std::fs::create_dir_all(&kept).unwrap();
    for kind in ["panic", "abort", "oom", "stack", "hang", "mismatch"] {
        std::fs::write(kept.join(kind), format!("some {kind} here\n")).unwrap();
    }
    repo
}

#[test]
fn every_death_is_recorded_and_the_campaign_goes_on() {
    let dir = scratch("deaths");
    let repo = selftest_repo(&dir);
    let artifacts = dir.join("artifacts");
    let out = bin()
        .args(["run", "selftest", "--runs", "24", "--seed", "3", "--timeout", "2"])
        .arg("--repo")
        .arg(&repo)
        .arg("--artifacts")
        .arg(&artifacts)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "findings must fail the run:\n{stdout}");
    assert!(stdout.contains("24 executions"), "{stdout}");
    for key in [
        "[panic at fuzz/src/targets.rs:",
        "[died: SIGABRT]",
        "[oom]",
        "[stack-overflow]",
        "[hang]",
        "[selftest: mismatch]",
    ] {
        assert!(stdout.contains(key), "missing {key} in:\n{stdout}");
    }
    // Each finding's input is kept with its reason beside it.
    let dir = artifacts.join("selftest");
    let mut reasons = String::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "txt") {
            let input = std::fs::read(p.with_extension("")).unwrap();
            let note = std::fs::read_to_string(&p).unwrap();
            assert!(note.contains("target: selftest"), "{note}");
            reasons.push_str(&format!("{} => {note}", String::from_utf8_lossy(&input)));
        }
    }
    assert!(reasons.contains("hang") && reasons.contains("key: hang"), "{reasons}");
    assert!(reasons.contains("key: oom") && reasons.contains("memory allocation of"), "{reasons}");
    assert!(reasons.contains("key: stack-overflow"), "{reasons}");
}

#[test]
fn a_clean_campaign_passes_and_is_bounded_by_runs() {
    let dir = scratch("clean");
    let out = bin()
        .args(["run", "selftest", "--runs", "25", "--seed", "1"])
        .arg("--repo")
        .arg(dir.join("empty-repo"))
        .arg("--artifacts")
        .arg(dir.join("artifacts"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("25 executions") && stdout.contains("0 distinct findings"), "{stdout}");
    assert!(!dir.join("artifacts/selftest").exists());
}

#[test]
fn campaigns_need_a_bound() {
    let out = bin().args(["run", "roundtrip"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--runs N or --max-seconds S"));
}

#[test]
fn minimize_keeps_the_crash_and_drops_the_rest() {
    let dir = scratch("minimize");
    let input = dir.join("crash");
    std::fs::write(&input, "first line\nsecond line\nxx panic yy\nlast line\n").unwrap();
    let out = bin().args(["minimize", "selftest"]).arg(&input).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("crash.min")).unwrap(), "panic");
    assert!(stdout.contains("[panic at fuzz/src/targets.rs:"), "{stdout}");

    std::fs::write(&input, "nothing wrong").unwrap();
    let out = bin().args(["minimize", "selftest"]).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not crash"));
}

#[test]
fn exec_runs_the_real_targets_in_process() {
    let dir = scratch("exec");
    let program = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  \
                   %0 = tensor.mul %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    let file = dir.join("ok.mlir");
    std::fs::write(&file, program).unwrap();
    for target in ["roundtrip", "pipeline"] {
        let out = bin().args(["exec", target]).arg(&file).output().unwrap();
        assert!(out.status.success(), "{target}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(out.stdout.is_empty(), "{target}: {}", String::from_utf8_lossy(&out.stdout));
    }
    let run = dir.join("ok.run");
    std::fs::write(
        &run,
        format!(
            "{program}// ===== inputs.json\n{{\"args\": [{{\"shape\": [2], \"data\": [1, 2], \"requires_grad\": true}}]}}\n"
        ),
    )
    .unwrap();
    let out = bin().args(["exec", "run"]).arg(&run).output().unwrap();
    assert!(out.status.success() && out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));

    // Rejected input: errors, but no finding.
    std::fs::write(&file, "func.func @main(").unwrap();
    let out = bin().args(["exec", "roundtrip"]).arg(&file).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("error: "));
}
