//! Micro-kernels for x86-64 cores with AVX-512, driven by [`super::blis`]:
//! a `12 × 32` tile of the f32 result in 24 registers of 16 lanes, from f32
//! operands ([`F32`], plain FMAs) or bf16 ones ([`Bf16`], on AVX512-BF16:
//! Zen 4 and later, Intel from Cooper Lake).
//!
//! `vdpbf16ps` multiplies two pairs of bf16 values and adds both products
//! to an f32 lane, twice the multiply-adds per instruction of an f32 FMA:
//! on a Zen 4 core the bf16 GEMM runs about twice as fast as the f32 one,
//! as PyTorch's bf16 `torch.mm` (oneDNN, the same instruction) does against
//! its f32 one. So the bf16 panels hold the depth in pairs: a packed row of
//! `b` is, per column, the bf16 values of two consecutive depths side by
//! side (one 32-bit lane), and a packed column of `a` likewise per row.
//!
//! Invariants: the f32 kernel sums each element as one chain of fused
//! multiply-adds down the depth, in order, as the AVX2 kernel does, with
//! the same blocks of depth: the two give the same bits. In the bf16
//! kernel an odd depth is padded with a zero (a product of zero adds
//! nothing); each lane adds, per pair, the odd depth's product and then the
//! even one's, each rounded to f32 (the instruction's order), and the
//! products of two bf16 values are exact in f32; the instruction treats
//! subnormal inputs and results as zero, as PyTorch's oneDNN kernels on
//! the same cores do.

use super::blis::{self, Kernel, Mat};
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Rows and columns of the tile: 12 × 2 vectors of 16 lanes are 24
/// accumulators, leaving registers for two rows of `b` and a broadcast.
const MR: usize = 12;
const NR: usize = 32;

/// Whether the CPU has the AVX-512 foundation (with AVX2 and FMA, which it
/// implies). `AOT_GEMM=library` turns our kernels off, to compare on one
/// machine.
pub fn available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::env::var("AOT_GEMM").as_deref() != Ok("library") && is_x86_feature_detected!("avx512f"))
}

/// Whether the CPU also has AVX512-BF16.
pub fn bf16_available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| available() && is_x86_feature_detected!("avx512bf16"))
}

/// The f32 AVX-512 kernel.
pub struct F32;

// SAFETY: the packings write the panels `a_panel`/`b_panel` give (`pack_a`
// up to four floats past its last row, inside the driver's slack); the
// tile reads exactly those.
unsafe impl Kernel for F32 {
    type In = f32;
    const MR: usize = MR;
    const NR: usize = NR;
    /// A `KC × NR` panel of `b` (32 KiB) in L1 while a row panel of `a`
    /// passes it; the AVX2 kernel's depth, so that both sum alike.
    const KC: usize = 256;
    /// A block of `a` (`MC × KC`, 144 KiB) stays inside a core's L2.
    const MC: usize = 144;
    /// A block of `b` (`KC × NC`, 4 MiB) stays inside L3.
    const NC: usize = 4064;

    fn a_panel(kc: usize) -> usize {
        kc * MR
    }
    fn b_panel(kc: usize) -> usize {
        kc * NR
    }
    unsafe fn pack_a(mc: usize, kc: usize, a: Mat<f32>, dst: *mut f32) {
        // SAFETY: the driver's promises; the CPU has AVX-512 (`available`).
        unsafe { pack_a_f32(mc, kc, a, dst) }
    }
    unsafe fn pack_b(kc: usize, cols: (usize, usize), b: Mat<f32>, dst: *mut f32) {
        // SAFETY: as for `pack_a`.
        unsafe { pack_b_f32(kc, cols, b, dst) }
    }
    unsafe fn tile(kc: usize, a: *const f32, b: *const f32, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
        // SAFETY: as for `pack_a`.
        unsafe { tile_f32(kc, a, b, c, mr, nr, add) }
    }
}

/// The bf16 AVX512-BF16 kernel; `In` is a bf16 value's bits.
pub struct Bf16;

// SAFETY: the packings write exactly the panels `a_panel`/`b_panel` give;
// the tile reads those.
unsafe impl Kernel for Bf16 {
    type In = u16;
    const MR: usize = MR;
    const NR: usize = NR;
    /// A `KC × NR` panel of `b` (16 KiB in bf16) stays in L1 while every
    /// row panel of `a` passes it.
    const KC: usize = 256;
    /// A block of `a` (`MC × KC`, 72 KiB) stays inside a core's L2.
    const MC: usize = 144;
    /// A block of `b` (`KC × NC`, 2 MiB) stays inside L3.
    const NC: usize = 4064;

    fn a_panel(kc: usize) -> usize {
        kc.next_multiple_of(2) * MR
    }
    fn b_panel(kc: usize) -> usize {
        kc.next_multiple_of(2) * NR
    }
    /// Rows of `a` whose pairs are contiguous (unit column stride, an even
    /// row stride, an even depth) are an f32 matrix of half the depth, each
    /// pair one 32-bit lane: the f32 kernel's packing (8 × 8 transposes)
    /// lays them out as this kernel reads them.
    unsafe fn pack_a(mc: usize, kc: usize, a: Mat<u16>, dst: *mut u16) {
        // SAFETY: the driver's promises; the CPU has AVX-512 (`available`);
        // the f32 view addresses the same elements, read unaligned.
        unsafe {
            if kc.is_multiple_of(2) && a.cs == 1 && a.rs % 2 == 0 {
                pack_a_f32(mc, kc / 2, Mat { ptr: a.ptr.cast(), rs: a.rs / 2, cs: 1 }, dst.cast())
            } else {
                pack_a(mc, kc, a, dst.cast())
            }
        }
    }
    /// Columns of `b` whose pairs are contiguous (the weight of `x @ w.T`)
    /// likewise, as an f32 matrix of half the depth.
    unsafe fn pack_b(kc: usize, cols: (usize, usize), b: Mat<u16>, dst: *mut u16) {
        // SAFETY: as for `pack_a`.
        unsafe {
            if kc.is_multiple_of(2) && b.rs == 1 && b.cs % 2 == 0 {
                pack_b_f32(kc / 2, cols, Mat { ptr: b.ptr.cast(), rs: 1, cs: b.cs / 2 }, dst.cast())
            } else {
                pack_b(kc, cols, b, dst.cast())
            }
        }
    }
    unsafe fn tile(kc: usize, a: *const u16, b: *const u16, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
        // SAFETY: as for `pack_b`.
        unsafe { tile(kc, a.cast(), b.cast(), c, mr, nr, add) }
    }
}

/// `c = a·b` (or `+=`) of f32 matrices through [`blis::gemm`] with [`F32`].
///
/// # Safety
/// As for [`blis::gemm`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_f32(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<f32>,
    b: Mat<f32>,
    c: Mat<f32>,
    accumulate: bool,
    threads: usize,
) {
    // SAFETY: the caller's promises.
    unsafe { blis::gemm::<F32>(m, k, n, a, b, c, accumulate, threads) }
}

/// `c = a·b` (or `+=`) of bf16 matrices (their bits) into f32 `c`,
/// through [`blis::gemm`] with [`Bf16`].
///
/// # Safety
/// As for [`blis::gemm`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm(
    m: usize,
    k: usize,
    n: usize,
    a: Mat<u16>,
    b: Mat<u16>,
    c: Mat<f32>,
    accumulate: bool,
    threads: usize,
) {
    // SAFETY: the caller's promises.
    unsafe { blis::gemm::<Bf16>(m, k, n, a, b, c, accumulate, threads) }
}

/// Writes (or adds) the top-left `mr × nr` of a tile into `c`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn store(acc: &[__m512; 2 * MR], c: Mat<f32>, mr: usize, nr: usize, add: bool) {
    if c.cs == 1 && nr == NR {
        for i in 0..mr {
            // SAFETY: row i of the tile is 32 contiguous elements of `c`.
            unsafe {
                let row = c.ptr.offset(i as isize * c.rs);
                let (mut v0, mut v1) = (acc[2 * i], acc[2 * i + 1]);
                if add {
                    v0 = _mm512_add_ps(_mm512_loadu_ps(row), v0);
                    v1 = _mm512_add_ps(_mm512_loadu_ps(row.add(16)), v1);
                }
                _mm512_storeu_ps(row, v0);
                _mm512_storeu_ps(row.add(16), v1);
            }
        }
        return;
    }
    let mut spill = [0f32; MR * NR];
    for (i, v) in acc.iter().enumerate() {
        // SAFETY: 16 lanes at 16·i inside the tile.
        unsafe { _mm512_storeu_ps(spill.as_mut_ptr().add(16 * i), *v) };
    }
    // SAFETY: the tile's part of `c` is inside it (the caller's promise).
    unsafe { blis::store_spilled(&spill, NR, c, mr, nr, add) }
}

/// `a_panel · b_panel` of f32 panels over `kc` steps, stored into `c`'s
/// `mr × nr` corner.
#[target_feature(enable = "avx512f")]
unsafe fn tile_f32(kc: usize, a: *const f32, b: *const f32, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
    let mut acc = [_mm512_setzero_ps(); 2 * MR];
    let (mut a, mut b) = (a, b);
    for _ in 0..kc {
        // SAFETY: the panels hold kc rows of MR and NR values; `b`'s panels
        // start at multiples of 64 bytes.
        unsafe {
            let b0 = _mm512_load_ps(b);
            let b1 = _mm512_load_ps(b.add(16));
            for i in 0..MR {
                let ai = _mm512_set1_ps(*a.add(i));
                acc[2 * i] = _mm512_fmadd_ps(ai, b0, acc[2 * i]);
                acc[2 * i + 1] = _mm512_fmadd_ps(ai, b1, acc[2 * i + 1]);
            }
            a = a.add(MR);
            b = b.add(NR);
        }
    }
    // SAFETY: the driver's tile of `c`.
    unsafe { store(&acc, c, mr, nr, add) }
}

/// Packs columns `j0..j1` (`j0` a multiple of `NR`) of the `kc`-row f32
/// matrix `b` into its panels of `NR` columns: panel `q` holds, for each
/// row `p`, columns `q·NR..` (zero past `j1`).
#[target_feature(enable = "avx512f")]
unsafe fn pack_b_f32(kc: usize, (j0, j1): (usize, usize), b: Mat<f32>, dst: *mut f32) {
    for j0 in (j0..j1).step_by(NR) {
        let (q, w) = (j0 / NR, NR.min(j1 - j0));
        // SAFETY: panel q of the buffer; columns j0.. of `b`.
        let (out, src) = unsafe { (dst.add(q * kc * NR), b.ptr.offset(j0 as isize * b.cs)) };
        let at = |p: usize, j: usize| src.wrapping_offset(p as isize * b.rs + j as isize * b.cs);
        let mut p0 = 0;
        if w == NR && b.cs == 1 {
            for p in 0..kc {
                // SAFETY: row p's 32 columns are contiguous.
                unsafe {
                    _mm512_store_ps(out.add(p * NR), _mm512_loadu_ps(at(p, 0)));
                    _mm512_store_ps(out.add(p * NR + 16), _mm512_loadu_ps(at(p, 16)));
                }
            }
            continue;
        }
        if w == NR && b.rs == 1 {
            // Columns are contiguous: 8 × 8 transposes, all four column
            // groups of an 8-row step before the next step.
            while p0 + 8 <= kc {
                for g in 0..4 {
                    // SAFETY: 8 rows of 8 columns of `b`; 8 rows of the panel.
                    unsafe {
                        let cols = std::array::from_fn(|j| _mm256_loadu_ps(at(p0, 8 * g + j)));
                        let rows = super::avx2::transpose(cols);
                        for (r, v) in rows.iter().enumerate() {
                            _mm256_store_ps(out.add((p0 + r) * NR + 8 * g), *v);
                        }
                    }
                }
                p0 += 8;
            }
        }
        for p in p0..kc {
            for j in 0..NR {
                // SAFETY: (p, j) of `b` for j < w (unaligned when the
                // bf16 kernel packs pairs through here); the panel's row p.
                unsafe { *out.add(p * NR + j) = if j < w { at(p, j).read_unaligned() } else { 0.0 } };
            }
        }
    }
}

/// Packs the `mc × kc` f32 matrix `a` into panels of `MR` rows: panel `q`
/// holds, for each column `p`, rows `q·MR..` (zero past `mc`). Stores may
/// write 4 floats past a panel row: they land on the next row (written
/// after), the next panel (likewise), or the buffer's slack.
#[target_feature(enable = "avx512f")]
unsafe fn pack_a_f32(mc: usize, kc: usize, a: Mat<f32>, dst: *mut f32) {
    for (q, i0) in (0..mc).step_by(MR).enumerate() {
        let h = MR.min(mc - i0);
        // SAFETY: panel q of the buffer; rows i0.. of `a`.
        let (out, src) = unsafe { (dst.add(q * kc * MR), a.ptr.offset(i0 as isize * a.rs)) };
        let at = |i: usize, p: usize| src.wrapping_offset(i as isize * a.rs + p as isize * a.cs);
        let mut p0 = 0;
        if h == MR && a.cs == 1 {
            // Rows are contiguous: two 8 × 8 transposes per 8 columns (rows
            // 0..8, then rows 8..12 and four zero rows); a panel row's
            // second store runs 4 floats into the next row, which its own
            // first store then overwrites.
            while p0 + 8 <= kc {
                // SAFETY: 8 columns of the 12 rows of `a`; rows p0.. of the
                // panel plus the slack.
                unsafe {
                    let top = super::avx2::transpose(std::array::from_fn(|i| _mm256_loadu_ps(at(i, p0))));
                    let low = super::avx2::transpose(std::array::from_fn(|i| {
                        if i < 4 {
                            _mm256_loadu_ps(at(8 + i, p0))
                        } else {
                            _mm256_setzero_ps()
                        }
                    }));
                    for r in 0..8 {
                        _mm256_storeu_ps(out.add((p0 + r) * MR), top[r]);
                        _mm256_storeu_ps(out.add((p0 + r) * MR + 8), low[r]);
                    }
                }
                p0 += 8;
            }
        } else if h == MR && a.rs == 1 {
            // Columns are contiguous: 12 floats each, masked.
            for p in 0..kc {
                // SAFETY: the 12 rows of column p; panel row p.
                unsafe { _mm512_mask_storeu_ps(out.add(p * MR), 0x0fff, _mm512_maskz_loadu_ps(0x0fff, at(0, p))) };
            }
            continue;
        }
        for p in p0..kc {
            for i in 0..MR {
                // SAFETY: (i, p) of `a` for i < h (unaligned when the bf16
                // kernel packs pairs through here); the panel's row p.
                unsafe { *out.add(p * MR + i) = if i < h { at(i, p).read_unaligned() } else { 0.0 } };
            }
        }
    }
}

/// One 32-bit lane of a panel: the bf16 values at depths `2p` (low half)
/// and `2p + 1` (high half).
fn pair(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}

/// `a_panel · b_panel` over `kc` steps of depth (`kc / 2` pairs, rounded
/// up), stored into `c`'s `mr × nr` corner.
#[target_feature(enable = "avx512f,avx512bf16")]
unsafe fn tile(kc: usize, a: *const u32, b: *const u32, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
    let mut acc = [_mm512_setzero_ps(); 2 * MR];
    let (mut a, mut b) = (a, b);
    for _ in 0..kc.div_ceil(2) {
        // SAFETY: the panels hold kc / 2 rows (rounded up) of MR and NR
        // pairs; `b`'s panels start at multiples of 64 bytes.
        unsafe {
            let b0: __m512bh = std::mem::transmute(_mm512_load_si512(b.cast()));
            let b1: __m512bh = std::mem::transmute(_mm512_load_si512(b.add(16).cast()));
            for i in 0..MR {
                let ai: __m512bh = std::mem::transmute(_mm512_set1_epi32(*a.add(i) as i32));
                acc[2 * i] = _mm512_dpbf16_ps(acc[2 * i], ai, b0);
                acc[2 * i + 1] = _mm512_dpbf16_ps(acc[2 * i + 1], ai, b1);
            }
            a = a.add(MR);
            b = b.add(NR);
        }
    }
    // SAFETY: the driver's tile of `c`.
    unsafe { store(&acc, c, mr, nr, add) }
}

/// Packs columns `j0..j1` of the `kc`-row matrix `b` into panels of `NR`
/// columns: panel `q` holds, for each pair of rows `2p, 2p + 1`, one lane
/// per column `q·NR + j` with the two values (zero past `j1` and past `kc`).
#[target_feature(enable = "avx512f")]
unsafe fn pack_b(kc: usize, (j0, j1): (usize, usize), b: Mat<u16>, dst: *mut u32) {
    let pairs = kc.div_ceil(2);
    for j0 in (j0..j1).step_by(NR) {
        let (q, w) = (j0 / NR, NR.min(j1 - j0));
        // SAFETY: panel q of the buffer; columns j0.. of `b`.
        let (out, src) = unsafe { (dst.add(q * pairs * NR), b.ptr.offset(j0 as isize * b.cs)) };
        let at = |p: usize, j: usize| src.wrapping_offset(p as isize * b.rs + j as isize * b.cs);
        // SAFETY (every read below): (p, j) of `b` for p < kc, j < w; every
        // write: lane (p / 2, j) of panel q.
        if w == NR && b.cs == 1 {
            // Rows are contiguous: two rows' 16 columns widened to 32-bit
            // lanes, the second shifted into the high halves.
            for p in 0..pairs {
                for half in 0..2 {
                    unsafe {
                        let lo = _mm512_cvtepu16_epi32(_mm256_loadu_si256(at(2 * p, 16 * half).cast()));
                        let hi = if 2 * p + 1 < kc {
                            _mm512_cvtepu16_epi32(_mm256_loadu_si256(at(2 * p + 1, 16 * half).cast()))
                        } else {
                            _mm512_setzero_si512()
                        };
                        let v = _mm512_or_si512(lo, _mm512_slli_epi32::<16>(hi));
                        _mm512_store_si512(out.add(p * NR + 16 * half).cast(), v);
                    }
                }
            }
            continue;
        }
        if b.rs == 1 {
            // Columns are contiguous (the weight of `x @ w.T`): each pair is
            // one unaligned 32-bit read.
            for j in 0..NR {
                for p in 0..pairs {
                    unsafe {
                        *out.add(p * NR + j) = if j >= w {
                            0
                        } else if 2 * p + 1 < kc {
                            at(2 * p, j).cast::<u32>().read_unaligned()
                        } else {
                            pair(*at(2 * p, j), 0)
                        };
                    }
                }
            }
            continue;
        }
        for p in 0..pairs {
            for j in 0..NR {
                unsafe {
                    *out.add(p * NR + j) = if j >= w {
                        0
                    } else {
                        pair(*at(2 * p, j), if 2 * p + 1 < kc { *at(2 * p + 1, j) } else { 0 })
                    };
                }
            }
        }
    }
}

/// Packs the `mc × kc` matrix `a` into panels of `MR` rows: panel `q`
/// holds, for each pair of columns `2p, 2p + 1`, one lane per row `q·MR +
/// i` with the two values (zero past `mc` and past `kc`).
unsafe fn pack_a(mc: usize, kc: usize, a: Mat<u16>, dst: *mut u32) {
    let pairs = kc.div_ceil(2);
    for (q, i0) in (0..mc).step_by(MR).enumerate() {
        let h = MR.min(mc - i0);
        // SAFETY: panel q of the buffer; rows i0.. of `a`.
        let (out, src) = unsafe { (dst.add(q * pairs * MR), a.ptr.offset(i0 as isize * a.rs)) };
        let at = |i: usize, p: usize| src.wrapping_offset(i as isize * a.rs + p as isize * a.cs);
        for i in 0..MR {
            for p in 0..pairs {
                // SAFETY: (i, p) of `a` for i < h, p < kc; lane (p, i) of
                // panel q.
                unsafe {
                    *out.add(p * MR + i) = if i >= h {
                        0
                    } else if 2 * p + 1 >= kc {
                        pair(*at(i, 2 * p), 0)
                    } else if a.cs == 1 {
                        at(i, 2 * p).cast::<u32>().read_unaligned()
                    } else {
                        pair(*at(i, 2 * p), *at(i, 2 * p + 1))
                    };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::blis::tests::*;
    use super::*;

    /// bf16 bits of `x`, rounded to nearest even (test inputs are finite).
    fn bf16(x: f32) -> u16 {
        let b = x.to_bits();
        ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
    }

    impl Elem for u16 {
        fn of(x: f32) -> u16 {
            bf16(x)
        }
        fn wide(self) -> f64 {
            f32::from_bits((self as u32) << 16) as f64
        }
    }

    /// Every layout and edge against a wide reference, the same bits on
    /// any number of threads, an empty depth: the f32 kernel, and the bf16
    /// one (whose products are exact; only the f32 sums round).
    #[test]
    fn conforms_to_the_driver() {
        conforms::<F32>(available(), "AVX-512", 1e-5);
        conforms::<Bf16>(bf16_available(), "AVX512-BF16", 1e-5);
    }

    /// The AVX-512 and AVX2 kernels sum every element in the same order:
    /// the same bits, whatever the layouts (each kernel packs them its own
    /// way) and the edges of their different tiles.
    #[test]
    fn f32_gives_the_avx2_kernels_bits() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX-512");
            return;
        }
        let mut g = Lcg(5);
        for (m, k, n) in [(37, 600, 70), (5, 300, 33), (150, 257, 100)] {
            for (rs, cs) in [(k as isize, 1isize), (1, m as isize)] {
                let av: Vec<f32> = (0..m * k).map(|_| g.next()).collect();
                let bv: Vec<f32> = (0..k * n).map(|_| g.next()).collect();
                let run = |wide: bool| {
                    let mut cv = vec![0f32; m * n];
                    let a = Mat { ptr: av.as_ptr().cast_mut(), rs, cs };
                    let b = Mat { ptr: bv.as_ptr().cast_mut(), rs: 1, cs: k as isize };
                    let c = Mat { ptr: cv.as_mut_ptr(), rs: n as isize, cs: 1 };
                    // SAFETY: the vectors hold the matrices; the CPU has AVX-512 (so AVX2).
                    unsafe {
                        if wide {
                            gemm_f32(m, k, n, a, b, c, false, 2)
                        } else {
                            super::super::avx2::gemm(m, k, n, a, b, c, false, 2)
                        }
                    }
                    cv.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                };
                assert!(run(true) == run(false), "{m}x{k}x{n}: the kernels disagree");
            }
        }
    }

    #[test]
    fn an_odd_depth_is_padded_with_zeros() {
        if !bf16_available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        // 1·2 + 3·4 + 5·6 over a depth of 3, with contiguous pairs (one
        // 32-bit read each) and strided ones: the padding pair adds
        // nothing, whatever lies past the matrices in memory (here NaN).
        let (nan, v) = (0x7fc0u16, |x: f32| bf16(x));
        let dense = ([v(1.0), v(3.0), v(5.0), nan], [v(2.0), v(4.0), v(6.0), nan]);
        let gaps = ([v(1.0), nan, v(3.0), nan, v(5.0), nan], [v(2.0), nan, v(4.0), nan, v(6.0), nan]);
        let cases: [(&[u16], &[u16], isize); 2] = [(&dense.0, &dense.1, 1), (&gaps.0, &gaps.1, 2)];
        for (a, b, step) in cases {
            let mut c = [0f32; 1];
            let am = Mat { ptr: a.as_ptr().cast_mut(), rs: 8, cs: step };
            let bm = Mat { ptr: b.as_ptr().cast_mut(), rs: step, cs: 8 };
            // SAFETY: the arrays hold a 1×3 and a 3×1 matrix at these strides.
            unsafe { gemm(1, 3, 1, am, bm, Mat { ptr: c.as_mut_ptr(), rs: 1, cs: 1 }, false, 1) };
            assert_eq!(c[0], 44.0, "step {step}");
        }
    }
}
