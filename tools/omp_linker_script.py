#!/usr/bin/env python3
"""Writes the linker script of ScopeDSM's OpenMP programs (docs/OPENMP.md).

    omp_linker_script.py LINKER OUT

Takes GNU ld's default script for a non-PIE executable (LINKER --verbose)
and changes it in three places, so that the program's own writable data,
and nothing else, sits in pages of its own that the shared region can
cover:

* .data and .bss keep the variables of the compiler's and the C library's
  own objects that every executable links statically (crt*.o, libgcc,
  libc_nonshared, ScopeDSM's start object) and the copies of shared
  libraries' variables (.dynbss): each process keeps its own;
* a page-aligned range between __scopedsm_shared_start and
  __scopedsm_shared_end, after .bss, receives every other object's .data
  and .bss (the program's variables, its static libraries' too) and common
  symbols;
* a one-byte segment far above (.scopedsm_anchor, 96 TiB) moves the C
  library's brk heap out of the way of the region, which starts at
  __scopedsm_shared_start and extends over the addresses after it.
"""
import subprocess
import sys

ANCHOR = 0x600000000000
# The objects whose variables stay private: what the compiler driver links
# into every executable, and ScopeDSM's own start object.
PRIVATE = ["*crt1.o", "*crti.o", "*crtn.o", "*crtbegin*.o", "*crtend*.o", "*libgcc.a:*", "*libgcc_eh.a:*",
           "*libc_nonshared.a:*", "*libssp_nonshared.a:*", "*libscopedsm_omp_start.a:*"]


def default_script(linker):
    out = subprocess.run([linker, "--verbose"], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    marks = [i for i, l in enumerate(lines) if l.startswith("=======")]
    if len(marks) < 2:
        sys.exit(f"omp_linker_script.py: '{linker} --verbose' printed no default linker script")
    return "\n".join(lines[marks[0] + 1:marks[1]]) + "\n"


def patch(script):
    def replace_once(old, new):
        nonlocal script
        if script.count(old) != 1:
            sys.exit(f"omp_linker_script.py: the default script does not have exactly one '{old.strip()}'")
        script = script.replace(old, new)

    private = " ".join(PRIVATE)
    replace_once("*(.data .data.* .gnu.linkonce.d.*)",
                 " ".join(f"{p}(.data .data.*)" for p in PRIVATE) + " *(.gnu.linkonce.d.*)")
    replace_once("*(.bss .bss.* .gnu.linkonce.b.*)\n   *(COMMON)",
                 " ".join(f"{p}(.bss .bss.*)" for p in PRIVATE) + " *(.gnu.linkonce.b.*)")
    del private
    shared = (
        "  /* ScopeDSM: the program's own variables, in pages of their own. */\n"
        "  . = ALIGN(0x10000);\n"
        "  .scopedsm_data : { __scopedsm_shared_start = .; *(.data .data.*) __scopedsm_shared_data_end = .; }\n"
        "  .scopedsm_bss : { *(.bss .bss.*) *(COMMON) . = ALIGN(0x10000); __scopedsm_shared_end = .; }\n"
        f"  . = {ANCHOR:#x};\n"
        "  .scopedsm_anchor : { BYTE(0) }\n"
    )
    replace_once("  _end = .; PROVIDE (end = .);", shared + "  _end = .; PROVIDE (end = .);")
    return script


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    text = "/* Written by ScopeDSM's tools/omp_linker_script.py from GNU ld's default script. */\n"
    text += patch(default_script(sys.argv[1]))
    with open(sys.argv[2], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
