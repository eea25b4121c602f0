//! A process-wide, bounded map from what a backend compiled (a kernel's
//! LLVM text, an exported MLIR module, a set of libdevice functions) to
//! the result, shared by the LLVM, MLIR and PTX code generators.
//!
//! Invariants: the lock is held for a lookup or an insert only, never while
//! a backend compiles, so two threads that miss the same key both compile
//! it and the first insert stays; at most `capacity` entries are kept, the
//! oldest dropped first (each entry keeps its code alive); a thread that
//! panicked while holding the lock leaves a consistent map (entries go in
//! whole), so a poisoned lock is used as it is.

use rustc_hash::{FxBuildHasher, FxHashMap};
use std::collections::VecDeque;
use std::hash::Hash;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct JitCache<K, V> {
    capacity: usize,
    entries: Mutex<Entries<K, V>>,
}

struct Entries<K, V> {
    map: FxHashMap<K, V>,
    /// Keys in insertion order.
    order: VecDeque<K>,
}

impl<K: Eq + Hash + Clone, V: Clone> JitCache<K, V> {
    pub(crate) const fn new(capacity: usize) -> Self {
        JitCache {
            capacity,
            entries: Mutex::new(Entries { map: FxHashMap::with_hasher(FxBuildHasher), order: VecDeque::new() }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Entries<K, V>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn get(&self, key: &K) -> Option<V> {
        self.lock().map.get(key).cloned()
    }

    /// Inserts `value` unless `key` is there already (an equal compile).
    pub(crate) fn insert(&self, key: K, value: V) {
        let mut e = self.lock();
        if e.map.contains_key(&key) {
            return;
        }
        e.map.insert(key.clone(), value);
        e.order.push_back(key);
        while e.order.len() > self.capacity {
            if let Some(old) = e.order.pop_front() {
                e.map.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::JitCache;

    #[test]
    fn keeps_the_first_insert_and_drops_the_oldest() {
        let c: JitCache<u32, &str> = JitCache::new(2);
        c.insert(1, "a");
        c.insert(1, "b");
        assert_eq!(c.get(&1), Some("a"));
        c.insert(2, "c");
        c.insert(3, "d");
        assert_eq!(c.get(&1), None);
        assert_eq!((c.get(&2), c.get(&3)), (Some("c"), Some("d")));
    }
}
