//! `Dispatch`: the callable the `torch.compile` backend hands Dynamo, with
//! the common call of a compiled graph done natively from end to end.
//!
//! A graph's Python dispatcher (`backend.CompiledGraph`) keys every call
//! by its calling convention (`keys::convention_key`), picks the region's
//! compiled variant, binds the arguments, runs the code and returns the
//! results. For a variant whose results need no work after the compiled
//! code (an inference call: no result aliases an argument or another
//! result, none is a view eager marks), the Python side registers it in a
//! [`FastTable`] under its key once it has run it; from then on a call
//! whose key matches is read, bound, run and returned here, each tensor's
//! attributes read once and no Python frame entered. A variant of symbolic
//! sizes is registered once per size it is called with, under the key of
//! those sizes (its results' layouts depend on them). Everything else
//! (first calls, training, a profile being taken, a key no entry has) goes
//! to the Python dispatcher, which stays the reference: an entry only ever
//! shortcuts what that dispatcher would do for the same key.
//!
//! Invariants: an entry is used only for a call whose grad mode, key bytes
//! and non-tensor values all equal the ones it was registered with (the
//! bytes encode every tensor fact, see `keys`); the runtime's guards still
//! check each call, and a call they refuse (nothing ran) is handed to the
//! Python dispatcher, which decides again, with the entry dropped. No
//! borrow of the table is held while Python code may run.

use std::rc::Rc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::{keys, torch, CallSpec, ConventionError, ExecutionError, Few, GilOnly, PyAotFunction};

/// One output of the graph: a result of the compiled function, or a value
/// the trace fixed.
enum Output {
    Result(usize),
    Value(Py<PyAny>),
}

/// See [`FastTable::capacity`].
const CAPACITY: usize = 64;

/// The non-tensor arguments of a key, `(type, value)`, in order.
type Values = Vec<(Py<PyAny>, Py<PyAny>)>;

/// A compiled inference variant and how its call is keyed and finished.
struct Entry {
    grad: bool,
    key: Vec<u8>,
    values: Values,
    function: Py<PyAotFunction>,
    /// The positions of the tensor arguments the function takes.
    tensor_pos: Vec<usize>,
    views: Vec<bool>,
    written: Vec<usize>,
    /// `(result, eager's strides)`: a result laid out otherwise goes
    /// through `finish`.
    strides: Vec<(usize, Vec<i64>)>,
    outputs: Vec<Output>,
    tuple_out: bool,
    /// `finish(arguments, results)`: the graph's outputs from results the
    /// strides above do not all fit (the variant's general epilogue).
    finish: Py<PyAny>,
}

/// The fast entries of one compiled graph (see the module comment).
#[pyclass(name = "FastTable", module = "aot_torch._native")]
pub struct FastTable {
    entries: GilOnly<Vec<Rc<Entry>>>,
    /// Calls the entries took.
    hits: GilOnly<std::cell::Cell<u64>>,
}

#[pymethods]
impl FastTable {
    #[new]
    fn new() -> Self {
        FastTable { entries: GilOnly(Vec::new()), hits: GilOnly(Default::default()) }
    }

    /// Registers a variant for the calls keyed `key`, as `_convention_key`
    /// gives it: `(grad_mode, (bytes, ((type, value), ...)))`. `outputs`:
    /// per graph output, `(True, result)` or `(False, value)`. Replaces an
    /// entry of the same key.
    #[pyo3(signature = (key, function, tensor_pos, views, written, strides, outputs, tuple_out, finish))]
    #[allow(clippy::too_many_arguments)]
    fn register(
        &mut self,
        key: &Bound<'_, PyAny>,
        function: Py<PyAotFunction>,
        tensor_pos: Vec<usize>,
        views: Vec<bool>,
        written: Vec<usize>,
        strides: Vec<(usize, Vec<i64>)>,
        outputs: Vec<(bool, Bound<'_, PyAny>)>,
        tuple_out: bool,
        finish: Py<PyAny>,
    ) -> PyResult<()> {
        let (grad, (bytes, values)): (bool, (Vec<u8>, Values)) = key.extract()?;
        let outputs = outputs
            .into_iter()
            .map(|(result, v)| Ok(if result { Output::Result(v.extract()?) } else { Output::Value(v.unbind()) }))
            .collect::<PyResult<Vec<_>>>()?;
        let entry = Rc::new(Entry {
            grad,
            key: bytes,
            values,
            function,
            tensor_pos,
            views,
            written,
            strides,
            outputs,
            tuple_out,
            finish,
        });
        let entries = &mut self.entries.0;
        entries.retain(|e| !(e.grad == entry.grad && e.key == entry.key && same_values(&e.values, &entry.values)));
        if entries.len() >= CAPACITY {
            entries.remove(0);
        }
        entries.push(entry);
        Ok(())
    }

    /// The entries a table keeps: registering one more drops the oldest (a
    /// graph of symbolic sizes registers one per size it is called with).
    #[classattr]
    fn capacity() -> usize {
        CAPACITY
    }

    /// Drops every entry.
    fn clear(&mut self) {
        self.entries.0.clear();
    }

    fn __len__(&self) -> usize {
        self.entries.0.len()
    }

    /// How many calls the entries took.
    #[getter]
    fn hits(&self) -> u64 {
        self.hits.0.get()
    }
}

/// Whether two registrations keyed the same values (by identity: a
/// registration replaces only its own key's entry).
fn same_values(a: &[(Py<PyAny>, Py<PyAny>)], b: &[(Py<PyAny>, Py<PyAny>)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((ta, va), (tb, vb))| ta.is(tb) && va.is(vb))
}

/// Calls a compiled graph: through its [`FastTable`] where an entry takes
/// the call, else through `slow`, the graph's Python dispatcher, with
/// `extra` (tensors the graph reads that are not Dynamo's arguments: its
/// lifted attributes) after the caller's arguments.
#[pyclass(name = "Dispatch", module = "aot_torch._native")]
pub struct Dispatch {
    slow: Py<PyAny>,
    table: Py<FastTable>,
    extra: Vec<Py<PyAny>>,
    /// Called with an `ExecutionError` of a fast call before it is raised
    /// (it may raise the error PyTorch raises instead).
    on_error: Option<Py<PyAny>>,
    /// The last call's key buffer, reused (taken while a call reads its
    /// key: a call from within that gets a fresh one).
    key_buf: GilOnly<std::cell::Cell<Vec<u8>>>,
}

#[pymethods]
impl Dispatch {
    #[new]
    #[pyo3(signature = (slow, table, extra = Vec::new(), on_error = None))]
    fn new(slow: Py<PyAny>, table: Py<FastTable>, extra: Vec<Py<PyAny>>, on_error: Option<Py<PyAny>>) -> Self {
        Dispatch { slow, table, extra, on_error, key_buf: GilOnly(Default::default()) }
    }

    /// The graph's Python dispatcher.
    #[getter]
    fn graph(&self, py: Python<'_>) -> Py<PyAny> {
        self.slow.clone_ref(py)
    }

    #[pyo3(signature = (*args))]
    fn __call__<'py>(&self, py: Python<'py>, args: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        let mut all: Few<Bound<'py, PyAny>> = Few::with_capacity(args.len() + self.extra.len());
        all.extend(args.iter());
        all.extend(self.extra.iter().map(|t| t.bind(py).clone()));
        if let Some(out) = self.fast(py, &all)? {
            return Ok(out);
        }
        let args = if self.extra.is_empty() { args.clone() } else { PyTuple::new(py, &all)? };
        self.slow.bind(py).call1(args)
    }
}

impl Dispatch {
    /// The call through an entry; None where the Python dispatcher takes
    /// it (nothing ran).
    fn fast<'py>(&self, py: Python<'py>, all: &[Bound<'py, PyAny>]) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.table.bind(py).borrow().entries.0.is_empty() || aot::codegen::executor::profiling() {
            return Ok(None);
        }
        let api = torch(py)?;
        let grad: bool = api.is_grad_enabled.bind(py).call0()?.extract()?;
        let mut key = keys::Key { bytes: self.key_buf.0.take() };
        key.bytes.clear();
        let mut others = Vec::new();
        // (What the key cannot read, the Python dispatcher reports.)
        let read = keys::read_convention(py, all, &None, &mut key, &mut others);
        let found = match &read {
            Ok(_) => self.find(py, grad, &key.bytes, &others),
            Err(_) => None,
        };
        self.key_buf.0.set(key.bytes);
        let (Ok(records), Some(entry)) = (read, found) else {
            return Ok(None);
        };
        let Ok(mut function) = entry.function.bind(py).try_borrow_mut() else {
            return Ok(None);
        };
        let objs: Few<Bound<'py, PyAny>> = entry.tensor_pos.iter().filter_map(|&i| all.get(i).cloned()).collect();
        if objs.len() != entry.tensor_pos.len() {
            return Ok(None);
        }
        let spec = CallSpec { views: &entry.views, written: &entry.written, bases: &[], no_grad: true };
        let strides = &entry.strides;
        let ran = function.invoke(py, &objs, &spec, records, |f, a, _| {
            let outs = f.call(a)?;
            let plain = strides.iter().all(|(k, st)| outs.get(*k).is_some_and(|o| o.strides()[..] == st[..]));
            Ok((outs, plain))
        });
        drop(function);
        let (outs, plain) = match ran {
            Ok(r) => r,
            Err(e) if e.is_instance_of::<ConventionError>(py) => {
                // The runtime's guards refused the call: the Python
                // dispatcher decides again, and this entry is not tried
                // again.
                self.table.bind(py).borrow_mut().entries.0.retain(|e| !Rc::ptr_eq(e, &entry));
                return Ok(None);
            }
            Err(e) => {
                if let (true, Some(hook)) = (e.is_instance_of::<ExecutionError>(py), &self.on_error) {
                    hook.bind(py).call1((e.value(py),))?;
                }
                return Err(e);
            }
        };
        {
            let table = self.table.bind(py).borrow();
            table.hits.0.set(table.hits.0.get() + 1);
        }
        let results = if plain {
            entry
                .outputs
                .iter()
                .map(|o| match o {
                    Output::Result(k) => outs.get(*k).map(|t| t.bind(py).clone()).ok_or_else(|| {
                        pyo3::exceptions::PyRuntimeError::new_err("aot_torch: a fast call lacks a result")
                    }),
                    Output::Value(v) => Ok(v.bind(py).clone()),
                })
                .collect::<PyResult<Vec<_>>>()?
        } else {
            let args = PyList::new(py, all)?;
            let outs = PyList::new(py, outs)?;
            entry.finish.bind(py).call1((args, outs))?.try_iter()?.collect::<PyResult<Vec<_>>>()?
        };
        Ok(Some(if entry.tuple_out {
            PyList::new(py, results)?.into_any()
        } else {
            results.into_iter().next().unwrap_or_else(|| py.None().into_bound(py))
        }))
    }

    /// The entry for a call's grad mode, key and non-tensor values.
    fn find(&self, py: Python<'_>, grad: bool, key: &[u8], others: &[Bound<'_, PyAny>]) -> Option<Rc<Entry>> {
        // (Comparing values may run Python, under the borrow: a
        // registration from there fails and takes nothing, a lookup works.)
        let table = self.table.bind(py).borrow();
        let entry = table.entries.0.iter().find(|e| {
            e.grad == grad
                && e.key == key
                && e.values.len() == others.len()
                && e.values.iter().zip(others).all(|((ty, v), a)| {
                    // (Python equality takes `1 == 1.0 == True`: the type too.)
                    a.get_type().is(ty.bind(py)) && a.eq(v.bind(py)).unwrap_or(false)
                })
        });
        entry.cloned()
    }
}
