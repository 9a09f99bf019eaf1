//! A tiny key-value cache. It evicts the oldest entries.
//!
//! More crate docs.
use std::collections::HashMap;
use std::hash::Hash;

/// Cache holds values by key. Capacity is fixed.
#[derive(Debug, Default)]
pub struct Cache<K, V> {
    /// Maximum number of entries.
    pub capacity: usize,
    map: HashMap<K, V>,
    order: Vec<K>,
}

/// Evict says what to drop.
pub trait Evict {
    /// Pick returns the key to drop.
    fn pick(&self) -> Option<usize>;
    fn noop(&self) {}
}

impl<K: Hash + Eq + Clone, V> Cache<K, V> {
    /// New makes an empty cache.
    pub fn new(capacity: usize) -> Self {
        Cache {
            capacity,
            map: HashMap::new(),
            order: Vec::new(),
        }
    }

    /// Insert adds a value. It may evict the oldest one.
    pub fn insert(&mut self, k: K, v: V) {
        if self.map.len() >= self.capacity {
            self.evict_oldest();
        }
        self.order.push(k.clone());
        self.map.insert(k, v);
    }

    fn evict_oldest(&mut self) {
        if let Some(k) = self.order.first().cloned() {
            self.order.remove(0);
            self.map.remove(&k);
        }
    }

    pub fn len(&self) -> usize { self.map.len() }
}

impl<K, V> Evict for Cache<K, V> {
    fn pick(&self) -> Option<usize> {
        if self.order.is_empty() {
            None
        } else {
            Some(0)
        }
    }
}

pub fn fib(n: u64) -> u64 {
    match n {
        0 => 0,
        1 => 1,
        _ => fib(n - 1) + fib(n - 2),
    }
}
