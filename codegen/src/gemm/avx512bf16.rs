//! The bf16 micro-kernel for x86-64 cores with AVX512-BF16 (Zen 4 and
//! later, Intel from Cooper Lake), driven by [`super::blis`]: `a` and `b`
//! in bf16, sums in f32, a `12 × 32` tile of the result in 24 registers of
//! 16 lanes.
//!
//! `vdpbf16ps` multiplies two pairs of bf16 values and adds both products
//! to an f32 lane, twice the multiply-adds per instruction of an f32 FMA:
//! on a Zen 4 core this GEMM runs about twice as fast as the f32 one, as
//! PyTorch's bf16 `torch.mm` (oneDNN, the same instruction) does against
//! its f32 one. So the panels hold the depth in pairs: a packed row of `b`
//! is, per column, the bf16 values of two consecutive depths side by side
//! (one 32-bit lane), and a packed column of `a` likewise per row.
//!
//! Invariants: an odd depth is padded with a zero (a product of zero adds
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

/// Whether the CPU has AVX512-BF16 (with the AVX-512 foundation it needs).
/// `AOT_GEMM=library` turns the kernel off, to compare on one machine.
pub fn available() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::env::var("AOT_GEMM").as_deref() != Ok("library")
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bf16")
    })
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
    unsafe fn pack_a(mc: usize, kc: usize, a: Mat<u16>, dst: *mut u16) {
        // SAFETY: the driver's promises.
        unsafe { pack_a(mc, kc, a, dst.cast()) }
    }
    unsafe fn pack_b(kc: usize, cols: (usize, usize), b: Mat<u16>, dst: *mut u16) {
        // SAFETY: the driver's promises; the CPU has AVX-512 (`available`).
        unsafe { pack_b(kc, cols, b, dst.cast()) }
    }
    unsafe fn tile(kc: usize, a: *const u16, b: *const u16, c: Mat<f32>, mr: usize, nr: usize, add: bool) {
        // SAFETY: as for `pack_b`.
        unsafe { tile(kc, a.cast(), b.cast(), c, mr, nr, add) }
    }
}

/// `c = a·b` (or `+=`) of bf16 matrices (their bits) into f32 `c`,
/// through [`blis::gemm`] with this kernel.
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
    // SAFETY: the tile's part of `c` is inside it (the driver's promise).
    unsafe { blis::store_spilled(&spill, NR, c, mr, nr, add) }
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

    #[test]
    fn every_layout_and_edge_matches_a_wide_reference() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        // Products are exact; only the f32 sums round.
        every_layout_and_edge::<Bf16>(1e-5);
    }

    #[test]
    fn the_result_does_not_depend_on_the_thread_count() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        same_bits_on_any_thread_count::<Bf16>();
    }

    #[test]
    fn an_empty_depth_zeroes_or_keeps_the_result() {
        if !available() {
            eprintln!("skipped: this CPU has no AVX512-BF16");
            return;
        }
        empty_depth::<Bf16>();
    }

    #[test]
    fn an_odd_depth_is_padded_with_zeros() {
        if !available() {
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
