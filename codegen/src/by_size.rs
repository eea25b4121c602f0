//! Native code for a function with symbolic sizes, generated per set of
//! symbol values.
//!
//! The tensor-level pipeline (the seed stages, `joint`, `partition`,
//! `simplify`) runs once over the symbolic function; code per size has its
//! loop bounds, strides and memory plan as constants in the code (what a
//! target without run-time sizes, or an op whose lowering needs static
//! sizes, gets). [`BySize`] keeps the symbolic function,
//! binds its symbols from each call's arguments (sizes, and the 0-d
//! arguments marked `aot.symbol`), and runs the code compiled for those
//! values: on the first call with them it copies the function into a
//! context of its own, evaluates every size ([`aot_ir::sym::specialise_function`])
//! and compiles the copy like any static function. At most [`BySize::MAX`]
//! versions are kept; the least recently used one is dropped (with its
//! context) when another is needed.
//!
//! With [`crate::target::Options::runtime_sizes`] (the default), the
//! first call first tries to compile the symbolic function itself into code that reads its
//! sizes at run time ([`crate::sized`]); where the code generator's
//! pipeline or target does not take it (an op whose lowering needs static
//! sizes, a target without a size table), that attempt's error is kept
//! ([`BySize::runtime_sizes_refused`]) and the function is compiled per
//! size as above. A backward call that specialises absent tangents
//! compiles the symbolic function with those tangents dropped
//! ([`crate::absent::drop_absent_tangents`]) once per set of absent
//! tangents, with run-time sizes too, unless run-time sizes were refused
//! (then per size).
//!
//! Invariant: the code run for a call is the function specialised for
//! exactly that call's symbol values, which the call's arguments satisfy
//! (their sizes are checked against the specialised types by the compiled
//! code's own argument checks, and the ranges and guards here), or code
//! reading exactly those values from its size table.

use crate::{Lazy, Native};
use aot_ir::sym::{Bindings, Facts};
use aot_ir::{Context, Op, TensorType};
use aot_runtime::compiled::{Executable, StepProfile};
use aot_runtime::Tensor;

/// What binds a symbolic function's symbols from a call's arguments.
pub(crate) struct Binder {
    /// Per argument, its declared tensor type (symbolic sizes and all).
    params: Vec<Option<TensorType>>,
    /// The arguments that pass a symbol's value: `(argument, symbol)`.
    symbol_args: Vec<(usize, u32)>,
    facts: Facts,
}

impl Binder {
    /// The binder of `func` of `ctx`, whose arguments have `params` types.
    pub(crate) fn new(ctx: &Context, func: Op, params: Vec<Option<TensorType>>) -> Result<Binder, String> {
        Ok(Binder { params, symbol_args: aot_ir::sym::symbol_args(ctx, func), facts: Facts::of_func(ctx, func)? })
    }

    /// The symbol values of a call with `args`, checked against the ranges
    /// and guards.
    pub(crate) fn bind(&self, args: &[Tensor]) -> Result<Bindings, String> {
        if args.len() != self.params.len() {
            return Err(format!("the compiled function takes {} arguments, got {}", self.params.len(), args.len()));
        }
        let types: Vec<Option<&TensorType>> = self.params.iter().map(|t| t.as_ref()).collect();
        aot_runtime::guards::bind_symbols(&types, &self.symbol_args, &self.facts, args)
    }
}

/// What was made per set of symbol values, most recently used last; at
/// most `max` kept, the least recently used dropped first.
pub(crate) struct Versions<T> {
    entries: Vec<(Vec<(u32, i64)>, T)>,
    max: usize,
    made: usize,
}

impl<T> Versions<T> {
    pub(crate) fn new(max: usize) -> Versions<T> {
        Versions { entries: Vec::new(), max, made: 0 }
    }

    /// The entry for the values of `b`, made by `make` on first use.
    pub(crate) fn get_or_make(
        &mut self,
        b: &Bindings,
        make: impl FnOnce(&Bindings) -> Result<T, String>,
    ) -> Result<&mut T, String> {
        let mut key = b.pairs().to_vec();
        key.sort_unstable();
        match self.entries.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let v = self.entries.remove(i);
                self.entries.push(v);
            }
            None => {
                let v = make(b)?;
                if self.entries.len() >= self.max {
                    self.entries.remove(0);
                }
                self.entries.push((key, v));
                self.made += 1;
            }
        }
        Ok(&mut self.entries.last_mut().expect("an entry was just pushed").1)
    }

    /// How many entries were made (dropped ones included).
    pub(crate) fn made(&self) -> usize {
        self.made
    }

    /// Each entry with its symbol values, as `s0=3,s1=5`.
    pub(crate) fn labelled(&self) -> impl Iterator<Item = (String, &T)> {
        self.entries.iter().map(|(key, v)| {
            let vals: Vec<String> = key.iter().map(|(k, v)| format!("s{k}={v}")).collect();
            (vals.join(","), v)
        })
    }

    pub(crate) fn each_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

/// A symbolic function compiled per set of symbol values (see the module
/// docs).
pub struct BySize {
    /// The function as the pipeline left it, printed: each version parses
    /// its own copy, so dropping a version frees all its IR.
    text: String,
    native: Native,
    binder: Binder,
    versions: Versions<Lazy>,
    /// The compile with run-time sizes, once tried: the code, or why the
    /// pipeline or target refused it.
    sized: Option<Result<Box<dyn Executable>, String>>,
    /// The same per set of absent tangents (a backward's calls).
    sized_absent: aot_runtime::compiled::Specialisations<Box<dyn Executable>>,
}

impl BySize {
    /// Versions kept at once.
    pub const MAX: usize = 32;

    /// `func` of `ctx` (which has symbolic sizes), to compile with `native`
    /// once per set of symbol values.
    pub fn new(ctx: &Context, func: Op, native: Native) -> Result<BySize, String> {
        let text = aot_ir::printer::print_op(ctx, func, Default::default());
        let f = aot_dialects::func::FuncView { op: func };
        let params = f.args(ctx).iter().map(|&a| ctx.value_tensor(a).cloned()).collect();
        Ok(BySize {
            text,
            native,
            binder: Binder::new(ctx, func, params)?,
            versions: Versions::new(Self::MAX),
            sized: None,
            sized_absent: Default::default(),
        })
    }

    /// The code with run-time sizes, compiled on the first call when the
    /// options ask for it; `None` when they do not or it was refused.
    fn sized(&mut self) -> Option<&mut Box<dyn Executable>> {
        if !self.native.options.runtime_sizes {
            return None;
        }
        if self.sized.is_none() {
            let compiled = compile_sized(&self.text, &self.native, None);
            if let Err(why) = &compiled {
                note_refusal(why);
            }
            self.sized = Some(compiled);
        }
        self.sized.as_mut().and_then(|r| r.as_mut().ok())
    }

    /// The code with run-time sizes for the tangents `absent`, compiled on
    /// the first call that has them; `None` when the options do not ask
    /// for run-time sizes, they were refused (for every tangent, or for
    /// these), or too many sets of absent tangents came already.
    fn sized_absent(&mut self, first_tangent: usize, absent: &[usize]) -> Option<&mut Box<dyn Executable>> {
        if !self.native.options.runtime_sizes || matches!(self.sized, Some(Err(_))) {
            return None;
        }
        let (text, native) = (&self.text, &self.native);
        let built =
            self.sized_absent.get_or_build(absent, || compile_sized(text, native, Some((first_tangent, absent))))?;
        built.as_mut().ok()
    }

    /// Why the compile with run-time sizes was refused, once tried.
    pub fn runtime_sizes_refused(&self) -> Option<&str> {
        match &self.sized {
            Some(Err(m)) => Some(m),
            _ => None,
        }
    }

    /// Whether calls run code that reads its sizes at run time (after the
    /// first call; see the module docs).
    pub fn runs_with_runtime_sizes(&self) -> bool {
        matches!(self.sized, Some(Ok(_)))
    }

    /// How many versions have been compiled so far (dropped ones included).
    pub fn versions_built(&self) -> usize {
        self.versions.made()
    }

    /// The version for the symbol values of `args`, built on first use.
    fn version(&mut self, args: &[Tensor]) -> Result<&mut Lazy, String> {
        let b = self.binder.bind(args)?;
        let (text, native) = (&self.text, &self.native);
        self.versions.get_or_make(&b, |b| specialise(text, native, b))
    }
}

/// The profile rows of every version, each labelled with its symbol values.
pub(crate) fn labelled_profile<T>(
    versions: &Versions<T>,
    profile: impl Fn(&T) -> Vec<StepProfile>,
) -> Vec<StepProfile> {
    let mut rows = Vec::new();
    for (label, v) in versions.labelled() {
        rows.extend(profile(v).into_iter().map(|mut r| {
            r.what = format!("{} [{label}]", r.what);
            r
        }));
    }
    rows
}

/// The symbolic function printed as `text` (with the tangents `absent`
/// dropped when given) compiled with `native` into code with run-time
/// sizes, or why the pipeline or target refused it.
fn compile_sized(
    text: &str,
    native: &Native,
    absent: Option<(usize, &[usize])>,
) -> Result<Box<dyn Executable>, String> {
    let (mut ctx, func) = aot_dialects::func::parse_function(text, "<symbolic function>")?;
    if let Some((first, absent)) = absent {
        crate::absent::drop_absent_tangents(&mut ctx, func, first, absent)
            .map_err(|d| format!("specialising the backward: {}", d.message))?;
    }
    crate::compile_function(&mut ctx, func, native, &mut String::new()).map_err(|d| d.message)
}

/// Why code reading its sizes at run time was refused, per distinct
/// reason, in this process so far (at most [`MAX_REFUSALS`] kept): what
/// sent a function to code per size.
static REFUSALS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
const MAX_REFUSALS: usize = 32;

fn note_refusal(why: &str) {
    if let Ok(mut r) = REFUSALS.lock() {
        if r.len() < MAX_REFUSALS && !r.iter().any(|x| x == why) {
            r.push(why.to_string());
        }
    }
}

/// The distinct reasons this process's symbolic functions got native code
/// per size instead of code reading their sizes at run time (the first
/// 32), oldest first.
pub fn runtime_sizes_refusals() -> Vec<String> {
    REFUSALS.lock().map(|r| r.clone()).unwrap_or_default()
}

/// Versions of symbolic functions specialised for one set of symbol values
/// (code per size) in this process so far.
static SPECIALISED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many times this process specialised a symbolic function for one set
/// of symbol values to compile it per size ([`BySize`]'s versions, every
/// function together): what code with run-time sizes avoids.
pub fn versions_specialised() -> u64 {
    SPECIALISED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The function printed as `text` specialised for `b`, in a context of its
/// own, ready to compile with `native` on its first run.
fn specialise(text: &str, native: &Native, b: &Bindings) -> Result<Lazy, String> {
    SPECIALISED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (mut ctx, func) = aot_dialects::func::parse_function(text, "<symbolic function>")?;
    let vals = b.pairs().iter().map(|(k, v)| format!("s{k} = {v}")).collect::<Vec<_>>().join(", ");
    aot_ir::sym::specialise_function(&mut ctx, func, b).map_err(|e| format!("specialising for {vals}: {e}"))?;
    aot_ir::verify(&ctx, func).map_err(|d| {
        format!(
            "specialised for {vals}, the function does not verify: {}",
            d.first().map(|d| d.message.as_str()).unwrap_or("")
        )
    })?;
    Ok(Lazy::new(ctx, func, native.clone()))
}

impl Executable for BySize {
    fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        if let Some(s) = self.sized() {
            return s.run(args);
        }
        self.version(&args)?.run(args)
    }

    fn run_absent(&mut self, args: Vec<Tensor>, first_tangent: usize, absent: &[usize]) -> Result<Vec<Tensor>, String> {
        if absent.is_empty() {
            if let Some(s) = self.sized() {
                return s.run(args);
            }
        } else if let Some(s) = self.sized_absent(first_tangent, absent) {
            return s.run(args);
        }
        self.version(&args)?.run_absent(args, first_tangent, absent)
    }

    fn profile(&self) -> Vec<StepProfile> {
        let mut rows = match &self.sized {
            Some(Ok(s)) => s.profile(),
            _ => Vec::new(),
        };
        for s in self.sized_absent.built() {
            rows.extend(s.profile().into_iter().map(|mut r| {
                r.what = format!("{} [for absent tangents]", r.what);
                r
            }));
        }
        rows.extend(labelled_profile(&self.versions, |v| v.profile()));
        rows
    }

    fn reset_profile(&mut self) {
        if let Some(Ok(s)) = &mut self.sized {
            s.reset_profile();
        }
        self.sized_absent.built_mut().for_each(|s| s.reset_profile());
        self.versions.each_mut().for_each(|v| v.reset_profile());
    }
}
