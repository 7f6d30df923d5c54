# The wasm2c backend's generated sources: takes the module bytes from the committed
# tickretry_module.h (so no Node is needed), compiles them to C with wasm2c, and copies
# wasm2c's runtime (and no-mmu/sys/mman.h, for targets without <sys/mman.h>) beside the
# output. The generated C is never committed. Used three ways:
#   PlatformIO: library.json's extraScript. When the build defines TICKRETRY_BACKEND_WASM2C
#     it generates into the build folder and adds the sources to the build;
#   ESP-IDF: CMakeLists.txt runs `python wasm2c_sources.py OUT_DIR` at configure time;
#   anyone else (and the tests): the same command, then compile OUT_DIR/*.c beside this
#     folder's sources with -I OUT_DIR.
import os
import re
import shutil
import subprocess
import sys

WABT_VERSION = "1.0.32"  # tickretry_wasm2c.c calls the export names this version generates
HERE = os.path.dirname(os.path.abspath(__file__ if "__file__" in globals() else "wasm2c_sources.py"))


class Wasm2cError(Exception):
    pass


def module_bytes(header_path):
    text = open(header_path).read()
    array = re.search(r"tickretry_wasm\[(\d+)\] = \{(.*?)\};", text, re.S)
    if not array:
        raise Wasm2cError("no tickretry_wasm array in " + header_path)
    data = bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", array.group(2)))
    if len(data) != int(array.group(1)):
        raise Wasm2cError("tickretry_module.h holds %d bytes, declares %s" % (len(data), array.group(1)))
    return data


def runtime_dir(wasm2c):
    """The folder holding wasm-rt-impl.c of the wasm2c found on PATH, and wabt's prefix."""
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
    raise Wasm2cError("wasm-rt-impl.c not found; set WASM2C_RUNTIME_DIR to wabt's wasm2c runtime folder")


def find_header(name, folders):
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    raise Wasm2cError(name + " not found beside the wasm2c runtime or in wabt's include folder")


def generate(out):
    """Writes tickretry_w2c.{c,h}, wasm2c's runtime and sys/mman.h into out; returns the
    .c files to compile (with out on the include path)."""
    wasm2c = shutil.which("wasm2c")
    if not wasm2c:
        raise Wasm2cError("wasm2c is not on PATH: install wabt " + WABT_VERSION + " (Debian/Ubuntu: apt install wabt)")
    version = subprocess.check_output([wasm2c, "--version"], text=True).strip()
    if version != WABT_VERSION:
        raise Wasm2cError("wasm2c %s found; the backend expects %s's generated names" % (version, WABT_VERSION))
    os.makedirs(os.path.join(out, "sys"), exist_ok=True)
    wasm_path = os.path.join(out, "tickretry.wasm")
    with open(wasm_path, "wb") as f:
        f.write(module_bytes(os.path.join(HERE, "generated", "tickretry_module.h")))
    subprocess.check_call([wasm2c, wasm_path, "-n", "tickretry", "-o", os.path.join(out, "tickretry_w2c.c")])
    # Copied rather than added as include folders: wasm-rt.h may sit in the host's
    # /usr/include, which must not reach a cross compiler.
    rt, prefix = runtime_dir(wasm2c)
    for name in ("wasm-rt-impl.c", "wasm-rt-impl.h"):
        shutil.copy(os.path.join(rt, name), out)
    shutil.copy(find_header("wasm-rt.h", [rt, os.path.join(prefix, "include")]), out)
    # wasm-rt-impl.c includes <sys/mman.h> but, built without guard pages, never calls it.
    shutil.copy(os.path.join(HERE, "no-mmu", "sys", "mman.h"), os.path.join(out, "sys"))
    return [os.path.join(out, name) for name in ("tickretry_w2c.c", "wasm-rt-impl.c")]


def platformio(env):
    """library.json's extraScript: env is this library's build environment."""
    defines = [d[0] if isinstance(d, (tuple, list)) else str(d).split("=")[0] for d in env.get("CPPDEFINES", [])]
    if "TICKRETRY_BACKEND_WASM2C" not in defines:
        return
    out = env.subst(os.path.join("$BUILD_DIR", "tickretry_wasm2c"))
    try:
        generate(out)
    except (Wasm2cError, subprocess.CalledProcessError) as e:
        print("wasm2c_sources.py: %s" % e)
        env.Exit(1)
    # Bounds checks in code, not guard pages: a microcontroller has no MMU (tickretry_wasm2c.c).
    env.Append(CPPPATH=[out], CPPDEFINES=[("WASM_RT_MEMCHECK_SIGNAL_HANDLER", 0)])
    env.BuildSources(os.path.join("$BUILD_DIR", "tickretry_wasm2c_objects"), out)


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: python3 wasm2c_sources.py OUT_DIR")
    try:
        for path in generate(argv[1]):
            print(path)
    except (Wasm2cError, subprocess.CalledProcessError) as e:
        sys.exit("wasm2c_sources.py: %s" % e)


# SCons (PlatformIO) runs this file with Import among its globals; python3 runs it as a script.
if "Import" in globals():
    Import("env")  # noqa: F821
    platformio(env)  # noqa: F821
elif __name__ == "__main__":
    main(sys.argv)
