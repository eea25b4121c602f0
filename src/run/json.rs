//! The JSON forms of `aot-run` (ir-contract §4): input files, tensors, and
//! the output file.
//!
//! Tensor data is row-major. Floats are JSON numbers, except NaN and ±inf,
//! which are the strings `"nan"`, `"inf"`, `"-inf"`; booleans are `true`/`false`
//! (0/1 accepted on input). Every error names the argument it is about.

use super::RunError;
use aot_ir::ElemType;
use aot_runtime::Tensor;
use serde_json::{json, Map, Value as Json};

/// A storage listed in the input file.
#[derive(Clone, Debug)]
pub struct StorageSpec {
    pub dtype: ElemType,
    pub data: Vec<f64>,
    /// A differentiable base: a leaf that requires grad whose views are the args.
    pub base: bool,
}

/// One argument of the input file.
#[derive(Clone, Debug)]
pub enum ArgSpec {
    /// A tensor with its own contiguous storage.
    Own { dtype: ElemType, shape: Vec<i64>, data: Vec<f64>, requires_grad: bool, non_leaf: bool },
    /// A view of a listed storage.
    View { storage: usize, size: Vec<i64>, stride: Vec<i64>, offset: i64, requires_grad: bool, non_leaf: bool },
    /// The same object as an earlier argument.
    SameAs(usize),
}

/// A parsed input file.
#[derive(Clone, Debug, Default)]
pub struct InputSpec {
    pub storages: Vec<StorageSpec>,
    pub args: Vec<ArgSpec>,
}

/// Tangents for `--grad`: one per output and per autograd-visible mutated arg.
#[derive(Clone, Debug, Default)]
pub struct TangentSpec {
    pub outputs: Vec<Option<Vec<f64>>>,
    pub mutated_args: Vec<Option<Vec<f64>>>,
}

pub fn parse_dtype(s: &str, what: &str) -> Result<ElemType, RunError> {
    ElemType::from_name(s).ok_or_else(|| {
        RunError::input(format!("{what}: unknown dtype '{s}' (expected f32, f64, f16, bf16, i64, i32, i8 or i1)"))
    })
}

fn number(v: &Json, what: &str) -> Result<f64, RunError> {
    match v {
        Json::Number(n) => n.as_f64().ok_or_else(|| RunError::input(format!("{what}: number out of range"))),
        Json::Bool(b) => Ok(*b as i64 as f64),
        Json::String(s) => match s.as_str() {
            "nan" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => Err(RunError::input(format!("{what}: expected a number, got the string \"{s}\""))),
        },
        other => Err(RunError::input(format!("{what}: expected a number, got {other}"))),
    }
}

/// Flattens a (possibly nested) JSON list of numbers.
pub fn data_list(v: &Json, what: &str) -> Result<Vec<f64>, RunError> {
    fn rec(v: &Json, what: &str, out: &mut Vec<f64>) -> Result<(), RunError> {
        match v {
            Json::Array(items) => {
                for x in items {
                    rec(x, what, out)?;
                }
                Ok(())
            }
            other => {
                out.push(number(other, what)?);
                Ok(())
            }
        }
    }
    let mut out = Vec::new();
    rec(v, what, &mut out)?;
    Ok(out)
}

fn int_list(v: Option<&Json>, what: &str) -> Result<Vec<i64>, RunError> {
    let Some(Json::Array(items)) = v else {
        return Err(RunError::input(format!("{what}: expected a list of integers")));
    };
    items
        .iter()
        .map(|x| x.as_i64().ok_or_else(|| RunError::input(format!("{what}: expected a list of integers, found {x}"))))
        .collect()
}

fn flag(o: &Map<String, Json>, key: &str, what: &str) -> Result<bool, RunError> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(false),
        Some(Json::Bool(b)) => Ok(*b),
        Some(other) => Err(RunError::input(format!("{what}: '{key}' must be true or false, got {other}"))),
    }
}

fn check_keys(o: &Map<String, Json>, allowed: &[&str], what: &str) -> Result<(), RunError> {
    for k in o.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(RunError::input(format!("{what}: unknown key '{k}' (allowed: {})", allowed.join(", "))));
        }
    }
    Ok(())
}

/// Parses an input file.
pub fn parse_inputs(text: &str) -> Result<InputSpec, RunError> {
    let root: Json = serde_json::from_str(text).map_err(|e| RunError::input(format!("malformed JSON: {e}")))?;
    let Json::Object(root) = root else {
        return Err(RunError::input("the input file must be a JSON object with 'args'"));
    };
    check_keys(&root, &["storages", "args"], "input file")?;
    let mut spec = InputSpec::default();
    if let Some(st) = root.get("storages") {
        let Json::Array(list) = st else {
            return Err(RunError::input("'storages' must be a list"));
        };
        for (i, s) in list.iter().enumerate() {
            let what = format!("storage {i}");
            let Json::Object(o) = s else {
                return Err(RunError::input(format!("{what}: expected an object")));
            };
            check_keys(o, &["dtype", "data", "base"], &what)?;
            let dtype = parse_dtype(o.get("dtype").and_then(|d| d.as_str()).unwrap_or("f32"), &what)?;
            let data =
                data_list(o.get("data").ok_or_else(|| RunError::input(format!("{what}: missing 'data'")))?, &what)?;
            spec.storages.push(StorageSpec { dtype, data, base: flag(o, "base", &what)? });
        }
    }
    let Some(Json::Array(args)) = root.get("args") else {
        return Err(RunError::input("the input file needs an 'args' list"));
    };
    for (i, a) in args.iter().enumerate() {
        let what = format!("argument {i}");
        let Json::Object(o) = a else {
            return Err(RunError::input(format!("{what}: expected an object")));
        };
        if let Some(k) = o.get("same_as") {
            check_keys(o, &["same_as"], &what)?;
            let k = k.as_u64().ok_or_else(|| RunError::input(format!("{what}: 'same_as' must be an argument index")))?
                as usize;
            if k >= i {
                return Err(RunError::input(format!("{what}: 'same_as' must name an earlier argument, got {k}")));
            }
            // Duplicates point at the original, not at another duplicate.
            let k = match spec.args[k] {
                ArgSpec::SameAs(j) => j,
                _ => k,
            };
            spec.args.push(ArgSpec::SameAs(k));
        } else if let Some(s) = o.get("storage") {
            check_keys(o, &["storage", "size", "stride", "offset", "requires_grad", "non_leaf"], &what)?;
            let storage =
                s.as_u64().ok_or_else(|| RunError::input(format!("{what}: 'storage' must be a storage index")))?
                    as usize;
            if storage >= spec.storages.len() {
                return Err(RunError::input(format!(
                    "{what}: storage {storage} does not exist ({} listed)",
                    spec.storages.len()
                )));
            }
            let size = int_list(o.get("size"), &format!("{what}: 'size'"))?;
            let stride = match o.get("stride") {
                Some(v) => int_list(Some(v), &format!("{what}: 'stride'"))?,
                None => aot_runtime::tensor::contiguous_strides(&size).to_vec(),
            };
            let offset = match o.get("offset") {
                None => 0,
                Some(v) => v.as_i64().ok_or_else(|| RunError::input(format!("{what}: 'offset' must be an integer")))?,
            };
            spec.args.push(ArgSpec::View {
                storage,
                size,
                stride,
                offset,
                requires_grad: flag(o, "requires_grad", &what)?,
                non_leaf: flag(o, "non_leaf", &what)?,
            });
        } else {
            check_keys(o, &["dtype", "shape", "data", "requires_grad", "non_leaf"], &what)?;
            let dtype = parse_dtype(o.get("dtype").and_then(|d| d.as_str()).unwrap_or("f32"), &what)?;
            let shape = int_list(o.get("shape"), &format!("{what}: 'shape'"))?;
            let data =
                data_list(o.get("data").ok_or_else(|| RunError::input(format!("{what}: missing 'data'")))?, &what)?;
            spec.args.push(ArgSpec::Own {
                dtype,
                shape,
                data,
                requires_grad: flag(o, "requires_grad", &what)?,
                non_leaf: flag(o, "non_leaf", &what)?,
            });
        }
    }
    Ok(spec)
}

fn tensor_data(v: &Json, what: &str) -> Result<Option<Vec<f64>>, RunError> {
    match v {
        Json::Null => Ok(None),
        Json::Object(o) => {
            Ok(Some(data_list(o.get("data").ok_or_else(|| RunError::input(format!("{what}: missing 'data'")))?, what)?))
        }
        other => Ok(Some(data_list(other, what)?)),
    }
}

/// Parses a tangent file `{"outputs": [...], "mutated_args": [...]}`.
pub fn parse_tangents(text: &str) -> Result<TangentSpec, RunError> {
    let root: Json =
        serde_json::from_str(text).map_err(|e| RunError::input(format!("tangents: malformed JSON: {e}")))?;
    let Json::Object(o) = root else {
        return Err(RunError::input("tangents: expected an object with 'outputs' and 'mutated_args'"));
    };
    check_keys(&o, &["outputs", "mutated_args"], "tangents")?;
    let mut t = TangentSpec::default();
    for (key, dst) in [("outputs", &mut t.outputs), ("mutated_args", &mut t.mutated_args)] {
        if let Some(v) = o.get(key) {
            let Json::Array(items) = v else {
                return Err(RunError::input(format!("tangents: '{key}' must be a list")));
            };
            for (i, x) in items.iter().enumerate() {
                dst.push(tensor_data(x, &format!("tangents: {key}[{i}]"))?);
            }
        }
    }
    Ok(t)
}

fn json_number(x: f64) -> Json {
    if x.is_nan() {
        json!("nan")
    } else if x.is_infinite() {
        json!(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        json!(x)
    }
}

/// The row-major values of a tensor as JSON.
pub fn data_json(t: &Tensor) -> Json {
    let e = t.dtype();
    if e.is_float() {
        Json::Array(t.read_f64().into_iter().map(json_number).collect())
    } else if e.is_bool() {
        Json::Array(t.read_i64().into_iter().map(|x| json!(x != 0)).collect())
    } else {
        Json::Array(t.read_i64().into_iter().map(|x| json!(x)).collect())
    }
}

/// `{dtype, shape, stride, offset, data}` of a tensor.
pub fn tensor_json(t: &Tensor) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("dtype".into(), json!(t.dtype().name()));
    m.insert("shape".into(), json!(t.sizes().to_vec()));
    m.insert("stride".into(), json!(t.strides().to_vec()));
    m.insert("offset".into(), json!(t.offset()));
    m.insert("data".into(), data_json(t));
    m
}

/// `{dtype, shape, data}` of a gradient.
pub fn grad_json(dtype: ElemType, shape: &[i64], data: &[f64]) -> Json {
    json!({
        "dtype": dtype.name(),
        "shape": shape,
        "data": data.iter().map(|&x| json_number(aot_runtime::buffer::round_to(dtype, x))).collect::<Vec<_>>(),
    })
}
