//! Tensor subclasses (`aot.subclass`, `aot.subclass_wrap`,
//! `aot.subclass_unwrap`): PyTorch's traceable wrapper subclasses, such as
//! `TwoTensor`, whose data is a fixed list of inner tensors.
//!
//! A module declares a class once, `aot.subclass @TwoTensor {inner = ["a",
//! "b"]}`, optionally with `inner_classes` (a nested class per component,
//! `""` for a dense one) and `meta` (a dictionary of constant attributes
//! that is part of the class's identity, as `__tensor_flatten__`'s context).
//! Values of the class have the type `!aot.subclass<@TwoTensor, T>` where
//! `T` is the outer tensor type a user sees; every dense component (leaf)
//! of such a value has type `T` too, which is what per-component dispatch
//! needs (the dense op's shape inference holds for every component).
//!
//! Any other op with subclass operands is dispatched per component (the
//! rule lives in `aot_ir::registry::subclass_dispatch`); `wrap` and
//! `unwrap` (trait `SUBCLASS_RULES`) are the only ops that cross between dense and subclass values,
//! and both are differentiable (the gradient of a wrap is the unwrap of the
//! output's gradient and the converse), like the `autograd.Function`s users
//! write to enter and leave a subclass. `flatten-subclasses` removes all
//! three; nothing after it sees a subclass.

use aot_ir::registry::{traits, Arity, AttrKind, AttrSpec, OpDef, Syntax, Traits};
use aot_ir::rewriter::OperationState;
use aot_ir::{inventory, AttrData, Attribute, Context, Diagnostic, Op, OpKind, ParseResult, Parser, Type, TypeData};
use rustc_hash::FxHashMap;

aot_ir::op_handle!(pub SubclassOp = "aot.subclass");
aot_ir::op_handle!(pub WrapOp = "aot.subclass_wrap");
aot_ir::op_handle!(pub UnwrapOp = "aot.subclass_unwrap");

/// A class declaration, as read from its `aot.subclass` op.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDecl {
    pub name: String,
    /// The inner attribute names, in flattening order.
    pub inner: Vec<String>,
    /// For each component: the nested class, or `None` for a dense tensor.
    pub inner_classes: Vec<Option<String>>,
    /// The constant metadata (a dictionary attribute), if declared.
    pub meta: Option<Attribute>,
    pub op: Op,
}

/// Every class of a module, with the nesting resolved and checked.
#[derive(Clone, Debug, Default)]
pub struct Classes {
    pub by_name: FxHashMap<String, ClassDecl>,
    /// Dense leaves per class (bounded by the inlining limit).
    leaves: FxHashMap<String, usize>,
}

impl Classes {
    /// Reads the module's declarations: names unique, nested classes
    /// declared, no class containing itself.
    pub fn of_module(ctx: &Context, module: Op) -> Result<Classes, Diagnostic> {
        let mut by_name: FxHashMap<String, ClassDecl> = FxHashMap::default();
        let Some(body) = ctx.regions(module).first().and_then(|&r| ctx.region_blocks(r).first().copied()) else {
            return Ok(Classes::default());
        };
        for op in ctx.block_ops(body) {
            if !ctx.isa::<SubclassOp>(op) {
                continue;
            }
            let d = read_decl(ctx, op)?;
            if by_name.contains_key(&d.name) {
                return Err(Diagnostic::op_error(ctx, op, format!("redefines subclass @{}", d.name)));
            }
            by_name.insert(d.name.clone(), d);
        }
        let mut classes = Classes { by_name, leaves: FxHashMap::default() };
        for d in classes.by_name.values() {
            for c in d.inner_classes.iter().flatten() {
                if !classes.by_name.contains_key(c) {
                    return Err(Diagnostic::op_error(
                        ctx,
                        d.op,
                        format!("component class @{c} is not declared in this module"),
                    ));
                }
            }
        }
        let names: Vec<String> = classes.by_name.keys().cloned().collect();
        let mut leaves = FxHashMap::default();
        for n in &names {
            classes.resolve(ctx, n, &mut Vec::new(), &mut leaves)?;
        }
        classes.leaves = leaves;
        Ok(classes)
    }

    /// Leaves of class `name`, memoized: each class is resolved once, the
    /// nesting depth is bounded by the nesting limit (so neither a cycle
    /// nor a long chain recurses without bound) and the leaf count by the
    /// inlining limit (nesting doubles it per level).
    fn resolve(
        &self,
        ctx: &Context,
        name: &str,
        path: &mut Vec<String>,
        memo: &mut FxHashMap<String, usize>,
    ) -> Result<usize, Diagnostic> {
        if let Some(&n) = memo.get(name) {
            return Ok(n);
        }
        let d = &self.by_name[name];
        if path.iter().any(|p| p == name) {
            return Err(Diagnostic::op_error(ctx, d.op, format!("subclass @{name} contains itself")));
        }
        let max_depth = aot_ir::size::Limits::get(aot_ir::size::Limit::Nesting);
        if path.len() as u64 >= max_depth {
            return Err(Diagnostic::op_error(
                ctx,
                d.op,
                format!("subclass @{name} is nested more than {max_depth} classes deep (AOT_MAX_NESTING)"),
            ));
        }
        path.push(name.to_string());
        let max_leaves = aot_ir::size::Limits::get(aot_ir::size::Limit::InlineOps);
        let mut total: u64 = 0;
        for c in &d.inner_classes {
            let n = match c {
                Some(c) => self.resolve(ctx, c, path, memo)? as u64,
                None => 1,
            };
            total = total.saturating_add(n);
            if total > max_leaves {
                return Err(Diagnostic::op_error(
                    ctx,
                    d.op,
                    format!("subclass @{name} flattens to more than {max_leaves} dense tensors (AOT_MAX_INLINE_OPS)"),
                ));
            }
        }
        path.pop();
        memo.insert(name.to_string(), total as usize);
        Ok(total as usize)
    }

    pub fn get(&self, name: &str) -> Option<&ClassDecl> {
        self.by_name.get(name)
    }

    /// Number of dense tensors (leaves) a value of `class` flattens to.
    /// The classes are acyclic, so this terminates.
    pub fn leaf_count(&self, class: &str) -> usize {
        self.by_name
            .get(class)
            .map_or(1, |d| d.inner_classes.iter().map(|c| c.as_deref().map_or(1, |c| self.leaf_count(c))).sum())
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

fn read_decl(ctx: &Context, op: Op) -> Result<ClassDecl, Diagnostic> {
    let err = |m: String| Diagnostic::op_error(ctx, op, m);
    let name = ctx.attr_str(op, "sym_name").ok_or_else(|| err("needs a symbol name".into()))?.to_string();
    let strings = |key: &str| -> Result<Option<Vec<String>>, Diagnostic> {
        let Some(a) = ctx.get_attr(op, key) else { return Ok(None) };
        let AttrData::Array(items) = ctx.attr_data(a) else {
            return Err(err(format!("'{key}' must be a list of strings")));
        };
        items
            .iter()
            .map(|&i| {
                ctx.attr_as_str(i).map(str::to_string).ok_or_else(|| err(format!("'{key}' must be a list of strings")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    };
    let inner = strings("inner")?.ok_or_else(|| err("needs 'inner', the list of its inner tensors' names".into()))?;
    if inner.is_empty() {
        return Err(err("'inner' must name at least one inner tensor".into()));
    }
    for (i, n) in inner.iter().enumerate() {
        if n.is_empty() || inner[..i].contains(n) {
            return Err(err(format!("'inner' names must be non-empty and unique, got \"{n}\" twice or empty")));
        }
    }
    let inner_classes = match strings("inner_classes")? {
        None => vec![None; inner.len()],
        Some(v) if v.len() == inner.len() => v.into_iter().map(|c| (!c.is_empty()).then_some(c)).collect(),
        Some(v) => {
            return Err(err(format!(
                "'inner_classes' has {} entries but 'inner' has {}: give one class (or \"\") per inner tensor",
                v.len(),
                inner.len()
            )))
        }
    };
    let meta = ctx.get_attr(op, "meta");
    if let Some(m) = meta {
        if !matches!(ctx.attr_data(m), AttrData::Dict(_)) {
            return Err(err("'meta' must be a dictionary of constant attributes".into()));
        }
    }
    Ok(ClassDecl { name, inner, inner_classes, meta, op })
}

/// The module that holds `op`.
pub fn enclosing_module(ctx: &Context, op: Op) -> Option<Op> {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if ctx.op_name(p) == aot_ir::parser::MODULE_OP {
            return Some(p);
        }
        cur = ctx.parent_op(p);
    }
    None
}

/// The class of a subclass type, if `t` is one.
pub fn class_of(ctx: &Context, t: Type) -> Option<&str> {
    ctx.type_data(t).as_subclass().map(|s| s.class.as_str())
}

/// The type of component `i` of a value of subclass type `t` (same outer
/// tensor; a nested class's component is a value of that class).
pub fn component_type(ctx: &mut Context, d: &ClassDecl, t: Type, i: usize) -> Type {
    let tensor = ctx.type_data(t).as_tensor().cloned().expect("a subclass type has an outer tensor");
    match &d.inner_classes[i] {
        Some(c) => ctx.intern_type(TypeData::Subclass(aot_ir::types::SubclassType { class: c.clone(), tensor })),
        None => ctx.intern_type(TypeData::Tensor(tensor)),
    }
}

fn parse_decl(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let name = p.parse_symbol_name()?;
    let key = p.ctx().sym("sym_name");
    let value = p.ctx().str_attr(&name);
    st.add_attr(key, value);
    p.parse_optional_attr_dict(&mut st.attrs)?;
    Ok(())
}

fn print_decl(p: &mut aot_ir::printer::OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    if let Some(name) = ctx.attr_str(op, "sym_name") {
        p.w(" ");
        p.print_symbol_name(name);
    }
    p.print_attr_dict(ctx.attrs(op), &["sym_name"]);
}

fn verify_decl(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    if ctx.parent_op(op).is_some_and(|p| ctx.op_name(p) != aot_ir::parser::MODULE_OP) {
        return Err(Diagnostic::op_error(ctx, op, "must be declared at module level"));
    }
    read_decl(ctx, op).map(|_| ())
}

/// The declaration of class `name` visible from `op`.
fn decl_for(ctx: &Context, op: Op, name: &str) -> Result<ClassDecl, Diagnostic> {
    let module = enclosing_module(ctx, op)
        .ok_or_else(|| Diagnostic::op_error(ctx, op, "must be inside a module that declares its subclass"))?;
    // Only this declaration is read: nesting and cycles are checked once
    // per module by `Classes::of_module` (in `flatten-subclasses`).
    let body = ctx.regions(module).first().and_then(|&r| ctx.region_blocks(r).first().copied());
    let decl = body.and_then(|b| {
        ctx.block_ops(b).find(|&o| ctx.isa::<SubclassOp>(o) && ctx.attr_str(o, "sym_name") == Some(name))
    });
    match decl {
        Some(o) => read_decl(ctx, o),
        None => Err(Diagnostic::op_error(ctx, op, format!("subclass @{name} is not declared in this module"))),
    }
}

/// `wrap`'s operands (or `unwrap`'s results) against the class of its
/// subclass value: one per component, each of the component's type.
fn verify_components(ctx: &Context, op: Op, sub: Type, parts: &[Type], what: &str) -> Result<(), Diagnostic> {
    let Some(class) = class_of(ctx, sub) else {
        return Err(Diagnostic::op_error(ctx, op, format!("{what} must be a subclass value")));
    };
    let d = decl_for(ctx, op, class)?;
    if parts.len() != d.inner.len() {
        return Err(Diagnostic::op_error(
            ctx,
            op,
            format!(
                "@{class} has {} inner tensors ({}), but the op has {}",
                d.inner.len(),
                d.inner.join(", "),
                parts.len()
            ),
        ));
    }
    let outer = ctx.type_data(sub).as_tensor().cloned();
    for (i, &t) in parts.iter().enumerate() {
        let ok = ctx.type_data(t).as_tensor().cloned() == outer && class_of(ctx, t) == d.inner_classes[i].as_deref();
        if !ok {
            let outer_text = outer.as_ref().map(|t| t.to_string()).unwrap_or_default();
            let want = match &d.inner_classes[i] {
                Some(c) => format!("a @{c} value of outer type {outer_text}"),
                None => outer_text,
            };
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "inner tensor '{}' has type {}, but @{class} needs {want}",
                    d.inner[i],
                    aot_ir::printer::type_to_string(ctx, t)
                ),
            ));
        }
    }
    Ok(())
}

fn verify_wrap(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let parts: Vec<Type> = ctx.operands(op).map(|v| ctx.value_type(v)).collect();
    verify_components(ctx, op, ctx.result_type(op, 0), &parts, "the result")
}

fn verify_unwrap(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let parts: Vec<Type> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
    verify_components(ctx, op, ctx.value_type(ctx.operand(op, 0)), &parts, "the operand")
}

inventory::submit! {
    OpDef {
        name: SubclassOp::NAME,
        summary: "Declares a tensor subclass: its inner tensors, nested classes and constant metadata",
        traits: traits(&[Traits::SYMBOL]),
        attrs: &[
            AttrSpec::required("sym_name", AttrKind::Str),
            AttrSpec::required("inner", AttrKind::Any),
            AttrSpec::optional("inner_classes", AttrKind::Any),
            AttrSpec::optional("meta", AttrKind::Any),
        ],
        verify: Some(verify_decl),
        syntax: Syntax::Custom { parse: parse_decl, print: print_decl },
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: WrapOp::NAME,
        summary: "Builds a subclass value from its inner tensors (in the declaration's order)",
        traits: traits(&[Traits::PURE, Traits::SUBCLASS_RULES]),
        operands: Arity::AtLeast(1),
        results: Arity::Exact(1),
        verify: Some(verify_wrap),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: UnwrapOp::NAME,
        summary: "The inner tensors of a subclass value (in the declaration's order)",
        traits: traits(&[Traits::PURE, Traits::SUBCLASS_RULES]),
        operands: Arity::Exact(1),
        results: Arity::AtLeast(1),
        verify: Some(verify_unwrap),
        syntax: Syntax::Functional,
        ..OpDef::DEFAULT
    }
}
