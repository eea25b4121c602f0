//! View chains as persistent lists: a view of an object shares its source's
//! chain and adds one link, so a program of `n` chained views holds `n`
//! links in all (not `n²/2` steps), and the common question "is the chain of
//! the object I was viewed from still a prefix of mine?" is answered by
//! pointer identity in constant time.
//!
//! Invariants: a link's `len` is its distance from the base plus one (the
//! empty chain has length 0); links are immutable once built, so two chains
//! whose links are the same allocation have equal steps up to that link.
//! Dropping a long chain unlinks it iteratively (a recursive drop of a
//! 100,000-link list would overflow the stack).

use aot_ir::{NamedAttr, OpRef};
use std::rc::Rc;

/// One view step: an op and its attributes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Step {
    pub op: OpRef,
    pub attrs: Vec<NamedAttr>,
}

#[derive(Debug)]
struct Link {
    step: Step,
    len: usize,
    parent: Chain,
}

/// The steps replaying a layout from its storage's base value, base first.
#[derive(Clone, Debug, Default)]
pub(super) struct Chain(Option<Rc<Link>>);

impl Chain {
    /// The chain of one step.
    pub fn single(step: Step) -> Chain {
        Chain::default().pushed(step)
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.len)
    }

    /// This chain followed by `step` (this one is unchanged and shared).
    pub fn pushed(&self, step: Step) -> Chain {
        Chain(Some(Rc::new(Link { step, len: self.len() + 1, parent: self.clone() })))
    }

    pub fn push(&mut self, step: Step) {
        *self = self.pushed(step);
    }

    /// The first `n` steps (`n <= len`), shared with this chain.
    fn prefix(&self, n: usize) -> &Chain {
        let mut c = self;
        while c.len() > n {
            c = &c.0.as_ref().expect("longer than n, so not empty").parent;
        }
        c
    }

    /// Does this chain start with every step of `p`?
    pub fn starts_with(&self, p: &Chain) -> bool {
        if p.len() > self.len() {
            return false;
        }
        let (mut a, mut b) = (self.prefix(p.len()), p);
        loop {
            match (&a.0, &b.0) {
                (None, None) => return true,
                (Some(x), Some(y)) if Rc::ptr_eq(x, y) => return true,
                (Some(x), Some(y)) if x.step == y.step => {
                    a = &x.parent;
                    b = &y.parent;
                }
                _ => return false,
            }
        }
    }

    /// The steps after the first `start`, base first.
    pub fn steps_from(&self, start: usize) -> Vec<&Step> {
        let mut out = Vec::with_capacity(self.len().saturating_sub(start));
        let mut c = self;
        while let Some(l) = &c.0 {
            if l.len <= start {
                break;
            }
            out.push(&l.step);
            c = &l.parent;
        }
        out.reverse();
        out
    }

    /// Every step, base first.
    pub fn steps(&self) -> Vec<&Step> {
        self.steps_from(0)
    }
}

impl PartialEq for Chain {
    fn eq(&self, other: &Chain) -> bool {
        self.len() == other.len() && self.starts_with(other)
    }
}

impl Drop for Chain {
    fn drop(&mut self) {
        let mut next = self.0.take();
        while let Some(rc) = next {
            match Rc::try_unwrap(rc) {
                Ok(mut link) => next = link.parent.0.take(),
                // Still shared: whoever holds it drops the rest.
                Err(_) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    aot_ir::op_handle!(A = "test.a");
    aot_ir::op_handle!(B = "test.b");
    aot_ir::op_handle!(C = "test.c");
    aot_ir::op_handle!(Z = "test.z");
    aot_ir::op_handle!(Alias = "test.alias");

    fn step(op: OpRef) -> Step {
        Step { op, attrs: Vec::new() }
    }

    #[test]
    fn shared_prefix_and_suffix() {
        let a = Chain::single(step(OpRef::of::<A>()));
        let b = a.pushed(step(OpRef::of::<B>()));
        let c = b.pushed(step(OpRef::of::<C>()));
        assert_eq!((a.len(), b.len(), c.len()), (1, 2, 3));
        assert!(c.starts_with(&a) && c.starts_with(&b) && c.starts_with(&Chain::default()));
        assert!(!a.starts_with(&b));
        let ops: Vec<&str> = c.steps_from(1).iter().map(|s| s.op.name()).collect();
        assert_eq!(ops, ["test.b", "test.c"]);
        assert_eq!(c.steps().len(), 3);
    }

    #[test]
    fn structural_equality_without_sharing() {
        let x = Chain::single(step(OpRef::of::<A>())).pushed(step(OpRef::of::<B>()));
        let y = Chain::single(step(OpRef::of::<A>())).pushed(step(OpRef::of::<B>()));
        let z = Chain::single(step(OpRef::of::<Z>())).pushed(step(OpRef::of::<B>()));
        assert_eq!(x, y);
        assert!(x.starts_with(&Chain::single(step(OpRef::of::<A>()))));
        assert_ne!(x, z);
        assert!(!z.starts_with(&Chain::single(step(OpRef::of::<A>()))));
    }

    #[test]
    fn long_chain_drops_without_recursion() {
        let mut c = Chain::default();
        for _ in 0..1_000_000 {
            c.push(step(OpRef::of::<Alias>()));
        }
        let keep = c.prefix(10).clone();
        drop(c);
        assert_eq!(keep.len(), 10);
    }
}
