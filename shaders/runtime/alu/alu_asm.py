#!/usr/bin/env python3
"""`../tools/tpf_asm.py` with the ALU instructions the ALU runtime tests need.

The ALU tests hand-assemble what HLSL compilers do not emit (bit-field instructions with
per-component fields, doubles, `msad`, `uaddc`/`usubb`, `umul`/`imul` high halves, raw `swapc`,
...). This wrapper adds those opcodes and `d(...)` 64-bit immediates to the shared assembler
and runs its command line unchanged:

    alu_asm.py --check FILE.shader_test   # every `% asm:` block matches its hex section
    alu_asm.py --fill FILE.shader_test    # rewrites the hex sections from the asm blocks
    alu_asm.py FILE.asm                   # prints the hex
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import tpf_asm  # noqa: E402

tpf_asm.OPCODES.update({
    "f32tof16": (0x82, 1), "f16tof32": (0x83, 1), "uaddc": (0x84, 2), "usubb": (0x85, 2),
    "countbits": (0x86, 1), "firstbit_hi": (0x87, 1), "firstbit_lo": (0x88, 1),
    "firstbit_shi": (0x89, 1), "ubfe": (0x8a, 1), "ibfe": (0x8b, 1), "bfi": (0x8c, 1),
    "bfrev": (0x8d, 1), "dadd": (0xbf, 1), "dmax": (0xc0, 1), "dmin": (0xc1, 1),
    "dmul": (0xc2, 1), "deq": (0xc3, 1), "dge": (0xc4, 1), "dlt": (0xc5, 1), "dne": (0xc6, 1),
    "dmov": (0xc7, 1), "dmovc": (0xc8, 1), "dtof": (0xc9, 1), "ftod": (0xca, 1),
    "ddiv": (0xd2, 1), "dfma": (0xd3, 1), "drcp": (0xd4, 1), "msad": (0xd5, 1),
    "dtoi": (0xd6, 1), "dtou": (0xd7, 1), "itod": (0xd8, 1), "utod": (0xd9, 1),
})

_body = tpf_asm.Operand.body


def _body_with_doubles(self, t):
    """`d(a)` / `d(a, b)`: one or two doubles, each as (low, high) dwords."""
    if t.startswith("d(") and t.endswith(")"):
        words = []
        for v in t[2:-1].split(","):
            v = v.strip()
            if v.startswith("0x"):
                bits = int(v, 16)
            else:
                bits = struct.unpack("<Q", struct.pack("<d", float(v)))[0]
            words += [bits & 0xFFFFFFFF, bits >> 32]
        if len(words) == 2:
            return [1 | (5 << 12)] + words
        if len(words) == 4:
            return [2 | (5 << 12)] + words
        raise tpf_asm.AsmError(f"'{t}': 64-bit immediates have 1 or 2 values")
    return _body(self, t)


tpf_asm.Operand.body = _body_with_doubles

if __name__ == "__main__":
    tpf_asm.main()
