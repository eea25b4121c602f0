//! The on-disk cache of machine code the LLVM and MLIR backends compiled:
//! a later process (the next test run, the next `aot-run`, the next
//! training script) that compiles the same kernel loads its object file
//! instead of running LLVM's optimizer and code generator again.
//!
//! Layout, under the cache directory ([`ObjectCache::global`]):
//! `jit-v1/objects/<id>.o`, relocatable objects as LLVM emitted them, and
//! `jit-v1/entries/<hash>`, one per compiled thing (a kernel's LLVM text,
//! an exported MLIR module), naming the object and the symbol that holds
//! its code.
//!
//! Invariants: a hit is only ever taken for a key equal, byte for byte, to
//! the one stored (an entry holds its whole key; the file name is a hash
//! only to find it), from an object whose checksum is the one the entry
//! recorded, so neither a hash collision nor a damaged file becomes wrong
//! code; the key states everything the code depends on besides the text
//! (LLVM's version, the pipeline, the target machine: [`key`]). Files are
//! written under a temporary name and renamed, so a reader sees a whole
//! file or none, whichever processes write at once. The cache is an
//! optimisation: a directory that cannot be read or written only makes
//! every lookup a miss, never a failed compile.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The layout's version: bumped when what an entry or an object means
/// changes, so that an older layout is never read.
const LAYOUT: &str = "jit-v1";
const MAGIC: &str = "aot-object-cache 1";

/// Where the backends' compiled code is kept between processes.
pub struct ObjectCache {
    root: PathBuf,
    log: bool,
}

/// A stored entry: the object that holds the code and its symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub object: String,
    pub symbol: String,
}

/// A 128-bit hash of `parts` as 32 hex digits. SipHash with fixed keys:
/// the same in every process of a build (a new Rust release may change it,
/// which only turns hits into misses: entries are compared whole).
pub fn hash_hex(parts: &[&[u8]]) -> String {
    let mut out = String::with_capacity(32);
    for salt in [0u8, 1] {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        for p in parts {
            p.hash(&mut h);
        }
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The key of a compile: `what` the backend compiles (its text) under
/// `how` (everything else the code depends on: the pipeline, the target
/// machine, LLVM's version: [`crate::orc::machine_description`]) and this
/// crate's version.
pub fn key(how: &str, what: &str) -> String {
    format!("{MAGIC}\naot {}\n{how}\n--\n{what}", env!("CARGO_PKG_VERSION"))
}

impl ObjectCache {
    /// The process's cache, from the environment, decided once:
    /// `AOT_JIT_CACHE=0` turns it off; `AOT_CACHE_DIR` names the directory;
    /// otherwise `$XDG_CACHE_HOME/aot`, else `$HOME/.cache/aot`, else none.
    /// `AOT_JIT_CACHE_LOG=1` writes a line to stderr per lookup and store.
    pub fn global() -> Option<&'static ObjectCache> {
        static CACHE: OnceLock<Option<ObjectCache>> = OnceLock::new();
        CACHE
            .get_or_init(|| {
                let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
                if var("AOT_JIT_CACHE").is_some_and(|v| v == "0") {
                    return None;
                }
                let dir = var("AOT_CACHE_DIR").map(PathBuf::from).or_else(|| {
                    var("XDG_CACHE_HOME")
                        .map(|d| PathBuf::from(d).join("aot"))
                        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("aot")))
                })?;
                let log = var("AOT_JIT_CACHE_LOG").is_some_and(|v| v == "1");
                Some(ObjectCache::at(&dir, log))
            })
            .as_ref()
    }

    /// A cache in `dir` (created on the first store).
    pub fn at(dir: &Path, log: bool) -> ObjectCache {
        ObjectCache { root: dir.join(LAYOUT), log }
    }

    fn say(&self, what: &str, name: &str) {
        if self.log {
            eprintln!("aot: jit cache: {what} {name}");
        }
    }

    fn entry_path(&self, name: &str) -> PathBuf {
        self.root.join("entries").join(name)
    }

    fn object_path(&self, id: &str) -> PathBuf {
        self.root.join("objects").join(format!("{id}.o"))
    }

    /// The entry stored for exactly `key`, with its object's bytes.
    pub fn find(&self, key: &str) -> Option<(Entry, Vec<u8>)> {
        let name = hash_hex(&[key.as_bytes()]);
        let found = self.read(&name, key);
        match &found {
            Some((e, _)) => self.say("hit", &e.object),
            None => self.say("miss", &name),
        }
        found
    }

    fn read(&self, name: &str, key: &str) -> Option<(Entry, Vec<u8>)> {
        let text = fs::read(self.entry_path(name)).ok()?;
        let text = std::str::from_utf8(&text).ok()?;
        // magic, object id, symbol, checksum, then the key itself.
        let mut lines = text.splitn(5, '\n');
        if lines.next()? != MAGIC {
            return None;
        }
        let object = lines.next()?.to_string();
        let symbol = lines.next()?.to_string();
        let sum = u64::from_str_radix(lines.next()?, 16).ok()?;
        if lines.next()? != key || !is_id(&object) {
            return None;
        }
        let bytes = fs::read(self.object_path(&object)).ok()?;
        if checksum(&bytes) != sum {
            self.say("rejected (checksum)", &object);
            return None;
        }
        Some((Entry { object, symbol }, bytes))
    }

    /// Stores the object `id` (its bytes), unless it is there already.
    /// Returns its checksum, or `None` when it could not be written.
    pub fn store_object(&self, id: &str, bytes: &[u8]) -> Option<u64> {
        let sum = checksum(bytes);
        let path = self.object_path(id);
        if fs::read(&path).ok().is_some_and(|b| checksum(&b) == sum) {
            return Some(sum);
        }
        write_atomically(&path, bytes).ok()?;
        self.say("store", id);
        Some(sum)
    }

    /// Records that `key` compiles to `symbol` of the stored object `object`.
    pub fn store_entry(&self, key: &str, object: &str, symbol: &str, checksum: u64) {
        if !is_id(object) || symbol.contains('\n') {
            return;
        }
        let text = format!("{MAGIC}\n{object}\n{symbol}\n{checksum:016x}\n{key}");
        // A failed write leaves the cache as it was: the next compile of
        // this key misses, as it would without a cache.
        let _ = write_atomically(&self.entry_path(&hash_hex(&[key.as_bytes()])), text.as_bytes());
    }
}

/// An object id is what [`hash_hex`] makes: nothing that could leave the
/// directory.
fn is_id(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no directory"))?;
    fs::create_dir_all(dir)?;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".tmp-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        path.file_name().and_then(|n| n.to_str()).unwrap_or("x")
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_data().ok();
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dir(PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
    fn scratch(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("aot-object-cache-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        Dir(d)
    }

    #[test]
    fn a_stored_entry_is_found_by_its_exact_key_only() {
        let d = scratch("exact");
        let c = ObjectCache::at(&d.0, false);
        let k = key("O3 x86-64", "define void @f() { ret void }");
        assert!(c.find(&k).is_none());
        let id = hash_hex(&[k.as_bytes()]);
        let sum = c.store_object(&id, b"\x7fELF object").unwrap();
        c.store_entry(&k, &id, "aot_f", sum);
        let (e, bytes) = c.find(&k).unwrap();
        assert_eq!(
            (e.object.as_str(), e.symbol.as_str(), bytes.as_slice()),
            (id.as_str(), "aot_f", &b"\x7fELF object"[..])
        );
        // Another key is a miss, even where it finds this file: an entry
        // written under the other key's name keeps its own key.
        let other = key("O3 x86-64", "define void @g() { ret void }");
        fs::copy(c.entry_path(&hash_hex(&[k.as_bytes()])), c.entry_path(&hash_hex(&[other.as_bytes()]))).unwrap();
        assert!(c.find(&other).is_none());
        // So is the same text under another pipeline or machine.
        assert!(c.find(&key("O2 x86-64", "define void @f() { ret void }")).is_none());
    }

    #[test]
    fn a_damaged_object_or_entry_is_a_miss() {
        let d = scratch("damaged");
        let c = ObjectCache::at(&d.0, false);
        let k = key("O3", "kernel");
        let id = hash_hex(&[b"object"]);
        let sum = c.store_object(&id, b"code bytes").unwrap();
        c.store_entry(&k, &id, "s", sum);
        assert!(c.find(&k).is_some());
        fs::write(c.object_path(&id), b"code bytez").unwrap();
        assert!(c.find(&k).is_none(), "a changed object is not used");
        // Storing it again repairs it.
        c.store_object(&id, b"code bytes").unwrap();
        assert!(c.find(&k).is_some());
        let text = fs::read_to_string(c.entry_path(&hash_hex(&[k.as_bytes()]))).unwrap();
        for cut in [0, 5, MAGIC.len() + 3, text.len() - 1] {
            fs::write(c.entry_path(&hash_hex(&[k.as_bytes()])), &text[..cut]).unwrap();
            assert!(c.find(&k).is_none(), "an entry cut at {cut} is not used");
        }
        // An entry naming a path outside the directory is refused.
        let sneaky = text.replacen(&id, "../../etc/passwd", 1);
        fs::write(c.entry_path(&hash_hex(&[k.as_bytes()])), sneaky).unwrap();
        assert!(c.find(&k).is_none());
    }

    #[test]
    fn a_directory_that_cannot_be_written_only_misses() {
        let d = scratch("unwritable");
        // A file where the directory should be: nothing can be created.
        fs::write(&d.0, b"not a directory").unwrap();
        let c = ObjectCache::at(&d.0, false);
        let k = key("O3", "kernel");
        assert_eq!(c.store_object(&hash_hex(&[b"x"]), b"bytes"), None);
        c.store_entry(&k, &hash_hex(&[b"x"]), "s", 0);
        assert!(c.find(&k).is_none());
        let _ = fs::remove_file(&d.0);
    }

    #[test]
    fn hashes_are_stable_and_distinguish_their_parts() {
        assert_eq!(hash_hex(&[b"ab"]), hash_hex(&[b"ab"]));
        assert_eq!(hash_hex(&[b"ab"]).len(), 32);
        assert_ne!(hash_hex(&[b"ab", b"c"]), hash_hex(&[b"a", b"bc"]));
    }
}
