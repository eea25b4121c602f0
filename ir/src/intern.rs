//! Hash-consing tables.
//!
//! Types, attributes, locations and strings are immutable and uniqued: equal
//! data always maps to the same id, so equality of ids is equality of values
//! and ids can be compared and hashed in O(1). Tables only grow.

use cranelift_entity::{EntityRef, PrimaryMap};
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// A uniquing table from `T` to a dense id `K`.
pub struct Interner<K: EntityRef, T: Hash + Eq + Clone> {
    map: FxHashMap<T, K>,
    items: PrimaryMap<K, T>,
}

impl<K: EntityRef, T: Hash + Eq + Clone> Default for Interner<K, T> {
    fn default() -> Self {
        Self { map: FxHashMap::default(), items: PrimaryMap::new() }
    }
}

impl<K: EntityRef, T: Hash + Eq + Clone> Interner<K, T> {
    /// Returns the id of `data`, adding it if it is new.
    pub fn intern(&mut self, data: T) -> K {
        if let Some(&k) = self.map.get(&data) {
            return k;
        }
        let k = self.items.push(data.clone());
        self.map.insert(data, k);
        k
    }

    /// Returns the id of `data` if it was interned before.
    pub fn lookup(&self, data: &T) -> Option<K> {
        self.map.get(data).copied()
    }

    pub fn get(&self, k: K) -> &T {
        &self.items[k]
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// A uniquing table for strings; lookups by `&str` do not allocate.
#[derive(Default)]
pub struct StringInterner {
    map: FxHashMap<Box<str>, u32>,
    items: Vec<Box<str>>,
}

impl StringInterner {
    pub fn intern<K: EntityRef>(&mut self, s: &str) -> K {
        if let Some(&k) = self.map.get(s) {
            return K::new(k as usize);
        }
        let k = self.items.len() as u32;
        self.items.push(s.into());
        self.map.insert(s.into(), k);
        K::new(k as usize)
    }

    pub fn lookup<K: EntityRef>(&self, s: &str) -> Option<K> {
        self.map.get(s).map(|&k| K::new(k as usize))
    }

    pub fn get<K: EntityRef>(&self, k: K) -> &str {
        &self.items[k.index()]
    }
}
