//! The f32 micro-kernel for x86-64 cores with AVX2 and FMA (and no
//! AVX-512), driven by [`super::blis`]: a `6 × 16` tile of the result in
//! twelve vector registers.
//!
//! Why our own: on these cores the `gemm` crate's AVX2 kernels reached 40–49
//! GFLOP/s on one core (1024³ and the shapes of a transformer's linear
//! layers), where PyTorch's `torch.mm` reaches 65–72 and the core's FMA
//! peak is about 95; this reaches 70–80 (bench/README.md has the figures).
//!
//! Invariants: every element of the tile is one chain of fused multiply-adds
//! down the depth, in order, so the driver's blocking alone decides the
//! bits.

use super::blis::{self, Kernel, Mat};
use std::arch::x86_64::*;
use std::sync::OnceLock;

/// Rows and columns of the micro-kernel's tile: 6 × 2 vectors of 8 lanes
/// are twelve accumulators, which leaves registers for two rows of `b` and
/// one broadcast of `a` (sixteen in all).
const MR: usize = 6;
const NR: usize = 16;

/// Whether the CPU has AVX2 and FMA.
pub fn available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"))
}

/// Whether f32 GEMMs run here rather than in the `gemm` crate: on AVX2
/// cores without AVX-512 (which run [`super::avx512`]'s kernel).
/// `AOT_GEMM=library` or `AOT_GEMM=native` overrides the choice, to compare
/// with the crate on one machine.
pub fn selected() -> bool {
    static SELECTED: OnceLock<bool> = OnceLock::new();
    *SELECTED.get_or_init(|| match std::env::var("AOT_GEMM").as_deref() {
        Ok("library") => false,
        Ok("native") => available(),
        _ => available() && !is_x86_feature_detected!("avx512f"),
    })
}

/// The f32 AVX2 kernel.
pub struct Avx2;

// SAFETY: the packings write the panels `a_panel`/`b_panel` give (`pack_a`
// up to two floats past its last row, inside the driver's slack), and the
// tile reads exactly those.
unsafe impl Kernel for Avx2 {
    type In = f32;
    const MR: usize = MR;
    const NR: usize = NR;
    /// A `KC × NR` panel of `b` (16 KiB) stays in L1 while every row panel
    /// of `a` passes it.
    const KC: usize = 256;
    /// A block of `a` (`MC × KC`, 144 KiB) stays inside a core's L2.
    const MC: usize = 144;
    /// A block of `b` (`KC × NC`, 4 MiB) stays inside L3.
    const NC: usize = 4080;

    fn a_panel(kc: usize) -> usize {
        kc * MR
    }
    fn b_panel(kc: usize) -> usize {
        kc * NR
    }
    unsafe fn pack_a(mc: usize, kc: usize, a: Mat<f32>, dst: *mut f32) {
        // SAFETY: the driver's promises; the CPU has AVX2 (`available`).
        unsafe { pack_a(mc, kc, a, dst) }
    }
    unsafe fn pack_b(kc: usize, cols: (usize, usize), b: Mat<f32>, dst: *mut f32) {
        // SAFETY: as for `pack_a`.
        unsafe { pack_b(kc, cols, b, dst) }
    }
    unsafe fn tile(kc: usize, a: *const f32, b: *const f32, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
        // SAFETY: as for `pack_a`.
        unsafe { tile(kc, a, b, c, mr, nr, add) }
    }
}

/// `a_panel · b_panel` over `kc` steps, stored into `c`'s `mr × nr` corner.
#[target_feature(enable = "avx2,fma")]
unsafe fn tile(kc: usize, a: *const f32, b: *const f32, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
    // SAFETY: the driver's panels and tile of `c`.
    unsafe {
        let acc = micro(kc, a, b);
        store(&acc, c, mr, nr, add);
    }
}

/// `c = a·b` (or `+=`) through [`blis::gemm`] with this kernel.
///
/// # Safety
/// As for [`blis::gemm`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm(
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
    unsafe { blis::gemm::<Avx2>(m, k, n, a, b, c, accumulate, threads) }
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
unsafe fn store(acc: &[__m256; 12], c: Mat<f32>, mr: usize, nr: usize, add: bool) {
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
    // SAFETY: the tile's part of `c` is inside it (the caller's promise).
    unsafe { blis::store_spilled(&tile, NR, c, mr, nr, add) }
}

/// Packs columns `j0..j1` (`j0` a multiple of `NR`) of the `kc`-row
/// matrix `b` into its panels of `NR` columns: panel `q` holds, for each
/// row `p`, columns `q·NR..` (zero past `j1`).
#[target_feature(enable = "avx2,fma")]
unsafe fn pack_b(kc: usize, (j0, j1): (usize, usize), b: Mat<f32>, dst: *mut f32) {
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
unsafe fn pack_a(mc: usize, kc: usize, a: Mat<f32>, dst: *mut f32) {
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
pub(super) fn transpose(r: [__m256; 8]) -> [__m256; 8] {
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
    use super::super::blis::tests::conforms;
    use super::*;

    /// Every layout and edge against a wide reference, the same bits on
    /// any number of threads, an empty depth.
    #[test]
    fn conforms_to_the_driver() {
        conforms::<Avx2>(available(), "AVX2 and FMA", 1e-5);
    }
}
