//! [`AddrMap`]: the maps by object or storage address that every call
//! builds over its arguments. A call has a few arguments, or hundreds (a
//! model's parameters): a short list searched in order needs no hashing
//! and no allocation for the first, a hash map keeps the second linear.
//! Invariant: a key is in the map at most once. (Tested through the
//! keys of calls with more arguments than the list holds: `test_keys.py`.)

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Entries kept in the list before the map switches to hashing.
const FEW: usize = 8;

pub(crate) enum AddrMap<V> {
    Few(SmallVec<[(usize, V); FEW]>),
    Many(FxHashMap<usize, V>),
}

impl<V> Default for AddrMap<V> {
    fn default() -> Self {
        AddrMap::Few(SmallVec::new())
    }
}

impl<V> AddrMap<V> {
    pub(crate) fn get(&self, k: usize) -> Option<&V> {
        match self {
            AddrMap::Few(v) => v.iter().find(|(a, _)| *a == k).map(|(_, x)| x),
            AddrMap::Many(m) => m.get(&k),
        }
    }

    /// The value of `k`, inserting `v` first where there is none.
    pub(crate) fn get_or_insert(&mut self, k: usize, v: V) -> &V {
        if let AddrMap::Few(list) = self {
            if list.len() >= FEW && !list.iter().any(|(a, _)| *a == k) {
                let m: FxHashMap<usize, V> = list.drain(..).collect();
                *self = AddrMap::Many(m);
            }
        }
        match self {
            AddrMap::Few(list) => {
                let i = match list.iter().position(|(a, _)| *a == k) {
                    Some(i) => i,
                    None => {
                        list.push((k, v));
                        list.len() - 1
                    }
                };
                &list[i].1
            }
            AddrMap::Many(m) => m.entry(k).or_insert(v),
        }
    }

    /// Takes `k`'s value out of the map.
    pub(crate) fn remove(&mut self, k: usize) -> Option<V> {
        match self {
            AddrMap::Few(list) => list.iter().position(|(a, _)| *a == k).map(|i| list.swap_remove(i).1),
            AddrMap::Many(m) => m.remove(&k),
        }
    }

    /// Inserts `k` (a key not in the map) with `v`.
    pub(crate) fn insert_new(&mut self, k: usize, v: V) {
        self.get_or_insert(k, v);
    }
}
