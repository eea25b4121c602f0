//! Index arithmetic shared by interpreter kernels: broadcasting, reductions
//! over dimension sets, dimension normalisation. Kernels gather operands into
//! row-major `f64`/`i64` vectors, compute, and build results from vectors;
//! these helpers map between the index spaces.

use aot_ir::Shape;

/// Normalises a possibly negative `dim` for rank `rank` (`extra` widens the
/// range, e.g. 1 for `unsqueeze`).
pub fn norm_dim(dim: i64, rank: usize, extra: usize) -> Result<usize, String> {
    let r = (rank + extra).max(1) as i64;
    if dim < -r || dim >= r {
        return Err(format!("dimension {dim} out of range for rank {rank}"));
    }
    Ok(if dim < 0 { (dim + r) as usize } else { dim as usize })
}

/// Row-major strides of a contiguous tensor of `shape`.
pub fn row_major(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1].max(0) as usize;
    }
    s
}

pub fn numel(shape: &[i64]) -> usize {
    shape.iter().product::<i64>().max(0) as usize
}

/// For each element of `out_shape` (row-major), the row-major index of the
/// element of `in_shape` it reads under broadcasting.
pub fn broadcast_map(in_shape: &[i64], out_shape: &[i64]) -> Vec<usize> {
    let n = numel(out_shape);
    let rank = out_shape.len();
    let off = rank - in_shape.len();
    let in_strides = row_major(in_shape);
    // Effective stride per output dim: 0 where broadcast.
    let eff: Vec<usize> =
        (0..rank).map(|d| if d < off || in_shape[d - off] == 1 { 0 } else { in_strides[d - off] }).collect();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0i64; rank];
    let mut pos = 0usize;
    for _ in 0..n {
        out.push(pos);
        for d in (0..rank).rev() {
            idx[d] += 1;
            pos += eff[d];
            if idx[d] < out_shape[d] {
                break;
            }
            pos -= eff[d] * out_shape[d] as usize;
            idx[d] = 0;
        }
    }
    out
}

/// NumPy/PyTorch broadcasting of two shapes.
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Shape, String> {
    let n = a.len().max(b.len());
    let mut out = Shape::with_capacity(n);
    for i in 0..n {
        let da = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let db = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out.push(match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return Err(format!("operands are not broadcast-compatible: {} and {}", fmt_shape(a), fmt_shape(b))),
        });
    }
    Ok(out)
}

/// `[2, 3]`, `[s0, (s0*4)]`.
pub fn fmt_shape(s: &[i64]) -> String {
    let parts: Vec<String> = s.iter().map(|&d| aot_ir::sym::display(d)).collect();
    format!("[{}]", parts.join(", "))
}

/// Reduction over `dims` of a row-major tensor of `shape`: for each input
/// element the index of its output element, the output shape (with or
/// without kept dims) and the number of elements per output.
pub struct Reduction {
    pub map: Vec<usize>,
    pub out_shape: Shape,
    pub out_numel: usize,
    pub group: usize,
}

pub fn reduction(shape: &[i64], dims: &[usize], keepdim: bool) -> Reduction {
    let rank = shape.len();
    let reduced: Vec<bool> = (0..rank).map(|d| dims.contains(&d)).collect();
    let kept_shape: Vec<i64> = (0..rank).map(|d| if reduced[d] { 1 } else { shape[d] }).collect();
    let kept_strides = row_major(&kept_shape);
    let n = numel(shape);
    let mut map = Vec::with_capacity(n);
    let mut idx = vec![0i64; rank];
    for _ in 0..n {
        let mut o = 0;
        for d in 0..rank {
            if !reduced[d] {
                o += idx[d] as usize * kept_strides[d];
            }
        }
        map.push(o);
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    let out_shape: Shape = if keepdim {
        kept_shape.iter().copied().collect()
    } else {
        (0..rank).filter(|&d| !reduced[d]).map(|d| shape[d]).collect()
    };
    let out_numel = numel(&kept_shape);
    let group = n.checked_div(out_numel).unwrap_or(0);
    Reduction { map, out_shape, out_numel, group }
}

/// Normalises a reduction's `dims` attribute (empty = all dims).
pub fn reduce_dims(dims: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    if dims.is_empty() {
        return Ok((0..rank).collect());
    }
    let mut out = Vec::new();
    for &d in dims {
        let n = norm_dim(d, rank, 0)?;
        if out.contains(&n) {
            return Err(format!("dimension {d} appears twice"));
        }
        out.push(n);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_maps_rows_and_columns() {
        assert_eq!(broadcast_map(&[3], &[2, 3]), vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(broadcast_map(&[2, 1], &[2, 3]), vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(broadcast_map(&[], &[2]), vec![0, 0]);
    }

    #[test]
    fn reductions_group_elements() {
        let r = reduction(&[2, 3], &[1], false);
        assert_eq!(r.map, vec![0, 0, 0, 1, 1, 1]);
        assert_eq!(r.out_shape.to_vec(), vec![2]);
        let r = reduction(&[2, 3], &[0], true);
        assert_eq!(r.map, vec![0, 1, 2, 0, 1, 2]);
        assert_eq!(r.out_shape.to_vec(), vec![1, 3]);
        assert_eq!(r.group, 2);
    }
}
