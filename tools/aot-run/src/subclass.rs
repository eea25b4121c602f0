//! Subclass values at `aot-run`'s JSON boundary: the runtime wrapper of
//! AOTAutograd's subclass handling (unwrap the arguments, call the dense
//! function, wrap outputs, final arguments and gradients, coerce tangents).
//!
//! The entry function is flattened first (`flatten-subclasses`), and its
//! `aot.subclass_plan` says where each user argument and result lives among
//! the dense ones. An input file's subclass argument, `{"subclass": "C",
//! "inner": [ARG, ...], "requires_grad": B}`, becomes its inner arguments
//! (recursively, in declaration order) in a dense input file that the
//! ordinary reader checks; the class, the number of inner tensors and the
//! constant metadata are checked against the plan here (the class's part
//! of the guards; the dense guards check every inner layout). A
//! `same_as` names an earlier user argument (`k`) or one inner tensor of
//! one (`[k, j, ...]`, a path through nested classes). Outputs, final
//! arguments and gradients are regrouped the other way. A subclass output's
//! tangent is a subclass value, or a dense tensor that is coerced (used for
//! every component, as PyTorch's per-component backward does with a dense
//! gradient); a subclass tangent for a dense output, or of another class,
//! is an error naming the output. `mutated_args` tangents stay dense: one
//! per mutated inner tensor, in flattened order.

use crate::RunError;
use aot_ir::{AttrData, Attribute, Context};
use aot_passes::flatten_subclasses::{SubclassCreation, SubclassPlan};
use serde_json::{json, Map, Value as Json};

/// A test case (module text, input file, optional tangent file) with its
/// subclass values flattened: the dense module's text and the dense input
/// and tangent files, and the wrapper that turns dense results back into
/// the user's (none when the entry has no subclass values).
pub struct DenseCase {
    pub text: String,
    pub inputs: String,
    pub tangents: Option<String>,
    pub wrapper: Option<Wrapper>,
}

/// A module text with its entry's subclass values flattened (printed with
/// locations, so diagnostics still point into `file`), and the wrapper;
/// the text unchanged and no wrapper when the entry has none.
pub fn flatten_text(text: &str, file: &str) -> Result<(String, Option<Wrapper>), String> {
    if !text.contains("aot.subclass") {
        return Ok((text.to_string(), None));
    }
    let mut ctx = Context::new();
    let opts = aot_ir::ParseOptions { file: file.to_string(), first_line: 1 };
    let module = aot_ir::parse_module(&mut ctx, text, &opts).map_err(|d| d.message)?;
    aot_ir::verify(&ctx, module).map_err(|d| d[0].message.clone())?;
    let func = aot_dialects::func::entry_func(&ctx, module, None)?.op;
    let mut sources = aot_ir::SourceMgr::new();
    sources.add(file, std::sync::Arc::from(text));
    let Some(plan) = aot::subclass::flatten_entry(&mut ctx, &sources, module, func)? else {
        return Ok((text.to_string(), None));
    };
    let w = Wrapper::new(&ctx, &plan);
    Ok((aot_ir::print_op(&ctx, module, aot_ir::PrintOptions { generic: false, debug_info: true }), Some(w)))
}

/// Flattens a case for the harnesses that run the corpus (`file` names the
/// module in diagnostics).
pub fn dense_case(text: &str, file: &str, inputs: &str, tangents: Option<&str>) -> Result<DenseCase, String> {
    let (text, wrapper) = flatten_text(text, file)?;
    let Some(w) = wrapper else {
        return Ok(DenseCase {
            text,
            inputs: inputs.to_string(),
            tangents: tangents.map(str::to_string),
            wrapper: None,
        });
    };
    Ok(DenseCase {
        text,
        inputs: w.flatten_inputs(inputs).map_err(|e| e.to_string())?,
        tangents: tangents.map(|t| w.flatten_tangents(t)).transpose().map_err(|e| e.to_string())?,
        wrapper: Some(w),
    })
}

/// An attribute as JSON (for comparing constant metadata).
pub fn attr_json(ctx: &Context, a: Attribute) -> Json {
    match ctx.attr_data(a) {
        AttrData::Unit => json!(true),
        AttrData::Bool(b) => json!(b),
        AttrData::Int { value, .. } => json!(value),
        AttrData::Float { bits, .. } => json!(f64::from_bits(*bits)),
        AttrData::Str(s) => json!(s.as_ref()),
        AttrData::Array(items) => Json::Array(items.iter().map(|&i| attr_json(ctx, i)).collect()),
        AttrData::I64Array(v) => json!(v),
        AttrData::F64Array(v) => Json::Array(v.iter().map(|&b| json!(f64::from_bits(b))).collect()),
        AttrData::Dict(entries) => Json::Object(
            entries.iter().map(|na| (ctx.sym_str(na.name).to_string(), attr_json(ctx, na.value))).collect(),
        ),
        _ => Json::String(aot_ir::printer::attr_to_string(ctx, a)),
    }
}

fn numbers_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| numbers_equal(p, q)),
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| numbers_equal(v, w)))
        }
        _ => a == b,
    }
}

/// The user-facing plan plus what the JSON layer needs from the module.
#[derive(Clone, Debug)]
pub struct Wrapper {
    pub plan: SubclassPlan,
    /// Each entry's constant metadata as JSON, by class.
    meta: Vec<(String, Json)>,
}

impl Wrapper {
    pub fn new(ctx: &Context, plan: &SubclassPlan) -> Wrapper {
        let mut meta = Vec::new();
        fn collect(ctx: &Context, e: &SubclassCreation, out: &mut Vec<(String, Json)>) {
            if let Some(m) = e.meta {
                if !out.iter().any(|(c, _)| *c == e.class) {
                    out.push((e.class.clone(), attr_json(ctx, m)));
                }
            }
            for i in &e.inner {
                collect(ctx, i, out);
            }
        }
        for e in plan.inputs.iter().chain(&plan.outputs) {
            collect(ctx, e, &mut meta);
        }
        Wrapper { plan: plan.clone(), meta }
    }

    fn meta_of(&self, class: &str) -> Option<&Json> {
        self.meta.iter().find(|(c, _)| c == class).map(|(_, m)| m)
    }

    /// The dense input file of a user input file.
    pub fn flatten_inputs(&self, text: &str) -> Result<String, RunError> {
        let mut root: Json = serde_json::from_str(text).map_err(|e| {
            RunError::input(format!("invalid input file: {e} (line {}, column {})", e.line(), e.column()))
        })?;
        let Some(obj) = root.as_object_mut() else {
            return Err(RunError::input("the input file must be a JSON object with 'args'"));
        };
        let args = match obj.get("args") {
            None => Vec::new(),
            Some(Json::Array(a)) => a.clone(),
            Some(_) => return Err(RunError::input("'args' must be a list")),
        };
        if args.len() != self.plan.inputs.len() {
            return Err(RunError::input(format!(
                "the function takes {} arguments but the input file gives {}",
                self.plan.inputs.len(),
                args.len()
            )));
        }
        let mut dense = Vec::with_capacity(self.plan.num_dense_inputs());
        for (i, (a, e)) in args.iter().zip(&self.plan.inputs).enumerate() {
            let what = format!("argument {i}");
            self.flatten_arg(a, e, &what, None, &mut dense)?;
        }
        // Replicas: independent leaves with the argument's values (own data
        // copied, a view of the same storage), one per component.
        let storages = obj.get("storages").and_then(|s| s.as_array()).cloned().unwrap_or_default();
        for r in &self.plan.replicas {
            let what = format!("argument {}", r.arg);
            let a = &args[r.arg];
            if a.get("same_as").is_some() {
                // A duplicate: the replicas are duplicates too, which is
                // right while it does not require grad (checked later).
                let d = self.plan.inputs[r.arg].start;
                dense.extend(std::iter::repeat_n(json!({ "same_as": d }), r.creation.count));
                continue;
            }
            let base = a.get("storage").and_then(|s| s.as_u64()).and_then(|s| storages.get(s as usize));
            if base.is_some_and(|st| st.get("base") == Some(&Json::Bool(true))) {
                return Err(RunError::input(format!(
                    "{what}: a view of a differentiable base read by the components of a subclass op would get a subclass gradient in its base, which is not supported"
                )));
            }
            dense.extend(std::iter::repeat_n(a.clone(), r.creation.count));
        }
        obj.insert("args".into(), Json::Array(dense));
        Ok(root.to_string())
    }

    /// The dense position named by a `same_as`: an earlier user argument
    /// (dense) or a path to one inner tensor of one.
    fn same_as_target(&self, v: &Json, what: &str, want: &SubclassCreation) -> Result<Vec<usize>, RunError> {
        let bad = || {
            RunError::input(format!(
                "{what}: 'same_as' must be an earlier argument k or a path [k, j, ...] to an inner tensor"
            ))
        };
        let path: Vec<usize> = match v {
            Json::Number(n) => vec![n.as_u64().ok_or_else(bad)? as usize],
            Json::Array(p) if !p.is_empty() => {
                p.iter().map(|x| x.as_u64().map(|k| k as usize).ok_or_else(bad)).collect::<Result<_, _>>()?
            }
            _ => return Err(bad()),
        };
        let mut e = self.plan.inputs.get(path[0]).ok_or_else(bad)?;
        for &j in &path[1..] {
            e = e.inner.get(j).ok_or_else(|| {
                RunError::input(format!("{what}: 'same_as' path {path:?} does not name an inner tensor"))
            })?;
        }
        if e.class != want.class {
            let name = |c: &str| if c.is_empty() { "a dense tensor".to_string() } else { format!("a @{c} value") };
            return Err(RunError::input(format!(
                "{what}: 'same_as' {path:?} is {}, but this argument is {}",
                name(&e.class),
                name(&want.class)
            )));
        }
        Ok(e.range().collect())
    }

    fn flatten_arg(
        &self,
        a: &Json,
        e: &SubclassCreation,
        what: &str,
        // `None` at the top level; inside a subclass value, its
        // `requires_grad` (`None`: the function's declaration decides).
        parent: Option<Option<bool>>,
        dense: &mut Vec<Json>,
    ) -> Result<(), RunError> {
        if let Some(same) = a.get("same_as") {
            let targets = self.same_as_target(same, what, e)?;
            if targets.iter().any(|&t| t >= dense.len()) {
                return Err(RunError::input(format!("{what}: 'same_as' must name an earlier argument")));
            }
            dense.extend(targets.into_iter().map(|t| json!({ "same_as": t })));
            return Ok(());
        }
        let sub = a.get("subclass");
        if e.is_dense() {
            if let Some(c) = sub {
                return Err(RunError::input(format!(
                    "{what}: the function takes a dense tensor, but the input is a subclass {c}"
                )));
            }
            let mut a = a.clone();
            if let Some(rg) = parent {
                if a.get("requires_grad").is_some() {
                    return Err(RunError::input(format!(
                        "{what}: an inner tensor takes 'requires_grad' from its subclass value; remove it here"
                    )));
                }
                if let (Some(rg), Some(o)) = (rg, a.as_object_mut()) {
                    o.insert("requires_grad".into(), json!(rg));
                }
            }
            dense.push(a);
            return Ok(());
        }
        let Some(class) = sub else {
            return Err(RunError::input(format!(
                "{what}: the function takes a @{} value: give {{\"subclass\": \"{}\", \"inner\": [...]}}",
                e.class, e.class
            )));
        };
        if class.as_str() != Some(e.class.as_str()) {
            return Err(RunError::input(format!(
                "{what}: the function takes a @{} value, but the input is a {class} value",
                e.class
            )));
        }
        if let Some(m) = a.get("meta") {
            let want = self.meta_of(&e.class).cloned().unwrap_or(Json::Object(Map::new()));
            if !numbers_equal(m, &want) {
                return Err(RunError::input(format!(
                    "{what}: @{} was compiled for the constant metadata {want}, but the input has {m}",
                    e.class
                )));
            }
        }
        if let Some(k) = a
            .as_object()
            .and_then(|o| o.keys().find(|k| !["subclass", "inner", "requires_grad", "meta"].contains(&k.as_str())))
        {
            return Err(RunError::input(format!("{what}: unknown key '{k}' in a subclass argument")));
        }
        let rg = match a.get("requires_grad") {
            None => parent.flatten(),
            Some(Json::Bool(b)) => {
                if parent.is_some() {
                    return Err(RunError::input(format!(
                        "{what}: a nested subclass value takes 'requires_grad' from the outer one; remove it here"
                    )));
                }
                Some(*b)
            }
            Some(_) => return Err(RunError::input(format!("{what}: 'requires_grad' must be true or false"))),
        };
        let inner = inner_list(a, e, what, "the input")?;
        for (j, (x, ie)) in inner.iter().zip(&e.inner).enumerate() {
            self.flatten_arg(x, ie, &format!("{what} inner tensor {j}"), Some(rg), dense)?;
        }
        Ok(())
    }

    /// The dense tangent file of a user tangent file.
    pub fn flatten_tangents(&self, text: &str) -> Result<String, RunError> {
        let mut root: Json = serde_json::from_str(text).map_err(|e| {
            RunError::input(format!("invalid tangent file: {e} (line {}, column {})", e.line(), e.column()))
        })?;
        let Some(obj) = root.as_object_mut() else { return Ok(text.to_string()) };
        let Some(Json::Array(outs)) = obj.get("outputs").cloned() else { return Ok(text.to_string()) };
        if outs.len() != self.plan.outputs.len() {
            return Err(RunError::input(format!(
                "the tangent file gives {} output tangents, but the function has {} outputs",
                outs.len(),
                self.plan.outputs.len()
            )));
        }
        let mut dense = Vec::new();
        for (k, (t, e)) in outs.iter().zip(&self.plan.outputs).enumerate() {
            flatten_tangent(t, e, k, &mut dense)?;
        }
        obj.insert("outputs".into(), Json::Array(dense));
        Ok(root.to_string())
    }

    /// Regroups a dense result file (`outputs`, `args_after`, `grads`)
    /// into the user's arguments and results.
    pub fn wrap_result(&self, out: &mut Json) {
        let owner = self.plan.input_owner();
        let take = |out: &Json, key: &str| out.get(key).and_then(|v| v.as_array()).cloned();
        if let Some(outs) = take(out, "outputs") {
            // The user output each dense output belongs to.
            let mut out_owner = vec![usize::MAX; outs.len()];
            for (k, e) in self.plan.outputs.iter().enumerate() {
                for d in e.range() {
                    if let Some(o) = out_owner.get_mut(d) {
                        *o = k;
                    }
                }
            }
            let wrapped: Vec<Json> = self
                .plan
                .outputs
                .iter()
                .enumerate()
                .map(|(k, e)| {
                    let mut v = self.group(e, &outs, true);
                    let leaves = &outs[e.range()];
                    let alias = leaves.iter().find_map(|l| l.get("alias_of_arg").and_then(|a| a.as_u64()));
                    let alias = alias.and_then(|d| owner.get(d as usize).copied());
                    let twin = leaves
                        .iter()
                        .filter_map(|l| l.get("alias_of_output").and_then(|a| a.as_u64()))
                        .filter_map(|d| out_owner.get(d as usize).copied())
                        .filter(|&o| o < k)
                        .min();
                    let rg = leaves.iter().any(|l| l.get("requires_grad") == Some(&Json::Bool(true)));
                    if let Some(o) = v.as_object_mut() {
                        o.insert("alias_of_arg".into(), json!(alias));
                        o.insert("alias_of_output".into(), json!(twin));
                        o.insert("requires_grad".into(), json!(rg));
                    }
                    v
                })
                .collect();
            out["outputs"] = Json::Array(wrapped);
        }
        if let Some(args) = take(out, "args_after") {
            out["args_after"] = Json::Array(self.plan.inputs.iter().map(|e| self.group(e, &args, false)).collect());
        }
        if let Some(grads) = take(out, "grads") {
            let wrapped = self
                .plan
                .inputs
                .iter()
                .enumerate()
                .map(|(i, e)| match self.plan.replica_of(i) {
                    Some(r) => self.replica_grad(&grads[e.start], r, &grads),
                    None => self.group_grad(e, &grads),
                })
                .collect();
            out["grads"] = Json::Array(wrapped);
        }
    }

    fn group(&self, e: &SubclassCreation, dense: &[Json], top: bool) -> Json {
        if e.is_dense() {
            let mut v = dense.get(e.start).cloned().unwrap_or(Json::Null);
            if !top {
                if let Some(o) = v.as_object_mut() {
                    o.remove("alias_of_arg");
                    o.remove("alias_of_output");
                    o.remove("requires_grad");
                }
            }
            return v;
        }
        let inner: Vec<Json> = e.inner.iter().map(|i| self.group(i, dense, false)).collect();
        let first = dense.get(e.start).cloned().unwrap_or(Json::Null);
        let mut m = Map::new();
        m.insert("subclass".into(), json!(e.class));
        m.insert("dtype".into(), first.get("dtype").cloned().unwrap_or(Json::Null));
        m.insert("shape".into(), first.get("shape").cloned().unwrap_or(Json::Null));
        if let Some(meta) = self.meta_of(&e.class) {
            m.insert("meta".into(), meta.clone());
        }
        m.insert("inner".into(), Json::Array(inner));
        Json::Object(m)
    }

    /// The gradient of a replicated dense argument: a subclass value whose
    /// component k is the dense uses' gradient plus replica k's (PyTorch
    /// accumulates a dense and a subclass gradient into a subclass one).
    fn replica_grad(&self, dense: &Json, r: &SubclassCreation, grads: &[Json]) -> Json {
        let leaves = grads.get(r.range()).unwrap_or(&[]);
        if dense.is_null() && leaves.iter().all(|g| g.is_null()) {
            return Json::Null;
        }
        let data = |g: &Json| -> Vec<f64> {
            g.get("data")
                .and_then(|d| d.as_array())
                .map(|d| d.iter().map(|x| x.as_f64().unwrap_or(f64::NAN)).collect())
                .unwrap_or_default()
        };
        let base = data(dense);
        let summed: Vec<Json> = (0..grads.len())
            .map(|d| {
                if !r.range().contains(&d) {
                    return Json::Null;
                }
                let g = &grads[d];
                let template = if g.is_null() { dense } else { g };
                let mut v = data(g);
                if v.is_empty() {
                    v = vec![0.0; base.len()];
                }
                for (x, b) in v.iter_mut().zip(&base) {
                    *x += b;
                }
                json!({"dtype": template.get("dtype"), "shape": template.get("shape"), "data": v})
            })
            .collect();
        self.group_grad(r, &summed)
    }

    /// A gradient per `e`: a subclass value of the leaves' gradients (a
    /// leaf without one is zeros), or null when no leaf has one.
    fn group_grad(&self, e: &SubclassCreation, grads: &[Json]) -> Json {
        if e.is_dense() {
            return grads.get(e.start).cloned().unwrap_or(Json::Null);
        }
        let leaves = grads.get(e.range()).unwrap_or(&[]);
        let Some(template) = leaves.iter().find(|g| !g.is_null()) else { return Json::Null };
        let n = template.get("data").and_then(|d| d.as_array()).map_or(0, |d| d.len());
        let zero = json!({"dtype": template.get("dtype"), "shape": template.get("shape"), "data": vec![0.0; n]});
        let filled: Vec<Json> = grads.iter().map(|g| if g.is_null() { zero.clone() } else { g.clone() }).collect();
        self.group(e, &filled, false)
    }
}

/// The `inner` list of a subclass value in a file, one entry per inner
/// tensor of `e`'s class (`what` names the value, `given` the file).
fn inner_list<'j>(v: &'j Json, e: &SubclassCreation, what: &str, given: &str) -> Result<&'j Vec<Json>, RunError> {
    let inner = v.get("inner").and_then(|i| i.as_array()).ok_or_else(|| {
        RunError::input(format!("{what}: a subclass value needs 'inner', the list of its inner tensors"))
    })?;
    if inner.len() != e.inner.len() {
        return Err(RunError::input(format!(
            "{what}: @{} has {} inner tensors, but {given} gives {}",
            e.class,
            e.inner.len(),
            inner.len()
        )));
    }
    Ok(inner)
}

fn flatten_tangent(t: &Json, e: &SubclassCreation, k: usize, dense: &mut Vec<Json>) -> Result<(), RunError> {
    let sub = t.get("subclass");
    if e.is_dense() {
        if let Some(c) = sub {
            return Err(RunError::input(format!(
                "tangent of output {k}: the output is a dense tensor, but the tangent is a subclass {c}"
            )));
        }
        dense.push(t.clone());
        return Ok(());
    }
    match sub {
        // A dense (or absent) tangent is coerced: every component gets it.
        None => {
            dense.extend(std::iter::repeat_n(t.clone(), e.count));
            Ok(())
        }
        Some(c) if c.as_str() != Some(e.class.as_str()) => Err(RunError::input(format!(
            "tangent of output {k}: the output is a @{} value, but the tangent is a {c} value; give a @{} or a dense tangent",
            e.class, e.class
        ))),
        Some(_) => {
            let inner = inner_list(t, e, &format!("tangent of output {k}"), "the tangent")?;
            for (x, ie) in inner.iter().zip(&e.inner) {
                flatten_tangent(x, ie, k, dense)?;
            }
            Ok(())
        }
    }
}
