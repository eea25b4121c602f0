#!/usr/bin/env bash
# Builds the integration suite with the `cuda` feature as one binary that
# runs on a GPU machine with no Rust toolchain and no LLVM installed, for
# `AOT_SUITE=... scripts/gpu-check.sh` there:
#
#   bash scripts/build-gpu-suite.sh        # -> target/gpu/suite
#   bash scripts/build-gpu-suite.sh --python python3.12
#       # also aot_torch with `cuda` for that Python, -> target/gpu/site
#       # (put it on PYTHONPATH there; it holds the package's entry point)
#
# The normal build links Debian's shared libLLVM (inkwell's
# `llvm19-1-prefer-dynamic`: linking is fast and the library is on every
# machine that builds). That library and what it pulls in (ICU, Z3, libxml2)
# are not on a CUDA image. Here LLVM's static archives are linked instead, by
# overriding llvm-sys's build script (Cargo's `links` override) in a target
# folder of its own, so the normal build's artifacts are untouched. The
# result needs only glibc, libstdc++, libgcc and libffi, which every Linux
# with Python has, and the CUDA driver, which it loads at run time.
set -euo pipefail
python=""
if [ "${1:-}" = "--python" ]; then
  python=${2:?--python needs the interpreter the GPU machine runs}
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
prefix=${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}
config=$prefix/bin/llvm-config
[ -x "$config" ] || { echo "build-gpu-suite: no llvm-config at $config (set LLVM_SYS_191_PREFIX)" >&2; exit 1; }
out=$root/target/gpu
mkdir -p "$out/wrappers"

# llvm-sys's C wrappers (target initialisation), which its build script
# would have compiled.
sys=$(cargo metadata --format-version 1 --features cuda |
  python3 -c 'import json,sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"] == "llvm-sys"))')
# Its "initialize all targets" functions would pull every target LLVM was
# built with into the binary (the linker keeps what they reference); the
# workspace uses X86 and NVPTX, so they see those two only.
mkdir -p "$out/wrappers/include/llvm/Config"
for def in Targets AsmPrinters AsmParsers Disassemblers; do
  awk '!/^LLVM_[A-Z_]+\(/ || /\((X86|NVPTX)\)/' "$("$config" --includedir)/llvm/Config/$def.def" \
    >"$out/wrappers/include/llvm/Config/$def.def"
done
cc -O2 -c "$(dirname "$sys")/wrappers/target.c" -I"$out/wrappers/include" $("$config" --cflags) \
  -o "$out/wrappers/target.o"
ar rcs "$out/wrappers/libtargetwrappers.a" "$out/wrappers/target.o"

# Every static LLVM library in llvm-config's dependency order; the linker
# keeps only the members the code reaches. zlib and zstd static too.
libs='"static=targetwrappers"'
for lib in $("$config" --libnames --link-static); do
  lib=${lib#lib}
  libs="$libs, \"static=${lib%.a}\""
done
libs="$libs, \"static=z\", \"static=zstd\", \"dylib=stdc++\""
zdir=$(dirname "$(cc -print-file-name=libz.a)")
triple=$(rustc -vV | sed -n 's/^host: //p')
cat >"$out/llvm-static.toml" <<EOF
[target.$triple.llvm-19]
rustc-link-search = ["native=$out/wrappers", "native=$prefix/lib", "native=$zdir"]
rustc-link-lib = [$libs]
config_path = "$config"
# (Cargo does not watch the archives: a change of the wrappers must show in
# the override for llvm-sys and its dependents to be linked again.)
wrappers = "$(sha256sum "$out/wrappers/libtargetwrappers.a" | cut -d' ' -f1)"
libdir = "$prefix/lib"
EOF

CARGO_TARGET_DIR=$out cargo test --release --features cuda --test suite --no-run \
  --config "$out/llvm-static.toml" --message-format=json-render-diagnostics >"$out/build.json"
bin=$(python3 -c 'import json,sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "suite" and m.get("executable"):
        print(m["executable"])' "$out/build.json" | tail -1)
strip -o "$out/suite" "$bin"
if ldd "$out/suite" | grep -q -i llvm; then
  echo "build-gpu-suite: $out/suite still links a shared LLVM" >&2
  exit 1
fi
ls -l "$out/suite"

if [ -n "$python" ]; then
  # The extension module as maturin would build it (no libpython linked),
  # for `$python`'s ABI, with the same static LLVM.
  PYO3_PYTHON=$(command -v "$python") PYO3_BUILD_EXTENSION_MODULE=1 CARGO_TARGET_DIR=$out \
    cargo build --release -p aot-python --features cuda --config "$out/llvm-static.toml"
  suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
  rm -rf "$out/site"
  mkdir -p "$out/site"
  cp -r python/aot_torch "$out/site/"
  strip -o "$out/site/aot_torch/_native$suffix" "$out/release/lib_native.so"
  dist="$out/site/aot_torch-$version.dist-info"
  mkdir -p "$dist"
  printf 'Metadata-Version: 2.1\nName: aot_torch\nVersion: %s\n' "$version" >"$dist/METADATA"
  sed -n '/^\[project.entry-points.torch_dynamo_backends\]/,/^$/p' python/pyproject.toml |
    sed -e 's/^\[project.entry-points.torch_dynamo_backends\]/[torch_dynamo_backends]/' -e 's/"//g' \
    >"$dist/entry_points.txt"
  ls -l "$out/site/aot_torch/_native$suffix"
fi
