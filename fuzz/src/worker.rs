//! The worker process and the driver's handle on it.
//!
//! Panics are caught in the worker, but stack overflows, aborts, OOM and
//! hangs end a process, so targets never run in the driver: the driver
//! re-executes itself with `--worker <target>` and sends inputs over the
//! worker's stdin (a little-endian `u32` length, then the bytes); the worker
//! answers on stdout with a kind byte, a `u32` length and UTF-8 text. The
//! worker limits its own address space (`RLIMIT_AS`) and the compiler's
//! allocation limit before it reads anything. When the worker dies or does
//! not answer within the timeout (of CPU time where the system reports it,
//! so that a loaded machine does not make hangs), [`Worker::exec`] kills it, classifies the
//! death from its exit status and the tail of its stderr, and the next call
//! starts a fresh one.

use crate::targets::{Outcome, Target};
use aot::ir::size::{Limit, Limits};
use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Resource limits of the worker.
#[derive(Clone, Copy, Debug)]
pub struct WorkerLimits {
    /// `RLIMIT_AS` of the worker, in MiB (0: none).
    pub address_space_mb: u64,
    /// The compiler's allocation limit (`Limit::AllocBytes`), in MiB.
    pub alloc_mb: u64,
    /// How long one input may run.
    pub timeout: Duration,
}

impl Default for WorkerLimits {
    fn default() -> Self {
        WorkerLimits { address_space_mb: 4096, alloc_mb: 256, timeout: Duration::from_secs(10) }
    }
}

/// A crash: a stable key (what kind, where) to deduplicate by, and the
/// full reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash {
    pub key: String,
    pub reason: String,
}

/// What one input did in the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exec {
    /// Ran to the end: the target's outcome (a finding there is not a crash
    /// but still recorded).
    Done(Outcome),
    /// Panicked, died or hung.
    Crashed(Crash),
}

const KIND_DONE: u8 = 0;
const KIND_FINDING: u8 = 1;
const KIND_PANIC: u8 = 2;

static LAST_PANIC: Mutex<Option<Crash>> = Mutex::new(None);

/// Applies the limits to this process (the worker does it to itself).
pub fn apply_limits(limits: &WorkerLimits) -> Result<(), String> {
    Limits::set(Limit::AllocBytes, limits.alloc_mb << 20);
    if limits.address_space_mb > 0 {
        let bytes = (limits.address_space_mb << 20) as libc::rlim_t;
        let r = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
        // SAFETY: setrlimit reads a valid rlimit struct and has no other effect on memory.
        if unsafe { libc::setrlimit(libc::RLIMIT_AS, &r) } != 0 {
            return Err(format!("setrlimit(RLIMIT_AS): {}", std::io::Error::last_os_error()));
        }
    }
    Ok(())
}

/// A panic hook that records the panic as a [`Crash`] instead of printing:
/// the key is the panic's location, and for panics inside the standard
/// library (capacity overflow, slice indexing) also the first frame of the
/// workspace that called it.
pub fn install_panic_recorder() {
    std::panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "non-string panic payload".to_string()
        };
        let loc = info.location().map(|l| format!("{}:{}", l.file(), l.line())).unwrap_or_else(|| "?".into());
        let mut key = format!("panic at {}", short_path(&loc));
        if loc.starts_with("/rustc/") || loc.contains("/.cargo/") {
            let bt = std::backtrace::Backtrace::force_capture().to_string();
            if let Some(frame) = workspace_frame(&bt) {
                key = format!("panic at {frame} (in {})", short_path(&loc));
            }
        }
        let reason = format!("{key}: {}", msg.lines().next().unwrap_or(""));
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(Crash { key, reason });
        }
    }));
}

/// `/rustc/<hash>/library/core/src/x.rs:1` -> `core/src/x.rs:1`, and
/// registry paths from the crate's folder on: stable across toolchains and
/// machines, so that keys deduplicate.
fn short_path(loc: &str) -> String {
    if let Some(i) = loc.find("/library/") {
        return loc[i + "/library/".len()..].to_string();
    }
    if let Some(i) = loc.find("/registry/src/") {
        let rest = &loc[i + "/registry/src/".len()..];
        return rest.split_once('/').map(|(_, r)| r).unwrap_or(rest).to_string();
    }
    loc.to_string()
}

/// The first `file:line` of a backtrace inside the workspace (not the
/// standard library, a registry crate or this crate).
pub fn workspace_frame(backtrace: &str) -> Option<String> {
    let repo = crate::corpus::default_repo().to_string_lossy().into_owned();
    backtrace.lines().filter_map(|l| l.trim().strip_prefix("at ")).find_map(|at| {
        let rel = at.strip_prefix(&repo).map(|r| r.trim_start_matches('/')).unwrap_or(at);
        let rel = rel.strip_prefix("./").unwrap_or(rel);
        let external = rel.starts_with('/') || rel.contains("/.cargo/") || rel.starts_with("fuzz/");
        (!external).then(|| {
            // `file:line:col` -> `file:line`.
            match rel.rsplit_once(':') {
                Some((fl, col)) if col.chars().all(|c| c.is_ascii_digit()) => fl.to_string(),
                _ => rel.to_string(),
            }
        })
    })
}

/// The worker's main loop: answer inputs until stdin closes.
pub fn worker_main(target: Target, limits: &WorkerLimits) -> Result<(), String> {
    apply_limits(limits)?;
    aot::init();
    install_panic_recorder();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    loop {
        let mut len = [0u8; 4];
        if input.read_exact(&mut len).is_err() {
            return Ok(());
        }
        let mut data = vec![0u8; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut data).map_err(|e| format!("reading an input: {e}"))?;
        let r = std::panic::catch_unwind(|| target.execute(&data));
        let (kind, text) = match r {
            Ok(o) => match o.finding {
                Some(f) => (KIND_FINDING, f),
                None => (KIND_DONE, o.messages.join("\n")),
            },
            Err(_) => {
                let c = LAST_PANIC.lock().ok().and_then(|mut l| l.take()).unwrap_or(Crash {
                    key: "panic at ?".into(),
                    reason: "panic at ?: the panic hook recorded nothing".into(),
                });
                (KIND_PANIC, format!("{}\n{}", c.key, c.reason))
            }
        };
        let mut msg = vec![kind];
        msg.extend_from_slice(&(text.len() as u32).to_le_bytes());
        msg.extend_from_slice(text.as_bytes());
        output.write_all(&msg).and_then(|_| output.flush()).map_err(|e| format!("answering: {e}"))?;
    }
}

type Answer = Option<(u8, String)>;

/// The driver's handle on a worker process.
pub struct Worker {
    exe: PathBuf,
    target: Target,
    limits: WorkerLimits,
    running: Option<Running>,
    /// How many worker processes were started.
    pub starts: u64,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<Answer>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

/// The last bytes of the worker's stderr kept for classification.
const STDERR_TAIL: usize = 16 << 10;

impl Worker {
    /// A handle that starts `exe --worker <target>` on first use.
    pub fn new(exe: PathBuf, target: Target, limits: WorkerLimits) -> Worker {
        Worker { exe, target, limits, running: None, starts: 0 }
    }

    fn start(&mut self) -> Result<&mut Running, String> {
        if self.running.is_none() {
            let mut child = Command::new(&self.exe)
                .arg("--worker")
                .arg(self.target.name())
                .arg(self.limits.address_space_mb.to_string())
                .arg(self.limits.alloc_mb.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("could not start the worker {}: {e}", self.exe.display()))?;
            let stdin = child.stdin.take().ok_or("worker without stdin")?;
            let mut stdout = child.stdout.take().ok_or("worker without stdout")?;
            let mut stderr_pipe = child.stderr.take().ok_or("worker without stderr")?;
            let (tx, answers) = mpsc::channel::<Answer>();
            std::thread::spawn(move || loop {
                let mut head = [0u8; 5];
                if stdout.read_exact(&mut head).is_err() {
                    let _ = tx.send(None);
                    return;
                }
                let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
                let mut text = vec![0u8; len];
                if stdout.read_exact(&mut text).is_err() {
                    let _ = tx.send(None);
                    return;
                }
                if tx.send(Some((head[0], String::from_utf8_lossy(&text).into_owned()))).is_err() {
                    return;
                }
            });
            let stderr = Arc::new(Mutex::new(Vec::new()));
            let sink = stderr.clone();
            let stderr_reader = std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr_pipe.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    if let Ok(mut s) = sink.lock() {
                        s.extend_from_slice(&buf[..n]);
                        let excess = s.len().saturating_sub(STDERR_TAIL);
                        s.drain(..excess);
                    }
                }
            });
            self.starts += 1;
            self.running = Some(Running { child, stdin, answers, stderr, stderr_reader: Some(stderr_reader) });
        }
        self.running.as_mut().ok_or_else(|| "worker did not start".to_string())
    }

    /// Runs one input; restarts the worker after a crash.
    pub fn exec(&mut self, input: &[u8]) -> Result<Exec, String> {
        let timeout = self.limits.timeout;
        let w = self.start()?;
        if let Ok(mut s) = w.stderr.lock() {
            s.clear();
        }
        let mut msg = (input.len() as u32).to_le_bytes().to_vec();
        msg.extend_from_slice(input);
        // A write error means the worker is gone; the read below sees it.
        let _ = w.stdin.write_all(&msg).and_then(|_| w.stdin.flush());
        let pid = w.child.id();
        let cpu_at_start = cpu_seconds(pid);
        let started = std::time::Instant::now();
        // The timeout counts the worker's CPU time, not the wall clock: on
        // a loaded machine (the test command runs the fuzz targets niced,
        // beside builds and test suites) an input that needs a few seconds
        // may wait minutes for a core. Without /proc, or for a worker that
        // waits without computing, the wall clock decides, with room.
        let answer = loop {
            match w.answers.recv_timeout(timeout.min(Duration::from_secs(1))) {
                Err(RecvTimeoutError::Timeout) => {
                    let cpu = cpu_at_start.zip(cpu_seconds(pid)).map(|(a, b)| b - a);
                    if is_hung(started.elapsed(), cpu, timeout) {
                        break Err(RecvTimeoutError::Timeout);
                    }
                }
                other => break other,
            }
        };
        match answer {
            Ok(Some((kind, text))) => Ok(match kind {
                KIND_DONE => {
                    Exec::Done(Outcome { messages: text.lines().map(str::to_string).collect(), finding: None })
                }
                KIND_FINDING => Exec::Done(Outcome { messages: Vec::new(), finding: Some(text) }),
                _ => {
                    let (key, reason) = text.split_once('\n').unwrap_or((text.as_str(), text.as_str()));
                    Exec::Crashed(Crash { key: key.to_string(), reason: reason.to_string() })
                }
            }),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Ok(Exec::Crashed(self.reap(false))),
            Err(RecvTimeoutError::Timeout) => Ok(Exec::Crashed(self.reap(true))),
        }
    }

    /// Ends the worker (killing it when it hung) and says how it died.
    fn reap(&mut self, hung: bool) -> Crash {
        let Some(mut w) = self.running.take() else {
            return Crash { key: "worker-lost".into(), reason: "the worker was not running".into() };
        };
        if hung {
            let _ = w.child.kill();
        }
        let status = w.child.wait();
        if let Some(h) = w.stderr_reader.take() {
            let _ = h.join();
        }
        let stderr = w.stderr.lock().map(|s| String::from_utf8_lossy(&s).into_owned()).unwrap_or_default();
        if hung {
            return Crash {
                key: "hang".into(),
                reason: format!(
                    "hang: no answer within {} s of CPU time (worker killed)",
                    self.limits.timeout.as_secs_f64()
                ),
            };
        }
        classify_death(status.ok(), &stderr)
    }
}

/// How many timeouts of wall-clock time a worker may take without an
/// answer while it has not used a timeout of CPU time (a machine busy with
/// other work) before it counts as hung anyway (a worker that waits).
const WALL_FACTOR: u32 = 10;

/// Whether an input that has run `wall` and used `cpu` seconds of the
/// worker's CPU time (`None`: unknown) is over `timeout`.
fn is_hung(wall: Duration, cpu: Option<f64>, timeout: Duration) -> bool {
    match cpu {
        Some(cpu) => (wall >= timeout && cpu >= timeout.as_secs_f64()) || wall >= timeout * WALL_FACTOR,
        None => wall >= timeout,
    }
}

/// The CPU time (user and system, every thread) process `pid` has used, in
/// seconds, from `/proc/<pid>/stat`; `None` where that cannot be read.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: fields count from
    // the last ')'. utime and stime are fields 14 and 15, in clock ticks.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<u64>().ok()? as f64 + fields.get(12)?.parse::<u64>().ok()? as f64;
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| ticks / hz as f64)
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut w) = self.running.take() {
            drop(w.stdin);
            let _ = w.child.kill();
            let _ = w.child.wait();
        }
    }
}

fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        libc::SIGBUS => "SIGBUS".into(),
        libc::SIGILL => "SIGILL".into(),
        libc::SIGFPE => "SIGFPE".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGTRAP => "SIGTRAP".into(),
        other => format!("signal {other}"),
    }
}

/// Why a worker died, from its exit status and the tail of its stderr.
pub fn classify_death(status: Option<std::process::ExitStatus>, stderr: &str) -> Crash {
    let how = match status {
        Some(s) => match s.signal() {
            Some(sig) => signal_name(sig),
            None => format!("exit code {}", s.code().unwrap_or(-1)),
        },
        None => "unknown exit".into(),
    };
    let tail: String = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").chars().take(300).collect();
    if stderr.contains("has overflowed its stack") {
        return Crash { key: "stack-overflow".into(), reason: format!("stack overflow ({how}): {tail}") };
    }
    if let Some(line) = stderr.lines().find(|l| l.contains("memory allocation of")) {
        return Crash { key: "oom".into(), reason: format!("oom ({how}): {}", line.trim()) };
    }
    Crash { key: format!("died: {how}"), reason: format!("died: {how}: {tail}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hang_is_a_timeout_of_cpu_time_or_ten_of_waiting() {
        let t = Duration::from_secs(60);
        let s = Duration::from_secs;
        // Busy for the whole timeout: hung.
        assert!(is_hung(s(60), Some(60.0), t));
        // Starved on a loaded machine: a few seconds of CPU in minutes.
        assert!(!is_hung(s(300), Some(7.0), t));
        // Two threads busy: a timeout of CPU time, but not of wall time yet.
        assert!(!is_hung(s(30), Some(60.0), t));
        // Waiting without computing (a deadlock): ten timeouts of wall time.
        assert!(!is_hung(s(599), Some(0.0), t));
        assert!(is_hung(s(600), Some(0.0), t));
        // Without /proc, the wall clock alone.
        assert!(is_hung(s(60), None, t) && !is_hung(s(59), None, t));
    }

    #[test]
    fn this_process_has_a_cpu_time() {
        let a = cpu_seconds(std::process::id()).expect("/proc/<pid>/stat");
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_millis(300) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let b = cpu_seconds(std::process::id()).unwrap();
        assert!(b >= a, "{a} -> {b}");
    }

    #[test]
    fn deaths_are_classified_from_stderr() {
        let c = classify_death(None, "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n");
        assert_eq!(c.key, "stack-overflow");
        let c = classify_death(None, "memory allocation of 1099511627776 bytes failed\n");
        assert_eq!(c.key, "oom");
        assert!(c.reason.contains("1099511627776"));
        let c = classify_death(Some(std::process::ExitStatus::from_raw(libc::SIGSEGV)), "");
        assert_eq!(c.key, "died: SIGSEGV");
    }

    #[test]
    fn workspace_frames_skip_std_and_registry() {
        let bt = "   0: alloc::raw_vec::capacity_overflow\n             at /rustc/abc/library/alloc/src/raw_vec.rs:25:5\n   \
                  1: cranelift\n             at /usr/local/cargo/registry/src/x/lib.rs:3:1\n   \
                  2: aot_runtime::tensor::Tensor::zeros\n             at ./runtime/src/tensor.rs:213:20\n";
        assert_eq!(workspace_frame(bt).as_deref(), Some("runtime/src/tensor.rs:213"));
        assert_eq!(workspace_frame("at /rustc/x/library/core/src/a.rs:1:1"), None);
        assert_eq!(
            short_path("/rustc/0123/library/core/src/iter/traits/accum.rs:204"),
            "core/src/iter/traits/accum.rs:204"
        );
        assert_eq!(
            short_path("/usr/local/cargo/registry/src/index-x/smallvec-1.13/src/lib.rs:9"),
            "smallvec-1.13/src/lib.rs:9"
        );
        assert_eq!(short_path("runtime/src/tensor.rs:238"), "runtime/src/tensor.rs:238");
    }
}
