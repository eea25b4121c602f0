//! The BLIS structure of our own GEMM kernels, shared by every micro-kernel
//! ([`Kernel`]: f32 on AVX2 and FMA, bf16 pairs on AVX512-BF16): the right
//! operand is packed once per block of depth into panels of `NR` columns,
//! the left operand once per block of rows into panels of `MR` rows, and
//! the micro-kernel keeps its whole `MR × NR` tile of the f32 result in
//! vector registers while it runs down the depth.
//!
//! Invariants: packed panels are zero-padded past the matrix's edge (and
//! past an odd depth, for kernels that take the depth in pairs), so the
//! micro-kernel always computes a full tile and only the tile's stores look
//! at the edge; every element of `c` is summed in the same order (down each
//! block of depth, the blocks one after another, whose size depends on `k`
//! alone), so the result of a shape is the same bits whatever the strides
//! and the number of threads; a thread packs `a` into its own buffer, and
//! the packed `b` is written by its packers' disjoint panels before any
//! thread reads it.

use std::cell::Cell;

/// A strided matrix: the address of element (0, 0), and the row and column
/// strides in elements. `a` and `b` are only read through theirs.
#[derive(Debug)]
pub struct Mat<T> {
    pub ptr: *mut T,
    pub rs: isize,
    pub cs: isize,
}

impl<T> Clone for Mat<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Mat<T> {}

impl<T> Mat<T> {
    /// The submatrix from element (i, j).
    pub fn at(self, i: usize, j: usize) -> Mat<T> {
        Mat { ptr: self.ptr.wrapping_offset(i as isize * self.rs + j as isize * self.cs), ..self }
    }
}

/// One micro-kernel and its packing: what [`gemm`] drives.
///
/// # Safety
/// Implementations run only on CPUs with their instructions; `pack_a`
/// and `pack_b` write at most the panels [`Kernel::a_panel`] and
/// [`Kernel::b_panel`] size (plus `pack_a`'s documented slack of one
/// [`Block`]), and `tile` reads exactly those panels.
pub unsafe trait Kernel {
    /// The element type of `a` and `b` as they are stored.
    type In: Copy;
    /// Rows and columns of the tile.
    const MR: usize;
    const NR: usize;
    /// Depth of a block (a multiple of 8), rows of a block of `a`, columns
    /// of a block of `b` (a multiple of `NR`).
    const KC: usize;
    const MC: usize;
    const NC: usize;

    /// Elements of `In` in one packed panel of `a` (`MR` rows) or `b` (`NR`
    /// columns) over `kc` steps of depth.
    fn a_panel(kc: usize) -> usize;
    fn b_panel(kc: usize) -> usize;
    /// Packs the `mc × kc` matrix `a` into panels of `MR` rows, one after
    /// another at `dst`.
    unsafe fn pack_a(mc: usize, kc: usize, a: Mat<Self::In>, dst: *mut Self::In);
    /// Packs columns `j0..j1` (`j0` a multiple of `NR`) of the `kc`-row
    /// matrix `b` into its panels of `NR` columns (panel `j / NR` at
    /// `j / NR · b_panel(kc)`).
    unsafe fn pack_b(kc: usize, cols: (usize, usize), b: Mat<Self::In>, dst: *mut Self::In);
    /// The tile `a_panel · b_panel` over `kc` steps of depth, its top-left
    /// `mr × nr` written into `c` (added to it when `add`).
    unsafe fn tile(kc: usize, a: *const Self::In, b: *const Self::In, c: Mat<f32>, mr: usize, nr: usize, add: bool);
}

/// 64-byte aligned storage for packed panels (any element type).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub struct Block([u64; 8]);

const BLOCK: usize = std::mem::size_of::<Block>();

thread_local! {
    /// This thread's packed blocks of `a` (one per thread that computes)
    /// and of `b` (the calling thread's, shared with its helpers), kept
    /// between calls.
    static PACK_A: Cell<Vec<Block>> = const { Cell::new(Vec::new()) };
    static PACK_B: Cell<Vec<Block>> = const { Cell::new(Vec::new()) };
    /// One panel of `b` for [`few_rows`], per thread.
    static PACK_PANEL: Cell<Vec<Block>> = const { Cell::new(Vec::new()) };
}

/// Grows `v` to hold `elems` values of `T`, plus one block of slack.
fn room<T>(v: &mut Vec<Block>, elems: usize) {
    let blocks = (elems * std::mem::size_of::<T>()).div_ceil(BLOCK) + 1;
    if v.len() < blocks {
        v.resize(blocks, Block::default());
    }
}

/// Fewest elements of a block of `b` whose packing is split across threads.
const PACK_SPLIT: usize = 1 << 14;

/// `c = a·b`, or `c += a·b` when `accumulate`, for an `m × k` matrix `a` and
/// a `k × n` matrix `b`, on up to `threads` threads of
/// [`crate::threads::for_each`].
///
/// With several threads, each block of `b` is packed once, its panels
/// split among the threads, and then the threads take disjoint rows of the
/// result (each packing its own rows of `a`): nothing is packed twice. With
/// too few rows for that, each thread takes its own columns ([`few_rows`]).
///
/// # Safety
/// The CPU runs `K`'s instructions; every element `(i, j)` with `i < rows` and
/// `j < columns` of each matrix, at its strides, is inside one live
/// allocation; `c` shares no element with `a` or `b`, nor with itself.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm<K: Kernel>(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<K::In>,
    b: Mat<K::In>,
    c: Mat<f32>,
    accumulate: bool,
    threads: usize,
) {
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m as isize {
                for j in 0..n as isize {
                    // SAFETY: (i, j) is an element of `c`.
                    unsafe { *c.ptr.offset(i * c.rs + j * c.cs) = 0.0 };
                }
            }
        }
        return;
    }
    let (kc, nc) = (even(k, K::KC, 8), even(n, K::NC, K::NR));
    let threads = threads.max(1);
    if m < 2 * K::MR * threads {
        // SAFETY: the caller's promises.
        unsafe { few_rows::<K>(m, k, n, kc, (a, b, c), accumulate, threads) };
        return;
    }
    let mut pb = PACK_B.with(|cell| cell.take());
    room::<K::In>(&mut pb, K::b_panel(kc) * nc.div_ceil(K::NR));
    let shared = Shared::<K> { a, b, c, pb: pb.as_mut_ptr().cast() };
    // Each thread gets two tiles' worth of rows or more (fewer rows went
    // to `few_rows`).
    let parts = threads;
    for jc in (0..n).step_by(nc) {
        let ncur = nc.min(n - jc);
        for pc in (0..k).step_by(kc) {
            let kcur = kc.min(k - pc);
            let add = accumulate || pc > 0;
            let panels = ncur.div_ceil(K::NR);
            let packers = if kcur * ncur >= PACK_SPLIT { threads.min(panels) } else { 1 };
            let per = panels.div_ceil(packers);
            crate::threads::for_each(packers, &|t| {
                let (q0, q1) = (t * per, ((t + 1) * per).min(panels));
                let s = &shared;
                // SAFETY: rows pc.. and columns jc.. of `b`; each packer
                // writes its own panels of the buffer.
                unsafe { K::pack_b(kcur, (q0 * K::NR, (q1 * K::NR).min(ncur)), s.b.at(pc, jc), s.pb) };
            });
            let rows_per = m.div_ceil(parts).next_multiple_of(K::MR);
            crate::threads::for_each(parts, &|t| {
                let (rows, cols) = ((t * rows_per).min(m)..((t + 1) * rows_per).min(m), 0..ncur);
                if rows.is_empty() || cols.is_empty() {
                    return;
                }
                let s = &shared;
                let mut pa = PACK_A.with(|cell| cell.take());
                // SAFETY: the caller's promises; rows and columns of this
                // part are disjoint from every other part's.
                unsafe { part(s, (rows, cols), (pc, kcur), jc, add, &mut pa) };
                PACK_A.with(|cell| cell.set(pa));
            });
        }
    }
    PACK_B.with(|cell| cell.set(pb));
}

/// `c = a·b` (or `+=`) for a matrix `a` of fewer rows than two tiles per
/// thread: a linear layer on a few rows, a classifier head. Each thread
/// takes its own columns of the result and packs only those, one panel of
/// `NR` columns and one block of depth at a time, into a buffer that stays
/// in L1 while every row panel of `a` (all of `a`, packed once per thread)
/// passes it. The shared path would pack whole `KC × NC` blocks of `b`
/// first, writing and reading back in memory what this path reads once
/// (`b` is then the whole cost: a `8 × 768 · 768 × 3072` product reads
/// 9 MiB of weights for 38 MFLOP). The blocks of depth are the shared
/// path's (`kc`), in the same order, so every element is the same sum.
///
/// # Safety
/// As for [`gemm`], with `m`, `n` and `k` non-zero.
unsafe fn few_rows<K: Kernel>(
    m: usize,
    k: usize,
    n: usize,
    kc: usize,
    (a, b, c): (Mat<K::In>, Mat<K::In>, Mat<f32>),
    accumulate: bool,
    threads: usize,
) {
    let panels = n.div_ceil(K::NR);
    let parts = threads.min(panels);
    let per = panels.div_ceil(parts);
    let shared = Shared::<K> { a, b, c, pb: std::ptr::null_mut() };
    crate::threads::for_each(parts, &|t| {
        let cols = (t * per * K::NR).min(n)..((t + 1) * per * K::NR).min(n);
        if cols.is_empty() {
            return;
        }
        let s = &shared;
        let mut pa = PACK_A.with(|cell| cell.take());
        let mut pb = PACK_PANEL.with(|cell| cell.take());
        // All of `a`, block after block of depth: block `pc / kc` at
        // `pc / kc · blk` (its panels `a_panel(kcur)` each).
        let panels_a = m.div_ceil(K::MR);
        let blk = panels_a * K::a_panel(kc);
        room::<K::In>(&mut pa, blk * k.div_ceil(kc));
        room::<K::In>(&mut pb, K::b_panel(kc));
        let (pa_ptr, pb_ptr): (*mut K::In, *mut K::In) = (pa.as_mut_ptr().cast(), pb.as_mut_ptr().cast());
        // SAFETY: the caller's promises; this thread's columns of `c` are
        // disjoint from every other thread's; the buffers hold what is
        // packed into them.
        unsafe {
            for pc in (0..k).step_by(kc) {
                let kcur = kc.min(k - pc);
                K::pack_a(m, kcur, s.a.at(0, pc), pa_ptr.add(pc / kc * blk));
            }
            for jr in cols.clone().step_by(K::NR) {
                let nr = K::NR.min(cols.end - jr);
                for pc in (0..k).step_by(kc) {
                    let kcur = kc.min(k - pc);
                    K::pack_b(kcur, (0, nr), s.b.at(pc, jr), pb_ptr);
                    for ir in (0..m).step_by(K::MR) {
                        let mr = K::MR.min(m - ir);
                        let ap = pa_ptr.add(pc / kc * blk + ir / K::MR * K::a_panel(kcur));
                        K::tile(kcur, ap, pb_ptr, s.c.at(ir, jr), mr, nr, accumulate || pc > 0);
                    }
                }
            }
        }
        PACK_A.with(|cell| cell.set(pa));
        PACK_PANEL.with(|cell| cell.set(pb));
    });
}

/// What the threads of one call share: the matrices and the packed `b`.
struct Shared<K: Kernel> {
    a: Mat<K::In>,
    b: Mat<K::In>,
    c: Mat<f32>,
    pb: *mut K::In,
}
// Threads read `a`, `b` and the packed block, write disjoint panels of the
// packed block (while packing), then disjoint parts of `c`.
unsafe impl<K: Kernel> Sync for Shared<K> {}

/// The size of a block that splits `len` into equal parts of at most `max`,
/// rounded up to `align` (`max` is a multiple of `align`), so that no block
/// is a sliver.
pub(crate) fn even(len: usize, max: usize, align: usize) -> usize {
    let parts = len.div_ceil(max).max(1);
    len.div_ceil(parts).next_multiple_of(align).min(max)
}

/// Rows `rows` and columns `cols` (relative to column block `jc`) of the
/// result, over depth `pc..pc + kc`, from the packed block of `b`.
unsafe fn part<K: Kernel>(
    s: &Shared<K>,
    (rows, cols): (std::ops::Range<usize>, std::ops::Range<usize>),
    (pc, kc): (usize, usize),
    jc: usize,
    add: bool,
    pa: &mut Vec<Block>,
) {
    let mc = even(rows.len(), K::MC, K::MR);
    room::<K::In>(pa, mc.div_ceil(K::MR) * K::a_panel(kc));
    let pa: *mut K::In = pa.as_mut_ptr().cast();
    for ic in rows.clone().step_by(mc) {
        let mcur = mc.min(rows.end - ic);
        // SAFETY: rows ic.. and columns pc.. of `a`; `pa` holds the block.
        unsafe { K::pack_a(mcur, kc, s.a.at(ic, pc), pa) };
        for jr in cols.clone().step_by(K::NR) {
            let nr = K::NR.min(cols.end - jr);
            // SAFETY: panel jr / NR of the packed block of `b`.
            let bp = unsafe { s.pb.add(jr / K::NR * K::b_panel(kc)) };
            for ir in (0..mcur).step_by(K::MR) {
                let mr = K::MR.min(mcur - ir);
                // SAFETY: panel ir / MR of the packed block of `a`; the
                // tile's elements of `c` are inside it.
                unsafe { K::tile(kc, pa.add(ir / K::MR * K::a_panel(kc)), bp, s.c.at(ic + ir, jc + jr), mr, nr, add) };
            }
        }
    }
}

/// Writes (or adds) the top-left `mr × nr` of a spilled `rows × nr_full`
/// tile into `c`, one element at a time (tiles at an edge, or a strided
/// `c`).
///
/// # Safety
/// `(i, j)` of `c` for `i < mr`, `j < nr` is inside its buffer.
pub(crate) unsafe fn store_spilled(tile: &[f32], width: usize, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
    for i in 0..mr {
        for j in 0..nr {
            // SAFETY: the caller's promise.
            unsafe {
                let at = c.ptr.offset(i as isize * c.rs + j as isize * c.cs);
                *at = if add { *at + tile[i * width + j] } else { tile[i * width + j] };
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A deterministic generator of small values (exact in f32 sums of a
    /// few hundred terms would be too strong a demand; the reference is f64).
    pub struct Lcg(pub u64);
    impl Lcg {
        pub fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        }
    }

    /// Element strides of a `rows × cols` matrix stored row-major, column-
    /// major, or with a gap of 3 between rows and columns (neither fast path).
    fn layout(kind: u8, rows: usize, cols: usize) -> (isize, isize, usize) {
        let (r, c) = (rows as isize, cols as isize);
        match kind {
            0 => (c, 1, rows * cols),
            1 => (1, r, rows * cols),
            _ => (3 * c * 2, 3, rows * cols * 6 + 1),
        }
    }

    /// A kernel's element type as the tests make and read it.
    pub trait Elem: Copy {
        /// The nearest value of this type to `x`.
        fn of(x: f32) -> Self;
        fn wide(self) -> f64;
    }
    impl Elem for f32 {
        fn of(x: f32) -> f32 {
            x
        }
        fn wide(self) -> f64 {
            self as f64
        }
    }

    /// `gemm::<K>` on random matrices of the given layouts against an f64
    /// reference of the same (rounded) inputs; nothing outside `c`'s
    /// elements may change.
    #[allow(clippy::too_many_arguments)]
    pub fn check<K: Kernel>(
        m: usize,
        k: usize,
        n: usize,
        kinds: (u8, u8, u8),
        accumulate: bool,
        seed: u64,
        threads: usize,
        rel: f64,
    ) where
        K::In: Elem,
    {
        let mut g = Lcg(seed);
        let (ars, acs, alen) = layout(kinds.0, m, k);
        let (brs, bcs, blen) = layout(kinds.1, k, n);
        let (crs, ccs, clen) = layout(kinds.2, m, n);
        let av: Vec<K::In> = (0..alen).map(|_| K::In::of(g.next())).collect();
        let bv: Vec<K::In> = (0..blen).map(|_| K::In::of(g.next())).collect();
        let mut cv: Vec<f32> = (0..clen).map(|_| g.next()).collect();
        let before = cv.clone();
        let a = Mat { ptr: av.as_ptr().cast_mut(), rs: ars, cs: acs };
        let b = Mat { ptr: bv.as_ptr().cast_mut(), rs: brs, cs: bcs };
        let c = Mat { ptr: cv.as_mut_ptr(), rs: crs, cs: ccs };
        // SAFETY: the vectors hold every element of their layouts.
        unsafe { gemm::<K>(m, k, n, a, b, c, accumulate, threads) };
        let at = |rs: isize, cs: isize, i: usize, j: usize| (i as isize * rs + j as isize * cs) as usize;
        let mut written = vec![false; clen];
        for i in 0..m {
            for j in 0..n {
                let mut want: f64 = (0..k).map(|p| av[at(ars, acs, i, p)].wide() * bv[at(brs, bcs, p, j)].wide()).sum();
                let ci = at(crs, ccs, i, j);
                if accumulate {
                    want += before[ci] as f64;
                }
                let got = cv[ci] as f64;
                let tol = rel * (k as f64 + 1.0);
                assert!(
                    (got - want).abs() <= tol,
                    "{m}x{k}x{n} {kinds:?} acc={accumulate} threads={threads}: c[{i},{j}] = {got}, want {want}"
                );
                written[ci] = true;
            }
        }
        for (i, w) in written.iter().enumerate() {
            if !w {
                assert_eq!(cv[i].to_bits(), before[i].to_bits(), "{m}x{k}x{n} {kinds:?}: wrote outside c at {i}");
            }
        }
    }

    /// Every layout of the three matrices, with and without accumulation,
    /// on 1 to 3 threads, at sizes around every tile and block edge of `K`
    /// (below, at and past `MR`, `NR`, 8-row transposes, `KC` and `MC`);
    /// rows split between threads (from two tiles per thread) or columns
    /// (`few_rows`), and the last size takes two column blocks (`NC`).
    pub fn every_layout_and_edge<K: Kernel>(rel: f64)
    where
        K::In: Elem,
    {
        let (mr, nr) = (K::MR, K::NR);
        let sizes = [
            (1, 1, 1),
            (mr - 1, 7, nr - 1),
            (mr, 8, nr),
            (mr + 1, 17, nr + 1),
            (2 * mr + 1, 33, 2 * nr + 8),
            (K::MC + 1, K::KC + 1, 33),
            (K::MC + 6, 600, 20),
            (5 * mr, K::KC, 130),
            (7, 9, K::NC + 20),
        ];
        let mut seed = 1;
        for &(m, k, n) in &sizes {
            for ka in 0..3 {
                for kb in 0..3 {
                    for kc in 0..3 {
                        for accumulate in [false, true] {
                            for threads in [1, 2, 3] {
                                seed += 1;
                                check::<K>(m, k, n, (ka, kb, kc), accumulate, seed, threads, rel);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The sums are the same bits on any number of threads: deep enough
    /// for three blocks of depth, wide enough for parallel packing, rows
    /// and columns that split unevenly; rows that take the shared path on
    /// one thread and `few_rows` on more, and rows that take `few_rows` on
    /// any.
    pub fn same_bits_on_any_thread_count<K: Kernel>()
    where
        K::In: Elem,
    {
        let (k, n) = (700, 150);
        for m in [4 * K::MR + 5, 2 * K::MR + 1, 3] {
            let mut g = Lcg(99);
            let av: Vec<K::In> = (0..m * k).map(|_| K::In::of(g.next())).collect();
            let bv: Vec<K::In> = (0..k * n).map(|_| K::In::of(g.next())).collect();
            let run = |threads: usize| {
                let mut cv = vec![0f32; m * n];
                let a = Mat { ptr: av.as_ptr().cast_mut(), rs: k as isize, cs: 1 };
                let b = Mat { ptr: bv.as_ptr().cast_mut(), rs: 1, cs: k as isize };
                let c = Mat { ptr: cv.as_mut_ptr(), rs: n as isize, cs: 1 };
                // SAFETY: the vectors hold the three matrices.
                unsafe { gemm::<K>(m, k, n, a, b, c, false, threads) };
                cv.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            };
            let one = run(1);
            for threads in [2, 3, 4] {
                assert!(one == run(threads), "{m} rows: {threads} threads changed the sums");
            }
        }
    }

    /// An empty depth zeroes the result, or keeps it when accumulating.
    pub fn empty_depth<K: Kernel>()
    where
        K::In: Elem,
    {
        check::<K>(4, 0, 9, (0, 0, 0), false, 7, 1, 0.0);
        check::<K>(4, 0, 9, (0, 0, 1), true, 8, 2, 0.0);
    }

    /// Every check above for kernel `K`, or a note that this CPU cannot run
    /// it (`lacking` names what it needs).
    pub fn conforms<K: Kernel>(runs: bool, lacking: &str, rel: f64)
    where
        K::In: Elem,
    {
        if !runs {
            eprintln!("skipped: this CPU has no {lacking}");
            return;
        }
        every_layout_and_edge::<K>(rel);
        same_bits_on_any_thread_count::<K>();
        empty_depth::<K>();
    }

    #[test]
    fn blocks_split_evenly() {
        assert_eq!(even(260, 144, 6), 132);
        assert_eq!(even(144, 144, 6), 144);
        assert_eq!(even(5, 144, 6), 6);
        assert_eq!(even(257, 256, 8), 136);
        assert_eq!(even(1024, 256, 8), 256);
        assert_eq!(even(1, 4080, 16), 16);
    }
}
