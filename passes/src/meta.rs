//! `ViewAndMutationMeta`: what AOTAutograd learns about a function's
//! inputs and outputs, stored on the function as `aot.meta = #aot.meta<...>`.
//!
//! The attribute form is generic dialect-attribute syntax, so it prints and
//! parses back with the IR and can be written by hand in tests:
//!
//! ```text
//! #aot.meta<inputs = [#aot.input<mutates_data = true, ..., mutation_type = "mutated_out_graph">],
//!           outputs = [#aot.output<output_type = "alias_of_input", base_idx = 0, requires_grad = true,
//!                      views = [#aot.view<op = "view.view", attrs = {shape = [-1]}>],
//!                      layout = #aot.strided<size = [4], stride = [1], offset = 0>>],
//!           num_intermediate_bases = 0, keep_input_mutations = false, traced_tangents = [0],
//!           mutated_inp_runtime_indices = [0], ..., num_forward_returns = 2>
//! ```
//!
//! Derived fields (index lists, counts) are written for readers and tests and
//! recomputed (and checked) when read. Field meanings follow
//! AOTAutograd's `ViewAndMutationMeta`; `views`/`layout` give each aliased output's
//! regeneration recipe: a replayable view chain from its base (preferred) and
//! the equivalent `as_strided` layout in the base's storage.

use aot_ir::*;

pub const META_ATTR: &str = "aot.meta";

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MutationType {
    NotMutated,
    MutatedInGraph,
    MutatedOutGraph,
}

impl MutationType {
    pub fn name(self) -> &'static str {
        match self {
            MutationType::NotMutated => "not_mutated",
            MutationType::MutatedInGraph => "mutated_in_graph",
            MutationType::MutatedOutGraph => "mutated_out_graph",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "not_mutated" => MutationType::NotMutated,
            "mutated_in_graph" => MutationType::MutatedInGraph,
            "mutated_out_graph" => MutationType::MutatedOutGraph,
            _ => return None,
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutputType {
    NonAlias,
    AliasOfInput,
    IsInput,
    AliasOfIntermediate,
    AliasOfIntermediateSaveAsOutput,
    AliasOfIntermediateBaseIsUserOutput,
    UnsafeViewAlias,
    CustomFunctionView,
}

impl OutputType {
    pub fn name(self) -> &'static str {
        match self {
            OutputType::NonAlias => "non_alias",
            OutputType::AliasOfInput => "alias_of_input",
            OutputType::IsInput => "is_input",
            OutputType::AliasOfIntermediate => "alias_of_intermediate",
            OutputType::AliasOfIntermediateSaveAsOutput => "alias_of_intermediate_save_as_output",
            OutputType::AliasOfIntermediateBaseIsUserOutput => "alias_of_intermediate_base_is_user_output",
            OutputType::UnsafeViewAlias => "unsafe_view_alias",
            OutputType::CustomFunctionView => "custom_function_view",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [
            OutputType::NonAlias,
            OutputType::AliasOfInput,
            OutputType::IsInput,
            OutputType::AliasOfIntermediate,
            OutputType::AliasOfIntermediateSaveAsOutput,
            OutputType::AliasOfIntermediateBaseIsUserOutput,
            OutputType::UnsafeViewAlias,
            OutputType::CustomFunctionView,
        ]
        .into_iter()
        .find(|t| t.name() == s)
    }

    /// Does the runtime regenerate this output from a base (input or intermediate)?
    pub fn is_alias(self) -> bool {
        !matches!(self, OutputType::NonAlias | OutputType::UnsafeViewAlias | OutputType::CustomFunctionView)
    }

    /// Does this output take a tangent (when it requires grad)?
    pub fn takes_tangent(self) -> bool {
        matches!(self, OutputType::NonAlias | OutputType::UnsafeViewAlias | OutputType::CustomFunctionView)
    }
}

crate::record! {
    /// A strided layout in a storage.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Strided = "aot.strided" {
        pub size: Vec<i64>,
        pub stride: Vec<i64>,
        pub offset: i64,
    }
}

crate::record! {
    /// One step of a view chain: a view op and its attributes (a dictionary).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ViewStep = "aot.view" {
        pub op: String,
        pub attrs: Attribute,
    }
}

/// An enum stored as its name.
macro_rules! named_field {
    ($T:ty) => {
        impl crate::record::Field for $T {
            fn put(&self, p: &mut Params<'_>, key: &str) {
                let a = p.ctx.str_attr(self.name());
                p.raw(key, a);
            }
            fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
                let s = r.str(key)?;
                <$T>::parse(s).ok_or_else(|| format!("#{}: unknown {key} \"{s}\"", r.what()))
            }
        }
    };
}
named_field!(MutationType);
named_field!(OutputType);

/// An input index, or `"graph"`.
impl crate::record::Field for SetSource {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        match self {
            SetSource::Input(j) => p.int(key, *j as i64),
            SetSource::Graph => {
                let g = p.ctx.str_attr("graph");
                p.raw(key, g);
            }
        }
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        let x = r.get(key)?;
        match (r.ctx().attr_as_i64(x), r.ctx().attr_as_str(x)) {
            (Some(j), _) if j >= 0 => Ok(SetSource::Input(j as usize)),
            (_, Some("graph")) => Ok(SetSource::Graph),
            _ => Err(format!("#{}: '{key}' must be an input index or \"graph\"", r.what())),
        }
    }
}

/// Where a storage-mutated input's new storage comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetSource {
    /// The storage of (the user's tensor passed as) input `i`, after write-back.
    Input(usize),
    /// The storage of the graph's value for this mutated input.
    Graph,
}

crate::record! {
    /// `InputAliasInfo`, plus the final metadata of inputs whose metadata changes.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct InputAliasInfo = "aot.input" {
        pub is_leaf: bool,
        pub mutates_data: bool,
        pub mutates_metadata: bool,
        pub mutations_hidden_from_autograd: bool,
        pub mutations_under_no_grad_or_inference_mode: bool,
        pub mutation_inductor_storage_resize: bool,
        pub mutates_storage_metadata: bool,
        pub requires_grad: bool,
        pub keep_input_mutations: bool,
        pub mutation_type: MutationType,
        /// The input's layout in its (new) storage after the call, when its
        /// metadata or storage changes.
        pub final_layout: Option<Strided> as nested_opt,
        /// For a storage mutation (`set_`): where the storage comes from.
        pub set_source: Option<SetSource>,
        /// For a resize: the storage's new element count.
        pub resized_numel: Option<i64>,
        /// A duplicate (`aot.same_as`) that `functionalize` traced as the same
        /// object as input `k`, because that object is mutated: the graph
        /// ignores this input, and `dedupe` removes it (strategy 2).
        pub dupe_of: Option<usize>,
        /// Autograd recorded a data mutation of this input (or a `set_`; not a
        /// metadata-only one, outside no_grad and not through a detached alias),
        /// even one whose effect cancels out: its new value is part of the
        /// gradient objective.
        pub autograd_mutation: bool as flag,
        /// The new data the graph returns for this input is laid out as the
        /// input was at the call, not in its final layout: a metadata mutation
        /// after a write may move the input off elements that were written
        /// (`v = x[:]; x.as_strided_(...); v.neg_()`), so the data goes back
        /// through the old layout first and the final metadata is applied after.
        pub data_in_initial_layout: bool as flag,
    }
}

impl InputAliasInfo {
    pub fn not_mutated(requires_grad: bool, is_leaf: bool, keep: bool) -> Self {
        InputAliasInfo {
            is_leaf,
            mutates_data: false,
            mutates_metadata: false,
            mutations_hidden_from_autograd: false,
            mutations_under_no_grad_or_inference_mode: false,
            mutation_inductor_storage_resize: false,
            mutates_storage_metadata: false,
            requires_grad,
            keep_input_mutations: keep,
            mutation_type: MutationType::NotMutated,
            final_layout: None,
            set_source: None,
            resized_numel: None,
            dupe_of: None,
            autograd_mutation: false,
            data_in_initial_layout: false,
        }
    }

    /// The layout of the data the graph returns for this input, when it
    /// differs from the input's layout at the call.
    pub fn returned_data_layout(&self) -> Option<&Strided> {
        if self.data_in_initial_layout {
            None
        } else {
            self.final_layout.as_ref()
        }
    }

    /// AOTAutograd's classification (`_get_mutation_type`).
    pub fn classify(&self) -> MutationType {
        let any = self.mutates_data || self.mutates_metadata || self.mutation_inductor_storage_resize;
        if !any {
            return MutationType::NotMutated;
        }
        let data_like = self.mutates_data || self.mutates_storage_metadata || self.mutation_inductor_storage_resize;
        let safe = (!self.mutates_metadata && !self.requires_grad)
            || self.mutations_hidden_from_autograd
            || self.mutations_under_no_grad_or_inference_mode;
        if self.keep_input_mutations && data_like && safe {
            MutationType::MutatedInGraph
        } else {
            MutationType::MutatedOutGraph
        }
    }
}

crate::record! {
    /// `OutputAliasInfo`, with the regeneration recipe of aliased outputs.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct OutputAliasInfo = "aot.output" {
        pub output_type: OutputType,
        pub base_idx: Option<usize>,
        pub requires_grad: bool,
        /// View chain from the base to this output (replayable), if one exists.
        pub views: Option<Vec<ViewStep>>,
        /// The output's layout in its base's storage (the `as_strided` fallback).
        pub layout: Option<Strided> as nested_opt,
        /// A `non_alias` output that still shares input `i`'s storage in eager
        /// mode (multi-output views whose aliasing is hidden from autograd): the
        /// runtime recreates the alias with `layout`.
        pub aliases_input: Option<usize>,
        /// With `aliases_input`: the alias is of the storage the input has
        /// after the call (it was `set_` onto an intermediate's storage), not
        /// of the one it had on entry.
        pub aliases_final_storage: bool as flag,
        /// Outputs that share one storage in eager mode without aliasing
        /// an input: the index of the first of them, on each. Value
        /// semantics may compute two distinct tensors as one value (CSE
        /// of `x * 3` twice); only outputs of one group may share a buffer.
        pub storage_group: Option<usize>,
    }
}

impl OutputAliasInfo {
    /// Renumbers the inputs this output refers to (not intermediate bases).
    pub fn remap_inputs(&mut self, map: impl Fn(usize) -> usize) {
        if matches!(self.output_type, OutputType::IsInput | OutputType::AliasOfInput) {
            self.base_idx = self.base_idx.map(&map);
        }
        self.aliases_input = self.aliases_input.map(&map);
    }
}

/// Extra facts recorded by later passes (dedupe, synthetic bases, RNG).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewAndMutationMeta {
    pub input_info: Vec<InputAliasInfo>,
    pub output_info: Vec<OutputAliasInfo>,
    pub num_intermediate_bases: usize,
    pub keep_input_mutations: bool,
    /// Forward-output indices that receive a tangent.
    pub traced_tangents: Vec<usize>,
    /// Whether the graph returns an advanced RNG offset (after rng-functionalize).
    pub is_rng_op_functionalized: bool,
}

crate::hand_written_record!(ViewAndMutationMeta = META_ATTR);

impl ViewAndMutationMeta {
    pub fn mutated_inp_runtime_indices(&self) -> Vec<usize> {
        (0..self.input_info.len())
            .filter(|&i| self.input_info[i].mutation_type == MutationType::MutatedOutGraph)
            .collect()
    }

    pub fn mutated_graph_handled_indices(&self) -> Vec<usize> {
        (0..self.input_info.len())
            .filter(|&i| self.input_info[i].mutation_type == MutationType::MutatedInGraph)
            .collect()
    }

    pub fn aliased_out_indices(&self) -> Vec<usize> {
        (0..self.output_info.len()).filter(|&i| self.output_info[i].output_type.is_alias()).collect()
    }

    /// Mutated inputs + user outputs + intermediate bases.
    pub fn num_forward_returns(&self) -> usize {
        self.mutated_inp_runtime_indices().len() + self.output_info.len() + self.num_intermediate_bases
    }

    /// Forward returns, plus the RNG offset when RNG is functionalized.
    pub fn num_forward(&self) -> usize {
        self.num_forward_returns() + self.is_rng_op_functionalized as usize
    }

    /// AOTAutograd's `traced_tangents`: OUT_GRAPH data-mutated inputs that
    /// require grad, then outputs that take tangents and require grad, then
    /// every intermediate base, as indices into the forward returns. Unlike
    /// upstream, an input whose storage `set_` replaced counts like a
    /// data-mutated one: its new value is graph data that may carry gradient.
    pub fn compute_traced_tangents(&self) -> Vec<usize> {
        let mutated = self.mutated_inp_runtime_indices();
        let mut out = Vec::new();
        for (k, &i) in mutated.iter().enumerate() {
            let info = &self.input_info[i];
            if (info.mutates_data || info.mutates_storage_metadata) && info.requires_grad {
                out.push(k);
            }
        }
        for (k, o) in self.output_info.iter().enumerate() {
            if o.output_type.takes_tangent() && o.requires_grad {
                out.push(mutated.len() + k);
            }
        }
        for b in 0..self.num_intermediate_bases {
            out.push(mutated.len() + self.output_info.len() + b);
        }
        out
    }

    // ----- attribute form -----

    pub fn to_attr(&self, ctx: &mut Context) -> Attribute {
        let inputs: Vec<Attribute> = self.input_info.iter().map(|i| i.to_attr(ctx)).collect();
        let outputs: Vec<Attribute> = self.output_info.iter().map(|o| o.to_attr(ctx)).collect();
        let mut p = Params::new(ctx);
        let a = p.ctx.array_attr(inputs);
        p.raw("inputs", a);
        let a = p.ctx.array_attr(outputs);
        p.raw("outputs", a);
        p.int("num_intermediate_bases", self.num_intermediate_bases as i64);
        p.bool("keep_input_mutations", self.keep_input_mutations);
        p.list("traced_tangents", &self.traced_tangents);
        if self.is_rng_op_functionalized {
            p.bool("is_rng_op_functionalized", true);
        }
        p.list("mutated_inp_runtime_indices", &self.mutated_inp_runtime_indices());
        p.list("mutated_graph_handled_indices", &self.mutated_graph_handled_indices());
        p.list("aliased_out_indices", &self.aliased_out_indices());
        p.int("num_forward_returns", self.num_forward_returns() as i64);
        p.int("num_forward", self.num_forward() as i64);
        p.finish(META_ATTR)
    }

    /// Reads the attribute form; derived fields must agree with the core ones.
    pub fn from_attr(ctx: &Context, a: Attribute) -> Result<Self, String> {
        let r = Reader::new(ctx, a, META_ATTR)?;
        let inputs =
            r.array("inputs")?.iter().map(|&x| InputAliasInfo::from_attr(ctx, x)).collect::<Result<Vec<_>, _>>()?;
        let outputs =
            r.array("outputs")?.iter().map(|&x| OutputAliasInfo::from_attr(ctx, x)).collect::<Result<Vec<_>, _>>()?;
        let bases = r.int("num_intermediate_bases")?;
        // (An intermediate base is an output: no more of them than a
        // function has results.)
        let num_intermediate_bases = usize::try_from(bases)
            .ok()
            .filter(|&b| b <= u32::MAX as usize)
            .ok_or_else(|| format!("'num_intermediate_bases' must be a count, got {bases}"))?;
        let meta = ViewAndMutationMeta {
            input_info: inputs,
            output_info: outputs,
            num_intermediate_bases,
            keep_input_mutations: r.bool("keep_input_mutations")?,
            traced_tangents: r.usize_list("traced_tangents")?,
            is_rng_op_functionalized: r.opt_bool("is_rng_op_functionalized")?.unwrap_or(false),
        };
        for (name, derived) in [
            ("mutated_inp_runtime_indices", meta.mutated_inp_runtime_indices()),
            ("mutated_graph_handled_indices", meta.mutated_graph_handled_indices()),
            ("aliased_out_indices", meta.aliased_out_indices()),
        ] {
            if let Some(v) = r.opt_usize_list(name)? {
                if v != derived {
                    return Err(format!("'{name}' is {v:?} but the input and output infos give {derived:?}"));
                }
            }
        }
        let returns = meta.num_forward_returns();
        for (k, &t) in meta.traced_tangents.iter().enumerate() {
            if t >= returns || meta.traced_tangents[..k].contains(&t) {
                return Err(format!(
                    "'traced_tangents' must name distinct forward returns (0 to {returns}), got {:?}",
                    meta.traced_tangents
                ));
            }
        }
        if let Some(n) = r.opt_int("num_forward_returns")? {
            if n as usize != meta.num_forward_returns() {
                return Err(format!("'num_forward_returns' is {n} but the infos give {}", meta.num_forward_returns()));
            }
        }
        Ok(meta)
    }

    /// The metadata of function `func`, if it has some.
    pub fn of_func(ctx: &Context, func: Op) -> Result<Option<Self>, String> {
        match ctx.get_attr(func, META_ATTR) {
            None => Ok(None),
            Some(a) => Self::from_attr(ctx, a).map(Some),
        }
    }

    /// The metadata a pass needs, as a located error when it is missing
    /// (`"<why> but no aot.meta: run 'collect-metadata' before '<pass>'"`),
    /// malformed, or does not describe every argument.
    pub fn required(ctx: &Context, func: Op, pass: &str, why: &str) -> Result<Self, Diagnostic> {
        let err = |m: String| Diagnostic::op_error(ctx, func, m);
        let meta = match Self::of_func(ctx, func) {
            Ok(Some(m)) => m,
            Ok(None) => return Err(err(format!("{why} but no aot.meta: run 'collect-metadata' before '{pass}'"))),
            Err(m) => return Err(err(format!("has malformed aot.meta: {m}"))),
        };
        // The RNG state arguments rng-functionalize appends are not inputs.
        let f = aot_dialects::func::FuncView { op: func };
        let n = (0..f.num_args(ctx))
            .filter(|&i| {
                f.arg_attr(ctx, i, crate::rng_functionalize::RNG_SEED).is_none()
                    && f.arg_attr(ctx, i, crate::rng_functionalize::RNG_OFFSET).is_none()
            })
            .count();
        if meta.input_info.len() != n {
            return Err(err(format!("aot.meta describes {} inputs, the function has {n}", meta.input_info.len())));
        }
        Ok(meta)
    }
}

/// A view chain as a list of `#aot.view`.
pub fn steps_to_attr(ctx: &mut Context, steps: &[ViewStep]) -> Attribute {
    let items: Vec<Attribute> = steps.iter().map(|s| s.to_attr(ctx)).collect();
    ctx.array_attr(items)
}

/// Reads a list of `#aot.view`.
pub fn steps_from_attr(ctx: &Context, a: Attribute) -> Result<Vec<ViewStep>, String> {
    let AttrData::Array(items) = ctx.attr_data(a) else {
        return Err("'views' must be a list of #aot.view".into());
    };
    items.iter().map(|&x| ViewStep::from_attr(ctx, x)).collect()
}

/// Builds a dialect attribute parameter by parameter.
pub struct Params<'c> {
    pub ctx: &'c mut Context,
    params: Vec<NamedAttr>,
}

impl<'c> Params<'c> {
    pub fn new(ctx: &'c mut Context) -> Self {
        Params { ctx, params: Vec::new() }
    }

    pub fn raw(&mut self, name: &str, value: Attribute) {
        let name = self.ctx.sym(name);
        self.params.push(NamedAttr { name, value });
    }

    pub fn bool(&mut self, name: &str, v: bool) {
        let a = self.ctx.bool_attr(v);
        self.raw(name, a);
    }

    pub fn int(&mut self, name: &str, v: i64) {
        let a = self.ctx.i64_attr(v);
        self.raw(name, a);
    }

    pub fn list(&mut self, name: &str, v: &[usize]) {
        let v: Vec<i64> = v.iter().map(|&x| x as i64).collect();
        self.i64_list(name, &v);
    }

    pub fn i64_list(&mut self, name: &str, v: &[i64]) {
        let items: Vec<Attribute> = v.iter().map(|&x| self.ctx.i64_attr(x)).collect();
        let a = self.ctx.array_attr(items);
        self.raw(name, a);
    }

    pub fn finish(self, dialect_name: &str) -> Attribute {
        let name = self.ctx.sym(dialect_name);
        self.ctx.attr(AttrData::Dialect { name, params: self.params })
    }
}

/// Reads the parameters of a dialect attribute with clear errors.
pub struct Reader<'c> {
    ctx: &'c Context,
    params: &'c [NamedAttr],
    what: &'static str,
}

impl<'c> Reader<'c> {
    pub fn new(ctx: &'c Context, a: Attribute, what: &'static str) -> Result<Self, String> {
        match ctx.attr_data(a) {
            AttrData::Dialect { name, params } if ctx.sym_str(*name) == what => Ok(Reader { ctx, params, what }),
            _ => Err(format!("expected a #{what}<...> attribute")),
        }
    }

    pub fn ctx(&self) -> &'c Context {
        self.ctx
    }

    /// The record kind being read (`aot.joint`).
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// The error for a missing required parameter.
    pub fn missing(&self, key: &str) -> String {
        format!("#{} is missing '{key}'", self.what)
    }

    pub fn opt(&self, key: &str) -> Option<Attribute> {
        self.params.iter().find(|p| self.ctx.sym_str(p.name) == key).map(|p| p.value)
    }

    pub fn get(&self, key: &str) -> Result<Attribute, String> {
        self.opt(key).ok_or_else(|| format!("#{} is missing '{key}'", self.what))
    }

    pub fn bool(&self, key: &str) -> Result<bool, String> {
        self.opt_bool(key)?.ok_or_else(|| format!("#{} is missing '{key}'", self.what))
    }

    pub fn opt_bool(&self, key: &str) -> Result<Option<bool>, String> {
        match self.opt(key) {
            None => Ok(None),
            Some(a) => match self.ctx.attr_data(a) {
                AttrData::Bool(b) => Ok(Some(*b)),
                AttrData::Unit => Ok(Some(true)),
                _ => Err(format!("#{}: '{key}' must be true or false", self.what)),
            },
        }
    }

    pub fn int(&self, key: &str) -> Result<i64, String> {
        self.opt_int(key)?.ok_or_else(|| format!("#{} is missing '{key}'", self.what))
    }

    pub fn opt_int(&self, key: &str) -> Result<Option<i64>, String> {
        match self.opt(key) {
            None => Ok(None),
            Some(a) => match self.ctx.attr_data(a) {
                AttrData::Int { value, .. } => Ok(Some(*value)),
                _ => Err(format!("#{}: '{key}' must be an integer", self.what)),
            },
        }
    }

    pub fn opt_usize(&self, key: &str) -> Result<Option<usize>, String> {
        match self.opt_int(key)? {
            Some(v) if v < 0 => Err(format!("#{}: '{key}' must be a non-negative index", self.what)),
            v => Ok(v.map(|v| v as usize)),
        }
    }

    pub fn str(&self, key: &str) -> Result<&'c str, String> {
        let a = self.get(key)?;
        self.ctx.attr_as_str(a).ok_or_else(|| format!("#{}: '{key}' must be a string", self.what))
    }

    pub fn array(&self, key: &str) -> Result<&'c [Attribute], String> {
        match self.ctx.attr_data(self.get(key)?) {
            AttrData::Array(v) => Ok(v),
            _ => Err(format!("#{}: '{key}' must be a list", self.what)),
        }
    }

    pub fn i64_list(&self, key: &str) -> Result<Vec<i64>, String> {
        self.ctx
            .attr_as_i64_list(self.get(key)?)
            .ok_or_else(|| format!("#{}: '{key}' must be a list of integers", self.what))
    }

    pub fn usize_list(&self, key: &str) -> Result<Vec<usize>, String> {
        self.opt_usize_list(key)?.ok_or_else(|| format!("#{} is missing '{key}'", self.what))
    }

    pub fn opt_usize_list(&self, key: &str) -> Result<Option<Vec<usize>>, String> {
        match self.opt(key) {
            None => Ok(None),
            Some(a) => {
                let v = self
                    .ctx
                    .attr_as_i64_list(a)
                    .ok_or_else(|| format!("#{}: '{key}' must be a list of integers", self.what))?;
                if v.iter().any(|&x| x < 0) {
                    return Err(format!("#{}: '{key}' must hold non-negative indices", self.what));
                }
                Ok(Some(v.into_iter().map(|x| x as usize).collect()))
            }
        }
    }
}
