//! How many ops a function amounts to with every `func.call` expanded: what
//! interpreting one call executes, and what inlining every call produces.
//!
//! A call graph of `k` functions that each call the next twice is `2^k` ops
//! expanded, so both the interpreter and the inliner size it before doing
//! any work and refuse it with a located error. The count is one pass over
//! the call graph (each function's body is counted once and memoized), in
//! saturating arithmetic, with an explicit stack (a chain of 100,000
//! functions does not recurse natively).
//!
//! Counting rule: every op of a function's entry block except its
//! terminator counts one, and a `func.call` counts one plus its callee's
//! whole expanded body (a call to an empty function is still work: `2^40`
//! of them never finish either). A call to a missing function or a declaration counts
//! one: the error for it belongs to whoever executes or inlines it. Bodies
//! are straight-line, so a call graph with a cycle never returns: it is
//! reported as recursion, up front too.

use super::CallOpInterface;
use aot_ir::{Context, Op, Traits};
use rustc_hash::{FxHashMap, FxHashSet};

fn is_call(ctx: &Context, op: Op) -> bool {
    ctx.op_def(op).is_some_and(|d| d.interface::<CallOpInterface>().is_some())
}

fn is_terminator(ctx: &Context, op: Op) -> bool {
    ctx.op_def(op).is_some_and(|d| d.has(Traits::TERMINATOR))
}

/// A function: a symbol with a body.
fn is_function(ctx: &Context, op: Op) -> bool {
    ctx.op_def(op).is_some_and(|d| d.has(Traits::SYMBOL) && d.regions == 1)
}

/// Why a function may not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpansionError {
    /// `call` (to `callee`) closes a cycle of calls.
    Recursive { call: Op, callee: String },
    /// Expanding the function up to and including op `at` makes `total`
    /// ops, more than `limit`; `at` alone (a call to `callee`, or one op)
    /// makes `own`.
    TooLarge { at: Op, callee: Option<String>, own: u64, total: u64, limit: u64 },
}

/// Expanded sizes of functions, memoized. Valid while the module it was
/// used on is not changed.
#[derive(Default, Debug)]
pub struct CallCosts {
    memo: FxHashMap<Op, u64>,
}

/// The function a `func.call` names, looked up in its enclosing module.
pub fn find_callee(ctx: &Context, call: Op) -> Option<Op> {
    let name = callee_name(ctx, call)?;
    let mut module = ctx.parent_op(call)?;
    while ctx.op_name(module) != aot_ir::parser::MODULE_OP {
        module = ctx.parent_op(module)?;
    }
    let body = ctx.single_block(module, 0)?;
    ctx.block_ops(body).find(|&f| is_function(ctx, f) && ctx.attr_str(f, "sym_name") == Some(name))
}

fn callee_name(ctx: &Context, call: Op) -> Option<&str> {
    let aot_ir::AttrData::SymbolRef(s) = ctx.attr_data(ctx.get_attr(call, "callee")?) else { return None };
    Some(ctx.sym_str(*s))
}

fn body_ops(ctx: &Context, func: Op) -> Vec<Op> {
    let Some(&region) = ctx.regions(func).first() else { return Vec::new() };
    let Some(&entry) = ctx.region_blocks(region).first() else { return Vec::new() };
    ctx.block_ops(entry).filter(|&op| !is_terminator(ctx, op)).collect()
}

struct Frame {
    func: Op,
    ops: Vec<Op>,
    next: usize,
    acc: u64,
}

impl CallCosts {
    pub fn new() -> Self {
        Self::default()
    }

    /// The ops one call of `func` (a `func.func` op) amounts to, not
    /// counting the call itself.
    pub fn of(&mut self, ctx: &Context, func: Op) -> Result<u64, ExpansionError> {
        if let Some(&n) = self.memo.get(&func) {
            return Ok(n);
        }
        let mut on_stack: FxHashSet<Op> = FxHashSet::default();
        on_stack.insert(func);
        let mut stack = vec![Frame { func, ops: body_ops(ctx, func), next: 0, acc: 0 }];
        while let Some(top) = stack.last_mut() {
            let Some(&op) = top.ops.get(top.next) else {
                let done = stack.pop().expect("non-empty");
                on_stack.remove(&done.func);
                self.memo.insert(done.func, done.acc);
                if let Some(caller) = stack.last_mut() {
                    caller.acc = caller.acc.saturating_add(done.acc).saturating_add(1);
                    caller.next += 1;
                }
                continue;
            };
            let callee = if is_call(ctx, op) { find_callee(ctx, op) } else { None };
            match callee {
                Some(f) if on_stack.contains(&f) => {
                    let callee = callee_name(ctx, op).unwrap_or_default().to_string();
                    return Err(ExpansionError::Recursive { call: op, callee });
                }
                Some(f) if !self.memo.contains_key(&f) && !body_ops_empty_decl(ctx, f) => {
                    on_stack.insert(f);
                    stack.push(Frame { func: f, ops: body_ops(ctx, f), next: 0, acc: 0 });
                }
                Some(f) => {
                    let n = self.memo.get(&f).copied().unwrap_or(0);
                    top.acc = top.acc.saturating_add(n).saturating_add(1);
                    top.next += 1;
                }
                None => {
                    top.acc = top.acc.saturating_add(1);
                    top.next += 1;
                }
            }
        }
        Ok(self.memo[&func])
    }

    /// Checks that `func` expanded makes at most `limit` ops; the error
    /// names the op of `func`'s body at which the count passes the limit.
    pub fn check(&mut self, ctx: &Context, func: Op, limit: u64) -> Result<u64, ExpansionError> {
        let total = self.of(ctx, func)?;
        if total <= limit {
            return Ok(total);
        }
        let mut acc: u64 = 0;
        for op in body_ops(ctx, func) {
            let (own, callee) = match find_callee(ctx, op).filter(|_| is_call(ctx, op)) {
                Some(f) => (self.of(ctx, f)?.saturating_add(1), callee_name(ctx, op).map(str::to_string)),
                None => (1, None),
            };
            acc = acc.saturating_add(own);
            if acc > limit {
                return Err(ExpansionError::TooLarge { at: op, callee, own, total, limit });
            }
        }
        // Unreachable by construction (the body's sum is `total`); say so
        // at the function rather than pretend it fits.
        Err(ExpansionError::TooLarge { at: func, callee: None, own: total, total, limit })
    }
}

/// A declaration (no body) counts as one op, like an unknown callee.
fn body_ops_empty_decl(ctx: &Context, f: Op) -> bool {
    ctx.regions(f).first().is_none_or(|&r| ctx.region_blocks(r).is_empty())
}

/// `n` for a message: a saturated count is "more than" the largest `u64`.
pub fn show_count(n: u64) -> String {
    if n == u64::MAX {
        format!("more than {}", u64::MAX - 1)
    } else {
        n.to_string()
    }
}
