//! `loop.matmul` at run time: batched strided GEMM through `matrixmultiply`
//! (f32 and f64, any strides, threads of its own above its size threshold).

use crate::program::BufRef;
use aot_dialects::r#loop;
use aot_ir::ElemType;

/// `c = a·b` (or `c += a·b`) for every batch index; pointers are the roots
/// of the three buffers, layouts come from their types.
#[allow(clippy::too_many_arguments)]
pub fn batched(a: &BufRef, b: &BufRef, c: &BufRef, pa: *mut u8, pb: *mut u8, pc: *mut u8, accumulate: bool) {
    let r = c.ty.shape.len();
    let (sa, oa) = r#loop::layout(&a.ty);
    let (sb, ob) = r#loop::layout(&b.ty);
    let (sc, oc) = r#loop::layout(&c.ty);
    let (m, k, n) = (a.ty.shape[r - 2] as usize, a.ty.shape[r - 1] as usize, b.ty.shape[r - 1] as usize);
    let batch: Vec<i64> = c.ty.shape[..r - 2].to_vec();
    let count: i64 = batch.iter().product();
    let mut idx = vec![0i64; batch.len()];
    for _ in 0..count {
        let off = |s: &[i64], o: i64| o + idx.iter().zip(s).map(|(&i, &st)| i * st).sum::<i64>();
        let (ea, eb, ec) = (off(&sa, oa), off(&sb, ob), off(&sc, oc));
        let (ma, mb, mc) = ((sa[r - 2], sa[r - 1]), (sb[r - 2], sb[r - 1]), (sc[r - 2], sc[r - 1]));
        // SAFETY: the layouts were verified against the buffers' sizes when
        // the program was built; every address below is inside them.
        unsafe {
            match c.ty.elem {
                ElemType::F32 => f32::gemm((m, k, n), (pa, ea, ma), (pb, eb, mb), (pc, ec, mc), accumulate),
                _ => f64::gemm((m, k, n), (pa, ea, ma), (pb, eb, mb), (pc, ec, mc), accumulate),
            }
        }
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < batch[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// A matrix operand: root pointer, element offset, (row, column) strides.
type Operand = (*mut u8, i64, (i64, i64));

/// `matrixmultiply`'s `?gemm`: m, k, n, alpha, a (rs, cs), b (rs, cs),
/// beta, c (rs, cs).
type RawGemm<T> =
    unsafe fn(usize, usize, usize, T, *const T, isize, isize, *const T, isize, isize, T, *mut T, isize, isize);

trait Gemm: Sized + Default + Copy {
    const RAW: RawGemm<Self>;
    const ZERO: Self;
    const ONE: Self;

    /// One `c (+)= a·b` on strided matrices.
    unsafe fn gemm((m, k, n): (usize, usize, usize), a: Operand, b: Operand, c: Operand, accumulate: bool) {
        // SAFETY: the caller passes matrices inside their buffers.
        unsafe {
            let cp = (c.0 as *mut Self).offset(c.1 as isize);
            if k == 0 {
                if !accumulate {
                    zero(cp, m, n, c.2 .0, c.2 .1);
                }
            } else if m > 0 && n > 0 {
                (Self::RAW)(
                    m,
                    k,
                    n,
                    Self::ONE,
                    (a.0 as *const Self).offset(a.1 as isize),
                    a.2 .0 as isize,
                    a.2 .1 as isize,
                    (b.0 as *const Self).offset(b.1 as isize),
                    b.2 .0 as isize,
                    b.2 .1 as isize,
                    if accumulate { Self::ONE } else { Self::ZERO },
                    cp,
                    c.2 .0 as isize,
                    c.2 .1 as isize,
                );
            }
        }
    }
}

impl Gemm for f32 {
    const RAW: RawGemm<f32> = matrixmultiply::sgemm;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
}

impl Gemm for f64 {
    const RAW: RawGemm<f64> = matrixmultiply::dgemm;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
}

/// Zeroes an `m × n` strided matrix.
unsafe fn zero<T: Default>(c: *mut T, m: usize, n: usize, rs: i64, cs: i64) {
    for i in 0..m as i64 {
        for j in 0..n as i64 {
            // SAFETY: the caller passes a matrix inside its buffer.
            unsafe { *c.offset((i * rs + j * cs) as isize) = T::default() };
        }
    }
}
