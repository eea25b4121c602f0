# lit configuration of the aot test suite.
#
# Tools come from AOT_BIN_DIR (default: <repo>/target/debug). FileCheck is
# LLVM's when found (FILECHECK, PATH, or Debian's LLVM 19), else the PyPI
# `filecheck` from the venv the test script creates. Tests may say
# REQUIRES: llvm, cuda-ptxas, mlir (aot-opt built with the feature),
# mlir-opt (upstream's tool), libdevice (CUDA's, from the venv's wheel),
# gpu, or lanes8 (Cranelift's kernels call the eight-lane polynomial
# helpers: an x86-64 CPU with AVX2 and FMA, AOT_LANES8 not 0); those
# features are set only when the tool, build or CPU is there.

import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "aot"
use_internal = os.environ.get("LIT_USE_INTERNAL_SHELL", "1") != "0"
config.test_format = lit.formats.ShTest(execute_external=not use_internal)
config.suffixes = [".mlir"]
# `.venv`: the Python venv the test command keeps here (PyTorch's
# thousands of files would be walked for tests).
config.excludes = ["lit.cfg.py", "Inputs", "golden", "utils", "run", "symbolic", ".venv"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo, "target", "lit")

bin_dir = os.environ.get("AOT_BIN_DIR", os.path.join(repo, "target", "debug"))
for tool in ("aot-opt", "aot-run"):
    path = os.path.join(bin_dir, tool)
    if not os.path.exists(path):
        lit_config.warning(f"{tool} not found at {path}; build it first (cargo build)")
    # Replace the bare tool name only, never inside a path such as test/tools/aot-opt/.
    config.substitutions.append((r"(?<![\w/.-])%s(?![\w/.-])" % tool, path))

# LLVM's FileCheck starts in a millisecond, the Python clone in a fifth of a
# second: with ~360 FileCheck runs, that is most of the suite's time.
filecheck = (
    os.environ.get("FILECHECK")
    or shutil.which("FileCheck")
    or shutil.which("FileCheck-19")
    or shutil.which("FileCheck", path="/usr/lib/llvm-19/bin")
)
extra = ""
if not filecheck:
    venv_fc = os.path.join(os.path.dirname(sys.executable), "filecheck")
    filecheck = venv_fc if os.path.exists(venv_fc) else shutil.which("filecheck")
    # The PyPI clone ignores FILECHECK_OPTS; pass the option directly.
    extra = " --enable-var-scope"
if not filecheck:
    lit_config.fatal("no FileCheck: install LLVM's FileCheck or `pip install filecheck`")
config.substitutions.append((r"(?<![\w/.-])FileCheck(?![\w/.-])", filecheck + extra))
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

# `not` is lit's internal-shell builtin; with an external shell it is our script.
if not use_internal:
    not_py = os.path.join(config.test_source_root, "utils", "not.py")
    config.substitutions.append((r"(?<![\w/.-])not(?= )", f"{sys.executable} {not_py}"))

config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%repo", repo))

# Optional features.
def aot_features():
    try:
        out = subprocess.run([os.path.join(bin_dir, "aot-opt"), "--version"], capture_output=True, text=True)
        return out.stdout
    except OSError:
        return ""

version = aot_features()
if "+llvm" in version:
    config.available_features.add("llvm")
if "+cuda" in version:
    config.available_features.add("cuda")
if "+mlir" in version:
    config.available_features.add("mlir")
# Upstream MLIR's mlir-opt (Debian's mlir-19-tools), for exported modules.
for candidate in ("mlir-opt-19", "/usr/lib/llvm-19/bin/mlir-opt", "mlir-opt"):
    found = shutil.which(candidate)
    if found:
        config.substitutions.append(("%mlir-opt", found))
        config.available_features.add("mlir-opt")
        break
# Graphviz, for the pictures of `aot-opt --emit=dot` (Debian's graphviz).
if shutil.which("dot"):
    config.available_features.add("graphviz")
if shutil.which("ptxas"):
    config.available_features.add("cuda-ptxas")
# CUDA's libdevice, from NVIDIA's nvidia-cuda-nvcc-cu12 wheel in the venv lit
# runs from (the test command installs it for ptxas): %libdevice.
try:
    import nvidia.cuda_nvcc

    _libdevice = os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "nvvm", "libdevice", "libdevice.10.bc")
    if os.path.exists(_libdevice):
        config.substitutions.append(("%libdevice", _libdevice))
        config.available_features.add("libdevice")
except ImportError:
    pass
if shutil.which("nvidia-smi"):
    try:
        if subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0:
            config.available_features.add("gpu")
    except OSError:
        pass

for var in ("HOME", "TMPDIR", "RUST_BACKTRACE", "AOT_CACHE_DIR", "AOT_JIT_CACHE"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def _lanes8() -> bool:
    """Whether aot-opt's Cranelift kernels use the eight-lane helpers here
    (as `aot_codegen::lanes8::available` decides)."""
    if os.environ.get("AOT_LANES8") == "0":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            words = set(f.read().split())
    except OSError:
        return False
    return "avx2" in words and "fma" in words


if _lanes8():
    config.available_features.add("lanes8")
