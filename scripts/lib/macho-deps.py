#!/usr/bin/env python3
"""The libraries a Mach-O file loads, read from its load commands (what `otool -L` prints), on any OS.

    macho-deps.py FILE                  # one dependency per line (LC_LOAD_DYLIB and its kin), each once
    macho-deps.py --check LIBS FILE...  # exit 1, naming each, when a FILE loads a library outside the
                                        # system's (/usr/lib, /System) and the release's own LIBS folder

scripts/release.sh runs it on a macOS release: the binary and the libraries bundled beside it may
load only the system's libraries and each other (`@executable_path/../lib/pipeline/X`,
`@loader_path/X`, X in LIBS); a Homebrew path (/opt/homebrew, /usr/local/opt) would make the
release run only on the Mac that built it. Thin 64-bit files and fat (universal) files are read;
anything else is refused with the reason.
"""
import os
import struct
import sys

MH_MAGIC_64 = 0xFEEDFACF
FAT_MAGIC = 0xCAFEBABE
FAT_MAGIC_64 = 0xCAFEBABF
LOADS = {
    0x0C: "LC_LOAD_DYLIB",
    0x80000018: "LC_LOAD_WEAK_DYLIB",
    0x8000001F: "LC_REEXPORT_DYLIB",
    0x20: "LC_LAZY_LOAD_DYLIB",
    0x80000023: "LC_LOAD_UPWARD_DYLIB",
}
SYSTEM = ("/usr/lib/", "/System/Library/")


class NotMachO(Exception):
    pass


def string_at(data, start, offset, end):
    text = data[start + offset:end]
    return text.split(b"\0", 1)[0].decode("utf-8", "replace")


def thin(data, base):
    """The dependencies of the 64-bit image at `base`."""
    if len(data) < base + 32:
        raise NotMachO("cut short before its header")
    magic, _, _, _, ncmds, sizeofcmds, _, _ = struct.unpack_from("<IiiIIIII", data, base)
    if magic != MH_MAGIC_64:
        raise NotMachO(f"not a 64-bit Mach-O image (magic {magic:#x})")
    found, at = [], base + 32
    for _ in range(ncmds):
        if at + 8 > len(data):
            raise NotMachO("a load command runs past the end of the file")
        cmd, size = struct.unpack_from("<II", data, at)
        if size < 8 or at + size > len(data):
            raise NotMachO(f"a load command of size {size} does not fit")
        if cmd in LOADS:
            (offset,) = struct.unpack_from("<I", data, at + 8)
            found.append(string_at(data, at, offset, at + size))
        at += size
    if at - (base + 32) != sizeofcmds:
        raise NotMachO("its load commands do not add up to sizeofcmds")
    return found


def dependencies(path):
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < 8:
        raise NotMachO("too short to be Mach-O")
    (magic,) = struct.unpack_from(">I", data, 0)
    if magic in (FAT_MAGIC, FAT_MAGIC_64):
        (count,) = struct.unpack_from(">I", data, 4)
        found, at = [], 8
        for _ in range(count):
            if magic == FAT_MAGIC:
                _, _, offset, _, _ = struct.unpack_from(">iiIII", data, at)
                at += 20
            else:
                _, _, offset, _, _, _ = struct.unpack_from(">iiQQII", data, at)
                at += 32
            found += thin(data, offset)
    else:
        found = thin(data, 0)
    return list(dict.fromkeys(found))


def outside(dependency, libs):
    """Why `dependency` is not the system's nor the release's own, or None when it is."""
    if dependency.startswith(SYSTEM):
        return None
    for prefix in ("@executable_path/../lib/pipeline/", "@loader_path/"):
        if dependency.startswith(prefix):
            name = dependency[len(prefix):]
            if "/" not in name and os.path.isfile(os.path.join(libs, name)):
                return None
            return f"{dependency}: not a library bundled in {libs}"
    return f"{dependency}: outside the system's libraries; the release would need it on every Mac"


def main(arguments):
    if arguments[:1] == ["--check"] and len(arguments) >= 3:
        libs, files = arguments[1], arguments[2:]
        problems = []
        for path in files:
            try:
                problems += [f"{path}: {why}" for why in (outside(d, libs) for d in dependencies(path)) if why]
            except (OSError, NotMachO) as error:
                problems.append(f"{path}: {error}")
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if len(arguments) == 1:
        try:
            print("\n".join(dependencies(arguments[0])))
        except (OSError, NotMachO) as error:
            print(f"{arguments[0]}: {error}", file=sys.stderr)
            return 1
        return 0
    print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
