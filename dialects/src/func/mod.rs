//! The `func` dialect: `func.func`, `func.return`, `func.call`.
//!
//! A function is an `IsolatedFromAbove` symbol with one region; its type is
//! the `function_type` attribute and per-argument/per-result attribute
//! dictionaries live in `arg_attrs`/`res_attrs` (as in MLIR). A declaration
//! has an empty region. Inside a function body, ops of the `func` dialect may
//! be written without prefix (`return`). [`FuncView`] gives passes typed access
//! to signatures and argument attributes without poking at attribute storage.

use aot_ir::lexer::TokenKind;
use aot_ir::parser::Argument;
use aot_ir::printer::types_to_string;
use aot_ir::*;
use smallvec::SmallVec;

aot_ir::op_handle!(pub FuncOp = "func.func");
aot_ir::op_handle!(pub ReturnOp = "func.return");
aot_ir::op_handle!(pub CallOp = "func.call");

// The calling convention's attributes (docs/reference/calling-convention-attrs.md).
/// Argument attribute: the argument requires grad.
pub const REQUIRES_GRAD: &str = "aot.requires_grad";
/// Argument attribute: the argument is a non-leaf (a view of a leaf that requires grad).
pub const NON_LEAF: &str = "aot.non_leaf";
/// Argument attribute: the argument is the same tensor as an earlier one.
pub const SAME_AS: &str = "aot.same_as";
/// Argument attribute: the argument's layout in a storage (`#aot.layout`).
pub const LAYOUT: &str = "aot.layout";
/// Argument attribute of a backward, result attribute of its forward: the
/// index among the values `partition` saved between the two.
pub const SAVED: &str = "aot.saved";
/// Function attribute: the storages that `aot.layout` names (`#aot.storage`).
pub const STORAGES: &str = "aot.storages";

/// Typed access to a `func.func` op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FuncView {
    pub op: Op,
}

impl FuncView {
    /// Views `op` as a function if it is one.
    pub fn new(ctx: &Context, op: Op) -> Option<FuncView> {
        ctx.isa::<FuncOp>(op).then_some(FuncView { op })
    }

    pub fn name<'c>(&self, ctx: &'c Context) -> &'c str {
        ctx.attr_str(self.op, "sym_name").unwrap_or("")
    }

    pub fn function_type(&self, ctx: &Context) -> (Vec<Type>, Vec<Type>) {
        match ctx.get_attr(self.op, "function_type").map(|a| ctx.attr_data(a)) {
            Some(AttrData::Type(t)) => match ctx.type_data(*t) {
                TypeData::Function { inputs, results } => (inputs.clone(), results.clone()),
                _ => (Vec::new(), Vec::new()),
            },
            _ => (Vec::new(), Vec::new()),
        }
    }

    pub fn num_args(&self, ctx: &Context) -> usize {
        self.function_type(ctx).0.len()
    }

    pub fn num_results(&self, ctx: &Context) -> usize {
        self.function_type(ctx).1.len()
    }

    pub fn is_declaration(&self, ctx: &Context) -> bool {
        ctx.region_blocks(ctx.regions(self.op)[0]).is_empty()
    }

    /// A function the pipeline compiles: it has a body and is not private
    /// (private functions are helpers that `functionalize` inlines).
    pub fn is_public_definition(&self, ctx: &Context) -> bool {
        !self.is_declaration(ctx) && ctx.attr_str(self.op, "sym_visibility") != Some("private")
    }

    pub fn entry_block(&self, ctx: &Context) -> Option<Block> {
        ctx.region_blocks(ctx.regions(self.op)[0]).first().copied()
    }

    pub fn args<'c>(&self, ctx: &'c Context) -> &'c [Value] {
        match self.entry_block(ctx) {
            Some(b) => ctx.block_args(b),
            None => &[],
        }
    }

    /// The terminating `func.return`.
    pub fn return_op(&self, ctx: &Context) -> Option<Op> {
        let b = self.entry_block(ctx)?;
        ctx.block_last_op(b).filter(|&o| ctx.isa::<ReturnOp>(o))
    }

    /// Entry `i` of the list of dictionaries `key` (`arg_attrs`/`res_attrs`).
    fn dict_at<'c>(&self, ctx: &'c Context, key: &str, i: usize) -> &'c [NamedAttr] {
        let Some(AttrData::Array(v)) = ctx.get_attr(self.op, key).map(|a| ctx.attr_data(a)) else { return &[] };
        match v.get(i).map(|&d| ctx.attr_data(d)) {
            Some(AttrData::Dict(entries)) => entries,
            _ => &[],
        }
    }

    /// The attribute dictionary entries of argument `i`.
    pub fn arg_attrs(&self, ctx: &Context, i: usize) -> Vec<NamedAttr> {
        self.dict_at(ctx, "arg_attrs", i).to_vec()
    }

    pub fn res_attrs(&self, ctx: &Context, i: usize) -> Vec<NamedAttr> {
        self.dict_at(ctx, "res_attrs", i).to_vec()
    }

    pub fn arg_attr(&self, ctx: &Context, i: usize, name: &str) -> Option<Attribute> {
        let key = ctx.lookup_sym(name)?;
        self.dict_at(ctx, "arg_attrs", i).iter().find(|a| a.name == key).map(|a| a.value)
    }

    pub fn res_attr(&self, ctx: &Context, i: usize, name: &str) -> Option<Attribute> {
        let key = ctx.lookup_sym(name)?;
        self.dict_at(ctx, "res_attrs", i).iter().find(|a| a.name == key).map(|a| a.value)
    }

    pub fn arg_has(&self, ctx: &Context, i: usize, name: &str) -> bool {
        self.arg_attr(ctx, i, name).is_some_and(|a| ctx.attr_as_flag(a) != Some(false))
    }

    /// Replaces all argument attribute dictionaries.
    pub fn set_all_arg_attrs(&self, rw: &mut Rewriter<'_>, all: Vec<Vec<NamedAttr>>) {
        set_dict_list(rw, self.op, "arg_attrs", all);
    }

    pub fn set_all_res_attrs(&self, rw: &mut Rewriter<'_>, all: Vec<Vec<NamedAttr>>) {
        set_dict_list(rw, self.op, "res_attrs", all);
    }

    /// Every argument's attributes, one list per argument.
    pub fn all_arg_attrs(&self, ctx: &Context) -> Vec<Vec<NamedAttr>> {
        (0..self.num_args(ctx)).map(|i| self.arg_attrs(ctx, i)).collect()
    }

    pub fn all_res_attrs(&self, ctx: &Context) -> Vec<Vec<NamedAttr>> {
        (0..self.num_results(ctx)).map(|i| self.res_attrs(ctx, i)).collect()
    }

    /// Sets the function type (callers keep the body consistent).
    pub fn set_function_type(&self, rw: &mut Rewriter<'_>, inputs: Vec<Type>, results: Vec<Type>) {
        let t = rw.intern_type(TypeData::Function { inputs, results });
        let a = rw.type_attr(t);
        rw.set_attr(self.op, "function_type", a);
    }

    /// Removes the arguments `i` with `keep[i] == false`, with their
    /// attributes; they must be unused.
    pub fn erase_args(&self, rw: &mut Rewriter<'_>, keep: &[bool]) -> Result<(), String> {
        let b = self.entry_block(rw).ok_or("a declaration has no arguments to erase")?;
        let args = self.args(rw).to_vec();
        if keep.len() != args.len() {
            return Err(format!("{} keep flags for {} arguments", keep.len(), args.len()));
        }
        if let Some(i) = (0..args.len()).find(|&i| !keep[i] && rw.has_uses(args[i])) {
            return Err(format!("argument {i} is still used"));
        }
        let attrs: Vec<Vec<NamedAttr>> =
            self.all_arg_attrs(rw).into_iter().zip(keep).filter(|(_, &k)| k).map(|(a, _)| a).collect();
        rw.retain_block_args(b, keep);
        self.set_all_arg_attrs(rw, attrs);
        self.sync_function_type(rw);
        Ok(())
    }

    /// Inserts an argument of type `ty` at position `at`.
    pub fn insert_arg(&self, rw: &mut Rewriter<'_>, at: usize, ty: Type, attrs: Vec<NamedAttr>) -> Option<Value> {
        let b = self.entry_block(rw)?;
        let mut all = self.all_arg_attrs(rw);
        let v = rw.insert_block_arg(b, at, ty);
        all.insert(at, attrs);
        self.set_all_arg_attrs(rw, all);
        self.sync_function_type(rw);
        Some(v)
    }

    /// Recomputes `function_type` from the entry block and the return op.
    pub fn sync_function_type(&self, rw: &mut Rewriter<'_>) {
        let inputs: Vec<Type> = self.args(rw).iter().map(|&v| rw.value_type(v)).collect();
        let results: Vec<Type> = match self.return_op(rw) {
            Some(r) => rw.operands(r).map(|v| rw.value_type(v)).collect(),
            None => self.function_type(rw).1,
        };
        self.set_function_type(rw, inputs, results);
    }
}

fn set_dict_list(rw: &mut Rewriter<'_>, op: Op, key: &str, all: Vec<Vec<NamedAttr>>) {
    if all.iter().all(|d| d.is_empty()) {
        rw.remove_attr(op, key);
        return;
    }
    let dicts: Vec<Attribute> = all.into_iter().map(|d| rw.dict_attr(d)).collect();
    let a = rw.array_attr(dicts);
    rw.set_attr(op, key, a);
}

/// Finds the function named `name` directly inside `module`.
pub fn lookup_func(ctx: &Context, module: Op, name: &str) -> Option<FuncView> {
    let body = ctx.single_block(module, 0)?;
    ctx.block_ops(body).filter_map(|o| FuncView::new(ctx, o)).find(|f| f.name(ctx) == name)
}

/// Every function directly inside `module`.
pub fn funcs(ctx: &Context, module: Op) -> Vec<FuncView> {
    match ctx.single_block(module, 0) {
        Some(b) => ctx.block_ops(b).filter_map(|o| FuncView::new(ctx, o)).collect(),
        None => Vec::new(),
    }
}

/// Function `func` of `ctx` copied into a context of its own (printed and
/// parsed, under the file name `file`): a copy that can be rewritten, and
/// dropped with all its IR, without touching the original's context.
pub fn own_copy(ctx: &Context, func: Op, file: &str) -> Result<(Context, Op), String> {
    parse_function(&print_op(ctx, func, Default::default()), file)
}

/// The first function of module text `text` (a printed function), in a
/// context of its own.
pub fn parse_function(text: &str, file: &str) -> Result<(Context, Op), String> {
    let mut own = Context::new();
    let opts = ParseOptions { file: file.into(), first_line: 1 };
    let module = parse_module(&mut own, text, &opts).map_err(|d| d.message)?;
    let f = funcs(&own, module).first().map(|f| f.op).ok_or("the text holds no function")?;
    Ok((own, f))
}

/// The entry function: `name` if given, else the only public function, else `@main`.
pub fn entry_func(ctx: &Context, module: Op, name: Option<&str>) -> Result<FuncView, String> {
    if let Some(n) = name {
        return lookup_func(ctx, module, n).ok_or_else(|| format!("no function named '@{n}' in the module"));
    }
    let all = funcs(ctx, module);
    let public: Vec<FuncView> = all
        .iter()
        .copied()
        .filter(|f| ctx.attr_str(f.op, "sym_visibility").unwrap_or("public") == "public" && !f.is_declaration(ctx))
        .collect();
    if let [only] = public[..] {
        return Ok(only);
    }
    lookup_func(ctx, module, "main").ok_or_else(|| {
        format!(
            "cannot pick the entry function: the module has {} public functions and no '@main'; pass --entry NAME",
            public.len()
        )
    })
}

// ----- func.func -----

fn parse_func(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    for vis in ["private", "public", "nested"] {
        if p.parse_optional_keyword(vis) {
            let k = p.ctx().sym("sym_visibility");
            let v = p.ctx().str_attr(vis);
            st.add_attr(k, v);
            break;
        }
    }
    let name = p.parse_symbol_name()?;
    let k = p.ctx().sym("sym_name");
    let v = p.ctx().str_attr(&name);
    st.add_attr(k, v);
    p.expect(TokenKind::LParen, "'(' in function signature")?;
    let mut args: Vec<Argument> = Vec::new();
    let mut arg_types = Vec::new();
    let mut arg_attrs: Vec<Vec<NamedAttr>> = Vec::new();
    let mut named = None;
    p.parse_list_until(TokenKind::RParen, "')' in function signature", |p| {
        let is_named = p.at_operand();
        if *named.get_or_insert(is_named) != is_named {
            return Err(p.error_here("expected all function arguments to be named or all unnamed"));
        }
        if is_named {
            let a = p.parse_argument()?;
            arg_types.push(a.ty);
            arg_attrs.push(a.attrs.clone());
            args.push(a);
        } else {
            let ty = p.parse_type()?;
            let mut attrs = Vec::new();
            p.parse_optional_attr_dict(&mut attrs)?;
            arg_types.push(ty);
            arg_attrs.push(attrs);
        }
        Ok(())
    })?;
    let mut res_types = Vec::new();
    let mut res_attrs: Vec<Vec<NamedAttr>> = Vec::new();
    if p.consume_if(TokenKind::Arrow) {
        if p.consume_if(TokenKind::LParen) {
            p.parse_list_until(TokenKind::RParen, "')' in function result list", |p| {
                res_types.push(p.parse_type()?);
                let mut attrs = Vec::new();
                p.parse_optional_attr_dict(&mut attrs)?;
                res_attrs.push(attrs);
                Ok(())
            })?;
        } else {
            res_types.push(p.parse_type()?);
            res_attrs.push(Vec::new());
        }
    }
    p.parse_optional_attr_dict_with_keyword(&mut st.attrs)?;
    let fty = p.ctx().intern_type(TypeData::Function { inputs: arg_types, results: res_types });
    let k = p.ctx().sym("function_type");
    let v = p.ctx().type_attr(fty);
    st.add_attr(k, v);
    for (key, lists) in [("arg_attrs", arg_attrs), ("res_attrs", res_attrs)] {
        if lists.iter().any(|l| !l.is_empty()) {
            let dicts: Vec<Attribute> = lists.into_iter().map(|l| p.ctx().dict_attr(l)).collect();
            let k = p.ctx().sym(key);
            let v = p.ctx().array_attr(dicts);
            st.add_attr(k, v);
        }
    }
    let region = if p.peek() == TokenKind::LBrace {
        if named == Some(false) {
            return Err(p.error_here("expected named arguments (%name: type) for a function with a body"));
        }
        p.parse_region(&args)?
    } else {
        if named == Some(true) {
            return Err(p.error_here("expected '{' to begin the body of a function with named arguments"));
        }
        p.parse_empty_region()
    };
    st.regions.push(region);
    Ok(())
}

fn print_func(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    let f = FuncView { op };
    if let Some(vis) = ctx.attr_str(op, "sym_visibility") {
        p.w(" ");
        p.w(vis);
    }
    p.w(" ");
    p.print_symbol_name(f.name(ctx));
    let (inputs, results) = f.function_type(ctx);
    let decl = f.is_declaration(ctx);
    p.w("(");
    for (i, &t) in inputs.iter().enumerate() {
        if i > 0 {
            p.w(", ");
        }
        if !decl {
            p.print_operand(f.args(ctx)[i]);
            p.w(": ");
        }
        p.print_type(t);
        p.print_attr_dict(&f.arg_attrs(ctx, i), &[]);
    }
    p.w(")");
    if !results.is_empty() {
        p.w(" -> ");
        let any_attrs = (0..results.len()).any(|i| !f.res_attrs(ctx, i).is_empty());
        let plain = results.len() == 1 && !any_attrs && !matches!(ctx.type_data(results[0]), TypeData::Function { .. });
        if plain {
            p.print_type(results[0]);
        } else {
            p.w("(");
            for (i, &t) in results.iter().enumerate() {
                if i > 0 {
                    p.w(", ");
                }
                p.print_type(t);
                p.print_attr_dict(&f.res_attrs(ctx, i), &[]);
            }
            p.w(")");
        }
    }
    p.print_attr_dict_with_keyword(
        ctx.attrs(op),
        &["sym_name", "function_type", "arg_attrs", "res_attrs", "sym_visibility"],
    );
    if !decl {
        p.w(" ");
        p.print_region(ctx.regions(op)[0], false);
    }
}

fn verify_func(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let fty = ctx.get_attr(op, "function_type").map(|a| ctx.attr_data(a));
    let Some(AttrData::Type(t)) = fty else {
        return Err(Diagnostic::op_error(ctx, op, "requires a 'function_type' type attribute"));
    };
    let TypeData::Function { inputs, results } = ctx.type_data(*t) else {
        return Err(Diagnostic::op_error(ctx, op, "attribute 'function_type' must be a function type"));
    };
    for (key, n) in [("arg_attrs", inputs.len()), ("res_attrs", results.len())] {
        if let Some(a) = ctx.get_attr(op, key) {
            match ctx.attr_data(a) {
                AttrData::Array(v)
                    if v.len() == n && v.iter().all(|&d| matches!(ctx.attr_data(d), AttrData::Dict(_))) => {}
                _ => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        format!("expects '{key}' to be an array of {n} dictionaries"),
                    ))
                }
            }
        }
    }
    if let Some(vis) = ctx.attr_str(op, "sym_visibility") {
        if !matches!(vis, "public" | "private" | "nested") {
            return Err(Diagnostic::op_error(ctx, op, format!("has invalid visibility '{vis}'")));
        }
    }
    let f = FuncView { op };
    let blocks = ctx.region_blocks(ctx.regions(op)[0]);
    if let Some(&entry) = blocks.first() {
        let args = ctx.block_args(entry);
        if args.len() != inputs.len() {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!("entry block must have {} arguments to match function signature", inputs.len()),
            ));
        }
        for (i, (&a, &t)) in args.iter().zip(inputs).enumerate() {
            if ctx.value_type(a) != t {
                return Err(Diagnostic::op_error(
                    ctx,
                    op,
                    format!(
                        "type of entry block argument #{i}({}) must match the type of the corresponding argument in function signature({})",
                        types_to_string(ctx, &[ctx.value_type(a)]),
                        types_to_string(ctx, &[t])
                    ),
                ));
            }
        }
    } else if ctx.attr_str(op, "sym_visibility") != Some("private") {
        return Err(Diagnostic::op_error(ctx, op, "symbol declaration cannot have public visibility"));
    }
    verify_convention_attrs(ctx, op, &f, inputs)?;
    aot_ir::sym::verify_function(ctx, op, inputs).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
    Ok(())
}

/// The calling-convention attributes (`aot.same_as`, `aot.layout`,
/// `aot.storages`) come from users and example inputs; every pass and the
/// runtime index storages through them, so they are checked here once:
/// a duplicate names an earlier argument of its type, a layout has one
/// non-negative stride per dim and a non-negative offset, and the storage
/// range it addresses is computable without overflow and inside the storage's
/// declared `numel`.
fn verify_convention_attrs(ctx: &Context, op: Op, f: &FuncView, inputs: &[Type]) -> Result<(), Diagnostic> {
    let arg_err = |i: usize, m: String| Diagnostic::op_error(ctx, op, format!("argument {i}: {m}"));
    let mut declared: Vec<(i64, Option<i64>)> = Vec::new();
    if let Some(a) = ctx.get_attr(op, STORAGES) {
        let AttrData::Array(items) = ctx.attr_data(a) else {
            return Err(Diagnostic::op_error(ctx, op, "'aot.storages' must be a list of #aot.storage"));
        };
        for &item in items {
            let id = ctx.attr_field(item, "id").and_then(|x| ctx.attr_as_i64(x));
            let numel = ctx.attr_field(item, "numel").map(|x| ctx.attr_as_i64(x));
            match (id, numel) {
                (Some(id), None) => declared.push((id, None)),
                (Some(id), Some(Some(n))) if n >= 0 || aot_ir::sym::is_symbolic(n) => declared.push((id, Some(n))),
                _ => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        "'aot.storages' entries need an integer 'id' and a non-negative integer 'numel'",
                    ))
                }
            }
        }
    }
    for (i, &ty) in inputs.iter().enumerate() {
        if let Some(a) = f.arg_attr(ctx, i, SAME_AS) {
            match ctx.attr_as_i64(a) {
                Some(k) if k >= 0 && (k as usize) < i && inputs[k as usize] == ty => {}
                _ => return Err(arg_err(i, "'aot.same_as' must name an earlier argument of the same type".into())),
            }
        }
        let Some(a) = f.arg_attr(ctx, i, LAYOUT) else { continue };
        // After lower-to-loops an argument is a memref whose type carries
        // the layout; the attribute then only records where it came from.
        let Some(t) = ctx.as_tensor(ty) else { continue };
        let storage = ctx.attr_field(a, "storage").and_then(|x| ctx.attr_as_i64(x));
        let offset = ctx.attr_field(a, "offset").map(|x| ctx.attr_as_i64(x)).unwrap_or(Some(0));
        let strides = ctx.attr_field(a, "strides").and_then(|x| ctx.attr_as_i64_list(x));
        let (Some(storage), Some(offset), Some(strides)) = (storage, offset, strides) else {
            return Err(arg_err(i, "'aot.layout' needs an integer 'storage', 'offset' and a list of 'strides'".into()));
        };
        if t.is_symbolic() || strides.iter().any(|&s| aot_ir::sym::is_symbolic(s)) {
            // With symbolic sizes, only a dense layout of a storage of the
            // argument's own (a permutation of its dimensions: a
            // channels-last batch) is taken.
            let shared = (0..inputs.len()).any(|j| {
                j != i
                    && f.arg_attr(ctx, j, LAYOUT)
                        .and_then(|b| ctx.attr_field(b, "storage"))
                        .and_then(|x| ctx.attr_as_i64(x))
                        == Some(storage)
            });
            let numel = aot_ir::sym::numel(&t.shape).ok();
            let own = declared.iter().find(|d| d.0 == storage).and_then(|d| d.1) == numel;
            if shared || !own || offset != 0 || aot_ir::sym::dense_permutation(&t.shape, &strides).is_none() {
                return Err(arg_err(
                    i,
                    format!(
                        "'aot.layout' on an argument with symbolic sizes ({t}) is not supported yet, but for a dense layout (a permutation of its dimensions) of a storage of its own"
                    ),
                ));
            }
            continue;
        }
        if strides.len() != t.rank() {
            return Err(arg_err(
                i,
                format!("'aot.layout' has {} strides for a tensor of rank {}", strides.len(), t.rank()),
            ));
        }
        if offset < 0 || strides.iter().any(|&s| s < 0) {
            return Err(arg_err(i, "'aot.layout' offset and strides must be non-negative".into()));
        }
        let Some((_, end)) = aot_ir::size::checked_extent(&t.shape, &strides, offset) else {
            return Err(arg_err(i, "'aot.layout' addresses storage elements beyond the 64-bit range".into()));
        };
        if let Some(&(_, Some(numel))) = declared.iter().find(|d| d.0 == storage) {
            if end > numel {
                return Err(arg_err(
                    i,
                    format!(
                        "'aot.layout' reaches storage element {}, outside its storage of {numel} elements",
                        end - 1
                    ),
                ));
            }
        }
    }
    Ok(())
}

// ----- func.return -----

fn parse_return(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let ops = p.parse_operand_list()?;
    if ops.is_empty() {
        return Ok(());
    }
    p.expect(TokenKind::Colon, "':' followed by the returned types")?;
    let mut types = Vec::new();
    p.parse_comma_separated(|p| {
        types.push(p.parse_type()?);
        Ok(())
    })?;
    if types.len() != ops.len() {
        return Err(p.error_here(format!("expected {} types for the returned values, got {}", ops.len(), types.len())));
    }
    st.operands = p.resolve_operands(&ops, &types)?;
    Ok(())
}

fn print_return(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    let vals: SmallVec<[Value; 4]> = ctx.operands(op).collect();
    if vals.is_empty() {
        return;
    }
    p.w(" ");
    p.print_operands(vals.iter().copied());
    p.w(" : ");
    p.print_types(vals.iter().map(|&v| ctx.value_type(v)));
}

fn verify_return(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(parent) = ctx.parent_op(op).filter(|&p| ctx.isa::<FuncOp>(p)) else {
        return Err(Diagnostic::op_error(ctx, op, "expects parent op 'func.func'"));
    };
    let f = FuncView { op: parent };
    let (_, results) = f.function_type(ctx);
    let n = ctx.num_operands(op);
    if n != results.len() {
        return Err(Diagnostic::op_error(
            ctx,
            op,
            format!("has {n} operands, but enclosing function (@{}) returns {}", f.name(ctx), results.len()),
        ));
    }
    for (i, (v, &t)) in ctx.operands(op).zip(&results).enumerate() {
        if ctx.value_type(v) != t {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{}",
                    types_to_string(ctx, &[ctx.value_type(v)]),
                    types_to_string(ctx, &[t]),
                    f.name(ctx)
                ),
            ));
        }
    }
    Ok(())
}

// ----- func.call -----

fn parse_call(p: &mut Parser<'_, '_>, st: &mut OperationState) -> ParseResult<()> {
    let callee = p.parse_symbol_name()?;
    p.expect(TokenKind::LParen, "'(' before call arguments")?;
    let ops = p.parse_operand_list()?;
    p.expect(TokenKind::RParen, "')' after call arguments")?;
    p.parse_optional_attr_dict(&mut st.attrs)?;
    p.expect(TokenKind::Colon, "':' followed by the callee's function type")?;
    let t = p.parse_type()?;
    let TypeData::Function { inputs, results } = p.ctx().type_data(t).clone() else {
        return Err(p.error_here("expected a function type for the call"));
    };
    if inputs.len() != ops.len() {
        return Err(p.error_here(format!("expected {} operand types, got {}", ops.len(), inputs.len())));
    }
    st.operands = p.resolve_operands(&ops, &inputs)?;
    st.result_types = results.into_iter().collect();
    let k = p.ctx().sym("callee");
    let v = p.ctx().symbol_ref_attr(&callee);
    st.add_attr(k, v);
    Ok(())
}

fn print_call(p: &mut OpPrinter<'_>, op: Op) {
    let ctx = p.ctx();
    p.w(" ");
    if let Some(AttrData::SymbolRef(s)) = ctx.get_attr(op, "callee").map(|a| ctx.attr_data(a)) {
        p.print_symbol_name(ctx.sym_str(*s));
    }
    p.w("(");
    p.print_operands(ctx.operands(op));
    p.w(")");
    p.print_attr_dict(ctx.attrs(op), &["callee"]);
    p.w(" : (");
    p.print_types(ctx.operands(op).map(|v| ctx.value_type(v)));
    p.w(") -> ");
    let rts: Vec<Type> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
    if rts.len() == 1 {
        p.print_type(rts[0]);
    } else {
        p.w("(");
        p.print_types(rts);
        p.w(")");
    }
}

/// The function a `func.call` refers to.
pub fn callee(ctx: &Context, call: Op) -> Option<FuncView> {
    let AttrData::SymbolRef(s) = ctx.attr_data(ctx.get_attr(call, "callee")?) else { return None };
    let mut module = ctx.parent_op(call)?;
    while ctx.op_name(module) != aot_ir::parser::MODULE_OP {
        module = ctx.parent_op(module)?;
    }
    lookup_func(ctx, module, ctx.sym_str(*s))
}

fn verify_call(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let name = match ctx.get_attr(op, "callee").map(|a| ctx.attr_data(a)) {
        Some(AttrData::SymbolRef(s)) => ctx.sym_str(*s).to_string(),
        _ => return Err(Diagnostic::op_error(ctx, op, "requires a 'callee' symbol reference attribute")),
    };
    let Some(f) = callee(ctx, op) else {
        return Err(Diagnostic::op_error(ctx, op, format!("'{name}' does not reference a valid function")));
    };
    let (inputs, results) = f.function_type(ctx);
    if inputs.len() != ctx.num_operands(op) {
        return Err(Diagnostic::op_error(ctx, op, "incorrect number of operands for callee"));
    }
    for (i, (v, &t)) in ctx.operands(op).zip(&inputs).enumerate() {
        if ctx.value_type(v) != t {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "operand type mismatch: expected operand type '{}', but provided '{}' for operand number {i}",
                    types_to_string(ctx, &[t]),
                    types_to_string(ctx, &[ctx.value_type(v)])
                ),
            ));
        }
    }
    if results.len() != ctx.num_results(op) {
        return Err(Diagnostic::op_error(ctx, op, "incorrect number of results for callee"));
    }
    for (i, (&r, &t)) in ctx.results(op).iter().zip(&results).enumerate() {
        if ctx.value_type(r) != t {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "result type mismatch at index {i}: expected '{}', but found '{}'",
                    types_to_string(ctx, &[t]),
                    types_to_string(ctx, &[ctx.value_type(r)])
                ),
            ));
        }
    }
    Ok(())
}

inventory::submit! {
    OpDef {
        name: FuncOp::NAME,
        summary: "A function: a symbol with a typed signature and a body region",
        traits: traits(&[Traits::ISOLATED_FROM_ABOVE, Traits::SYMBOL, Traits::SUBCLASS_RULES, Traits::SYMBOLIC_SHAPES]),
        regions: 1,
        attrs: &[
            AttrSpec::required("sym_name", AttrKind::Str),
            AttrSpec::required("function_type", AttrKind::Type),
            AttrSpec::optional("arg_attrs", AttrKind::Any),
            AttrSpec::optional("res_attrs", AttrKind::Any),
            AttrSpec::optional("sym_visibility", AttrKind::Str),
        ],
        verify: Some(verify_func),
        syntax: Syntax::Custom { parse: parse_func, print: print_func },
        default_dialect: Some("func"),
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: ReturnOp::NAME,
        summary: "Returns values from a function",
        traits: traits(&[Traits::TERMINATOR, Traits::PURE, Traits::SUBCLASS_RULES, Traits::SYMBOLIC_SHAPES]),
        operands: Arity::AtLeast(0),
        verify: Some(verify_return),
        syntax: Syntax::Custom { parse: parse_return, print: print_return },
        ..OpDef::DEFAULT
    }
}

inventory::submit! {
    OpDef {
        name: CallOp::NAME,
        summary: "Calls a function of the enclosing module",
        traits: traits(&[Traits::SUBCLASS_RULES]),
        operands: Arity::AtLeast(0),
        results: Arity::AtLeast(0),
        attrs: &[AttrSpec::required("callee", AttrKind::SymbolRef)],
        verify: Some(verify_call),
        syntax: Syntax::Custom { parse: parse_call, print: print_call },
        interfaces: &[&aot_runtime::interp::CallOpInterface],
        ..OpDef::DEFAULT
    }
}
