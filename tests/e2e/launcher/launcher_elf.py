#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""landlock-run as built is a static executable with no symbols or debug
info (src/launcher/meson.build): no program interpreter (PT_INTERP), no
.symtab, no .debug_* section. Control: the same parser finds the
interpreter of /bin/sh (dynamically linked on Debian). Prints the launcher's size.
Usage: launcher_elf.py LAUNCHER"""
import struct
import sys

PT_INTERP = 3


def elf_facts(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit(f"{path}: not a 64-bit ELF file")
    endian = "<" if data[5] == 1 else ">"
    (e_phoff, e_shoff) = struct.unpack_from(endian + "QQ", data, 0x20)
    (e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx) = struct.unpack_from(
        endian + "HHHHH", data, 0x36)
    interp = None
    for i in range(e_phnum):
        off = e_phoff + i * e_phentsize
        p_type, = struct.unpack_from(endian + "I", data, off)
        if p_type == PT_INTERP:
            p_offset, = struct.unpack_from(endian + "Q", data, off + 8)
            p_filesz, = struct.unpack_from(endian + "Q", data, off + 32)
            interp = data[p_offset:p_offset + p_filesz].rstrip(b"\0").decode()
    names = []
    if e_shnum and e_shstrndx < e_shnum:
        str_off, = struct.unpack_from(endian + "Q", data, e_shoff + e_shstrndx * e_shentsize + 24)
        for i in range(e_shnum):
            name_off, = struct.unpack_from(endian + "I", data, e_shoff + i * e_shentsize)
            end = data.index(b"\0", str_off + name_off)
            names.append(data[str_off + name_off:end].decode())
    return interp, names, len(data)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    launcher = sys.argv[1]
    interp, names, size = elf_facts(launcher)
    failures = []
    control_interp, _, _ = elf_facts("/bin/sh")
    if control_interp is None:
        failures.append("control: /bin/sh names no interpreter, so the parser proves nothing")
    if interp is not None:
        failures.append(f"{launcher} names a program interpreter: {interp}")
    if ".symtab" in names:
        failures.append(f"{launcher} carries a symbol table (.symtab)")
    debug = [n for n in names if n.startswith(".debug")]
    if debug:
        failures.append(f"{launcher} carries debug info: {', '.join(debug)}")
    print(f"# {launcher}: {size} bytes, interpreter {interp or 'none'}, {len(names)} sections")
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
