//! Field-by-field comparison of two `aot-run` output files (ours against a
//! PyTorch golden, or eager against compiled), with per-dtype tolerances.
//!
//! Output strides and offsets are compared only for outputs that alias an
//! argument: the contract gives every `tensor.*` result fresh contiguous
//! storage, while PyTorch's elementwise kernels may propagate an input's
//! memory layout; for views the layout is semantics and must match.
//! `args_after` is always compared in full.

use serde_json::Value as Json;

/// What to compare.
#[derive(Clone, Copy, Debug)]
pub struct CompareOptions {
    pub grads: bool,
    /// Tolerance multiplier on top of the per-dtype defaults.
    pub slack: f64,
    /// Compare the layout of every output (two runs of this project agree
    /// on it; against PyTorch only views are compared).
    pub all_layouts: bool,
    /// Accept an output reported in a storage of its own where the
    /// expectation shares another output's (`alias_of_output`): compiled
    /// code, like AOTAutograd, hides the aliasing among views of an
    /// intermediate that do not require grad, and among multi-output views
    /// (docs/calling-convention.md). Never the reverse: outputs sharing a
    /// storage eager keeps apart are wrong answers.
    pub hidden_output_aliasing: bool,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions { grads: true, slack: 1.0, all_layouts: false, hidden_output_aliasing: false }
    }
}

fn tolerance(dtype: &str, grads: bool) -> (f64, f64) {
    // (relative, absolute)
    let (r, a): (f64, f64) = match dtype {
        "f64" => (1e-9, 1e-12),
        "f32" => (1e-5, 1e-6),
        "f16" => (2e-3, 1e-4),
        "bf16" => (1.6e-2, 1e-3),
        _ => (0.0, 0.0),
    };
    if grads {
        // PyTorch accumulates gradients in the tensor's own type: a few
        // roundings of f16/bf16 add up to more than one ulp.
        match dtype {
            "f16" => (1e-2, 1e-3),
            "bf16" => (5e-2, 5e-3),
            _ => (r.max(2e-4), a.max(2e-5)),
        }
    } else {
        (r, a)
    }
}

fn as_f64(v: &Json) -> Option<f64> {
    match v {
        Json::Number(n) => n.as_f64(),
        Json::Bool(b) => Some(*b as i64 as f64),
        Json::String(s) => match s.as_str() {
            "nan" => Some(f64::NAN),
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

fn close(a: f64, b: f64, rtol: f64, atol: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= atol + rtol * b.abs().max(a.abs())
}

fn cmp_data(what: &str, dtype: &str, a: &Json, b: &Json, grads: bool, slack: f64, out: &mut Vec<String>) {
    let (Some(xa), Some(xb)) = (a.as_array(), b.as_array()) else {
        out.push(format!("{what}: data missing"));
        return;
    };
    if xa.len() != xb.len() {
        out.push(format!("{what}: {} values vs {} expected", xa.len(), xb.len()));
        return;
    }
    let (rtol, atol) = tolerance(dtype, grads);
    let mut bad = 0;
    for (i, (p, q)) in xa.iter().zip(xb).enumerate() {
        let (Some(p), Some(q)) = (as_f64(p), as_f64(q)) else {
            out.push(format!("{what}[{i}]: not a number"));
            return;
        };
        if !close(p, q, rtol * slack, atol * slack) {
            if bad < 4 {
                out.push(format!("{what}[{i}]: got {p}, expected {q}"));
            }
            bad += 1;
        }
    }
    if bad > 4 {
        out.push(format!("{what}: {bad} values differ in total"));
    }
}

fn cmp_field(what: &str, key: &str, a: &Json, b: &Json, out: &mut Vec<String>) {
    // An absent field reads as null (a component of a subclass output has
    // no aliasing fields of its own).
    let null = Json::Null;
    if a.get(key).unwrap_or(&null) != b.get(key).unwrap_or(&null) {
        out.push(format!(
            "{what}.{key}: got {}, expected {}",
            a.get(key).unwrap_or(&Json::Null),
            b.get(key).unwrap_or(&Json::Null)
        ));
    }
}

fn cmp_tensor(what: &str, a: &Json, b: &Json, layout: bool, grads: bool, slack: f64, out: &mut Vec<String>) {
    let before = out.len();
    if a.get("subclass").is_some() || b.get("subclass").is_some() {
        // A subclass value: its class and outer type, then each inner tensor.
        for key in ["subclass", "dtype", "shape"] {
            cmp_field(what, key, a, b, out);
        }
        let (ia, ib) = (list(a, "inner"), list(b, "inner"));
        if out.len() == before && ia.len() != ib.len() {
            out.push(format!("{what}: {} inner tensors, expected {}", ia.len(), ib.len()));
        } else if out.len() == before {
            for (j, (x, y)) in ia.iter().zip(ib).enumerate() {
                cmp_tensor(&format!("{what}.inner[{j}]"), x, y, layout, grads, slack, out);
            }
        }
        return;
    }
    for key in ["dtype", "shape"] {
        cmp_field(what, key, a, b, out);
    }
    if layout {
        for key in ["stride", "offset"] {
            cmp_field(what, key, a, b, out);
        }
    }
    if out.len() == before {
        let dtype = b.get("dtype").and_then(|d| d.as_str()).unwrap_or("f32");
        cmp_data(
            what,
            dtype,
            a.get("data").unwrap_or(&Json::Null),
            b.get("data").unwrap_or(&Json::Null),
            grads,
            slack,
            out,
        );
    }
}

fn list<'a>(v: &'a Json, key: &str) -> &'a [Json] {
    v.get(key).and_then(|x| x.as_array()).map(|v| v.as_slice()).unwrap_or(&[])
}

/// Differences between `actual` and `expected` (empty when they agree).
pub fn compare(actual: &Json, expected: &Json, opts: CompareOptions) -> Vec<String> {
    let mut out = Vec::new();
    match (actual.get("error"), expected.get("error")) {
        (Some(_), Some(_)) => return out,
        (None, Some(e)) => return vec![format!("expected an error ({e}), but the run succeeded")],
        (Some(e), None) => return vec![format!("unexpected error: {e}")],
        (None, None) => {}
    }
    let (oa, ob) = (list(actual, "outputs"), list(expected, "outputs"));
    if oa.len() != ob.len() {
        out.push(format!("{} outputs, expected {}", oa.len(), ob.len()));
        return out;
    }
    // The first output of each output's storage, as expected.
    let twin = |o: &Json| o.get("alias_of_output").and_then(|x| x.as_u64()).map(|x| x as usize);
    let group = |k: usize| ob.get(k).and_then(twin).unwrap_or(k);
    for (k, (a, b)) in oa.iter().zip(ob).enumerate() {
        let what = format!("outputs[{k}]");
        cmp_field(&what, "alias_of_arg", a, b, &mut out);
        // Hidden aliasing splits an expected storage: each output may stand
        // alone or share with outputs of its own expected group only.
        let hidden = opts.hidden_output_aliasing && twin(a).is_none_or(|t| group(t) == group(k));
        if !hidden {
            cmp_field(&what, "alias_of_output", a, b, &mut out);
        }
        cmp_field(&what, "requires_grad", a, b, &mut out);
        let is_view = !b.get("alias_of_arg").unwrap_or(&Json::Null).is_null();
        cmp_tensor(&what, a, b, is_view || opts.all_layouts, false, opts.slack, &mut out);
    }
    let (aa, ab) = (list(actual, "args_after"), list(expected, "args_after"));
    if aa.len() != ab.len() {
        out.push(format!("{} args_after, expected {}", aa.len(), ab.len()));
    } else {
        for (i, (a, b)) in aa.iter().zip(ab).enumerate() {
            cmp_tensor(&format!("args_after[{i}]"), a, b, true, false, opts.slack, &mut out);
        }
    }
    if opts.grads {
        for key in ["grads", "storage_grads"] {
            let Some(gb) = expected.get(key).and_then(|g| g.as_array()) else { continue };
            let ga = list(actual, key);
            if ga.len() != gb.len() {
                out.push(format!("{key}: {} entries, expected {}", ga.len(), gb.len()));
                continue;
            }
            for (i, (a, b)) in ga.iter().zip(gb).enumerate() {
                let what = format!("{key}[{i}]");
                match (a.is_null(), b.is_null()) {
                    (true, true) => {}
                    (false, false) => cmp_tensor(&what, a, b, false, true, opts.slack, &mut out),
                    (true, false) => out.push(format!("{what}: missing, expected a gradient")),
                    (false, true) => out.push(format!("{what}: got a gradient, expected null")),
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tolerances_and_layout_rules() {
        let g = json!({"outputs": [{"dtype": "f32", "shape": [2], "stride": [1], "offset": 0, "data": [1.0, "nan"],
                        "requires_grad": false, "alias_of_arg": null}], "args_after": []});
        let mut a = g.clone();
        a["outputs"][0]["data"][0] = json!(1.000001);
        a["outputs"][0]["stride"] = json!([2]);
        assert!(compare(&a, &g, CompareOptions::default()).is_empty());
        a["outputs"][0]["data"][0] = json!(1.1);
        assert_eq!(compare(&a, &g, CompareOptions::default()).len(), 1);
        // Views must match their layout.
        let mut gv = g.clone();
        gv["outputs"][0]["alias_of_arg"] = json!(0);
        let mut av = gv.clone();
        av["outputs"][0]["offset"] = json!(1);
        assert!(compare(&av, &gv, CompareOptions::default())[0].contains("offset"));
    }

    /// Hidden output aliasing may split an expected storage group, never
    /// join outputs across groups; the strict comparison takes neither.
    #[test]
    fn hidden_output_aliasing_splits_groups_only() {
        let out = |twin: Option<u64>| {
            json!({"dtype": "f32", "shape": [1], "stride": [1], "offset": 0, "data": [1.0],
                   "requires_grad": false, "alias_of_arg": null, "alias_of_output": twin})
        };
        let outputs = |t: [Option<u64>; 4]| json!({"outputs": t.map(out), "args_after": []});
        // Expected: outputs 0, 1, 2 in one storage, 3 alone.
        let expected = outputs([None, Some(0), Some(0), None]);
        let hidden = CompareOptions { hidden_output_aliasing: true, ..CompareOptions::default() };
        for split in [[None, None, None, None], [None, None, Some(1), None], [None, Some(0), None, None]] {
            assert!(compare(&outputs(split), &expected, hidden).is_empty(), "{split:?}");
            assert!(!compare(&outputs(split), &expected, CompareOptions::default()).is_empty(), "{split:?}");
        }
        for joined in [[None, Some(0), Some(0), Some(0)], [None, None, None, Some(2)]] {
            assert!(!compare(&outputs(joined), &expected, hidden).is_empty(), "{joined:?}");
        }
    }
}
