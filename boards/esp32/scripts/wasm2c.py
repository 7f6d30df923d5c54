# Pre-build script of the esp32-wasm2c environment. It takes the module bytes from the
# committed boards/common/tickretry_module.h (so no Node is needed here; the test run keeps
# that header equal to build/tickretry.wasm), compiles them to C with wasm2c into this
# environment's build folder, copies wasm2c's runtime beside the output, and adds both
# to the build. The generated C is never committed.
import os
import re
import shutil
import subprocess

Import("env")  # noqa: F821 (provided by PlatformIO's SCons)

WABT_VERSION = "1.0.32"  # tickretry_wasm2c.c calls the export names this version generates


def fail(message):
    print("wasm2c.py: " + message)
    env.Exit(1)  # noqa: F821


def module_bytes(header_path):
    text = open(header_path).read()
    array = re.search(r"tickretry_wasm\[(\d+)\] = \{(.*?)\};", text, re.S)
    if not array:
        fail("no tickretry_wasm array in " + header_path)
    data = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", array.group(2)))
    if len(data) != int(array.group(1)):
        fail("tickretry_module.h holds %d bytes, declares %s" % (len(data), array.group(1)))
    return data


def runtime_dir(wasm2c):
    """The folder holding wasm-rt-impl.c of the wasm2c found on PATH."""
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(wasm2c)))
    candidates = [
        os.environ.get("WASM2C_RUNTIME_DIR", ""),
        os.path.join(prefix, "share", "wabt", "wasm2c"),
        "/usr/src/wasm2c",
        "/usr/share/wabt/wasm2c",
    ]
    for folder in candidates:
        if folder and os.path.isfile(os.path.join(folder, "wasm-rt-impl.c")):
            return folder, prefix
    fail("wasm-rt-impl.c not found; set WASM2C_RUNTIME_DIR to wabt's wasm2c runtime folder")


def find_header(name, folders):
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    fail(name + " not found beside the wasm2c runtime or in wabt's include folder")


wasm2c = shutil.which("wasm2c")
if not wasm2c:
    fail("wasm2c is not on PATH: install wabt " + WABT_VERSION + " (Debian/Ubuntu: apt install wabt)")
version = subprocess.check_output([wasm2c, "--version"], text=True).strip()
if version != WABT_VERSION:
    fail("wasm2c %s found; the backend expects %s's generated names" % (version, WABT_VERSION))

common = os.path.normpath(os.path.join(env.subst("$PROJECT_DIR"), "..", "common"))  # noqa: F821
out = env.subst(os.path.join("$BUILD_DIR", "wasm2c"))  # noqa: F821
os.makedirs(out, exist_ok=True)

wasm_path = os.path.join(out, "tickretry.wasm")
with open(wasm_path, "wb") as f:
    f.write(module_bytes(os.path.join(common, "tickretry_module.h")))
subprocess.check_call([wasm2c, wasm_path, "-n", "tickretry", "-o", os.path.join(out, "tickretry_w2c.c")])

# Copied rather than added as include folders: wasm-rt.h may sit in the host's
# /usr/include, which must not reach the cross compiler.
rt, prefix = runtime_dir(wasm2c)
for name in ("wasm-rt-impl.c", "wasm-rt-impl.h"):
    shutil.copy(os.path.join(rt, name), out)
shutil.copy(find_header("wasm-rt.h", [rt, os.path.join(prefix, "include")]), out)
# wasm-rt-impl.c includes <sys/mman.h> but, built without guard pages, never calls it.
os.makedirs(os.path.join(out, "sys"), exist_ok=True)
shutil.copy(os.path.join(common, "no-mmu", "sys", "mman.h"), os.path.join(out, "sys"))

env.Append(CPPPATH=[out])  # noqa: F821
env.BuildSources(os.path.join("$BUILD_DIR", "wasm2c_objects"), out)  # noqa: F821
