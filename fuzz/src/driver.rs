//! Campaigns and minimization.
//!
//! A campaign alternates between replaying the seed corpus and mutating a
//! random corpus entry, runs every input in the worker, and records each
//! finding (crash, hang, OOM, violated law) as
//! `<artifacts>/<target>/crash-<hash>` with the reason beside it in
//! `crash-<hash>.txt`. An input whose error messages include one not seen
//! before (digits folded, so `dim 3` and `dim 4` are the same message) joins
//! the in-memory corpus: a cheap stand-in for coverage feedback. Runs and
//! time are both bounded; with the same seed, corpus and outcomes, a
//! campaign replays the same inputs.

use crate::corpus;
use crate::mutate::Mutator;
use crate::targets::Target;
use crate::worker::{Crash, Exec, Worker, WorkerLimits};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A campaign's settings.
#[derive(Clone, Debug)]
pub struct Config {
    pub target: Target,
    pub seed: u64,
    pub runs: Option<u64>,
    pub max_seconds: Option<f64>,
    pub limits: WorkerLimits,
    /// Where findings go (`<artifacts>/<target>/`).
    pub artifacts: PathBuf,
    /// The repository the seeds come from.
    pub repo: PathBuf,
    /// The `aot-fuzz` executable to start workers from.
    pub exe: PathBuf,
    /// Artifacts kept per distinct finding (all are counted).
    pub keep_per_finding: usize,
    /// Print a progress line this often.
    pub progress: Option<Duration>,
    /// Print every new (normalized) error message to stderr.
    pub print_novel: bool,
}

/// One distinct finding of a campaign.
#[derive(Clone, Debug)]
pub struct Finding {
    pub reason: String,
    pub count: u64,
    pub artifacts: Vec<PathBuf>,
}

/// What a campaign did.
#[derive(Debug, Default)]
pub struct Report {
    pub executions: u64,
    pub seeds: usize,
    pub corpus: usize,
    pub messages: usize,
    pub worker_starts: u64,
    pub elapsed: Duration,
    /// By key.
    pub findings: BTreeMap<String, Finding>,
}

impl Report {
    pub fn render(&self, target: Target) -> String {
        let secs = self.elapsed.as_secs_f64();
        let mut s = format!(
            "aot-fuzz: target {}: {} executions in {:.1} s ({:.0}/s), {} seeds, corpus {}, {} distinct messages, \
             {} worker starts, {} distinct findings\n",
            target.name(),
            self.executions,
            secs,
            self.executions as f64 / secs.max(1e-9),
            self.seeds,
            self.corpus,
            self.messages,
            self.worker_starts,
            self.findings.len()
        );
        for (key, f) in &self.findings {
            s.push_str(&format!("finding [{key}] x{}: {}\n", f.count, f.reason));
            for a in &f.artifacts {
                s.push_str(&format!("    artifact: {}\n", a.display()));
            }
        }
        s
    }
}

/// FNV-1a, printed as 16 hex digits: names artifacts by content.
pub fn hash_hex(data: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Folds the parts of a message that vary between otherwise equal errors:
/// digit runs become `#` and quoted text (names, tokens echoed back from
/// the input) becomes `'_'`, and bracketed values (`[1, [2]]`, `{..}`)
/// become `[_]`, so that the corpus grows on new kinds of
/// errors rather than on every new spelling.
pub fn normalize_message(m: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    // What the previous character was: a digit, a word character, a
    // symbol or SSA sigil being skipped, or anything else.
    #[derive(PartialEq)]
    enum Prev {
        Digit,
        Word,
        Name,
        Other,
    }
    let mut prev = Prev::Other;
    for c in m.chars() {
        if out.len() >= 160 {
            break;
        }
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        if depth > 0 {
            match c {
                '[' | '{' => depth += 1,
                ']' | '}' => depth -= 1,
                _ => {}
            }
            continue;
        }
        if prev == Prev::Name && (c.is_alphanumeric() || "_.$-".contains(c)) {
            continue;
        }
        match c {
            '[' | '{' => {
                out.push_str("[_]");
                depth = 1;
                prev = Prev::Other;
            }
            // A quote opens after a non-word character only, so that
            // `doesn't` is not the start of a quoted name.
            '\'' | '"' | '`' if prev != Prev::Word => {
                out.push_str("'_'");
                quote = Some(c);
                prev = Prev::Other;
            }
            '@' | '%' | '^' | '#' => {
                out.push(c);
                out.push('_');
                prev = Prev::Name;
            }
            d if d.is_ascii_digit() => {
                if prev != Prev::Digit {
                    out.push('#');
                }
                prev = Prev::Digit;
            }
            w => {
                out.push(w);
                prev = if w.is_alphanumeric() || w == '_' { Prev::Word } else { Prev::Other };
            }
        }
    }
    out
}

/// Writes `crash-<hash>` and `crash-<hash>.txt` under `dir`.
pub fn write_artifact(dir: &Path, target: Target, input: &[u8], key: &str, reason: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let path = dir.join(format!("crash-{}", hash_hex(input)));
    std::fs::write(&path, input).map_err(|e| format!("could not write {}: {e}", path.display()))?;
    let note = format!(
        "target: {}\nkey: {key}\nreason: {reason}\nreproduce: cargo run --release -p aot-fuzz -- exec {} {}\n\
         minimize: cargo run --release -p aot-fuzz -- minimize {} {}\n",
        target.name(),
        target.name(),
        path.display(),
        target.name(),
        path.display()
    );
    let txt = dir.join(format!("crash-{}.txt", hash_hex(input)));
    std::fs::write(&txt, note).map_err(|e| format!("could not write {}: {e}", txt.display()))?;
    Ok(path)
}

/// New messages of one family (see [`message_family`]) that count as new.
const MAX_PER_FAMILY: usize = 64;

/// The first three words of a normalized message: `expected '_' in`,
/// `unregistered operation '_'`.
pub fn message_family(normalized: &str) -> String {
    // A quoted name may itself hold quotes (`'"a'b"'`), which leaves input
    // text glued to the folded `'_'`: cut it off.
    let words: Vec<&str> =
        normalized.split_whitespace().take(3).map(|w| if w.starts_with("'_'") { "'_'" } else { w }).collect();
    words.join(" ")
}

/// The corpus grows only to this many inputs.
const MAX_CORPUS: usize = 50_000;

/// Runs a campaign.
pub fn campaign(cfg: &Config) -> Result<Report, String> {
    let seeds = corpus::seeds(cfg.target, &cfg.repo);
    if seeds.is_empty() {
        return Err(format!("no seed inputs for target {} under {}", cfg.target.name(), cfg.repo.display()));
    }
    let mut report = Report { seeds: seeds.len(), ..Report::default() };
    let mut corpus = seeds.clone();
    let mut seen: HashSet<String> = HashSet::new();
    let mut families: HashMap<String, usize> = HashMap::new();
    let mut mutator = Mutator::new(cfg.seed);
    // The replay order of the seeds is shuffled by the seed too, so that
    // short campaigns with different seeds start in different places.
    let mut order: Vec<usize> = (0..seeds.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, mutator.rng.below(i + 1));
    }
    let mut worker = Worker::new(cfg.exe.clone(), cfg.target, cfg.limits);
    let dir = cfg.artifacts.join(cfg.target.name());
    let start = Instant::now();
    let mut last_progress = start;
    let mut next_seed = 0usize;
    loop {
        if cfg.runs.is_some_and(|r| report.executions >= r)
            || cfg.max_seconds.is_some_and(|s| start.elapsed().as_secs_f64() >= s)
        {
            break;
        }
        let input = if report.executions.is_multiple_of(2) && next_seed < order.len() {
            next_seed += 1;
            seeds[order[next_seed - 1]].clone()
        } else {
            // Half the mutants start from a seed, so that a corpus grown
            // large on error messages does not crowd out valid programs.
            let a =
                if mutator.rng.chance(50) { mutator.rng.below(seeds.len()) } else { mutator.rng.below(corpus.len()) };
            let b = mutator.rng.below(corpus.len());
            mutator.mutate(cfg.target, &corpus[a], &corpus[b])
        };
        report.executions += 1;
        let crash = match worker.exec(&input)? {
            Exec::Done(o) => match o.finding {
                Some(f) => Some(Crash { key: finding_key(&f), reason: f }),
                None => {
                    let mut novel = false;
                    for m in &o.messages {
                        let n = normalize_message(m);
                        if seen.contains(&n) {
                            continue;
                        }
                        // Messages that echo input text (an unknown op's
                        // name) vary without end: a family (first words)
                        // counts as new only so many times.
                        let family = families.entry(message_family(&n)).or_insert(0);
                        if *family >= MAX_PER_FAMILY {
                            continue;
                        }
                        *family += 1;
                        if cfg.print_novel {
                            eprintln!("aot-fuzz: new message: {n}");
                        }
                        novel |= seen.insert(n);
                    }
                    if novel && corpus.len() < MAX_CORPUS {
                        corpus.push(input.clone());
                    }
                    None
                }
            },
            Exec::Crashed(c) => Some(c),
        };
        if let Some(c) = crash {
            let f = report.findings.entry(c.key.clone()).or_insert_with(|| Finding {
                reason: c.reason.clone(),
                count: 0,
                artifacts: Vec::new(),
            });
            f.count += 1;
            if f.artifacts.len() < cfg.keep_per_finding {
                f.artifacts.push(write_artifact(&dir, cfg.target, &input, &c.key, &c.reason)?);
            }
            if f.count == 1 {
                eprintln!("aot-fuzz: #{} new finding [{}]: {}", report.executions, c.key, c.reason);
            }
        }
        if let Some(every) = cfg.progress {
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                eprintln!(
                    "aot-fuzz: #{} {:.0} s, corpus {}, messages {}, findings {}",
                    report.executions,
                    start.elapsed().as_secs_f64(),
                    corpus.len(),
                    seen.len(),
                    report.findings.len()
                );
                let _ = std::io::stderr().flush();
            }
        }
    }
    report.elapsed = start.elapsed();
    report.corpus = corpus.len();
    report.messages = seen.len();
    report.worker_starts = worker.starts;
    Ok(report)
}

/// The dedup key of a non-crash finding: its kind and message, digits folded.
fn finding_key(reason: &str) -> String {
    let head = reason.split(": `").next().unwrap_or(reason);
    normalize_message(head).chars().take(120).collect()
}

/// Minimization settings.
#[derive(Clone, Debug)]
pub struct MinimizeConfig {
    pub target: Target,
    pub limits: WorkerLimits,
    pub exe: PathBuf,
    pub max_runs: u64,
    pub max_seconds: f64,
}

/// Shrinks `input` while it still crashes with the same key: delta
/// debugging over lines, then over bytes. Returns the smallest input found
/// and its crash.
pub fn minimize(cfg: &MinimizeConfig, input: &[u8]) -> Result<(Vec<u8>, Crash, u64), String> {
    let mut worker = Worker::new(cfg.exe.clone(), cfg.target, cfg.limits);
    let key_of = |w: &mut Worker, data: &[u8]| -> Result<Option<Crash>, String> {
        Ok(match w.exec(data)? {
            Exec::Crashed(c) => Some(c),
            Exec::Done(o) => o.finding.map(|f| Crash { key: finding_key(&f), reason: f }),
        })
    };
    let Some(crash) = key_of(&mut worker, input)? else {
        return Err("the input does not crash or violate a law in this target".into());
    };
    let start = Instant::now();
    let mut runs = 0u64;
    let mut best = input.to_vec();
    let mut still = |data: &[u8]| -> Result<bool, String> {
        if runs >= cfg.max_runs || start.elapsed().as_secs_f64() >= cfg.max_seconds {
            return Ok(false);
        }
        runs += 1;
        Ok(key_of(&mut worker, data)?.is_some_and(|c| c.key == crash.key))
    };
    let lines: Vec<Vec<u8>> = best.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    best = ddmin(lines, &mut still)?.concat();
    let bytes: Vec<Vec<u8>> = best.iter().map(|&b| vec![b]).collect();
    best = ddmin(bytes, &mut still)?.concat();
    Ok((best, crash, runs))
}

/// Removes chunks of `units`, halving the chunk size, while `still` holds.
fn ddmin(
    mut units: Vec<Vec<u8>>,
    still: &mut impl FnMut(&[u8]) -> Result<bool, String>,
) -> Result<Vec<Vec<u8>>, String> {
    let mut chunk = (units.len() / 2).max(1);
    loop {
        let mut progress = false;
        let mut i = 0;
        while i < units.len() && units.len() > 1 {
            let end = (i + chunk).min(units.len());
            let candidate: Vec<Vec<u8>> = units[..i].iter().chain(&units[end..]).cloned().collect();
            if still(&candidate.concat())? {
                units = candidate;
                progress = true;
            } else {
                i += chunk;
            }
        }
        if !progress {
            if chunk == 1 {
                return Ok(units);
            }
            chunk = (chunk / 2).max(1);
        }
        if units.len() <= 1 {
            return Ok(units);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_fold_digits() {
        assert_eq!(normalize_message("dim 3 of %12 is 40"), normalize_message("dim 4 of %1 is 7"));
        assert_ne!(normalize_message("dim 3 too big"), normalize_message("rank 3 too big"));
        assert_eq!(normalize_message("unknown op 'a.b' here"), normalize_message("unknown op 'c' here"));
        assert_eq!(normalize_message("got \"x\" and `y`"), "got '_' and '_'");
        assert_eq!(normalize_message("found [[1], {}] and [2]"), "found [_] and [_]");
        assert_eq!(message_family("unregistered operation '_' found in"), "unregistered operation '_'");
        assert_eq!(message_family("unregistered operation '_'w.x' found"), "unregistered operation '_'");
        assert_eq!(normalize_message("type doesn't match 'x' in @fn_1 at %arg0"), "type doesn't match '_' in @_ at %_");
    }

    #[test]
    fn ddmin_finds_the_needle() {
        let data = b"aaaa\nbbbb\npanic\ncccc\n".to_vec();
        let units: Vec<Vec<u8>> = data.iter().map(|&b| vec![b]).collect();
        let mut calls = 0;
        let out = ddmin(units, &mut |d: &[u8]| {
            calls += 1;
            Ok(d.windows(5).any(|w| w == b"panic"))
        })
        .unwrap();
        assert_eq!(out.concat(), b"panic");
        assert!(calls < 200, "{calls} calls");
    }

    #[test]
    fn artifact_names_are_content_hashes() {
        assert_eq!(hash_hex(b"x"), hash_hex(b"x"));
        assert_ne!(hash_hex(b"x"), hash_hex(b"y"));
        assert_eq!(hash_hex(b"").len(), 16);
    }
}
