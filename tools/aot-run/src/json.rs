//! The JSON forms of `aot-run` (`docs/reference/json.md`): input files,
//! tangent files, tensors, and the output file.
//!
//! Tensor data is row-major: a flat list, or a nested list whose nesting is
//! exactly the tensor's shape (never ragged). Floats are JSON numbers, except
//! NaN and ±inf, which are the strings `"nan"`, `"inf"`, `"-inf"`; integers
//! are read and written exactly (an `i64` never passes through `f64`) and
//! must be integral and in range of their dtype; booleans are `true`/`false`
//! (0/1 accepted on input). Unknown keys are errors, so a misspelt key never
//! silently means its default. Every error names the entry it is about
//! (`argument 1: 'data': ragged nested list`, `tangents.outputs[0]: ...`).

use crate::RunError;
use aot_ir::size::{check_alloc, check_alloc_shape, checked_extent, checked_numel};
use aot_ir::{Context, ElemType, Op};
use aot_passes::convention::{ArgConvention, ArgLayout, Convention, StorageDecl};
use aot_runtime::Tensor;
use serde_json::{json, Map, Value as Json};

/// The element values of an input: exact integers for integer and boolean
/// dtypes, `f64` for floats. Code that builds a spec may give `f64` values
/// for an integer dtype; they are checked to be integral when the tensor is
/// built.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Float(v) => v.len(),
            Values::Int(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` as `f64` (exact for floats and for integers up to 2⁵³).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Values::Float(v) => v[i],
            Values::Int(v) => v[i] as f64,
        }
    }

    /// Sets value `i` (finite differences perturb float values; integer
    /// values given for a float tensor become floats first).
    pub fn set_f64(&mut self, i: usize, x: f64) {
        if let Values::Int(v) = self {
            *self = Values::Float(v.iter().map(|&y| y as f64).collect());
        }
        if let Values::Float(v) = self {
            v[i] = x;
        }
    }

    /// The values in the JSON data form.
    pub fn to_json(&self) -> Json {
        match self {
            Values::Float(v) => Json::Array(v.iter().map(|&x| json_number(x)).collect()),
            Values::Int(v) => json!(v),
        }
    }
}

impl From<Vec<f64>> for Values {
    fn from(v: Vec<f64>) -> Values {
        Values::Float(v)
    }
}

impl From<Vec<i64>> for Values {
    fn from(v: Vec<i64>) -> Values {
        Values::Int(v)
    }
}

impl FromIterator<f64> for Values {
    fn from_iter<I: IntoIterator<Item = f64>>(iter: I) -> Values {
        Values::Float(iter.into_iter().collect())
    }
}

/// A storage listed in the input file.
#[derive(Clone, Debug)]
pub struct StorageSpec {
    pub dtype: ElemType,
    pub data: Values,
    /// A differentiable base: a leaf that requires grad whose views are the args.
    pub base: bool,
}

/// One argument of the input file.
#[derive(Clone, Debug)]
pub enum ArgSpec {
    /// A tensor with its own contiguous storage.
    Own { dtype: ElemType, shape: Vec<i64>, data: Values, requires_grad: bool, non_leaf: bool },
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

impl InputSpec {
    /// The calling convention of this input file for `func`: what the
    /// compiler specialises it to (the argument types are `func`'s; the
    /// values are checked against them when the inputs are made).
    pub fn convention(&self, ctx: &Context, func: Op) -> Result<Convention, String> {
        let f = aot_dialects::func::FuncView::new(ctx, func).ok_or("the entry is not a function")?;
        let (inputs, _) = f.function_type(ctx);
        if self.args.len() != inputs.len() {
            return Err(format!(
                "the function takes {} arguments but the input file gives {}",
                inputs.len(),
                self.args.len()
            ));
        }
        let args = self
            .args
            .iter()
            .zip(inputs)
            .map(|(a, ty)| match a {
                ArgSpec::SameAs(k) => {
                    ArgConvention { ty, requires_grad: false, non_leaf: false, same_as: Some(*k), layout: None }
                }
                ArgSpec::Own { requires_grad, non_leaf, .. } => ArgConvention {
                    ty,
                    requires_grad: *requires_grad,
                    non_leaf: *non_leaf,
                    same_as: None,
                    layout: None,
                },
                ArgSpec::View { storage, stride, offset, requires_grad, non_leaf, .. } => ArgConvention {
                    ty,
                    requires_grad: *requires_grad,
                    // (A view's own flag counts only where it requires grad
                    // itself: a differentiable base's views take the base's.)
                    non_leaf: *requires_grad && *non_leaf,
                    same_as: None,
                    layout: Some(ArgLayout { storage: *storage as i64, offset: *offset, strides: stride.clone() }),
                },
            })
            .collect();
        let storages = self
            .storages
            .iter()
            .enumerate()
            .map(|(s, st)| StorageDecl { id: s as i64, numel: Some(st.data.len() as i64), requires_grad: st.base })
            .collect();
        let mut c = Convention { args, storages };
        let sizes: Vec<Vec<i64>> = self
            .args
            .iter()
            .map(|a| match a {
                ArgSpec::Own { shape, .. } => shape.clone(),
                ArgSpec::View { size, .. } => size.clone(),
                ArgSpec::SameAs(_) => Vec::new(),
            })
            .collect();
        c.generalize_layouts(ctx, &sizes);
        Ok(c)
    }
}

/// What a tangent entry says about itself besides its values: its `dtype`
/// and its shape (the `shape` key, or the nesting of its data), checked
/// against the tensor it is the tangent of.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TangentForm {
    pub dtype: Option<ElemType>,
    pub shape: Option<Vec<i64>>,
}

/// Tangents for `--grad`: one per output (null for an output that takes no
/// part in the gradient) and one per argument whose data mutation autograd
/// sees. Missing trailing entries are all ones.
#[derive(Clone, Debug, Default)]
pub struct TangentSpec {
    pub outputs: Vec<Option<Vec<f64>>>,
    pub mutated_args: Vec<Option<Vec<f64>>>,
    /// Parallel to `outputs` (may be shorter: no declaration).
    pub output_forms: Vec<TangentForm>,
    /// Parallel to `mutated_args` (may be shorter: no declaration).
    pub mutated_forms: Vec<TangentForm>,
}

/// The tensor a tangent entry belongs to.
#[derive(Clone, Copy, Debug)]
pub struct TangentTarget<'a> {
    pub dtype: ElemType,
    pub shape: &'a [i64],
    /// Whether it takes part in the gradient (else its tangent is unused).
    pub differentiable: bool,
}

impl TangentSpec {
    /// Checks that the file has no more entries than there are outputs and
    /// autograd-visible mutated arguments.
    pub fn check_counts(&self, outputs: usize, mutated: usize) -> Result<(), RunError> {
        if self.outputs.len() > outputs {
            return Err(RunError::input(format!(
                "tangents.outputs: {} entr{}, but the function has {outputs} output{}",
                self.outputs.len(),
                if self.outputs.len() == 1 { "y" } else { "ies" },
                if outputs == 1 { "" } else { "s" }
            )));
        }
        if self.mutated_args.len() > mutated {
            return Err(RunError::input(format!(
                "tangents.mutated_args: {} entr{}, but the call mutates {mutated} argument{} that autograd sees",
                self.mutated_args.len(),
                if self.mutated_args.len() == 1 { "y" } else { "ies" },
                if mutated == 1 { "" } else { "s" }
            )));
        }
        Ok(())
    }

    /// The tangent of output `k` (all ones when not given); `None` when the
    /// output takes no part in the gradient.
    pub fn output(&self, k: usize, target: TangentTarget<'_>) -> Result<Option<Vec<f64>>, RunError> {
        resolve(&self.outputs, &self.output_forms, "outputs", k, target)
    }

    /// The tangent of the `j`-th autograd-visible mutated argument.
    pub fn mutated(&self, j: usize, target: TangentTarget<'_>) -> Result<Option<Vec<f64>>, RunError> {
        resolve(&self.mutated_args, &self.mutated_forms, "mutated_args", j, target)
    }
}

fn resolve(
    list: &[Option<Vec<f64>>],
    forms: &[TangentForm],
    key: &str,
    i: usize,
    target: TangentTarget<'_>,
) -> Result<Option<Vec<f64>>, RunError> {
    let what = format!("tangents.{key}[{i}]");
    let n = checked_numel(target.shape).ok_or_else(|| {
        RunError::input(format!("{what}: the tensor's shape {:?} has no element count", target.shape))
    })?;
    let data = match list.get(i) {
        None => {
            if !target.differentiable {
                return Ok(None);
            }
            check_alloc(n as u64, 8, &what).map_err(|e| RunError::input(e.to_string()))?;
            return Ok(Some(vec![1.0; n as usize]));
        }
        Some(None) if target.differentiable => {
            return Err(RunError::input(format!("{what}: null, but this tensor takes part in the gradient")))
        }
        Some(None) => return Ok(None),
        Some(Some(d)) => d,
    };
    let form = forms.get(i).cloned().unwrap_or_default();
    if let Some(d) = form.dtype {
        if d != target.dtype {
            return Err(RunError::input(format!("{what}: dtype {d}, but the tensor is {}", target.dtype)));
        }
    }
    if let Some(s) = &form.shape {
        if s[..] != target.shape[..] {
            return Err(RunError::input(format!("{what}: shape {s:?}, but the tensor has shape {:?}", target.shape)));
        }
    }
    if data.len() as u64 != n as u64 {
        return Err(RunError::input(format!("{what}: expected {n} values, got {}", data.len())));
    }
    Ok(target.differentiable.then(|| data.clone()))
}

pub fn parse_dtype(s: &str, what: &str) -> Result<ElemType, RunError> {
    ElemType::from_name(s).ok_or_else(|| {
        RunError::input(format!("{what}: unknown dtype '{s}' (expected f32, f64, f16, bf16, i64, i32, i8 or i1)"))
    })
}

fn float_value(v: &Json, what: &str, i: usize) -> Result<f64, RunError> {
    match v {
        Json::Number(n) => n.as_f64().ok_or_else(|| RunError::input(format!("{what}: value {n} is out of range"))),
        Json::Bool(b) => Ok(*b as i64 as f64),
        Json::String(s) => match s.as_str() {
            "nan" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => Err(RunError::input(format!("{what}: expected a number at index {i}, got the string \"{s}\""))),
        },
        other => Err(RunError::input(format!("{what}: expected a number at index {i}, got {other}"))),
    }
}

/// The range of an integer dtype.
pub(crate) fn int_range(dtype: ElemType) -> (i64, i64) {
    match dtype {
        ElemType::I1 => (0, 1),
        ElemType::I8 => (i8::MIN as i64, i8::MAX as i64),
        ElemType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    }
}

fn int_value(v: &Json, dtype: ElemType, what: &str, i: usize) -> Result<i64, RunError> {
    let bad = |shown: &dyn std::fmt::Display| {
        RunError::input(format!("{what}: value {shown} at index {i} is not a valid {dtype}"))
    };
    let x = match v {
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(x), _) => x,
            // Beyond i64 (a u64), or written with a fraction or exponent:
            // only an integral value in range is accepted.
            (None, Some(f)) if n.is_f64() && f.fract() == 0.0 && f >= -(2f64.powi(63)) && f < 2f64.powi(63) => f as i64,
            _ => return Err(bad(n)),
        },
        Json::Bool(b) => *b as i64,
        Json::String(s) => return Err(bad(&format!("\"{s}\""))),
        other => return Err(RunError::input(format!("{what}: expected an integer at index {i}, got {other}"))),
    };
    let (lo, hi) = int_range(dtype);
    if x < lo || x > hi {
        return Err(bad(&x));
    }
    Ok(x)
}

/// The shape of a nested list and its leaves in row-major order; a ragged
/// list (sublists of different lengths, or lists mixed with numbers) is an
/// error. A bare number is a 0-d value.
fn nested<'a>(v: &'a Json, what: &str) -> Result<(Vec<i64>, Vec<&'a Json>), RunError> {
    // The shape is read along the first elements, then every branch must match it.
    let mut dims = Vec::new();
    let mut at = v;
    while let Json::Array(items) = at {
        dims.push(items.len() as i64);
        match items.first() {
            Some(first) => at = first,
            None => break,
        }
    }
    fn walk<'a>(v: &'a Json, dims: &[i64], out: &mut Vec<&'a Json>) -> bool {
        match (v, dims.split_first()) {
            (Json::Array(items), Some((&n, rest))) => {
                items.len() as i64 == n && items.iter().all(|x| walk(x, rest, out))
            }
            (Json::Array(_), None) => false,
            (_, Some(_)) => false,
            (leaf, None) => {
                out.push(leaf);
                true
            }
        }
    }
    let mut leaves = Vec::new();
    if !walk(v, &dims, &mut leaves) {
        return Err(RunError::input(format!("{what}: ragged nested list")));
    }
    Ok((dims, leaves))
}

/// Parses tensor data for `dtype`: the values and the nesting shape.
pub fn parse_values(v: &Json, dtype: ElemType, what: &str) -> Result<(Values, Vec<i64>), RunError> {
    let (dims, leaves) = nested(v, what)?;
    let values = if dtype.is_float() {
        Values::Float(leaves.iter().enumerate().map(|(i, x)| float_value(x, what, i)).collect::<Result<_, _>>()?)
    } else {
        Values::Int(leaves.iter().enumerate().map(|(i, x)| int_value(x, dtype, what, i)).collect::<Result<_, _>>()?)
    };
    Ok((values, dims))
}

/// Checks data of nesting `dims` with `count` values against `shape`: a
/// flat list (or a bare number) must have the shape's element count, a
/// nested list must have exactly the shape.
fn check_data_shape(dims: &[i64], count: usize, shape: &[i64], what: &str) -> Result<(), RunError> {
    if shape.iter().any(|&d| d < 0) {
        return Err(RunError::input(format!("{what}: negative size in shape {shape:?}")));
    }
    let n = checked_numel(shape)
        .ok_or_else(|| RunError::input(format!("{what}: the element count of shape {shape:?} overflows")))?;
    if dims.len() > 1 && dims != shape {
        return Err(RunError::input(format!(
            "{what}: 'data' is a nested list of shape {dims:?}, but the shape is {shape:?}"
        )));
    }
    if count as u64 != n as u64 {
        return Err(RunError::input(format!("{what}: 'data' has {count} values but shape {shape:?} needs {n}")));
    }
    Ok(())
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

fn flag(o: &Map<String, Json>, key: &str, what: &str) -> Result<Option<bool>, RunError> {
    match o.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::Bool(b)) => Ok(Some(*b)),
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

/// Checks that a view stays inside its storage of `len` elements, with
/// checked arithmetic: sizes, strides and offsets come from the file.
pub fn check_view(size: &[i64], stride: &[i64], offset: i64, len: usize, what: &str) -> Result<(), RunError> {
    if size.len() != stride.len() {
        return Err(RunError::input(format!("{what}: {} sizes but {} strides", size.len(), stride.len())));
    }
    if size.iter().any(|&s| s < 0) {
        return Err(RunError::input(format!("{what}: negative size in {size:?}")));
    }
    if stride.iter().any(|&s| s < 0) {
        return Err(RunError::input(format!("{what}: negative stride in {stride:?}")));
    }
    if offset < 0 {
        return Err(RunError::input(format!("{what}: negative storage offset {offset}")));
    }
    let empty = size.contains(&0);
    if !empty && checked_numel(size).is_none() {
        return Err(RunError::input(format!("{what}: the element count of size {size:?} overflows")));
    }
    let (_, hi) = checked_extent(size, stride, offset).ok_or_else(|| {
        RunError::input(format!(
            "{what}: a view with size {size:?}, stride {stride:?} and offset {offset} overflows a 64-bit index"
        ))
    })?;
    if !empty && hi as u64 > len as u64 {
        return Err(RunError::input(format!(
            "{what}: a view with size {size:?}, stride {stride:?} and offset {offset} reaches element {}, outside its storage of {len} elements",
            hi - 1
        )));
    }
    Ok(())
}

fn read_root(text: &str, what: &str) -> Result<Map<String, Json>, RunError> {
    let root: Json = serde_json::from_str(text).map_err(|e| RunError::input(format!("{what}malformed JSON: {e}")))?;
    match root {
        Json::Object(o) => Ok(o),
        _ => Err(RunError::input(format!("{what}expected a JSON object"))),
    }
}

/// Parses an input file (no defaults from the function's attributes).
pub fn parse_inputs(text: &str) -> Result<InputSpec, RunError> {
    parse_inputs_for(text, &[])
}

/// Parses an input file for a function whose argument `i` carries
/// `{aot.requires_grad}` iff `requires_grad[i]`: the attribute is the
/// default of the argument's `"requires_grad"`, and an explicit `false`
/// that contradicts it is an error naming the argument.
pub fn parse_inputs_for(text: &str, requires_grad: &[bool]) -> Result<InputSpec, RunError> {
    let root = read_root(text, "")?;
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
            let raw = o.get("data").ok_or_else(|| RunError::input(format!("{what}: missing 'data'")))?;
            let (data, dims) = parse_values(raw, dtype, &format!("{what}: 'data'"))?;
            if dims.len() > 1 {
                return Err(RunError::input(format!("{what}: 'data' must be a flat list (a storage is 1-D)")));
            }
            spec.storages.push(StorageSpec { dtype, data, base: flag(o, "base", &what)?.unwrap_or(false) });
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
        let ir_rg = requires_grad.get(i).copied().unwrap_or(false);
        // The attribute is the default; only an explicit `false` conflicts.
        let rg = |o: &Map<String, Json>| -> Result<Option<bool>, RunError> {
            let given = flag(o, "requires_grad", &what)?;
            if ir_rg && given == Some(false) {
                return Err(RunError::input(format!(
                    "{what}: \"requires_grad\": false conflicts with the function's {{aot.requires_grad}} on this argument"
                )));
            }
            Ok(given)
        };
        if let Some(k) = o.get("same_as") {
            check_keys(o, &["same_as"], &what)?;
            let k =
                k.as_u64().ok_or_else(|| RunError::input(format!("{what}: 'same_as' must be an argument index")))?;
            if k >= i as u64 {
                return Err(RunError::input(format!("{what}: 'same_as' must name an earlier argument, got {k}")));
            }
            // Duplicates point at the original, not at another duplicate.
            let k = match spec.args[k as usize] {
                ArgSpec::SameAs(j) => j,
                _ => k as usize,
            };
            spec.args.push(ArgSpec::SameAs(k));
        } else if let Some(s) = o.get("storage") {
            check_keys(o, &["storage", "size", "stride", "offset", "requires_grad", "non_leaf"], &what)?;
            let storage =
                s.as_u64().ok_or_else(|| RunError::input(format!("{what}: 'storage' must be a storage index")))?;
            let st = usize::try_from(storage).ok().and_then(|s| spec.storages.get(s)).ok_or_else(|| {
                RunError::input(format!("{what}: storage {storage} does not exist ({} listed)", spec.storages.len()))
            })?;
            let size = int_list(o.get("size"), &format!("{what}: 'size'"))?;
            let stride = match o.get("stride") {
                Some(v) => int_list(Some(v), &format!("{what}: 'stride'"))?,
                None => {
                    if size.iter().any(|&d| d < 0) {
                        return Err(RunError::input(format!("{what}: negative size in {size:?}")));
                    }
                    aot_ir::size::checked_contiguous_strides(&size).ok_or_else(|| {
                        RunError::input(format!("{what}: the contiguous strides of size {size:?} overflow"))
                    })?
                }
            };
            let offset = match o.get("offset") {
                None => 0,
                Some(v) => v.as_i64().ok_or_else(|| RunError::input(format!("{what}: 'offset' must be an integer")))?,
            };
            check_view(&size, &stride, offset, st.data.len(), &what)?;
            // A view of a differentiable base gets its autograd state from the base.
            let requires_grad = rg(o)?.unwrap_or(ir_rg && !st.base && st.dtype.is_float());
            spec.args.push(ArgSpec::View {
                storage: storage as usize,
                size,
                stride,
                offset,
                requires_grad,
                non_leaf: flag(o, "non_leaf", &what)?.unwrap_or(false),
            });
        } else {
            check_keys(o, &["dtype", "shape", "data", "requires_grad", "non_leaf"], &what)?;
            let dtype = parse_dtype(o.get("dtype").and_then(|d| d.as_str()).unwrap_or("f32"), &what)?;
            let shape = int_list(o.get("shape"), &format!("{what}: 'shape'"))?;
            let raw = o.get("data").ok_or_else(|| RunError::input(format!("{what}: missing 'data'")))?;
            let (data, dims) = parse_values(raw, dtype, &format!("{what}: 'data'"))?;
            check_data_shape(&dims, data.len(), &shape, &what)?;
            let requires_grad = rg(o)?.unwrap_or(ir_rg && dtype.is_float());
            spec.args.push(ArgSpec::Own {
                dtype,
                shape,
                data,
                requires_grad,
                non_leaf: flag(o, "non_leaf", &what)?.unwrap_or(false),
            });
        }
    }
    Ok(spec)
}

/// One tangent entry: null, a bare list of values (flat or nested), a bare
/// number (0-d), or `{dtype, shape, data}`.
fn tangent_entry(v: &Json, what: &str) -> Result<(Option<Vec<f64>>, TangentForm), RunError> {
    let floats = |raw: &Json| -> Result<(Vec<f64>, Vec<i64>), RunError> {
        let (values, dims) = parse_values(raw, ElemType::F64, what)?;
        match values {
            Values::Float(v) => Ok((v, dims)),
            Values::Int(_) => Err(RunError::input(format!("{what}: expected float values"))),
        }
    };
    match v {
        Json::Null => Ok((None, TangentForm::default())),
        Json::Object(o) => {
            check_keys(o, &["dtype", "shape", "data"], what)?;
            let dtype = match o.get("dtype") {
                None => None,
                Some(Json::String(s)) => Some(parse_dtype(s, what)?),
                Some(other) => return Err(RunError::input(format!("{what}: 'dtype' must be a string, got {other}"))),
            };
            let raw = o.get("data").ok_or_else(|| RunError::input(format!("{what}: missing 'data'")))?;
            let (data, dims) = floats(raw)?;
            let shape = match o.get("shape") {
                None => (dims.len() > 1).then_some(dims),
                Some(s) => {
                    let shape = int_list(Some(s), &format!("{what}: 'shape'"))?;
                    check_data_shape(&dims, data.len(), &shape, what)?;
                    Some(shape)
                }
            };
            Ok((Some(data), TangentForm { dtype, shape }))
        }
        Json::Array(_) | Json::Number(_) => {
            let (data, dims) = floats(v)?;
            Ok((Some(data), TangentForm { dtype: None, shape: (dims.len() != 1).then_some(dims) }))
        }
        other => {
            Err(RunError::input(format!("{what}: expected a tensor object, a list of values or null, got {other}")))
        }
    }
}

/// Parses a tangent file `{"outputs": [...], "mutated_args": [...]}`.
pub fn parse_tangents(text: &str) -> Result<TangentSpec, RunError> {
    let o = read_root(text, "tangents: ")?;
    check_keys(&o, &["outputs", "mutated_args"], "tangents")?;
    let mut t = TangentSpec::default();
    for key in ["outputs", "mutated_args"] {
        let Some(v) = o.get(key) else { continue };
        let Json::Array(items) = v else {
            return Err(RunError::input(format!("tangents.{key}: must be a list")));
        };
        for (i, x) in items.iter().enumerate() {
            let (data, form) = tangent_entry(x, &format!("tangents.{key}[{i}]"))?;
            let (list, forms) = match key {
                "outputs" => (&mut t.outputs, &mut t.output_forms),
                _ => (&mut t.mutated_args, &mut t.mutated_forms),
            };
            list.push(data);
            forms.push(form);
        }
    }
    Ok(t)
}

/// Checks that a tensor of `shape` and `physical` element type may be
/// allocated (the allocation limit, `--max-alloc-bytes`).
pub fn check_tensor_alloc(shape: &[i64], physical: ElemType, what: &str) -> Result<(), RunError> {
    check_alloc_shape(shape, physical, what).map(|_| ()).map_err(|e| RunError::input(e.to_string()))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_exact_and_checked_per_dtype() {
        let v: Json = serde_json::from_str("[9007199254740993, -9223372036854775808, 3.0, true]").unwrap();
        let (values, dims) = parse_values(&v, ElemType::I64, "d").unwrap();
        assert_eq!(values, Values::Int(vec![9007199254740993, i64::MIN, 3, 1]));
        assert_eq!(dims, vec![4]);
        for (text, dtype) in [("[128]", ElemType::I8), ("[2147483648]", ElemType::I32), ("[2]", ElemType::I1)] {
            let v: Json = serde_json::from_str(text).unwrap();
            let e = parse_values(&v, dtype, "d").unwrap_err().to_string();
            assert!(e.contains(&format!("is not a valid {dtype}")), "{e}");
        }
        let v: Json = serde_json::from_str("[1e300]").unwrap();
        assert!(parse_values(&v, ElemType::I64, "d").is_err());
    }

    #[test]
    fn nested_lists_must_be_rectangular() {
        let v: Json = serde_json::from_str("[[1, 2], [3, 4], [5, 6]]").unwrap();
        assert_eq!(parse_values(&v, ElemType::F32, "d").unwrap().1, vec![3, 2]);
        for ragged in ["[[1, 2], [3]]", "[[1], 2]", "[1, [2]]", "[[[1]], [2]]"] {
            let v: Json = serde_json::from_str(ragged).unwrap();
            assert_eq!(parse_values(&v, ElemType::F32, "d").unwrap_err().to_string(), "d: ragged nested list");
        }
        let v: Json = serde_json::from_str("[[], []]").unwrap();
        assert_eq!(parse_values(&v, ElemType::F32, "d").unwrap().1, vec![2, 0]);
    }

    #[test]
    fn the_ir_attribute_is_the_requires_grad_default() {
        let text =
            r#"{"args": [{"dtype": "f32", "shape": [1], "data": [1]}, {"dtype": "i64", "shape": [], "data": 2}]}"#;
        let spec = parse_inputs_for(text, &[true, true]).unwrap();
        assert!(matches!(spec.args[0], ArgSpec::Own { requires_grad: true, .. }));
        // Integer arguments never require grad.
        assert!(matches!(spec.args[1], ArgSpec::Own { requires_grad: false, .. }));
        assert!(matches!(parse_inputs(text).unwrap().args[0], ArgSpec::Own { requires_grad: false, .. }));
        let explicit = r#"{"args": [{"dtype": "f32", "shape": [1], "data": [1], "requires_grad": false}]}"#;
        assert!(parse_inputs_for(explicit, &[true]).unwrap_err().to_string().contains("conflicts"));
    }

    #[test]
    fn tangent_entries_are_checked_against_their_tensor() {
        let t = parse_tangents(r#"{"outputs": [[[1, 2], [3, 4]], null]}"#).unwrap();
        let f32_2x2 = TangentTarget { dtype: ElemType::F32, shape: &[2, 2], differentiable: true };
        assert_eq!(t.output(0, f32_2x2).unwrap(), Some(vec![1.0, 2.0, 3.0, 4.0]));
        let f32_4 = TangentTarget { shape: &[4], ..f32_2x2 };
        assert!(t.output(0, f32_4).is_err(), "a nested tangent must have the tensor's shape");
        let int = TangentTarget { dtype: ElemType::I64, shape: &[2], differentiable: false };
        assert_eq!(t.output(1, int).unwrap(), None);
        assert!(t.output(1, f32_2x2).is_err(), "null for a differentiable output");
        assert_eq!(t.output(2, f32_2x2).unwrap(), Some(vec![1.0; 4]), "missing entries are ones");
        assert!(t.check_counts(1, 0).is_err() && t.check_counts(2, 0).is_ok());
    }
}
