//! A compiled function whose native code reads its sizes at run time:
//! one compile serves every set of symbol values.
//!
//! The code generator compiled the kernels of a symbolic host program
//! once ([`HostProgram::symbolic`]); each kernel loads the symbolic sizes
//! it uses (loop bounds, strides, offsets) from a size table whose
//! address follows its operands. [`Sized`] binds the symbols from each
//! call's arguments (their sizes, and the 0-d arguments marked
//! `aot.symbol`), checks the function's ranges and guards, and runs the
//! program evaluated for those values ([`HostProgram::evaluate`]) with
//! the table as a read-only global: a new size costs an evaluation of
//! the program's types, no code generation. At most [`Sized::MAX`]
//! evaluated programs are kept, the least recently used dropped first.
//!
//! Invariant: a call runs the kernels with the table of exactly its own
//! symbol values, and the evaluated program's argument checks (sizes,
//! layouts) are those of a static compile at those values.

use crate::executor::{Compiled, Executable};
use crate::program::HostProgram;
use aot_ir::sym::Facts;
use aot_ir::{Context, ElemType, Op, TensorType};
use aot_runtime::buffer::Buffer;
use aot_runtime::compiled::StepProfile;
use aot_runtime::tensor::Storage;
use aot_runtime::Tensor;
use std::rc::Rc;

/// A symbolic program's kernels, compiled once, run per set of symbol
/// values (see the module docs).
pub struct Sized {
    code: Rc<Compiled>,
    /// Per argument, its buffer's shape as a tensor type (symbols and all).
    params: Vec<Option<TensorType>>,
    /// The arguments that pass a symbol's value: `(argument, symbol)`.
    symbol_args: Vec<(usize, u32)>,
    facts: Facts,
    /// The evaluated programs, most recently used last, by their symbol
    /// values (in binding order).
    versions: Vec<(Vec<(u32, i64)>, Executable)>,
    evaluated: usize,
}

impl Sized {
    /// Programs kept at once.
    pub const MAX: usize = 32;

    /// `code` (a symbolic program and its kernels) of the lowered function
    /// `func` of `ctx`.
    pub fn new(ctx: &Context, func: Op, code: Compiled) -> Result<Sized, String> {
        let params =
            code.program.args.iter().map(|m| Some(TensorType { shape: m.shape.clone(), elem: m.elem })).collect();
        Ok(Sized {
            params,
            symbol_args: aot_ir::sym::symbol_args(ctx, func),
            facts: Facts::of_func(ctx, func)?,
            code: Rc::new(code),
            versions: Vec::new(),
            evaluated: 0,
        })
    }

    /// How many programs have been evaluated for a new set of symbol
    /// values so far (dropped ones included).
    pub fn programs_evaluated(&self) -> usize {
        self.evaluated
    }

    /// The symbolic program.
    pub fn program(&self) -> &HostProgram {
        &self.code.program
    }

    fn version(&mut self, args: &[Tensor]) -> Result<&mut Executable, String> {
        if args.len() != self.params.len() {
            return Err(format!("the compiled function takes {} arguments, got {}", self.params.len(), args.len()));
        }
        let types: Vec<Option<&TensorType>> = self.params.iter().map(|t| t.as_ref()).collect();
        let b = aot_runtime::guards::bind_symbols(&types, &self.symbol_args, &self.facts, args)?;
        let mut key = b.pairs().to_vec();
        key.sort_unstable();
        match self.versions.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let v = self.versions.remove(i);
                self.versions.push(v);
            }
            None => {
                let table_global = self.code.globals.len();
                let (program, table) = self.code.program.evaluate(&b, table_global)?;
                let mut globals = self.code.globals.clone();
                let mut t = Buffer::zeros(ElemType::I64, table.len());
                for (k, &v) in table.iter().enumerate() {
                    t.set_i64(k, v);
                }
                globals.push(Storage::new(t));
                let code = Compiled {
                    program,
                    kernels: self.code.kernels.clone(),
                    messages: self.code.messages.clone(),
                    globals,
                    // The symbolic compile owns the code the kernels are.
                    owner: Box::new(self.code.clone()),
                };
                if self.versions.len() >= Self::MAX {
                    self.versions.remove(0);
                }
                self.versions.push((key, Executable::new(code)));
                self.evaluated += 1;
            }
        }
        Ok(&mut self.versions.last_mut().expect("a version was just pushed").1)
    }
}

impl aot_runtime::compiled::Executable for Sized {
    fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        self.version(&args)?.runtime.run(args)
    }

    fn profile(&self) -> Vec<StepProfile> {
        let mut rows = Vec::new();
        for (key, v) in &self.versions {
            let vals: Vec<String> = key.iter().map(|(k, v)| format!("s{k}={v}")).collect();
            rows.extend(aot_runtime::compiled::Executable::profile(v).into_iter().map(|mut r| {
                r.what = format!("{} [{}]", r.what, vals.join(","));
                r
            }));
        }
        rows
    }

    fn reset_profile(&mut self) {
        self.versions.iter_mut().for_each(|(_, v)| v.runtime.reset_profile());
    }
}
