//! The element vectors buffers are made of: owned (`Vec<T>`) or foreign
//! (memory another runtime owns, such as a PyTorch storage, bound without a
//! copy).
//!
//! Both dereference to `[T]`, so kernels, copies and compiled code see one
//! kind of memory. A foreign vector keeps its owner (an opaque handle, e.g.
//! a reference to the `torch.Tensor` whose storage it is) alive for as long
//! as the vector lives, and never frees the memory itself. Invariants: a
//! foreign pointer is non-null, aligned for `T` and valid for `len` reads
//! and writes while the owner lives (the constructor's safety contract);
//! growing a foreign vector moves its elements into an owned one (the owner
//! keeps its memory, which this vector then no longer addresses), which is
//! what a caller that bound foreign memory detects by comparing
//! [`Elems::as_ptr`] before and after a call. Cloning always gives an owned
//! copy.

use std::any::Any;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// A vector of `T`: owned, or foreign memory kept alive by its owner.
pub struct Elems<T> {
    repr: Repr<T>,
}

enum Repr<T> {
    Owned(Vec<T>),
    Foreign { ptr: NonNull<T>, len: usize, _owner: Box<dyn Any> },
}

impl<T> Elems<T> {
    /// Binds `len` elements at `ptr`, owned elsewhere; `owner` is dropped
    /// when this vector is (or when it grows into an owned one).
    ///
    /// # Safety
    /// `ptr` must be aligned for `T` and valid for reads and writes of
    /// `len` elements for as long as `owner` lives, and nothing else may
    /// access that memory while a kernel of this runtime runs on it. A null
    /// `ptr` is accepted only with `len == 0`.
    pub unsafe fn foreign(ptr: *mut T, len: usize, owner: Box<dyn Any>) -> Elems<T> {
        let ptr = match NonNull::new(ptr) {
            Some(p) => p,
            None => {
                assert_eq!(len, 0, "a null foreign pointer must have no elements");
                NonNull::dangling()
            }
        };
        Elems { repr: Repr::Foreign { ptr, len, _owner: owner } }
    }

    /// Whether the elements live in memory this vector does not own.
    pub fn is_foreign(&self) -> bool {
        matches!(self.repr, Repr::Foreign { .. })
    }

    /// Resizes to `n` elements, new ones `fill`. A foreign vector that must
    /// grow becomes owned (its elements copied); shrinking keeps it foreign.
    pub fn resize(&mut self, n: usize, fill: T)
    where
        T: Clone,
    {
        match &mut self.repr {
            Repr::Owned(v) => v.resize(n, fill),
            Repr::Foreign { len, .. } if n <= *len => *len = n,
            Repr::Foreign { .. } => {
                let mut v = Vec::with_capacity(n);
                v.extend_from_slice(self);
                v.resize(n, fill);
                self.repr = Repr::Owned(v);
            }
        }
    }
}

impl<T> Deref for Elems<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &self.repr {
            Repr::Owned(v) => v,
            // SAFETY: the constructor's contract (valid for `len` elements
            // while the owner, held here, lives).
            Repr::Foreign { ptr, len, .. } => unsafe { std::slice::from_raw_parts(ptr.as_ptr(), *len) },
        }
    }
}

impl<T> DerefMut for Elems<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.repr {
            Repr::Owned(v) => v,
            // SAFETY: as in `deref`; `&mut self` makes this the only access
            // through this vector.
            Repr::Foreign { ptr, len, .. } => unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), *len) },
        }
    }
}

impl<T> From<Vec<T>> for Elems<T> {
    fn from(v: Vec<T>) -> Elems<T> {
        Elems { repr: Repr::Owned(v) }
    }
}

impl<T> FromIterator<T> for Elems<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Elems<T> {
        Elems { repr: Repr::Owned(iter.into_iter().collect()) }
    }
}

impl<T: Clone> Clone for Elems<T> {
    fn clone(&self) -> Elems<T> {
        Elems { repr: Repr::Owned(self.to_vec()) }
    }
}

impl<T: PartialEq> PartialEq for Elems<T> {
    fn eq(&self, other: &Elems<T>) -> bool {
        **self == **other
    }
}

impl<T: fmt::Debug> fmt::Debug for Elems<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_foreign() {
            f.write_str("foreign ")?;
        }
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn foreign_memory_is_read_and_written_in_place_and_kept_alive() {
        let mut backing = vec![1.0f32, 2.0, 3.0];
        let alive = Rc::new(());
        {
            let owner: Box<dyn Any> = Box::new(alive.clone());
            // SAFETY: `backing` outlives the vector and is not used meanwhile.
            let mut e = unsafe { Elems::foreign(backing.as_mut_ptr(), 3, owner) };
            assert!(e.is_foreign());
            e[1] = 20.0;
            assert_eq!(&e[..], &[1.0, 20.0, 3.0]);
            assert_eq!(Rc::strong_count(&alive), 2);
            let copy = e.clone();
            assert!(!copy.is_foreign());
            e.resize(2, 0.0);
            assert!(e.is_foreign() && e.len() == 2);
            e.resize(4, 9.0);
            assert!(!e.is_foreign());
            assert_eq!(&e[..], &[1.0, 20.0, 9.0, 9.0]);
            // Growing released the owner.
            assert_eq!(Rc::strong_count(&alive), 1);
        }
        assert_eq!(backing, vec![1.0, 20.0, 3.0]);
    }

    #[test]
    fn a_null_pointer_binds_an_empty_vector() {
        // SAFETY: no element is addressed.
        let e = unsafe { Elems::<i64>::foreign(std::ptr::null_mut(), 0, Box::new(())) };
        assert!(e.is_empty());
    }
}
