//! `loop.matmul` at run time: batched strided GEMM through `matrixmultiply`
//! (f32 and f64, any strides, threads of its own above its size threshold).

use crate::program::BufRef;
use aot_dialects::r#loop;
use aot_ir::ElemType;

/// `c = a·b` (or `c += a·b`) for every batch index; pointers are the roots
/// of the three buffers, layouts come from their types.
#[allow(clippy::too_many_arguments)]
pub fn batched(
    a: &BufRef,
    b: &BufRef,
    c: &BufRef,
    pa: *mut u8,
    pb: *mut u8,
    pc: *mut u8,
    accumulate: bool,
    _threads: usize,
) {
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

trait Gemm: Sized + Default {
    #[allow(clippy::too_many_arguments)]
    unsafe fn raw(
        m: usize,
        k: usize,
        n: usize,
        a: *const Self,
        rsa: isize,
        csa: isize,
        b: *const Self,
        rsb: isize,
        csb: isize,
        beta: Self,
        c: *mut Self,
        rsc: isize,
        csc: isize,
    );
    fn zero_or_one(one: bool) -> Self;

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
                Self::raw(
                    m,
                    k,
                    n,
                    (a.0 as *const Self).offset(a.1 as isize),
                    a.2 .0 as isize,
                    a.2 .1 as isize,
                    (b.0 as *const Self).offset(b.1 as isize),
                    b.2 .0 as isize,
                    b.2 .1 as isize,
                    Self::zero_or_one(accumulate),
                    cp,
                    c.2 .0 as isize,
                    c.2 .1 as isize,
                );
            }
        }
    }
}

macro_rules! impl_gemm {
    ($t:ty, $f:path) => {
        impl Gemm for $t {
            unsafe fn raw(
                m: usize,
                k: usize,
                n: usize,
                a: *const Self,
                rsa: isize,
                csa: isize,
                b: *const Self,
                rsb: isize,
                csb: isize,
                beta: Self,
                c: *mut Self,
                rsc: isize,
                csc: isize,
            ) {
                // SAFETY: forwarded from `gemm`'s caller.
                unsafe { $f(m, k, n, 1.0, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc) }
            }

            fn zero_or_one(one: bool) -> Self {
                if one {
                    1.0
                } else {
                    0.0
                }
            }
        }
    };
}

impl_gemm!(f32, matrixmultiply::sgemm);
impl_gemm!(f64, matrixmultiply::dgemm);

/// Zeroes an `m × n` strided matrix.
unsafe fn zero<T: Default>(c: *mut T, m: usize, n: usize, rs: i64, cs: i64) {
    for i in 0..m as i64 {
        for j in 0..n as i64 {
            // SAFETY: the caller passes a matrix inside its buffer.
            unsafe { *c.offset((i * rs + j * cs) as isize) = T::default() };
        }
    }
}
