//! A compiled function whose native code reads its sizes at run time:
//! one compile serves every set of symbol values.
//!
//! The code generator compiled the kernels of a symbolic host program
//! once (`HostProgram::symbolic`); each kernel loads the symbolic sizes
//! it uses (loop bounds, strides, offsets) from a size table whose
//! address follows its operands. [`Sized`] binds the symbols from each
//! call's arguments (their sizes, and the 0-d arguments marked
//! `aot.symbol`), checks the function's ranges and guards, and runs the
//! program evaluated for those values (`HostProgram::evaluate`) with
//! the table as a read-only global: a new size costs an evaluation of
//! the program's types, no code generation. The evaluated programs share
//! one arena and one set of result buffers ([`crate::executor::Memory`]),
//! so a new size reuses the memory earlier sizes touched. At most [`Sized::MAX`]
//! evaluated programs are kept, the least recently used dropped first.
//! On a device (the CUDA backend, [`Sized::on_device`]) each evaluated
//! program gets a device of its own over the same loaded kernels, which
//! copies the program's size table in once with its other globals.
//!
//! Invariant: a call runs the kernels with the table of exactly its own
//! symbol values, and the evaluated program's argument checks (sizes,
//! layouts) are those of a static compile at those values.

use crate::by_size::{labelled_profile, Binder, Versions};
use crate::executor::{Compiled, Device, Executable};
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
    binder: Binder,
    /// The evaluated programs.
    versions: Versions<Executable>,
    /// The arena and results' buffers every evaluated program shares: a
    /// new size reuses the pages earlier sizes touched.
    memory: Rc<std::cell::RefCell<crate::executor::Memory>>,
    /// Makes the device each evaluated program runs its kernels on (the
    /// CUDA backend); `None` runs them on the host. One device per
    /// program: a device keeps the globals it copied by host address, and
    /// the size table is a global of one program, freed with it.
    device: Option<DeviceMaker>,
}

/// Makes a [`Device`] for one evaluated program.
pub type DeviceMaker = Box<dyn Fn() -> Result<Box<dyn Device>, String>>;

impl Sized {
    /// Programs kept at once.
    pub const MAX: usize = 32;

    /// `code` (a symbolic program and its kernels) of the lowered function
    /// `func` of `ctx`.
    pub fn new(ctx: &Context, func: Op, code: Compiled) -> Result<Sized, String> {
        // (Each argument's buffer shape, symbols and all, as a tensor type.)
        let params =
            code.program.args.iter().map(|m| Some(TensorType { shape: m.shape.clone(), elem: m.elem })).collect();
        Ok(Sized {
            binder: Binder::new(ctx, func, params)?,
            code: Rc::new(code),
            versions: Versions::new(Self::MAX),
            memory: Default::default(),
            device: None,
        })
    }

    /// [`Sized::new`] with each evaluated program's kernels and GEMMs run
    /// on a device from `device`.
    pub fn on_device(ctx: &Context, func: Op, code: Compiled, device: DeviceMaker) -> Result<Sized, String> {
        let mut s = Sized::new(ctx, func, code)?;
        s.device = Some(device);
        Ok(s)
    }

    fn version(&mut self, args: &[Tensor]) -> Result<&mut Executable, String> {
        let b = self.binder.bind(args)?;
        let (code, memory, device) = (&self.code, &self.memory, &self.device);
        self.versions.get_or_make(&b, |b| {
            let table_global = code.globals.len();
            let (program, table) = code.program.evaluate(b, table_global)?;
            let mut globals = code.globals.clone();
            let mut t = Buffer::zeros(ElemType::I64, table.len());
            for (k, &v) in table.iter().enumerate() {
                t.set_i64(k, v);
            }
            globals.push(Storage::new(t));
            let compiled = Compiled {
                program,
                kernels: code.kernels.clone(),
                messages: code.messages.clone(),
                globals,
                // The symbolic compile owns the code the kernels are.
                owner: Box::new(code.clone()),
            };
            Ok(match device {
                Some(make) => Executable::sharing_on_device(compiled, memory.clone(), make()?),
                None => Executable::sharing(compiled, memory.clone()),
            })
        })
    }
}

impl aot_runtime::compiled::Executable for Sized {
    fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        self.version(&args)?.runtime.run(args)
    }

    fn profile(&self) -> Vec<StepProfile> {
        labelled_profile(&self.versions, aot_runtime::compiled::Executable::profile)
    }

    fn reset_profile(&mut self) {
        self.versions.each_mut().for_each(|v| v.runtime.reset_profile());
    }
}
