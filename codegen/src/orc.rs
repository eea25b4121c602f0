//! The process's one ORC JIT (LLVM's `LLJIT`), into which the LLVM and MLIR
//! backends load the relocatable objects they compiled or found in the
//! [`object_cache`](crate::object_cache), and the host target machine they
//! compile for.
//!
//! A backend optimizes a module, emits an object for the host
//! ([`emit_object`]), and [`load`]s it: the JIT links it against the math
//! table's functions (defined once, as absolute symbols, under their
//! `aot_` names and their C library names), the MLIR runtime's
//! `memrefCopy` and the process's own symbols. A loaded object stays
//! linked while a [`Loaded`] of it lives; the last one to drop removes its
//! code.
//!
//! Invariants: every global symbol an object defines starts with that
//! object's id ([`symbol_prefix`]), so two objects never define the same
//! name; an id is loaded at most once at a time (the `LOADED` table, whose
//! lock is held while an object is added or removed).

use inkwell::llvm_sys;
use inkwell::module::Module;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use rustc_hash::FxHashMap;
use std::ffi::{CStr, CString};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// LLVM's version, as the library loaded at run time reports it.
pub fn llvm_version() -> String {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: writes three integers.
    unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}

fn init_native() -> Result<(), String> {
    // Target registration fills LLVM's global tables: once per process,
    // never by two threads at once.
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| Target::initialize_native(&InitializationConfig::default()).map_err(|e| format!("LLVM: {e}")))
        .clone()
}

/// A target machine for this CPU (its name and features detected at run
/// time) at code generation level `level`. Position-independent, small
/// code model: what the JIT's linker places anywhere, with stubs for calls
/// into the process.
pub fn host_machine(level: OptimizationLevel) -> Result<TargetMachine, String> {
    init_native()?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|e| format!("LLVM: {e}"))?;
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    target
        .create_target_machine(&triple, &cpu, &features, level, RelocMode::PIC, CodeModel::Small)
        .ok_or_else(|| format!("LLVM cannot target this CPU ({cpu})"))
}

/// What code built by `machine` depends on besides its IR: for the object
/// cache's keys.
pub fn machine_description(machine: &TargetMachine, pipeline: &str) -> String {
    format!(
        "llvm {}\ntriple {}\ncpu {}\nfeatures {}\npic small\npipeline {pipeline}",
        llvm_version(),
        machine.get_triple().as_str().to_string_lossy(),
        machine.get_cpu().to_string_lossy(),
        machine.get_feature_string().to_string_lossy()
    )
}

/// The relocatable object of `module` for `machine`.
pub fn emit_object(machine: &TargetMachine, module: &Module<'_>) -> Result<Vec<u8>, String> {
    let buf = machine
        .write_to_memory_buffer(module, FileType::Object)
        .map_err(|e| format!("LLVM could not emit the object: {e}"))?;
    Ok(buf.as_slice().to_vec())
}

/// The prefix of every global symbol of object `id`.
pub fn symbol_prefix(id: &str) -> String {
    format!("aot.{id}.")
}

/// Makes `module`'s definitions fit to be linked beside other objects: a
/// definition `export` names keeps its linkage and is renamed to
/// `prefix` + its name; every other one becomes internal.
pub fn seal(module: &Module<'_>, prefix: &str, export: impl Fn(&str) -> bool) {
    use inkwell::module::Linkage;
    let local = |l: Linkage| l == Linkage::Internal || l == Linkage::Private;
    let mut definitions = Vec::new();
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.count_basic_blocks() > 0 {
            definitions.push(func.as_global_value());
        }
        f = func.get_next_function();
    }
    let mut g = module.get_first_global();
    while let Some(global) = g {
        if !global.is_declaration() {
            definitions.push(global);
        }
        g = global.get_next_global();
    }
    for d in definitions {
        if local(d.get_linkage()) {
            continue;
        }
        let name = d.get_name().to_string_lossy().into_owned();
        if export(&name) {
            d.set_name(&format!("{prefix}{name}"));
        } else {
            d.set_linkage(Linkage::Internal);
        }
    }
}

/// What `cache` holds for exactly `key`: its object, linked, and the
/// address of its symbol. Anything that fails is a miss.
pub fn link_from(cache: &crate::object_cache::ObjectCache, key: &str) -> Option<(Arc<Loaded>, usize)> {
    let (entry, bytes) = cache.find(key)?;
    let loaded = load(&entry.object, &bytes).ok()?;
    let addr = loaded.address(&entry.symbol).ok()?;
    Some((loaded, addr))
}

/// Takes an LLVM error's message (and the error).
fn message(err: LLVMErrorRef) -> String {
    // SAFETY: `err` is a live error, consumed by LLVMGetErrorMessage; the
    // message is copied before it is disposed.
    unsafe {
        let m = LLVMGetErrorMessage(err);
        let s = CStr::from_ptr(m).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(m);
        s
    }
}

fn check(err: LLVMErrorRef, what: &str) -> Result<(), String> {
    if err.is_null() {
        Ok(())
    } else {
        Err(format!("{what}: {}", message(err)))
    }
}

struct Jit(LLVMOrcLLJITRef);

// SAFETY: LLJIT is thread-safe (its execution session locks); the pointer
// is never freed (the JIT lives as long as the process).
unsafe impl Send for Jit {}
unsafe impl Sync for Jit {}

/// The symbols every object may call besides the process's own: the math
/// table's functions under their `aot_` names (the native backends' calls)
/// and their C library names (MLIR's `math` calls, which must compute
/// what the other backends compute), and what the backends add.
fn runtime_symbols() -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (name, ptr, _) in crate::libcalls::all() {
        out.push((name.to_string(), ptr as usize));
        if let Some(c) = name.strip_prefix("aot_") {
            out.push((c.to_string(), ptr as usize));
        }
    }
    #[cfg(feature = "mlir")]
    out.extend(crate::mlir::runtime_symbols());
    out
}

fn jit() -> Result<&'static Jit, String> {
    static JIT: OnceLock<Result<Jit, String>> = OnceLock::new();
    JIT.get_or_init(|| {
        init_native()?;
        let mut j: LLVMOrcLLJITRef = std::ptr::null_mut();
        // SAFETY: a null builder asks for the host's defaults; on success
        // `j` is a live JIT, kept for the rest of the process.
        unsafe {
            check(LLVMOrcCreateLLJIT(&mut j, std::ptr::null_mut()), "LLVM's JIT")?;
            let jd = LLVMOrcLLJITGetMainJITDylib(j);
            let mut generator: LLVMOrcDefinitionGeneratorRef = std::ptr::null_mut();
            check(
                LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                    &mut generator,
                    LLVMOrcLLJITGetGlobalPrefix(j),
                    None,
                    std::ptr::null_mut(),
                ),
                "LLVM's JIT cannot see the process's symbols",
            )?;
            LLVMOrcJITDylibAddGenerator(jd, generator);
            let symbols = runtime_symbols();
            let mut pairs = Vec::with_capacity(symbols.len());
            for (name, addr) in &symbols {
                let c = CString::new(name.as_str()).map_err(|_| format!("a symbol name with a NUL byte: {name}"))?;
                pairs.push(LLVMOrcCSymbolMapPair {
                    Name: LLVMOrcLLJITMangleAndIntern(j, c.as_ptr()),
                    Sym: LLVMJITEvaluatedSymbol {
                        Address: *addr as u64,
                        Flags: LLVMJITSymbolFlags {
                            GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                                | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                            TargetFlags: 0,
                        },
                    },
                });
            }
            let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
            check(LLVMOrcJITDylibDefine(jd, unit), "LLVM's JIT refused the runtime's symbols")?;
        }
        Ok(Jit(j))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// An object linked into the JIT; its code stays while this lives.
pub struct Loaded {
    id: String,
    /// The checksum of its bytes: another object under the same id (a
    /// hash collision) is refused rather than shared.
    checksum: u64,
    tracker: LLVMOrcResourceTrackerRef,
}

// SAFETY: the tracker is only used through LLJIT's thread-safe session
// (lookups by name, and its removal in `drop`, under `LOADED`).
unsafe impl Send for Loaded {}
unsafe impl Sync for Loaded {}

/// The objects linked now, by id.
static LOADED: Mutex<Option<FxHashMap<String, Weak<Loaded>>>> = Mutex::new(None);

fn loaded() -> std::sync::MutexGuard<'static, Option<FxHashMap<String, Weak<Loaded>>>> {
    // A panic while holding the lock leaves whole entries only.
    LOADED.lock().unwrap_or_else(|p| p.into_inner())
}

impl Drop for Loaded {
    fn drop(&mut self) {
        // Under the lock from the removal of the code to that of the
        // entry: `load` waits for both before it adds this id again (the
        // same symbols twice would be a duplicate definition).
        let mut table = loaded();
        // SAFETY: the tracker is live and removed once; removal takes the
        // object's code out of the JIT, which nothing calls any more (the
        // last owner is dropping).
        unsafe {
            let err = LLVMOrcResourceTrackerRemove(self.tracker);
            if !err.is_null() {
                // Nothing to report to: the code stays mapped, which is
                // only memory.
                let _ = message(err);
            }
            LLVMOrcReleaseResourceTracker(self.tracker);
        }
        if let Some(map) = table.as_mut() {
            // The entry is this object's: `load` never replaces an entry
            // whose object is still being dropped.
            if map.get(&self.id).is_some_and(|w| w.strong_count() == 0) {
                map.remove(&self.id);
            }
        }
    }
}

impl Loaded {
    /// The address of `symbol` (a name the object defines, with its
    /// [`symbol_prefix`]); links the object on first use.
    pub fn address(&self, symbol: &str) -> Result<usize, String> {
        let j = jit()?;
        let c = CString::new(symbol).map_err(|_| format!("a symbol name with a NUL byte: {symbol}"))?;
        let mut addr: LLVMOrcExecutorAddress = 0;
        // SAFETY: a lookup in the live JIT; `addr` is written on success.
        check(unsafe { LLVMOrcLLJITLookup(j.0, &mut addr, c.as_ptr()) }, &format!("LLVM's JIT lost {symbol}"))?;
        if addr == 0 {
            return Err(format!("LLVM's JIT placed {symbol} at address 0"));
        }
        usize::try_from(addr).map_err(|_| format!("{symbol} is out of this process's address space"))
    }
}

/// Links object `id` (`bytes`, as [`emit_object`] made it) into the JIT,
/// or returns the one linked already.
pub fn load(id: &str, bytes: &[u8]) -> Result<Arc<Loaded>, String> {
    let j = jit()?;
    let name = CString::new(format!("aot-{id}")).map_err(|_| "an object id with a NUL byte".to_string())?;
    let checksum = crate::object_cache::checksum(bytes);
    loop {
        let mut table = loaded();
        let map = table.get_or_insert_with(FxHashMap::default);
        match map.get(id).map(Weak::upgrade) {
            Some(Some(l)) if l.checksum == checksum => return Ok(l),
            Some(Some(_)) => return Err(format!("two different objects have the id {id}")),
            // Its last owner is dropping it: wait until its code is out.
            Some(None) => {
                drop(table);
                std::thread::yield_now();
                continue;
            }
            None => {}
        }
        // SAFETY: the buffer copies `bytes` and is owned by the JIT from
        // the call on (also when it fails); the tracker is the main
        // library's and is released by `Loaded::drop`, or here when the
        // add fails.
        return unsafe {
            let buffer = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                bytes.as_ptr() as *const std::ffi::c_char,
                bytes.len(),
                name.as_ptr(),
            );
            let tracker = LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(j.0));
            let err = LLVMOrcLLJITAddObjectFileWithRT(j.0, tracker, buffer);
            if !err.is_null() {
                LLVMOrcReleaseResourceTracker(tracker);
                return Err(format!("LLVM's JIT refused the object: {}", message(err)));
            }
            let l = Arc::new(Loaded { id: id.to_string(), checksum, tracker });
            map.insert(id.to_string(), Arc::downgrade(&l));
            Ok(l)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;

    /// The object of a module whose one function, `<prefix>answer`,
    /// returns `value` plus what the math table's `aot_f32_to_f16` makes of
    /// 1.0 (0x3c00): a call into the runtime's symbols.
    fn object(id: &str, value: u64) -> Vec<u8> {
        let machine = host_machine(OptimizationLevel::Default).unwrap();
        let ll = Context::create();
        let m = ll.create_module("t");
        m.set_triple(&machine.get_triple());
        m.set_data_layout(&machine.get_target_data().get_data_layout());
        let i64t = ll.i64_type();
        let half =
            m.add_function(crate::libcalls::F32_TO_F16, ll.i16_type().fn_type(&[ll.f32_type().into()], false), None);
        let f = m.add_function(&format!("{}answer", symbol_prefix(id)), i64t.fn_type(&[], false), None);
        let b = ll.create_builder();
        b.position_at_end(ll.append_basic_block(f, "entry"));
        let h = b.build_call(half, &[ll.f32_type().const_float(1.0).into()], "h").unwrap();
        let inkwell::values::ValueKind::Basic(h) = h.try_as_basic_value() else { panic!("no value") };
        let h = b.build_int_z_extend(h.into_int_value(), i64t, "z").unwrap();
        let r = b.build_int_add(h, i64t.const_int(value, false), "r").unwrap();
        b.build_return(Some(&r)).unwrap();
        emit_object(&machine, &m).unwrap()
    }

    fn call(l: &Loaded, id: &str) -> u64 {
        let addr = l.address(&format!("{}answer", symbol_prefix(id))).unwrap();
        // SAFETY: the function takes nothing and returns an i64.
        unsafe { std::mem::transmute::<usize, extern "C" fn() -> u64>(addr)() }
    }

    #[test]
    fn objects_link_against_the_runtime_and_unload_with_their_last_owner() {
        let id = crate::object_cache::hash_hex(&[b"orc test: unload"]);
        let bytes = object(&id, 7);
        let a = load(&id, &bytes).unwrap();
        assert_eq!(call(&a, &id), 0x3c00 + 7);
        // The same object again is the one linked already.
        let b = load(&id, &bytes).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Another object under a live id is refused, not shared.
        let other = object(&id, 8);
        assert!(load(&id, &other).err().unwrap().contains("two different objects"));
        drop((a, b));
        // Its code is gone, and the id can be linked again (no duplicate
        // definition), now with the other object.
        let c = load(&id, &other).unwrap();
        assert_eq!(call(&c, &id), 0x3c00 + 8);
    }

    #[test]
    fn objects_of_different_ids_live_side_by_side_on_many_threads() {
        let handles: Vec<_> = (0..4u64)
            .map(|i| {
                std::thread::spawn(move || {
                    let id = crate::object_cache::hash_hex(&[b"orc test: side by side", &i.to_le_bytes()]);
                    let bytes = object(&id, i);
                    for _ in 0..20 {
                        let l = load(&id, &bytes).unwrap();
                        assert_eq!(call(&l, &id), 0x3c00 + i);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }

    #[test]
    fn a_damaged_object_is_an_error_not_a_crash() {
        let id = crate::object_cache::hash_hex(&[b"orc test: damaged"]);
        let mut bytes = object(&id, 1);
        bytes.truncate(bytes.len() / 2);
        match load(&id, &bytes) {
            Err(e) => assert!(e.contains("LLVM"), "{e}"),
            Ok(l) => assert!(l.address(&format!("{}answer", symbol_prefix(&id))).is_err()),
        }
    }
}
