#!/usr/bin/env python3
"""Tiny SM4/5 assembler for the runtime tests that HLSL cannot express.

HLSL compilers never emit some legal bytecode (subroutines, switch fall-through between
non-empty cases, `default` in the middle, `breakc`/`continuec`/`retc`, raw `movc` on float
bits, ...). The runtime cases that need it keep the assembly in `%` comments next to a
`[... shader dxbc-tpf-hex]` section; this script turns that assembly into the DXBC container
hex (ISGN/OSGN/SHEX chunks and the container checksum). It writes nothing into the repository
by itself.

    tpf_asm.py FILE.asm            # prints the hex for the section
    tpf_asm.py --check FILE.shader_test...
        # re-assembles every `% asm:` block and checks the hex section after it (exit 1 if not)
    tpf_asm.py --fill FILE.shader_test...
        # rewrites those hex sections from the assembly

Syntax (one statement per line, `//` or `;;` comments):
    ps_5_0 | vs_5_0 | cs_5_0 | ps_4_0 ...
    .in  NAME INDEX REG MASK TYPE [SV]     signature element (TYPE uint|int|float; SV position,
    .out NAME INDEX REG MASK TYPE [SV]     vertex_id, instance_id, primitive_id, is_front_face,
                                           sample_index, target, depth, coverage, ...)
    dcl_* and instructions in the syntax vkd3d's d3d-asm prints: `movc r0.xy, r1.x, l(1, 2, 0, 0), -|r2.yx|`,
    `if_nz r0.x`, `breakc_z r1.y`, `callc_nz r0.x, l1`, `label l1`, `x0[r1.x + 2].xyzw`,
    `cb0[r0.x + 1].xyzw`, `icb[r0.x + 0].x`, `mov_sat`. Immediates: l(...) with integers
    (decimal, 0x hex, negative) or floats (with a '.', 'e', 'inf' or 'nan').
"""

import re
import struct
import sys

OPCODES = {
    "add": (0x00, 1), "and": (0x01, 1), "break": (0x02, 0), "breakc": (0x03, 0),
    "call": (0x04, 0), "callc": (0x05, 0), "case": (0x06, 0), "continue": (0x07, 0),
    "continuec": (0x08, 0), "default": (0x0a, 0), "deriv_rtx": (0x0b, 1),
    "deriv_rty": (0x0c, 1), "discard": (0x0d, 0), "div": (0x0e, 1), "dp2": (0x0f, 1),
    "dp3": (0x10, 1), "dp4": (0x11, 1), "else": (0x12, 0), "endif": (0x15, 0),
    "endloop": (0x16, 0), "endswitch": (0x17, 0), "eq": (0x18, 1), "exp": (0x19, 1),
    "frc": (0x1a, 1), "ftoi": (0x1b, 1), "ftou": (0x1c, 1), "ge": (0x1d, 1),
    "iadd": (0x1e, 1), "if": (0x1f, 0), "ieq": (0x20, 1), "ige": (0x21, 1), "ilt": (0x22, 1),
    "imad": (0x23, 1), "imax": (0x24, 1), "imin": (0x25, 1), "imul": (0x26, 2),
    "ine": (0x27, 1), "ineg": (0x28, 1), "ishl": (0x29, 1), "ishr": (0x2a, 1),
    "itof": (0x2b, 1), "label": (0x2c, 0), "log": (0x2f, 1), "loop": (0x30, 0),
    "lt": (0x31, 1), "mad": (0x32, 1), "min": (0x33, 1), "max": (0x34, 1), "mov": (0x36, 1),
    "movc": (0x37, 1), "mul": (0x38, 1), "ne": (0x39, 1), "nop": (0x3a, 0), "not": (0x3b, 1),
    "or": (0x3c, 1), "ret": (0x3e, 0), "retc": (0x3f, 0), "round_ne": (0x40, 1),
    "round_ni": (0x41, 1), "round_pi": (0x42, 1), "round_z": (0x43, 1), "rsq": (0x44, 1),
    "sqrt": (0x4b, 1), "switch": (0x4c, 0), "sincos": (0x4d, 2), "udiv": (0x4e, 2),
    "ult": (0x4f, 1), "uge": (0x50, 1), "umul": (0x51, 2), "umad": (0x52, 1),
    "umax": (0x53, 1), "umin": (0x54, 1), "ushr": (0x55, 1), "utof": (0x56, 1),
    "xor": (0x57, 1), "deriv_rtx_coarse": (0x7a, 1), "deriv_rtx_fine": (0x7b, 1),
    "deriv_rty_coarse": (0x7c, 1), "deriv_rty_fine": (0x7d, 1), "rcp": (0x81, 1),
    "swapc": (0x8e, 2),
}
# Instructions whose conditional form takes _z/_nz (bit 18 = test nonzero).
TESTS = {"if", "breakc", "continuec", "retc", "discard", "callc"}
# Operands read as a single component (select_1) rather than a swizzle.
SCALAR_SRC = TESTS | {"switch", "case"}

SV = {
    "position": 1, "clip_distance": 2, "cull_distance": 3, "rendertarget_array_index": 4,
    "viewport_array_index": 5, "vertex_id": 6, "primitive_id": 7, "instance_id": 8,
    "is_front_face": 9, "sample_index": 10,
}
# Signature system-value codes (D3D_NAME) for the .in/.out lines.
SIG_SV = dict(SV, target=64, depth=65, coverage=66, depth_greater_equal=67,
              depth_less_equal=68)
INTERP = {
    "constant": 1, "linear": 2, "linear centroid": 3, "linear noperspective": 4,
    "linear noperspective centroid": 5, "linear sample": 6, "linear noperspective sample": 7,
}
SPECIAL = {  # operand types without an index
    "vThreadID": 32, "vThreadGroupID": 33, "vThreadIDInGroup": 34, "vCoverage": 35,
    "vThreadIDInGroupFlattened": 36, "vPrim": 11, "oDepth": 12, "oMask": 15,
    "oDepthGE": 38, "oDepthLE": 39, "null": 13,
}
COMP = "xyzw"
STAGES = {"ps": 0, "vs": 1, "gs": 2, "hs": 3, "ds": 4, "cs": 5}


class AsmError(Exception):
    pass


def parse_number(tok):
    tok = tok.strip()
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", tok) and "." not in tok:
        return int(tok, 0) & 0xFFFFFFFF
    low = tok.lower()
    if low in ("inf", "+inf"):
        f = float("inf")
    elif low == "-inf":
        f = float("-inf")
    elif low == "nan":
        return 0x7FC00000
    else:
        f = float(tok)
    return struct.unpack("<I", struct.pack("<f", f))[0]


def split_operands(text):
    """Splits on commas outside brackets and parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def swizzle_bits(letters):
    return sum(COMP.index(c) << (2 * i) for i, c in enumerate(letters))


class Operand:
    """Encodes one operand; `role` is 'dst', 'src' or 'scalar' (select_1 source)."""

    def __init__(self, text, role, dst_mask):
        self.text = text
        self.role = role
        self.dst_mask = dst_mask

    def encode(self):
        t = self.text.strip()
        mod = 0
        if t.startswith("-|") and t.endswith("|"):
            mod, t = 3, t[2:-1]
        elif t.startswith("|") and t.endswith("|"):
            mod, t = 2, t[1:-1]
        elif t.startswith("-"):
            mod, t = 1, t[1:]
        words = self.body(t)
        if mod:
            words[0] |= 1 << 31
            words.insert(1, 1 | (mod << 6))
        return words

    def components(self, letters):
        """Token bits for components: mask for destinations, swizzle/select_1 for sources."""
        if self.role == "dst":
            mask = 0
            for c in letters or COMP:
                mask |= 1 << COMP.index(c)
            return 2 | (0 << 2) | (mask << 4)
        letters = letters or COMP
        if self.role == "scalar":
            if len(letters) != 1:
                raise AsmError(f"'{self.text}': a condition reads one component")
            return 2 | (2 << 2) | (COMP.index(letters) << 4)
        if len(letters) == 4:
            sw = letters
        elif len(letters) == 1:
            sw = letters * 4
        else:
            # Printed swizzles list the components for the written destination components.
            sw = [letters[0]] * 4
            dst = [i for i in range(4) if self.dst_mask & (1 << i)]
            if len(dst) != len(letters):
                raise AsmError(f"'{self.text}': {len(letters)} swizzle letters for "
                               f"{len(dst)} destination components")
            for i, c in zip(dst, letters):
                sw[i] = c
            sw = "".join(sw)
        return 2 | (1 << 2) | (swizzle_bits(sw) << 4)

    def index(self, text):
        """One index: `n`, or `rX.c + n` / `rX.c` (relative). Returns (representation, words)."""
        text = text.strip()
        m = re.fullmatch(r"(.+?)\s*\+\s*(-?\w+)", text)
        if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", text):
            return 0, [int(text, 0) & 0xFFFFFFFF]
        if m:
            rel = Operand(m.group(1), "scalar", 0).encode()
            return 3, [int(m.group(2), 0) & 0xFFFFFFFF] + rel
        rel = Operand(text, "scalar", 0).encode()
        return 2, rel

    def body(self, t):
        m = re.fullmatch(r"l\((.*)\)", t)
        if m:
            vals = [parse_number(v) for v in m.group(1).split(",")]
            if len(vals) == 1:
                return [1 | (4 << 12), vals[0]]
            if len(vals) != 4:
                raise AsmError(f"'{t}': immediates have 1 or 4 values")
            return [2 | (4 << 12)] + vals
        m = re.fullmatch(r"(\w+?)(\d*)((?:\[[^\]]*\])*)(?:\.([xyzw]+))?", t)
        if not m:
            raise AsmError(f"cannot read operand '{t}'")
        name, num, idx, comps = m.groups()
        indices = re.findall(r"\[([^\]]*)\]", idx)
        if name + num in SPECIAL:
            ty = SPECIAL[name + num]
            if ty == 13:
                return [0 | (13 << 12)]
            if ty in (11, 12, 15, 35, 36, 38, 39):  # one-component registers
                return [1 | (ty << 12)]
            return [self.components(comps) | (ty << 12)]
        types = {"r": 0, "v": 1, "o": 2, "x": 3, "cb": 8, "icb": 9, "l": 10}
        if name not in types:
            raise AsmError(f"unknown register '{t}'")
        ty = types[name]
        if name == "l":  # label
            return [0 | (10 << 12) | (1 << 20), int(num)]
        if name == "icb":
            dims = [("idx", indices[0])]
        elif name in ("x", "cb"):
            dims = [("imm", num), ("idx", indices[0])]
        else:
            dims = [("imm", num)]
        token = self.components(comps) | (ty << 12) | (len(dims) << 20)
        extra = []
        for i, (kind, v) in enumerate(dims):
            rep, w = (0, [int(v)]) if kind == "imm" else self.index(v)
            token |= rep << (22 + 3 * i)
            extra += w
        return [token] + extra


def reg_mask(text):
    m = re.search(r"\.([xyzw]+)$", text.strip())
    mask = 0
    for c in m.group(1) if m else COMP:
        mask |= 1 << COMP.index(c)
    return mask


def assemble_instruction(line):
    m = re.match(r"(\w+)\s*(.*)", line)
    mnemonic, rest = m.group(1), m.group(2)
    control = 0
    base = mnemonic
    if base.endswith("_sat"):
        base, control = base[:-4], control | (1 << 13)
    for suffix, bit in (("_nz", 1 << 18), ("_z", 0)):
        if base.endswith(suffix) and base[: -len(suffix)] in TESTS:
            base, control = base[: -len(suffix)], control | bit
            break
    if base not in OPCODES:
        raise AsmError(f"unknown instruction '{mnemonic}'")
    code, ndst = OPCODES[base]
    ops = split_operands(rest) if rest.strip() else []
    words = []
    dst_mask = 0xF
    for i, o in enumerate(ops):
        if base in ("call", "label") or (base == "callc" and i == 1):
            words += [0 | (10 << 12) | (1 << 20), int(o.strip()[1:])]
            continue
        if base == "case":
            words += [1 | (4 << 12), parse_number(re.fullmatch(r"l\((.*)\)", o).group(1))]
            continue
        if i < ndst:
            role = "dst"
            if i == 0:
                dst_mask = reg_mask(o) if o != "null" else 0xF
        elif base in SCALAR_SRC and i == 0:
            role = "scalar"
        else:
            role = "src"
        words += Operand(o, role, dst_mask).encode()
    return [code | control | ((len(words) + 1) << 24)] + words


def assemble_declaration(line):
    m = re.match(r"(\w+)\s*(.*)", line)
    name, rest = m.group(1), m.group(2).strip()
    if name == "dcl_globalFlags":
        flags = {"refactoringAllowed": 1 << 11, "enableDoublePrecisionFloatOps": 1 << 12,
                 "forceEarlyDepthStencil": 1 << 13, "enableRawAndStructuredBuffers": 1 << 14}
        bits = 0
        for f in rest.split("|"):
            bits |= flags[f.strip()]
        return [0x6A | bits | (1 << 24)]
    if name == "dcl_temps":
        return [0x68 | (2 << 24), int(rest)]
    if name == "dcl_indexableTemp":
        m = re.fullmatch(r"x(\d+)\[(\d+)\],\s*(\d+)", rest)
        return [0x69 | (4 << 24), int(m.group(1)), int(m.group(2)), int(m.group(3))]
    if name == "dcl_thread_group":
        x, y, z = (int(v) for v in rest.split(","))
        return [0x9B | (4 << 24), x, y, z]
    if name == "dcl_constantbuffer":
        m = re.fullmatch(r"cb(\d+)\[(\d+)\](?:,\s*(\w+))?", rest)
        dyn = 1 << 11 if m.group(3) == "dynamicIndexed" else 0
        token = 2 | (1 << 2) | (swizzle_bits("xyzw") << 4) | (8 << 12) | (2 << 20)
        return [0x59 | dyn | (4 << 24), token, int(m.group(1)), int(m.group(2))]
    if name == "dcl_immediateConstantBuffer":
        vals = [parse_number(v) for v in re.findall(r"[^\s{},]+", rest)]
        return [0x35 | (3 << 11), len(vals) + 2] + vals
    interp = 0
    if name in ("dcl_input_ps", "dcl_input_ps_siv", "dcl_input_ps_sgv"):
        for k in sorted(INTERP, key=len, reverse=True):
            if rest.startswith(k + " "):
                interp, rest = INTERP[k], rest[len(k):].strip()
                break
    code = {"dcl_input": 0x5F, "dcl_input_sgv": 0x60, "dcl_input_siv": 0x61,
            "dcl_input_ps": 0x62, "dcl_input_ps_sgv": 0x63, "dcl_input_ps_siv": 0x64,
            "dcl_output": 0x65, "dcl_output_sgv": 0x66, "dcl_output_siv": 0x67}.get(name)
    if code is None:
        raise AsmError(f"unknown declaration '{name}'")
    parts = split_operands(rest)
    op = Operand(parts[0], "dst", 0).encode()
    words = op + ([SV[parts[1]]] if len(parts) > 1 else [])
    return [code | (interp << 11) | ((len(words) + 1) << 24)] + words


def signature(elements, output):
    """ISGN/OSGN chunk data."""
    head = struct.pack("<II", len(elements), 8)
    strings = b""
    offsets = []
    base = 8 + 24 * len(elements)
    for e in elements:
        offsets.append(base + len(strings))
        strings += e["name"].encode() + b"\0"
    while len(strings) % 4:
        strings += b"\xab"
    body = b""
    for e, off in zip(elements, offsets):
        rw = 0 if output else e["mask"]
        body += struct.pack("<IIIIIBBBB", off, e["index"], e["sv"], e["type"], e["reg"],
                            e["mask"], rw, 0, 0)
    return head + body + strings


def dxbc_md5(data):
    """The DXBC checksum: MD5 with the container's own final-block layout."""
    import math
    s = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
    k = [int(abs(math.sin(i + 1)) * 2 ** 32) & 0xFFFFFFFF for i in range(64)]
    state = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476]

    def compress(block):
        m = struct.unpack("<16I", block)
        a, b, c, d = state
        for i in range(64):
            if i < 16:
                f, g = (b & c) | (~b & d), i
            elif i < 32:
                f, g = (d & b) | (~d & c), (5 * i + 1) % 16
            elif i < 48:
                f, g = b ^ c ^ d, (3 * i + 5) % 16
            else:
                f, g = c ^ (b | ~d), (7 * i) % 16
            x = (a + (f & 0xFFFFFFFF) + k[i] + m[g]) & 0xFFFFFFFF
            a, d, c = d, c, b
            b = (b + ((x << s[i]) | (x >> (32 - s[i])))) & 0xFFFFFFFF
        for i, v in enumerate((a, b, c, d)):
            state[i] = (state[i] + v) & 0xFFFFFFFF

    n = len(data) // 64 * 64
    for i in range(0, n, 64):
        compress(data[i:i + 64])
    tail = data[n:]
    bits = (len(data) * 8) & 0xFFFFFFFF
    block = bytearray(64)
    if len(tail) < 56:
        block[4:4 + len(tail)] = tail
        block[4 + len(tail)] = 0x80
    else:
        block[:len(tail)] = tail
        block[len(tail)] = 0x80
        compress(bytes(block))
        block = bytearray(64)
    block[0:4] = struct.pack("<I", bits)
    block[60:64] = struct.pack("<I", (bits >> 2) | 1)
    compress(bytes(block))
    return struct.pack("<4I", *state)


def container(chunks):
    header_len = 32 + 4 * len(chunks)
    offsets, body = [], b""
    for tag, data in chunks:
        offsets.append(header_len + len(body))
        body += tag + struct.pack("<I", len(data)) + data
    total = header_len + len(body)
    rest = struct.pack("<II", 1, total) + struct.pack("<I", len(chunks))
    rest += b"".join(struct.pack("<I", o) for o in offsets) + body
    blob = b"DXBC" + b"\0" * 16 + rest
    return b"DXBC" + dxbc_md5(blob[20:]) + blob[20:]


def assemble(text):
    version = None
    ins, outs, tokens = [], [], []
    for n, raw in enumerate(text.splitlines(), 1):
        line = re.split(r"//|;;", raw)[0].strip()
        if not line:
            continue
        try:
            m = re.fullmatch(r"([a-z]s)_(\d)_(\d)", line)
            if m:
                version = (STAGES[m.group(1)] << 16) | (int(m.group(2)) << 4) | int(m.group(3))
                continue
            if line.startswith((".in ", ".out ")):
                f = line.split()
                # Depth and coverage outputs have no register number (0xffffffff).
                reg = int(f[3][1:]) if re.fullmatch(r"[ov]\d+", f[3]) else 0xFFFFFFFF
                el = {"name": f[1], "index": int(f[2]), "reg": reg,
                      "mask": reg_mask("." + f[4]),
                      "type": {"uint": 1, "int": 2, "float": 3}[f[5]],
                      "sv": SIG_SV[f[6]] if len(f) > 6 else 0}
                (ins if f[0] == ".in" else outs).append(el)
                if el["sv"] == 64:
                    el["sv"] = 0  # SV_Target is a plain element in signatures
                continue
            if line.startswith("dcl_"):
                tokens += assemble_declaration(line)
            else:
                tokens += assemble_instruction(line)
        except (AsmError, ValueError, AttributeError, IndexError, KeyError) as e:
            raise AsmError(f"line {n}: '{raw.strip()}': {e}") from e
    if version is None:
        raise AsmError("no shader version line (ps_5_0, ...)")
    code = [version, len(tokens) + 2] + tokens
    shex = b"".join(struct.pack("<I", w) for w in code)
    tag = b"SHEX" if (version & 0xF0) >> 4 >= 5 else b"SHDR"
    return container([(b"ISGN", signature(ins, False)), (b"OSGN", signature(outs, True)),
                      (tag, shex)])


def to_hex(blob):
    words = [struct.unpack("<I", blob[i:i + 4])[0] for i in range(0, len(blob), 4)]
    lines = []
    for i in range(0, len(words), 6):
        lines.append(" ".join(f"{w:08x}" for w in words[i:i + 6]))
    return "\n".join(lines)


def asm_blocks(lines):
    """Yields (asm text, first hex line index, end index) for each `% asm:` block: the `%`
    lines after it hold the assembly, the next section header is the shader's, and the hex runs
    up to the next blank line or section."""
    i = 0
    while i < len(lines):
        if lines[i].strip() != "% asm:":
            i += 1
            continue
        asm = []
        i += 1
        while i < len(lines) and lines[i].startswith("%"):
            asm.append(lines[i][1:])
            i += 1
        while i < len(lines) and not lines[i].startswith("["):
            i += 1
        if i == len(lines) or "dxbc-tpf-hex" not in lines[i]:
            raise AsmError(f"line {i + 1}: an asm block must precede a dxbc-tpf-hex section")
        start = i + 1
        i = start
        while i < len(lines) and lines[i].strip() and not lines[i].startswith("["):
            i += 1
        yield "\n".join(asm), start, i


def check_file(path, fill):
    """Checks (or with `fill`, rewrites) the hex section after each `% asm:` block."""
    lines = open(path).read().splitlines()
    ok, found, out, pos = True, 0, [], 0
    for asm, start, end in list(asm_blocks(lines)):
        found += 1
        want = to_hex(assemble(asm)).splitlines()
        if " ".join(lines[start:end]).split() != " ".join(want).split():
            if not fill:
                print(f"{path}:{start + 1}: hex differs from asm block {found}")
            ok = False
        out += lines[pos:start] + want
        pos = end
    out += lines[pos:]
    if fill and not ok:
        open(path, "w").write("\n".join(out) + "\n")
        print(f"{path}: rewrote the hex of {found} asm block(s)")
        return True
    print(f"{path}: {found} asm block(s) {'match' if ok else 'DIFFER'}")
    return ok


def main():
    if len(sys.argv) >= 3 and sys.argv[1] in ("--check", "--fill"):
        try:
            ok = all([check_file(f, sys.argv[1] == "--fill") for f in sys.argv[2:]])
        except AsmError as e:
            sys.exit(f"tpf_asm: {e}")
        sys.exit(0 if ok else 1)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        print(to_hex(assemble(open(sys.argv[1]).read())))
    except AsmError as e:
        sys.exit(f"tpf_asm: {e}")


if __name__ == "__main__":
    main()
