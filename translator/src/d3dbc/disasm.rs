//! `Display` for [`Program`]: Microsoft's D3D9 assembly syntax (`vs_2_0`, `dcl_texcoord1 v1`,
//! `mad_sat r0.xyz, c[a0.x + 3], r1_bx2, -r2.w`, `(!p0) add`, `+mov`), plus two directives
//! that make the listing complete for the assembler: `.comment` (a comment block's dwords,
//! preceded by a readable view of a `CTAB` table in `//` lines) and `.trailing` (bytes after
//! END). `docs/d3d9.md` describes the syntax and its differences from vkd3d's listing.

use std::fmt::{self, Write};

use super::opcodes::Opcode;
use super::types::*;

/// A 32-bit float as its shortest round-tripping decimal, or its bits for NaN and infinities.
pub fn format_f32(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if v.is_finite() {
        format!("{v:?}")
    } else {
        format!("{bits:#010x}")
    }
}

/// The register's name without number (`r`, `oPos`, `vFace`…) and whether a number follows.
pub fn register_name(ty: RegisterType, num: u16, version: Version) -> (&'static str, bool) {
    use RegisterType::*;
    match ty {
        Temp => ("r", true),
        Input => ("v", true),
        Const | Const2 | Const3 | Const4 => ("c", true),
        AddrOrTexture if version.is_vertex() => ("a", true),
        AddrOrTexture => ("t", true),
        RastOut => (["oPos", "oFog", "oPts"][usize::from(num.min(2))], false),
        AttrOut => ("oD", true),
        Output if version.is_vertex() && version.major >= 3 => ("o", true),
        Output => ("oT", true),
        ConstInt => ("i", true),
        ColorOut => ("oC", true),
        DepthOut => ("oDepth", false),
        Sampler => ("s", true),
        ConstBool => ("b", true),
        Loop => ("aL", false),
        TempFloat16 => ("half", true),
        Misc => (["vPos", "vFace"][usize::from(num.min(1))], false),
        Label => ("l", true),
        Predicate => ("p", true),
    }
}

/// The number printed for a register (`c#` of the CONST2–4 files counts on from 2048).
pub fn register_number(r: Register) -> u32 {
    let base = match r.ty {
        RegisterType::Const2 => 2048,
        RegisterType::Const3 => 4096,
        RegisterType::Const4 => 6144,
        _ => 0,
    };
    base + u32::from(r.num)
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

fn write_swizzle(f: &mut impl Write, s: Swizzle) -> fmt::Result {
    if s == Swizzle::IDENTITY {
        return Ok(());
    }
    // A shorter swizzle repeats its last component.
    let mut n = 4;
    while n > 1 && s.0[n - 1] == s.0[n - 2] {
        n -= 1;
    }
    f.write_char('.')?;
    for &c in &s.0[..n] {
        f.write_char(XYZW[usize::from(c)])?;
    }
    Ok(())
}

fn write_register(
    f: &mut impl Write,
    r: Register,
    rel: Option<Relative>,
    v: Version,
) -> fmt::Result {
    let (name, numbered) = register_name(r.ty, r.num, v);
    f.write_str(name)?;
    let num = register_number(r);
    match rel {
        None if numbered => write!(f, "{num}"),
        None => Ok(()),
        Some(rel) => {
            f.write_char('[')?;
            match rel {
                Relative::Implied => f.write_str("a0.x")?,
                Relative::Register { reg, swizzle } => {
                    write_register(f, reg, None, v)?;
                    write_swizzle(f, swizzle)?;
                }
            }
            if num != 0 && numbered {
                write!(f, " + {num}")?;
            }
            f.write_char(']')
        }
    }
}

/// Writes a source operand.
pub fn write_source(f: &mut impl Write, s: &Source, v: Version) -> fmt::Result {
    use SourceModifier as M;
    f.write_str(match s.modifier {
        M::Neg | M::BiasNeg | M::SignNeg | M::X2Neg | M::AbsNeg => "-",
        M::Comp => "1 - ",
        M::Not => "!",
        _ => "",
    })?;
    write_register(f, s.reg, s.relative, v)?;
    f.write_str(match s.modifier {
        M::Bias | M::BiasNeg => "_bias",
        M::Sign | M::SignNeg => "_bx2",
        M::X2 | M::X2Neg => "_x2",
        M::Dz => "_dz",
        M::Dw => "_dw",
        M::Abs | M::AbsNeg => "_abs",
        _ => "",
    })?;
    write_swizzle(f, s.swizzle)
}

/// Writes a destination operand (register and write mask; modifiers go on the mnemonic).
pub fn write_destination(f: &mut impl Write, d: &Destination, v: Version) -> fmt::Result {
    write_register(f, d.reg, d.relative, v)?;
    if d.mask == 0 {
        // An empty mask has no spelling in Microsoft's syntax.
        return f.write_str(".none");
    }
    if d.mask != 0xF {
        f.write_char('.')?;
        for (i, c) in XYZW.iter().enumerate() {
            if d.mask & (1 << i) != 0 {
                f.write_char(*c)?;
            }
        }
    }
    Ok(())
}

/// The shift suffix (`_x2`, `_d4`, or `_shiftN` for the values with no name).
pub fn shift_suffix(shift: i8) -> String {
    match shift {
        0 => String::new(),
        1 => "_x2".into(),
        2 => "_x4".into(),
        3 => "_x8".into(),
        -1 => "_d2".into(),
        -2 => "_d4".into(),
        -3 => "_d8".into(),
        n => format!("_shift{n}"),
    }
}

/// The full mnemonic: base name, controls, declaration, shift and result modifiers.
pub fn mnemonic(i: &Instruction, v: Version) -> String {
    // Microsoft spells ifc and breakc `if_gt`, `break_ne`.
    let mut m = String::from(match i.opcode {
        Opcode::IfC => "if",
        Opcode::BreakC => "break",
        op => op.name(v),
    });
    match i.controls {
        Controls::None => {}
        Controls::Compare(c) => {
            m.push('_');
            m.push_str(c.name());
        }
        Controls::Project => m.push('p'),
        Controls::Bias => m.push('b'),
    }
    if let Extra::Dcl(d) = i.extra {
        let reg = i.dst.map(|d| d.reg.ty);
        match d {
            Declaration::Semantic {
                usage: Usage::Position,
                index: 0,
            } if (!v.is_vertex() && v.major < 3) || reg == Some(RegisterType::Misc) => {}
            Declaration::Semantic { usage, index } => {
                m.push('_');
                m.push_str(usage.name());
                if index != 0 {
                    let _ = write!(m, "{index}");
                }
            }
            Declaration::Sampler(TextureType::Unknown) => {}
            Declaration::Sampler(t) => {
                m.push('_');
                m.push_str(t.name());
            }
        }
    }
    if let Some(d) = &i.dst {
        m += &shift_suffix(d.shift);
        if d.saturate {
            m += "_sat";
        }
        if d.partial_precision {
            m += "_pp";
        }
        if d.centroid {
            m += "_centroid";
        }
    }
    m
}

/// Writes one instruction line (without the newline).
pub fn write_instruction(f: &mut impl Write, i: &Instruction, v: Version) -> fmt::Result {
    if i.coissue {
        f.write_char('+')?;
    }
    if let Some(p) = &i.predicate {
        f.write_char('(')?;
        write_source(f, p, v)?;
        f.write_str(") ")?;
    }
    f.write_str(&mnemonic(i, v))?;
    let mut sep = " ";
    if let Some(d) = &i.dst {
        f.write_str(sep)?;
        write_destination(f, d, v)?;
        sep = ", ";
    }
    for s in &i.src {
        f.write_str(sep)?;
        write_source(f, s, v)?;
        sep = ", ";
    }
    match i.extra {
        Extra::None | Extra::Dcl(_) => {}
        Extra::Def(vals) => {
            for x in vals {
                write!(f, ", {}", format_f32(x))?;
            }
        }
        Extra::DefI(vals) => {
            for x in vals {
                write!(f, ", {x}")?;
            }
        }
        Extra::DefB(0) => f.write_str(", false")?,
        Extra::DefB(1) => f.write_str(", true")?,
        Extra::DefB(x) => write!(f, ", {x:#x}")?,
    }
    Ok(())
}

/// Writes a comment block: a readable view of a constant table, then the `.comment` directive
/// with the dwords (eight per line).
pub fn write_comment(f: &mut impl Write, c: &Comment) -> fmt::Result {
    match c.ctab() {
        Some(Ok(t)) => {
            writeln!(
                f,
                "// CTAB: {} constants, target {}, creator \"{}\"",
                t.constants.len(),
                t.target.escape_debug(),
                t.creator.escape_debug()
            )?;
            for k in &t.constants {
                writeln!(
                    f,
                    "//   {:<24} {:<14} {}{:<4} {}",
                    k.name.escape_debug().to_string(),
                    k.ty.hlsl(),
                    k.register_set.prefix(),
                    k.register_index,
                    k.register_count
                )?;
            }
        }
        Some(Err(e)) => writeln!(f, "// {e}")?,
        None => {
            if let Some(cc) = c.fourcc() {
                writeln!(f, "// {}", String::from_utf8_lossy(&cc))?;
            }
        }
    }
    f.write_str(".comment")?;
    for (i, w) in c.data.iter().enumerate() {
        if i > 0 && i % 8 == 0 {
            f.write_str("\n        ")?;
        }
        write!(f, " {w:#010x}")?;
    }
    Ok(())
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.version)?;
        for item in &self.items {
            match item {
                Item::Instruction(i) => write_instruction(f, i, self.version)?,
                Item::Comment(c) => write_comment(f, c)?,
            }
            writeln!(f)?;
        }
        if !self.trailing.is_empty() {
            f.write_str(".trailing")?;
            for (i, b) in self.trailing.iter().enumerate() {
                if i > 0 && i % 16 == 0 {
                    f.write_str("\n         ")?;
                }
                write!(f, " {b:02x}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl Program {
    /// The listing line of the instruction at `index` of [`Program::instructions`].
    pub fn instruction_text(&self, index: usize) -> String {
        let mut s = String::new();
        if let Some(i) = self.instructions().nth(index) {
            let _ = write_instruction(&mut s, i, self.version);
        }
        s
    }
}
