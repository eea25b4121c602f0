//! Property: a random chain of view ops reads and writes exactly the
//! elements an independent index-map model predicts.
//!
//! The model never looks at strides: each view is a map from an output
//! multi-index to an input multi-index (transpose swaps, slice scales and
//! shifts, select inserts, reshape re-ravels, ...). The interpreter, which
//! computes strides and offsets with the view dialect's layout rules, must
//! agree with the composition of those maps, for reads and for writes
//! (`mut.copy_` through the final view).

use aot_ir::{parse_module, verify, Context, ElemType, ParseOptions};
use aot_runtime::{Interpreter, Tensor};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum V {
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Slice { dim: usize, start: i64, step: i64, len: i64 },
    Select(usize, i64),
    Unsqueeze(usize),
    Squeeze(usize),
    Diagonal { offset: i64, d1: usize, d2: usize, len: i64 },
    Reshape(Vec<i64>),
    Expand(Vec<i64>),
}

fn ravel(idx: &[i64], shape: &[i64]) -> i64 {
    idx.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

fn unravel(mut lin: i64, shape: &[i64]) -> Vec<i64> {
    let mut out = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        out[d] = lin % shape[d];
        lin /= shape[d];
    }
    out
}

/// Output shape of `v` on `shape`.
fn out_shape(v: &V, shape: &[i64]) -> Vec<i64> {
    let mut s = shape.to_vec();
    match v {
        V::Transpose(a, b) => s.swap(*a, *b),
        V::Permute(p) => s = p.iter().map(|&i| shape[i]).collect(),
        V::Slice { dim, len, .. } => s[*dim] = *len,
        V::Select(d, _) => {
            s.remove(*d);
        }
        V::Unsqueeze(d) => s.insert(*d, 1),
        V::Squeeze(d) => {
            s.remove(*d);
        }
        V::Diagonal { d1, d2, len, .. } => {
            s = (0..shape.len()).filter(|i| i != d1 && i != d2).map(|i| shape[i]).collect();
            s.push(*len);
        }
        V::Reshape(n) | V::Expand(n) => s = n.clone(),
    }
    s
}

/// The input multi-index an output multi-index of `v` reads.
fn back(v: &V, out: &[i64], in_shape: &[i64], out_shape: &[i64]) -> Vec<i64> {
    let mut i = out.to_vec();
    match v {
        V::Transpose(a, b) => i.swap(*a, *b),
        V::Permute(p) => {
            let mut r = vec![0; p.len()];
            for (k, &d) in p.iter().enumerate() {
                r[d] = out[k];
            }
            i = r;
        }
        V::Slice { dim, start, step, .. } => i[*dim] = start + out[*dim] * step,
        V::Select(d, idx) => i.insert(*d, *idx),
        V::Unsqueeze(d) => {
            i.remove(*d);
        }
        V::Squeeze(d) => i.insert(*d, 0),
        V::Diagonal { offset, d1, d2, .. } => {
            let k = *out.last().unwrap();
            let rest = &out[..out.len() - 1];
            let mut r = Vec::new();
            let mut it = rest.iter();
            for d in 0..in_shape.len() {
                if d == *d1 {
                    r.push(k + (-offset).max(0));
                } else if d == *d2 {
                    r.push(k + (*offset).max(0));
                } else {
                    r.push(*it.next().unwrap());
                }
            }
            i = r;
        }
        V::Reshape(_) => i = unravel(ravel(out, out_shape), in_shape),
        V::Expand(_) => {
            let lead = out.len() - in_shape.len();
            i = (0..in_shape.len()).map(|d| if in_shape[d] == 1 { 0 } else { out[d + lead] }).collect();
        }
    }
    i
}

fn text(v: &V) -> String {
    let list = |xs: &[i64]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    match v {
        V::Transpose(a, b) => format!("view.transpose {{dim0 = {a}, dim1 = {b}}}"),
        V::Permute(p) => {
            format!("view.permute {{dims = [{}]}}", list(&p.iter().map(|&x| x as i64).collect::<Vec<_>>()))
        }
        V::Slice { dim, start, step, len } => {
            format!("view.slice {{dim = {dim}, start = {start}, end = {}, step = {step}}}", start + len * step)
        }
        V::Select(d, i) => format!("view.select {{dim = {d}, index = {i}}}"),
        V::Unsqueeze(d) => format!("view.unsqueeze {{dim = {d}}}"),
        V::Squeeze(d) => format!("view.squeeze {{dim = {d}}}"),
        V::Diagonal { offset, d1, d2, .. } => format!("view.diagonal {{offset = {offset}, dim1 = {d1}, dim2 = {d2}}}"),
        V::Reshape(n) => format!("view.reshape {{shape = [{}]}}", list(n)),
        V::Expand(n) => format!("view.expand {{shape = [{}]}}", list(n)),
    }
}

fn ty(shape: &[i64]) -> String {
    let dims: String = shape.iter().map(|d| format!("{d}x")).collect();
    format!("tensor<{dims}f32>")
}

/// Picks a valid view for `shape` from a random word.
fn pick(shape: &[i64], r: &mut impl FnMut(u64) -> u64, allow_expand: bool) -> Option<V> {
    let rank = shape.len();
    let choice = r(9);
    Some(match choice {
        0 if rank >= 2 => V::Transpose(r(rank as u64) as usize, r(rank as u64) as usize),
        1 if rank >= 2 => {
            let mut p: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                p.swap(i, r(i as u64 + 1) as usize);
            }
            V::Permute(p)
        }
        2 if rank >= 1 => {
            let dim = r(rank as u64) as usize;
            let n = shape[dim];
            if n == 0 {
                return None;
            }
            let start = r(n as u64) as i64;
            let step = 1 + r(2) as i64;
            let max_len = (n - start + step - 1) / step;
            V::Slice { dim, start, step, len: 1 + r(max_len as u64) as i64 }
        }
        3 if rank >= 2 => {
            let d = r(rank as u64) as usize;
            V::Select(d, r(shape[d] as u64) as i64)
        }
        4 if rank < 4 => V::Unsqueeze(r(rank as u64 + 1) as usize),
        5 => {
            let ones: Vec<usize> = (0..rank).filter(|&d| shape[d] == 1).collect();
            if ones.is_empty() || rank == 1 {
                return None;
            }
            V::Squeeze(ones[r(ones.len() as u64) as usize])
        }
        6 if rank >= 2 => {
            let d1 = r(rank as u64) as usize;
            let d2 = (d1 + 1 + r(rank as u64 - 1) as usize) % rank;
            let offset = r(3) as i64 - 1;
            let len = if offset >= 0 { shape[d1].min(shape[d2] - offset) } else { (shape[d1] + offset).min(shape[d2]) };
            if len <= 0 {
                return None;
            }
            V::Diagonal { offset, d1, d2, len }
        }
        7 => {
            let n: i64 = shape.iter().product();
            // Split the element count into 1-3 factors.
            let mut dims = vec![];
            let mut left = n;
            for f in [2, 3] {
                if left % f == 0 && r(2) == 0 {
                    dims.push(f);
                    left /= f;
                }
            }
            dims.push(left);
            V::Reshape(dims)
        }
        8 if allow_expand && rank < 4 => {
            let mut n: Vec<i64> = shape.iter().map(|&d| if d == 1 { 1 + r(3) as i64 } else { d }).collect();
            if r(2) == 0 {
                n.insert(0, 2);
            }
            V::Expand(n)
        }
        _ => return None,
    })
}

fn run(src: &str, base: &[f64], shape: &[i64], extra: Option<&[f64]>, extra_shape: &[i64]) -> Vec<Tensor> {
    let mut ctx = Context::new();
    let m = parse_module(&mut ctx, src, &ParseOptions { file: "chain".into(), first_line: 1 })
        .unwrap_or_else(|d| panic!("{}\n{src}", d.message));
    verify(&ctx, m).unwrap_or_else(|d| panic!("{}\n{src}", d[0].message));
    let f = aot_dialects::func::entry_func(&ctx, m, None).unwrap().op;
    let mut args = vec![Tensor::from_f64(ElemType::F32, shape, base, ElemType::F32)];
    if let Some(v) = extra {
        args.push(Tensor::from_f64(ElemType::F32, extra_shape, v, ElemType::F32));
    }
    let mut interp = Interpreter::new(&ctx);
    let out = interp.call(f, &args).unwrap_or_else(|d| panic!("{}\n{src}", d.message));
    let mut all = args;
    all.extend(out);
    all
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn view_chains_match_index_maps(seed in any::<u64>(), rank in 1usize..4, steps in 1usize..6, write in any::<bool>()) {
        aot_dialects::link();
        let mut state = seed | 1;
        let mut r = |n: u64| -> u64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            if n == 0 { 0 } else { state % n }
        };
        let shape: Vec<i64> = (0..rank).map(|_| 1 + r(4) as i64).collect();
        let numel: i64 = shape.iter().product();
        let base: Vec<f64> = (0..numel).map(|i| i as f64 + 0.5).collect();

        // Build a chain (no expand when we write through it).
        let mut chain = Vec::new();
        let mut shapes = vec![shape.clone()];
        for _ in 0..steps * 3 {
            if chain.len() == steps { break; }
            let cur = shapes.last().unwrap().clone();
            if let Some(v) = pick(&cur, &mut r, !write) {
                // Reshape only when it is a view (the model is exact then,
                // and the interpreter's copy path is tested elsewhere).
                let next = out_shape(&v, &cur);
                if matches!(v, V::Transpose(a, b) if a == b) { continue; }
                chain.push(v);
                shapes.push(next);
            }
        }
        prop_assume!(!chain.is_empty());
        let final_shape = shapes.last().unwrap().clone();
        let mut body = String::new();
        let mut prev = "%x".to_string();
        for (k, v) in chain.iter().enumerate() {
            body.push_str(&format!("  %v{k} = {} : {} -> {}\n", text(v).replacen(' ', &format!(" {prev} "), 1), ty(&shapes[k]), ty(&shapes[k + 1])));
            prev = format!("%v{k}");
        }
        let n_out: i64 = final_shape.iter().product();

        // Model: storage index of each element of the final view.
        let model: Vec<i64> = (0..n_out).map(|lin| {
            let mut idx = unravel(lin, &final_shape);
            for k in (0..chain.len()).rev() {
                idx = back(&chain[k], &idx, &shapes[k], &shapes[k + 1]);
            }
            ravel(&idx, &shape)
        }).collect();

        let is_view_chain = !chain.iter().any(|v| matches!(v, V::Reshape(_)));
        if !write {
            let src = format!("func.func @main(%x: {}) -> {} {{\n{body}  return {prev} : {}\n}}\n", ty(&shape), ty(&final_shape), ty(&final_shape));
            let out = run(&src, &base, &shape, None, &[]);
            let got = out[1].read_f64();
            let want: Vec<f64> = model.iter().map(|&i| base[i as usize]).collect();
            prop_assert_eq!(got, want, "reads differ for chain {:?}", chain);
        } else {
            prop_assume!(is_view_chain);
            let src_vals: Vec<f64> = (0..n_out).map(|i| -(i as f64) - 1.0).collect();
            let src = format!(
                "func.func @main(%x: {}, %s: {}) {{\n{body}  mut.copy_ {prev}, %s : {}\n  return\n}}\n",
                ty(&shape), ty(&final_shape), ty(&final_shape)
            );
            let out = run(&src, &base, &shape, Some(&src_vals), &final_shape);
            let got = out[0].read_f64();
            let mut want = base.clone();
            for (k, &i) in model.iter().enumerate() {
                want[i as usize] = src_vals[k];
            }
            prop_assert_eq!(got, want, "writes differ for chain {:?}", chain);
        }
    }
}
