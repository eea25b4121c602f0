//! f32 GEMM for x86-64 cores with AVX2 and FMA (and no AVX-512), in the
//! structure of BLIS: the right operand is packed once per block of depth
//! into panels of `NR` columns, the left operand once per block of rows into
//! panels of `MR` rows, and a `MR × NR` micro-kernel keeps its whole tile of
//! the result in twelve vector registers while it runs down the depth.
//!
//! Why our own: on these cores the `gemm` crate's AVX2 kernels reached 40–49
//! GFLOP/s on one core (1024³ and the shapes of a transformer's linear
//! layers), where PyTorch's `torch.mm` reaches 65–72 and the core's FMA
//! peak is about 95; this reaches 70–80 (bench/README.md has the figures).
//!
//! Invariants: packed panels are zero-padded past the matrix's edge, so the
//! micro-kernel always computes a full tile and only the tile's stores look
//! at the edge; every element of `c` is summed in the same order (down each
//! block of depth, the blocks one after another, whose size depends on `k`
//! alone), so the result of a shape is the same bits whatever the strides
//! and the number of threads; a thread packs `a` into its own buffer, and
//! the packed `b` is written by its packers' disjoint panels before any
//! thread reads it.

use std::arch::x86_64::*;
use std::cell::Cell;
use std::sync::OnceLock;

/// Rows and columns of the micro-kernel's tile: 6 × 2 vectors of 8 lanes
/// are twelve accumulators, which leaves registers for two rows of `b` and
/// one broadcast of `a` (sixteen in all).
const MR: usize = 6;
const NR: usize = 16;
/// Depth of a block: a `KC × NR` panel of `b` (16 KiB) stays in L1 while
/// every row panel of `a` passes it.
const KC: usize = 256;
/// Rows of a block of `a` (`MC × KC`, 144 KiB): inside a core's L2.
const MC: usize = 144;
/// Columns of a block of `b` (`KC × NC`, 4 MiB): inside L3.
const NC: usize = 4080;

/// A strided matrix: the address of element (0, 0), and the row and column
/// strides in elements. `a` and `b` are only read through theirs.
#[derive(Clone, Copy, Debug)]
pub struct Mat {
    pub ptr: *mut f32,
    pub rs: isize,
    pub cs: isize,
}

/// Whether the CPU has AVX2 and FMA.
pub fn available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

/// Whether f32 GEMMs run here rather than in the `gemm` crate: on AVX2
/// cores without AVX-512 (the crate's 512-bit kernels do twice the work per
/// instruction). `AOT_GEMM=library` or `AOT_GEMM=native` overrides the
/// choice, to compare the two on one machine.
pub fn selected() -> bool {
    static SELECTED: OnceLock<bool> = OnceLock::new();
    *SELECTED.get_or_init(|| match std::env::var("AOT_GEMM").as_deref() {
        Ok("library") => false,
        Ok("native") => available(),
        _ => available() && !is_x86_feature_detected!("avx512f"),
    })
}

/// 32-byte aligned storage for packed panels.
#[derive(Clone, Copy, Default)]
#[repr(C, align(32))]
struct Block([f32; 8]);

thread_local! {
    /// This thread's packed blocks of `a` (one per thread that computes)
    /// and of `b` (the calling thread's, shared with its helpers), kept
    /// between calls.
    static PACK_A: Cell<Vec<Block>> = const { Cell::new(Vec::new()) };
    static PACK_B: Cell<Vec<Block>> = const { Cell::new(Vec::new()) };
    /// One panel of `b` (`KC × NR`) for [`few_rows`], per thread.
    static PACK_PANEL: Cell<Vec<Block>> = const { Cell::new(Vec::new()) };
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
/// [`available`] is true; every element `(i, j)` with `i < rows` and
/// `j < columns` of each matrix, at its strides, is inside one live
/// allocation; `c` shares no element with `a` or `b`, nor with itself.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm(m: usize, k: usize, n: usize, a: Mat, b: Mat, c: Mat, accumulate: bool, threads: usize) {
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
    let (kc, nc) = (even(k, KC, 8), even(n, NC, NR));
    let threads = threads.max(1);
    if m < 2 * MR * threads {
        // SAFETY: the caller's promises.
        unsafe { few_rows(m, k, n, kc, (a, b, c), accumulate, threads) };
        return;
    }
    let mut pb = PACK_B.with(|cell| cell.take());
    let wb = kc * nc.next_multiple_of(NR) / 8;
    if pb.len() < wb {
        pb.resize(wb, Block::default());
    }
    let shared = Shared { a, b, c, pb: pb.as_mut_ptr().cast() };
    // Each thread gets two tiles' worth of rows or more (fewer rows went
    // to `few_rows`).
    let parts = threads;
    for jc in (0..n).step_by(nc) {
        let ncur = nc.min(n - jc);
        for pc in (0..k).step_by(kc) {
            let kcur = kc.min(k - pc);
            let add = accumulate || pc > 0;
            let panels = ncur.div_ceil(NR);
            let packers = if kcur * ncur >= PACK_SPLIT { threads.min(panels) } else { 1 };
            let per = panels.div_ceil(packers);
            crate::threads::for_each(packers, &|t| {
                let (q0, q1) = (t * per, ((t + 1) * per).min(panels));
                let s = &shared;
                // SAFETY: rows pc.. and columns jc.. of `b`; each packer
                // writes its own panels of the buffer.
                unsafe { pack_b(kcur, (q0 * NR, (q1 * NR).min(ncur)), s.b.at(pc, jc), s.pb) };
            });
            let rows_per = m.div_ceil(parts).next_multiple_of(MR);
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
#[target_feature(enable = "avx2,fma")]
unsafe fn few_rows(
    m: usize,
    k: usize,
    n: usize,
    kc: usize,
    (a, b, c): (Mat, Mat, Mat),
    accumulate: bool,
    threads: usize,
) {
    let panels = n.div_ceil(NR);
    let parts = threads.min(panels);
    let per = panels.div_ceil(parts);
    let shared = Shared { a, b, c, pb: std::ptr::null_mut() };
    crate::threads::for_each(parts, &|t| {
        let cols = (t * per * NR).min(n)..((t + 1) * per * NR).min(n);
        if cols.is_empty() {
            return;
        }
        let s = &shared;
        let mut pa = PACK_A.with(|cell| cell.take());
        let mut pb = PACK_PANEL.with(|cell| cell.take());
        // All of `a`, block after block of depth: block `pc` at `pc · mp`
        // (its panels `kcur × MR` each), plus slack for the packing's
        // overhanging stores.
        let mp = m.next_multiple_of(MR);
        let wa = (mp * k).div_ceil(8) + 1;
        if pa.len() < wa {
            pa.resize(wa, Block::default());
        }
        let wb = kc * NR / 8;
        if pb.len() < wb {
            pb.resize(wb, Block::default());
        }
        let (pa_ptr, pb_ptr): (*mut f32, *mut f32) = (pa.as_mut_ptr().cast(), pb.as_mut_ptr().cast());
        // SAFETY: the caller's promises; this thread's columns of `c` are
        // disjoint from every other thread's; the buffers hold what is
        // packed into them.
        unsafe {
            for pc in (0..k).step_by(kc) {
                let kcur = kc.min(k - pc);
                pack_a(m, kcur, s.a.at(0, pc), pa_ptr.add(pc * mp));
            }
            for jr in cols.clone().step_by(NR) {
                let nr = NR.min(cols.end - jr);
                for pc in (0..k).step_by(kc) {
                    let kcur = kc.min(k - pc);
                    pack_b(kcur, (0, nr), s.b.at(pc, jr), pb_ptr);
                    for ir in (0..m).step_by(MR) {
                        let mr = MR.min(m - ir);
                        let acc = micro(kcur, pa_ptr.add(pc * mp + ir / MR * kcur * MR), pb_ptr);
                        store(&acc, s.c.at(ir, jr), mr, nr, accumulate || pc > 0);
                    }
                }
            }
        }
        PACK_A.with(|cell| cell.set(pa));
        PACK_PANEL.with(|cell| cell.set(pb));
    });
}

/// What the threads of one call share: the matrices and the packed `b`.
struct Shared {
    a: Mat,
    b: Mat,
    c: Mat,
    pb: *mut f32,
}
// Threads read `a`, `b` and the packed block, write disjoint panels of the
// packed block (while packing), then disjoint parts of `c`.
unsafe impl Sync for Shared {}

impl Mat {
    /// The submatrix from element (i, j).
    fn at(self, i: usize, j: usize) -> Mat {
        Mat { ptr: self.ptr.wrapping_offset(i as isize * self.rs + j as isize * self.cs), ..self }
    }
}

/// The size of a block that splits `len` into equal parts of at most `max`,
/// rounded up to `align` (`max` is a multiple of `align`), so that no block
/// is a sliver.
fn even(len: usize, max: usize, align: usize) -> usize {
    let parts = len.div_ceil(max).max(1);
    len.div_ceil(parts).next_multiple_of(align).min(max)
}

/// Rows `rows` and columns `cols` (relative to column block `jc`) of the
/// result, over depth `pc..pc + kc`, from the packed block of `b`.
#[target_feature(enable = "avx2,fma")]
unsafe fn part(
    s: &Shared,
    (rows, cols): (std::ops::Range<usize>, std::ops::Range<usize>),
    (pc, kc): (usize, usize),
    jc: usize,
    add: bool,
    pa: &mut Vec<Block>,
) {
    let mc = even(rows.len(), MC, MR);
    // Room for the panels, plus one block of slack: the packing of `a`
    // stores 8 lanes where a panel row holds 6.
    let wa = (mc * kc).div_ceil(8) + 1;
    if pa.len() < wa {
        pa.resize(wa, Block::default());
    }
    let pa: *mut f32 = pa.as_mut_ptr().cast();
    for ic in rows.clone().step_by(mc) {
        let mcur = mc.min(rows.end - ic);
        // SAFETY: rows ic.. and columns pc.. of `a`; `pa` holds the block.
        unsafe { pack_a(mcur, kc, s.a.at(ic, pc), pa) };
        for jr in cols.clone().step_by(NR) {
            let nr = NR.min(cols.end - jr);
            // SAFETY: panel jr / NR of the packed block of `b`.
            let bp = unsafe { s.pb.add(jr / NR * kc * NR) };
            for ir in (0..mcur).step_by(MR) {
                let mr = MR.min(mcur - ir);
                // SAFETY: panel ir / MR of the packed block of `a`; the
                // tile's elements of `c` are inside it.
                unsafe {
                    let acc = micro(kc, pa.add(ir / MR * kc * MR), bp);
                    store(&acc, s.c.at(ic + ir, jc + jr), mr, nr, add);
                }
            }
        }
    }
}

/// The `MR × NR` tile of `a_panel · b_panel` over `kc` steps of depth.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn micro(kc: usize, a: *const f32, b: *const f32) -> [__m256; 12] {
    let mut acc = [_mm256_setzero_ps(); 12];
    let (mut a, mut b) = (a, b);
    for _ in 0..kc {
        // SAFETY: the panels hold kc rows of MR and NR values, 32-byte
        // aligned for `b` (panels start at multiples of NR floats).
        unsafe {
            let b0 = _mm256_load_ps(b);
            let b1 = _mm256_load_ps(b.add(8));
            for i in 0..MR {
                let ai = _mm256_broadcast_ss(&*a.add(i));
                acc[2 * i] = _mm256_fmadd_ps(ai, b0, acc[2 * i]);
                acc[2 * i + 1] = _mm256_fmadd_ps(ai, b1, acc[2 * i + 1]);
            }
            a = a.add(MR);
            b = b.add(NR);
        }
    }
    acc
}

/// Writes (or adds) the top-left `mr × nr` of a tile into `c`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store(acc: &[__m256; 12], c: Mat, mr: usize, nr: usize, add: bool) {
    if c.cs == 1 && nr == NR {
        for i in 0..mr {
            // SAFETY: row i of the tile is 16 contiguous elements of `c`.
            unsafe {
                let row = c.ptr.offset(i as isize * c.rs);
                let (mut v0, mut v1) = (acc[2 * i], acc[2 * i + 1]);
                if add {
                    v0 = _mm256_add_ps(_mm256_loadu_ps(row), v0);
                    v1 = _mm256_add_ps(_mm256_loadu_ps(row.add(8)), v1);
                }
                _mm256_storeu_ps(row, v0);
                _mm256_storeu_ps(row.add(8), v1);
            }
        }
        return;
    }
    let mut tile = [0f32; MR * NR];
    for (i, v) in acc.iter().enumerate() {
        // SAFETY: 8 lanes at 8·i inside the 96-float tile.
        unsafe { _mm256_storeu_ps(tile.as_mut_ptr().add(8 * i), *v) };
    }
    for i in 0..mr {
        for j in 0..nr {
            // SAFETY: (i, j) is inside the tile's part of `c`.
            unsafe {
                let at = c.ptr.offset(i as isize * c.rs + j as isize * c.cs);
                *at = if add { *at + tile[i * NR + j] } else { tile[i * NR + j] };
            }
        }
    }
}

/// Packs columns `j0..j1` (`j0` a multiple of `NR`) of the `kc`-row
/// matrix `b` into its panels of `NR` columns: panel `q` holds, for each
/// row `p`, columns `q·NR..` (zero past `j1`).
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_b(kc: usize, (j0, j1): (usize, usize), b: Mat, dst: *mut f32) {
    for j0 in (j0..j1).step_by(NR) {
        let (q, w) = (j0 / NR, NR.min(j1 - j0));
        // SAFETY: panel q of the buffer; columns j0.. of `b`.
        let (out, src) = unsafe { (dst.add(q * kc * NR), b.ptr.offset(j0 as isize * b.cs)) };
        let at = |p: usize, j: usize| src.wrapping_offset(p as isize * b.rs + j as isize * b.cs);
        let mut p0 = 0;
        if w == NR && b.cs == 1 {
            for p in 0..kc {
                // SAFETY: row p's 16 columns are contiguous.
                unsafe {
                    _mm256_store_ps(out.add(p * NR), _mm256_loadu_ps(at(p, 0)));
                    _mm256_store_ps(out.add(p * NR + 8), _mm256_loadu_ps(at(p, 8)));
                }
            }
            continue;
        }
        if w == NR && b.rs == 1 {
            // Columns are contiguous: 8 × 8 transposes. Both 8-row steps of
            // a 16-row chunk run on one half before the other, so the 8
            // cache lines a half reads serve both steps (column strides are
            // often powers of two, which put every column in one set).
            while p0 + 16 <= kc {
                for half in 0..2 {
                    for step in 0..2 {
                        let p = p0 + 8 * step;
                        // SAFETY: 8 rows of 8 columns of `b`; 8 rows of the panel.
                        unsafe {
                            let cols = std::array::from_fn(|j| _mm256_loadu_ps(at(p, 8 * half + j)));
                            let rows = transpose(cols);
                            for (r, v) in rows.iter().enumerate() {
                                _mm256_store_ps(out.add((p + r) * NR + 8 * half), *v);
                            }
                        }
                    }
                }
                p0 += 16;
            }
        }
        for p in p0..kc {
            for j in 0..NR {
                // SAFETY: (p, j) of `b` for j < w; the panel's row p.
                unsafe { *out.add(p * NR + j) = if j < w { *at(p, j) } else { 0.0 } };
            }
        }
    }
}

/// Packs the `mc × kc` matrix `a` into panels of `MR` rows: panel `q`
/// holds, for each column `p`, rows `q·MR..` (zero past `mc`). Stores may
/// write 2 floats past a panel row: they land on the next row (written
/// after), the next panel (likewise), or the buffer's slack.
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_a(mc: usize, kc: usize, a: Mat, dst: *mut f32) {
    let six = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
    for (q, i0) in (0..mc).step_by(MR).enumerate() {
        let h = MR.min(mc - i0);
        // SAFETY: panel q of the buffer; rows i0.. of `a`.
        let (out, src) = unsafe { (dst.add(q * kc * MR), a.ptr.offset(i0 as isize * a.rs)) };
        let at = |i: usize, p: usize| src.wrapping_offset(i as isize * a.rs + p as isize * a.cs);
        let mut p0 = 0;
        if h == MR && a.cs == 1 {
            // Rows are contiguous: 8 × 8 transposes of the 6 rows and two
            // zero rows; each of the 8 stores covers a panel row and 2
            // floats of the next.
            while p0 + 8 <= kc {
                // SAFETY: 8 columns of 6 rows of `a`; rows p0.. of the panel.
                unsafe {
                    let rows =
                        std::array::from_fn(|i| if i < MR { _mm256_loadu_ps(at(i, p0)) } else { _mm256_setzero_ps() });
                    let cols = transpose(rows);
                    for (r, v) in cols.iter().enumerate() {
                        _mm256_storeu_ps(out.add((p0 + r) * MR), *v);
                    }
                }
                p0 += 8;
            }
        } else if h == MR && a.rs == 1 {
            // Columns are contiguous: 6 floats each, masked (8 would read
            // past the matrix).
            for p in 0..kc {
                // SAFETY: the 6 rows of column p; panel row p plus slack.
                unsafe { _mm256_storeu_ps(out.add(p * MR), _mm256_maskload_ps(at(0, p), six)) };
            }
            continue;
        }
        for p in p0..kc {
            for i in 0..MR {
                // SAFETY: (i, p) of `a` for i < h; the panel's row p.
                unsafe { *out.add(p * MR + i) = if i < h { *at(i, p) } else { 0.0 } };
            }
        }
    }
}

/// The transpose of an 8 × 8 block held as 8 row vectors.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn transpose(r: [__m256; 8]) -> [__m256; 8] {
    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
    let t1 = _mm256_unpackhi_ps(r[0], r[1]);
    let t2 = _mm256_unpacklo_ps(r[2], r[3]);
    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
    let t4 = _mm256_unpacklo_ps(r[4], r[5]);
    let t5 = _mm256_unpackhi_ps(r[4], r[5]);
    let t6 = _mm256_unpacklo_ps(r[6], r[7]);
    let t7 = _mm256_unpackhi_ps(r[6], r[7]);
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic generator of small values (exact in f32 sums of a
    /// few hundred terms would be too strong a demand; the reference is f64).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f32 {
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

    fn check(m: usize, k: usize, n: usize, kinds: (u8, u8, u8), accumulate: bool, seed: u64, threads: usize) {
        let mut g = Lcg(seed);
        let (ars, acs, alen) = layout(kinds.0, m, k);
        let (brs, bcs, blen) = layout(kinds.1, k, n);
        let (crs, ccs, clen) = layout(kinds.2, m, n);
        let av: Vec<f32> = (0..alen).map(|_| g.next()).collect();
        let bv: Vec<f32> = (0..blen).map(|_| g.next()).collect();
        let mut cv: Vec<f32> = (0..clen).map(|_| g.next()).collect();
        let before = cv.clone();
        let a = Mat { ptr: av.as_ptr().cast_mut(), rs: ars, cs: acs };
        let b = Mat { ptr: bv.as_ptr().cast_mut(), rs: brs, cs: bcs };
        let c = Mat { ptr: cv.as_mut_ptr(), rs: crs, cs: ccs };
        // SAFETY: the vectors hold every element of their layouts.
        unsafe { gemm(m, k, n, a, b, c, accumulate, threads) };
        let at = |rs: isize, cs: isize, i: usize, j: usize| (i as isize * rs + j as isize * cs) as usize;
        let mut written = vec![false; clen];
        for i in 0..m {
            for j in 0..n {
                let mut want: f64 = (0..k).map(|p| av[at(ars, acs, i, p)] as f64 * bv[at(brs, bcs, p, j)] as f64).sum();
                let ci = at(crs, ccs, i, j);
                if accumulate {
                    want += before[ci] as f64;
                }
                let got = cv[ci] as f64;
                let tol = 1e-5 * (k as f64 + 1.0);
                assert!(
                    (got - want).abs() <= tol,
                    "{m}x{k}x{n} {kinds:?} acc={accumulate}: c[{i},{j}] = {got}, want {want}"
                );
                written[ci] = true;
            }
        }
        // Nothing outside the result's elements moved.
        for (i, w) in written.iter().enumerate() {
            if !w {
                assert_eq!(cv[i].to_bits(), before[i].to_bits(), "{m}x{k}x{n} {kinds:?}: wrote outside c at {i}");
            }
        }
    }

    #[test]
    fn every_layout_and_edge_matches_a_wide_reference() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX2 and FMA");
            return;
        }
        let mut seed = 1;
        // Tile and block edges: below, at and past MR, NR, 8-row transposes,
        // KC and MC.
        // Threads split rows (m ≥ 12 per thread) and share the packing of
        // `b` from 16K elements of a block, or take their own column panels
        // (`few_rows`); the last size takes two column blocks (NC).
        let sizes = [
            (1, 1, 1),
            (5, 7, 15),
            (6, 8, 16),
            (7, 17, 17),
            (13, 33, 40),
            (145, 257, 33),
            (150, 600, 20),
            (30, 256, 130),
            (7, 9, 4100),
        ];
        for &(m, k, n) in &sizes {
            for ka in 0..3 {
                for kb in 0..3 {
                    for kc in 0..3 {
                        for accumulate in [false, true] {
                            for threads in [1, 2, 3] {
                                seed += 1;
                                check(m, k, n, (ka, kb, kc), accumulate, seed, threads);
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_result_does_not_depend_on_the_thread_count() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX2 and FMA");
            return;
        }
        // Deep enough for three blocks of depth, wide enough for parallel
        // packing, rows and columns that split unevenly; 13 rows take the
        // shared path on one thread and `few_rows` on more, 3 rows
        // `few_rows` on any: the sums are the same bits.
        for m in [53, 13, 3] {
            same_bits_on_any_thread_count(m, 700, 150);
        }
    }

    fn same_bits_on_any_thread_count(m: usize, k: usize, n: usize) {
        let mut g = Lcg(99);
        let av: Vec<f32> = (0..m * k).map(|_| g.next()).collect();
        let bv: Vec<f32> = (0..k * n).map(|_| g.next()).collect();
        let run = |threads: usize| {
            let mut cv = vec![0f32; m * n];
            let a = Mat { ptr: av.as_ptr().cast_mut(), rs: k as isize, cs: 1 };
            let b = Mat { ptr: bv.as_ptr().cast_mut(), rs: 1, cs: k as isize };
            let c = Mat { ptr: cv.as_mut_ptr(), rs: n as isize, cs: 1 };
            // SAFETY: the vectors hold the three matrices.
            unsafe { gemm(m, k, n, a, b, c, false, threads) };
            cv.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        let one = run(1);
        for threads in [2, 3, 4] {
            assert!(one == run(threads), "{m} rows: {threads} threads changed the sums");
        }
    }

    #[test]
    fn an_empty_depth_zeroes_or_keeps_the_result() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX2 and FMA");
            return;
        }
        check(4, 0, 9, (0, 0, 0), false, 7, 1);
        check(4, 0, 9, (0, 0, 1), true, 8, 2);
    }

    #[test]
    fn blocks_split_evenly() {
        assert_eq!(even(260, MC, MR), 132);
        assert_eq!(even(144, MC, MR), 144);
        assert_eq!(even(5, MC, MR), 6);
        assert_eq!(even(257, KC, 8), 136);
        assert_eq!(even(1024, KC, 8), 256);
        assert_eq!(even(1, NC, NR), 16);
    }
}
