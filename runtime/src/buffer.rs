//! Typed element buffers: the physical contents of a storage.
//!
//! A buffer holds elements of one physical type. Kernels read and write
//! elements as `f64` (floats) or `i64` (integers and booleans); writing
//! rounds to the buffer's type (`f16`/`bf16` through the `half` crate, `i1`
//! as 0/1). Reading an `i64` buffer as `f64` is exact up to 2⁵³, which covers
//! every index and count the interpreter handles.

use crate::elems::Elems;
use aot_ir::ElemType;
use half::{bf16, f16};
use std::any::Any;

#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    F32(Elems<f32>),
    F64(Elems<f64>),
    F16(Elems<f16>),
    BF16(Elems<bf16>),
    I64(Elems<i64>),
    I32(Elems<i32>),
    I8(Elems<i8>),
    /// `i1`, one byte per element (0 or 1).
    Bool(Elems<u8>),
}

impl Buffer {
    pub fn zeros(kind: ElemType, n: usize) -> Buffer {
        match kind {
            ElemType::F32 => Buffer::F32(vec![0.0; n].into()),
            ElemType::F64 => Buffer::F64(vec![0.0; n].into()),
            ElemType::F16 => Buffer::F16(vec![f16::ZERO; n].into()),
            ElemType::BF16 => Buffer::BF16(vec![bf16::ZERO; n].into()),
            ElemType::I64 => Buffer::I64(vec![0; n].into()),
            ElemType::I32 => Buffer::I32(vec![0; n].into()),
            ElemType::I8 => Buffer::I8(vec![0; n].into()),
            ElemType::I1 => Buffer::Bool(vec![0; n].into()),
        }
    }

    /// A buffer over `len` elements of type `kind` at `ptr`, memory owned
    /// elsewhere (see [`Elems::foreign`]); `owner` keeps it alive.
    ///
    /// # Safety
    /// As [`Elems::foreign`]: `ptr` aligned for `kind` and valid for reads
    /// and writes of `len` elements while `owner` lives.
    pub unsafe fn foreign(kind: ElemType, ptr: *mut u8, len: usize, owner: Box<dyn Any>) -> Buffer {
        // SAFETY: forwarded to the caller.
        unsafe {
            match kind {
                ElemType::F32 => Buffer::F32(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::F64 => Buffer::F64(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::F16 => Buffer::F16(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::BF16 => Buffer::BF16(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::I64 => Buffer::I64(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::I32 => Buffer::I32(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::I8 => Buffer::I8(Elems::foreign(ptr.cast(), len, owner)),
                ElemType::I1 => Buffer::Bool(Elems::foreign(ptr, len, owner)),
            }
        }
    }

    /// Whether the elements are foreign memory (bound, not owned).
    pub fn is_foreign(&self) -> bool {
        match self {
            Buffer::F32(v) => v.is_foreign(),
            Buffer::F64(v) => v.is_foreign(),
            Buffer::F16(v) => v.is_foreign(),
            Buffer::BF16(v) => v.is_foreign(),
            Buffer::I64(v) => v.is_foreign(),
            Buffer::I32(v) => v.is_foreign(),
            Buffer::I8(v) => v.is_foreign(),
            Buffer::Bool(v) => v.is_foreign(),
        }
    }

    /// The physical element type.
    pub fn kind(&self) -> ElemType {
        match self {
            Buffer::F32(_) => ElemType::F32,
            Buffer::F64(_) => ElemType::F64,
            Buffer::F16(_) => ElemType::F16,
            Buffer::BF16(_) => ElemType::BF16,
            Buffer::I64(_) => ElemType::I64,
            Buffer::I32(_) => ElemType::I32,
            Buffer::I8(_) => ElemType::I8,
            Buffer::Bool(_) => ElemType::I1,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
            Buffer::F16(v) => v.len(),
            Buffer::BF16(v) => v.len(),
            Buffer::I64(v) => v.len(),
            Buffer::I32(v) => v.len(),
            Buffer::I8(v) => v.len(),
            Buffer::Bool(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Buffer::F32(v) => v[i] as f64,
            Buffer::F64(v) => v[i],
            Buffer::F16(v) => v[i].to_f64(),
            Buffer::BF16(v) => v[i].to_f64(),
            Buffer::I64(v) => v[i] as f64,
            Buffer::I32(v) => v[i] as f64,
            Buffer::I8(v) => v[i] as f64,
            Buffer::Bool(v) => v[i] as f64,
        }
    }

    #[inline]
    pub fn get_i64(&self, i: usize) -> i64 {
        match self {
            Buffer::F32(v) => v[i] as i64,
            Buffer::F64(v) => v[i] as i64,
            Buffer::F16(v) => v[i].to_f64() as i64,
            Buffer::BF16(v) => v[i].to_f64() as i64,
            Buffer::I64(v) => v[i],
            Buffer::I32(v) => v[i] as i64,
            Buffer::I8(v) => v[i] as i64,
            Buffer::Bool(v) => v[i] as i64,
        }
    }

    /// Writes `x`, rounding to the buffer's type (floats to integers
    /// truncate toward zero, as `Tensor.to(int)` does; booleans are `x != 0`).
    #[inline]
    pub fn set_f64(&mut self, i: usize, x: f64) {
        match self {
            Buffer::F32(v) => v[i] = x as f32,
            Buffer::F64(v) => v[i] = x,
            Buffer::F16(v) => v[i] = aot_ir::types::f16_of(x),
            Buffer::BF16(v) => v[i] = aot_ir::types::bf16_of(x),
            Buffer::I64(v) => v[i] = x as i64,
            Buffer::I32(v) => v[i] = x as i32,
            Buffer::I8(v) => v[i] = x as i8,
            Buffer::Bool(v) => v[i] = (x != 0.0) as u8,
        }
    }

    /// Writes `x`; integer buffers wrap as two's complement, like PyTorch.
    #[inline]
    pub fn set_i64(&mut self, i: usize, x: i64) {
        match self {
            Buffer::F32(v) => v[i] = x as f32,
            Buffer::F64(v) => v[i] = x as f64,
            Buffer::F16(v) => v[i] = aot_ir::types::f16_of(x as f64),
            Buffer::BF16(v) => v[i] = aot_ir::types::bf16_of(x as f64),
            Buffer::I64(v) => v[i] = x,
            Buffer::I32(v) => v[i] = x as i32,
            Buffer::I8(v) => v[i] = x as i8,
            Buffer::Bool(v) => v[i] = (x != 0) as u8,
        }
    }

    /// Grows (zero-filled) or shrinks to `n` elements.
    pub fn resize(&mut self, n: usize) {
        match self {
            Buffer::F32(v) => v.resize(n, 0.0),
            Buffer::F64(v) => v.resize(n, 0.0),
            Buffer::F16(v) => v.resize(n, f16::ZERO),
            Buffer::BF16(v) => v.resize(n, bf16::ZERO),
            Buffer::I64(v) => v.resize(n, 0),
            Buffer::I32(v) => v.resize(n, 0),
            Buffer::I8(v) => v.resize(n, 0),
            Buffer::Bool(v) => v.resize(n, 0),
        }
    }

    /// Bytes of the elements.
    pub fn byte_len(&self) -> usize {
        self.len() * self.kind().byte_size()
    }

    /// A raw pointer to the first element (for compiled kernels).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            Buffer::F32(v) => v.as_mut_ptr() as *mut u8,
            Buffer::F64(v) => v.as_mut_ptr() as *mut u8,
            Buffer::F16(v) => v.as_mut_ptr() as *mut u8,
            Buffer::BF16(v) => v.as_mut_ptr() as *mut u8,
            Buffer::I64(v) => v.as_mut_ptr() as *mut u8,
            Buffer::I32(v) => v.as_mut_ptr() as *mut u8,
            Buffer::I8(v) => v.as_mut_ptr() as *mut u8,
            Buffer::Bool(v) => v.as_mut_ptr(),
        }
    }
}

/// A strided walk over a storage: sizes, strides and offset in elements.
#[derive(Clone, Copy, Debug)]
pub struct Walk<'a> {
    pub sizes: &'a [i64],
    pub strides: &'a [i64],
    pub offset: i64,
}

/// Side of the square tiles a transposing copy walks.
const TILE: usize = 32;
/// Fewest rows and columns of a transposing copy that tiles (a plane of
/// 16 × 40, a channels-last map's width and channels, already gains).
const MIN_TILED: i64 = 8;

/// Copies the elements `src` walks into the positions `dst` walks, in
/// row-major order (a transposing copy into a destination whose positions
/// are distinct walks tiles instead, with the same result), between
/// buffers of one physical type (no conversion,
/// so every value, NaN payloads included, arrives bit for bit). The walks
/// must have the same sizes and stay inside their buffers; returns false
/// (copying nothing) when the types differ.
pub fn copy_strided(dst: &mut Buffer, d: Walk<'_>, src: &Buffer, s: Walk<'_>) -> bool {
    // A transposing copy along other dimensions than the last two (a
    // channels-last tensor made contiguous: the source steps by one along
    // the channels, the destination along the width) walks the same
    // elements with those two dimensions moved last, where it tiles.
    // Dimensions that both walks step through as one (a channels-last
    // map's height and width) are merged first, so that small planes
    // still tile.
    let (sizes, ds, ss) = coalesced(d, s);
    let (d, s) = (
        Walk { sizes: &sizes, strides: &ds, offset: d.offset },
        Walk { sizes: &sizes, strides: &ss, offset: s.offset },
    );
    if let Some((sizes, ds, ss)) = transposed_last(d, s) {
        let d2 = Walk { sizes: &sizes, strides: &ds, offset: d.offset };
        let s2 = Walk { sizes: &sizes, strides: &ss, offset: s.offset };
        return copy_walks(dst, d2, src, s2);
    }
    copy_walks(dst, d, src, s)
}

/// The walks with each run of adjacent dimensions that both step through
/// as one dimension (`stride[k] = stride[k + 1] · size[k + 1]` on both
/// sides) merged, and dimensions of one element dropped: the same elements
/// in the same row-major order.
fn coalesced(d: Walk<'_>, s: Walk<'_>) -> Reordered {
    if d.sizes.contains(&0) {
        // Nothing to copy; keep a zero so that the walk says so.
        return (vec![0], vec![1], vec![1]);
    }
    let (mut sizes, mut ds, mut ss): Reordered = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..d.sizes.len() {
        let n = d.sizes[k];
        if n == 1 {
            continue;
        }
        if let (Some(&m), Some(&dl), Some(&sl)) = (sizes.last(), ds.last(), ss.last()) {
            let merges = d.strides[k].checked_mul(n) == Some(dl) && s.strides[k].checked_mul(n) == Some(sl);
            if let (true, Some(merged)) = (merges, m.checked_mul(n)) {
                let last = sizes.len() - 1;
                (sizes[last], ds[last], ss[last]) = (merged, d.strides[k], s.strides[k]);
                continue;
            }
        }
        sizes.push(n);
        ds.push(d.strides[k]);
        ss.push(s.strides[k]);
    }
    (sizes, ds, ss)
}

/// Sizes, destination strides and source strides of two reordered walks.
type Reordered = (Vec<i64>, Vec<i64>, Vec<i64>);

/// The walks' dimensions reordered so that the destination's unit-stride
/// dimension and the source's are the last two (the destination's last,
/// where they tile; the longer last where they do not), when they are two
/// different dimensions and the destination's positions are all distinct
/// (so the order of the writes is not seen).
fn transposed_last(d: Walk<'_>, s: Walk<'_>) -> Option<Reordered> {
    let rank = d.sizes.len();
    let unit = |w: &Walk<'_>| (0..rank).rev().find(|&k| w.strides[k] == 1 && w.sizes[k] > 1);
    let (a, b) = (unit(&d)?, unit(&s)?);
    if a == b || crate::overlap::may_reach_an_element_twice(d.sizes, d.strides) {
        return None;
    }
    // The longer of the two innermost: a walk that does not tile (too few
    // rows or columns) runs its last dimension as its inner loop.
    let (x, y) = if d.sizes[a] >= MIN_TILED || d.sizes[a] >= d.sizes[b] { (b, a) } else { (a, b) };
    let order: Vec<usize> = (0..rank).filter(|&k| k != a && k != b).chain([x, y]).collect();
    let pick = |v: &[i64]| order.iter().map(|&k| v[k]).collect::<Vec<i64>>();
    Some((pick(d.sizes), pick(d.strides), pick(s.strides)))
}

/// Copies `n` elements from `src` at `(start, stride)` into `dst` at its
/// `(start, stride)`, without bounds checks when `unchecked`.
///
/// # Safety
/// With `unchecked`, every one of the `n` positions is inside its buffer.
#[inline(always)]
unsafe fn put_run<T: Copy>(
    dst: &mut [T],
    (d0, ds): (i64, i64),
    src: &[T],
    (s0, ss): (i64, i64),
    n: usize,
    unchecked: bool,
) {
    for i in 0..n as i64 {
        let (a, b) = ((d0 + i * ds) as usize, (s0 + i * ss) as usize);
        if unchecked {
            // SAFETY: the caller's promise.
            unsafe { *dst.get_unchecked_mut(a) = *src.get_unchecked(b) };
        } else {
            dst[a] = src[b];
        }
    }
}

fn copy_walks(dst: &mut Buffer, d: Walk<'_>, src: &Buffer, s: Walk<'_>) -> bool {
    fn go<T: Copy>(dst: &mut [T], d: Walk<'_>, src: &[T], s: Walk<'_>) {
        let rank = d.sizes.len();
        if d.sizes.contains(&0) {
            return;
        }
        let Some(last) = rank.checked_sub(1) else {
            dst[d.offset as usize] = src[s.offset as usize];
            return;
        };
        // A transposing copy (one side unit-stride along the last dim, the
        // other along the one before): walk the last two dims in square
        // tiles, so that both sides stay in cache (a row-by-row walk would
        // touch a new cache line of the strided side for every element).
        let tiled = last >= 1 && {
            let (dr, dc, sr, sc) = (d.strides[last - 1], d.strides[last], s.strides[last - 1], s.strides[last]);
            let (rows, cols) = (d.sizes[last - 1], d.sizes[last]);
            let transposing = (dc == 1 && sr == 1 && sc != 1) || (sc == 1 && dr == 1 && dc != 1);
            // The order of writes is unobservable only when no two
            // destination positions of the tile plane coincide.
            let disjoint = (dc == 1 && dr >= cols) || (dr == 1 && dc >= rows);
            transposing && disjoint && rows >= MIN_TILED && cols >= MIN_TILED
        };
        // Both walks inside their buffers (the caller's promise, checked
        // here once): the tiles then index without a bounds check each.
        let inside = |w: &Walk<'_>, len: usize| {
            aot_ir::size::checked_extent(w.sizes, w.strides, w.offset)
                .is_some_and(|(lo, hi)| lo >= 0 && usize::try_from(hi).is_ok_and(|h| h <= len))
        };
        let unchecked = inside(&d, dst.len()) && inside(&s, src.len());
        let outer = if tiled { last - 1 } else { last };
        let (n, ds, ss) = (d.sizes[last] as usize, d.strides[last], s.strides[last]);
        let mut idx = vec![0i64; outer];
        let (mut dp, mut sp) = (d.offset, s.offset);
        loop {
            if tiled {
                let (rows, drs, srs) = (d.sizes[last - 1], d.strides[last - 1], s.strides[last - 1]);
                let cols = n as i64;
                let mut r0 = 0;
                while r0 < rows {
                    let r1 = (r0 + TILE as i64).min(rows);
                    let mut c0 = 0;
                    while c0 < cols {
                        let c1 = (c0 + TILE as i64).min(cols);
                        for r in r0..r1 {
                            let (dr, sr) = (dp + r * drs, sp + r * srs);
                            let (d0, s0) = ((dr + c0 * ds, ds), (sr + c0 * ss, ss));
                            // SAFETY: `unchecked` only where `inside` found
                            // both walks within their buffers.
                            unsafe { put_run(dst, d0, src, s0, (c1 - c0) as usize, unchecked) };
                        }
                        c0 = c1;
                    }
                    r0 = r1;
                }
            } else if ds == 1 && ss == 1 {
                let (a, b) = (dp as usize, sp as usize);
                dst[a..a + n].copy_from_slice(&src[b..b + n]);
            } else {
                // SAFETY: as for the tiles.
                unsafe { put_run(dst, (dp, ds), src, (sp, ss), n, unchecked) };
            }
            // Advance the outer dimensions (an odometer).
            let mut k = outer;
            loop {
                if k == 0 {
                    return;
                }
                k -= 1;
                idx[k] += 1;
                // Wrapping: a size-1 dimension may carry any stride (it
                // addresses nothing); the position is exact once used.
                dp = dp.wrapping_add(d.strides[k]);
                sp = sp.wrapping_add(s.strides[k]);
                if idx[k] < d.sizes[k] {
                    break;
                }
                dp = dp.wrapping_sub(d.strides[k].wrapping_mul(d.sizes[k]));
                sp = sp.wrapping_sub(s.strides[k].wrapping_mul(s.sizes[k]));
                idx[k] = 0;
            }
        }
    }
    debug_assert_eq!(d.sizes, s.sizes);
    match (dst, src) {
        (Buffer::F32(a), Buffer::F32(b)) => go(a, d, b, s),
        (Buffer::F64(a), Buffer::F64(b)) => go(a, d, b, s),
        (Buffer::F16(a), Buffer::F16(b)) => go(a, d, b, s),
        (Buffer::BF16(a), Buffer::BF16(b)) => go(a, d, b, s),
        (Buffer::I64(a), Buffer::I64(b)) => go(a, d, b, s),
        (Buffer::I32(a), Buffer::I32(b)) => go(a, d, b, s),
        (Buffer::I8(a), Buffer::I8(b)) => go(a, d, b, s),
        (Buffer::Bool(a), Buffer::Bool(b)) => go(a, d, b, s),
        _ => return false,
    }
    true
}

/// Rounds `x` to what a value of type `e` can hold (for computing in `f64`
/// while matching a narrower type's results).
#[inline]
pub fn round_to(e: ElemType, x: f64) -> f64 {
    match e {
        ElemType::F32 => x as f32 as f64,
        ElemType::F16 => aot_ir::types::f16_of(x).to_f64(),
        ElemType::BF16 => aot_ir::types::bf16_of(x).to_f64(),
        ElemType::F64 => x,
        ElemType::I1 => (x != 0.0) as i64 as f64,
        ElemType::I8 => x as i8 as f64,
        ElemType::I32 => x as i32 as f64,
        ElemType::I64 => x as i64 as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copy element by element, in row-major order of the sizes.
    fn reference(dst: &mut [f32], d: Walk<'_>, src: &[f32], s: Walk<'_>) {
        let n: i64 = d.sizes.iter().product();
        for flat in 0..n {
            let (mut rem, mut dp, mut sp) = (flat, d.offset, s.offset);
            for k in (0..d.sizes.len()).rev() {
                let i = rem % d.sizes[k];
                rem /= d.sizes[k];
                dp += i * d.strides[k];
                sp += i * s.strides[k];
            }
            dst[dp as usize] = src[sp as usize];
        }
    }

    fn contiguous(sizes: &[i64]) -> Vec<i64> {
        crate::tensor::contiguous_strides(sizes).to_vec()
    }

    #[test]
    fn transposing_copies_match_the_element_by_element_copy() {
        // (sizes, dst strides, src strides, dst offset, src offset)
        type Case = (Vec<i64>, Vec<i64>, Vec<i64>, i64, i64);
        let cases: Vec<Case> = vec![
            (vec![64, 64], contiguous(&[64, 64]), vec![1, 64], 0, 0),
            (vec![33, 70], contiguous(&[33, 70]), vec![1, 33], 5, 3),
            (vec![100, 40], vec![1, 100], contiguous(&[100, 40]), 0, 7),
            (vec![3, 40, 50], contiguous(&[3, 40, 50]), vec![2000, 1, 40], 0, 0),
            (vec![2, 3, 45, 37], contiguous(&[2, 3, 45, 37]), vec![4995, 1665, 1, 45], 1, 0),
            // Padded rows on the destination, a gap on the source.
            (vec![40, 40], vec![48, 1], vec![1, 50], 2, 1),
            (vec![31, 64], contiguous(&[31, 64]), vec![1, 31], 0, 0),
            // Channels-last to contiguous and back: the channels and the
            // width move last, then tile (planes of 16 × 40).
            (vec![8, 40, 16, 16], contiguous(&[8, 40, 16, 16]), vec![10240, 1, 640, 40], 0, 0),
            (vec![2, 40, 16, 16], vec![10240, 1, 640, 40], contiguous(&[2, 40, 16, 16]), 3, 0),
            (vec![2, 5, 3, 9], contiguous(&[2, 5, 3, 9]), vec![135, 1, 45, 5], 0, 2),
            // Small maps: height and width merge into one run first.
            (vec![8, 160, 4, 4], contiguous(&[8, 160, 4, 4]), vec![2560, 1, 640, 160], 0, 0),
            (vec![3, 64, 1, 2, 2], contiguous(&[3, 64, 1, 2, 2]), vec![256, 1, 256, 128, 64], 0, 0),
            // Not transposing, or too small to tile: the row walk.
            (vec![7, 64], contiguous(&[7, 64]), vec![1, 7], 0, 0),
            (vec![40, 40], vec![40, 1], vec![80, 2], 0, 0),
        ];
        for (sizes, ds, ss, doff, soff) in cases {
            let extent = |st: &[i64], off: i64| off + sizes.iter().zip(st).map(|(n, s)| (n - 1) * s).sum::<i64>() + 1;
            let src: Vec<f32> = (0..extent(&ss, soff)).map(|i| i as f32).collect();
            let n = extent(&ds, doff) as usize;
            let d = Walk { sizes: &sizes, strides: &ds, offset: doff };
            let s = Walk { sizes: &sizes, strides: &ss, offset: soff };
            let mut want = vec![-1.0f32; n];
            reference(&mut want, d, &src, s);
            let mut got = Buffer::F32(vec![-1.0f32; n].into());
            assert!(copy_strided(&mut got, d, &Buffer::F32(src.clone().into()), s));
            match got {
                Buffer::F32(v) => assert_eq!(&v[..], &want[..], "{sizes:?} {ds:?} {ss:?}"),
                _ => unreachable!(),
            }
        }
    }

    /// `copy_strided` into a fresh `n`-element destination agrees with the
    /// row-major reference, element for element.
    fn agrees(sizes: &[i64], ds: &[i64], ss: &[i64], n: usize) {
        let src: Vec<f32> = (0..sizes.iter().product::<i64>() * 3).map(|i| i as f32).collect();
        let d = Walk { sizes, strides: ds, offset: 0 };
        let s = Walk { sizes, strides: ss, offset: 0 };
        let mut want = vec![0.0f32; n];
        reference(&mut want, d, &src, s);
        let mut got = Buffer::F32(vec![0.0f32; n].into());
        assert!(copy_strided(&mut got, d, &Buffer::F32(src.into()), s));
        match got {
            Buffer::F32(v) => assert_eq!(&v[..], &want[..], "{sizes:?} {ds:?} {ss:?}"),
            _ => unreachable!(),
        }
    }

    #[test]
    fn an_overlapping_destination_keeps_the_row_major_last_write() {
        // Every row of the destination is the same row (stride 0): the last
        // source row wins, as in the row-by-row walk.
        agrees(&[40, 40], &[0, 1], &[1, 40], 40);
        // The destination's unit-stride dimension is the first and the
        // source's the last, but its middle dimension has stride 0: the
        // walk is not reordered.
        agrees(&[40, 3, 40], &[1, 0, 40], &[120, 40, 1], 1600);
    }
}
