//! The D3D9 opcode table as data: number, name, the versions each stage allows, and the
//! operand layout that gives the implied instruction length of shader model 1.x.
//!
//! Sources: Microsoft's asm reference (instruction pages, "Instruction token"), `d3d9types.h`
//! `D3DSIO_*`, and the version ranges that Wine's tests and the earlier translators agree on.
//! The decoder uses the layout only for 1.x, where instructions carry no length; from 2.0 on the
//! length field decides and [`Opcode::source_counts`] checks it.

use super::types::{Stage, Version};

/// Versions as `major << 8 | minor` (so `_sw`, minor 0xFF, sorts after its major's others).
pub type Ver = u16;

const ALL: Option<(Ver, Ver)> = Some((0x100, 0xFFFF));
const fn from(v: Ver) -> Option<(Ver, Ver)> {
    Some((v, 0xFFFF))
}
const fn span(a: Ver, b: Ver) -> Option<(Ver, Ver)> {
    Some((a, b))
}
const NONE: Option<(Ver, Ver)> = None;

/// The opcodes D3D9 defines (`D3DSIO_*`), named as the instruction reference names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
pub enum Opcode {
    Nop = 0x00,
    Mov = 0x01,
    Add = 0x02,
    Sub = 0x03,
    Mad = 0x04,
    Mul = 0x05,
    Rcp = 0x06,
    Rsq = 0x07,
    Dp3 = 0x08,
    Dp4 = 0x09,
    Min = 0x0A,
    Max = 0x0B,
    Slt = 0x0C,
    Sge = 0x0D,
    Exp = 0x0E,
    Log = 0x0F,
    Lit = 0x10,
    Dst = 0x11,
    Lrp = 0x12,
    Frc = 0x13,
    M4x4 = 0x14,
    M4x3 = 0x15,
    M3x4 = 0x16,
    M3x3 = 0x17,
    M3x2 = 0x18,
    Call = 0x19,
    CallNz = 0x1A,
    Loop = 0x1B,
    Ret = 0x1C,
    EndLoop = 0x1D,
    Label = 0x1E,
    Dcl = 0x1F,
    Pow = 0x20,
    Crs = 0x21,
    Sgn = 0x22,
    Abs = 0x23,
    Nrm = 0x24,
    SinCos = 0x25,
    Rep = 0x26,
    EndRep = 0x27,
    If = 0x28,
    IfC = 0x29,
    Else = 0x2A,
    EndIf = 0x2B,
    Break = 0x2C,
    BreakC = 0x2D,
    MovA = 0x2E,
    DefB = 0x2F,
    DefI = 0x30,
    TexCoord = 0x40,
    TexKill = 0x41,
    Tex = 0x42,
    TexBem = 0x43,
    TexBemL = 0x44,
    TexReg2Ar = 0x45,
    TexReg2Gb = 0x46,
    TexM3x2Pad = 0x47,
    TexM3x2Tex = 0x48,
    TexM3x3Pad = 0x49,
    TexM3x3Tex = 0x4A,
    TexM3x3Spec = 0x4C,
    TexM3x3VSpec = 0x4D,
    ExpP = 0x4E,
    LogP = 0x4F,
    Cnd = 0x50,
    Def = 0x51,
    TexReg2Rgb = 0x52,
    TexDp3Tex = 0x53,
    TexM3x2Depth = 0x54,
    TexDp3 = 0x55,
    TexM3x3 = 0x56,
    TexDepth = 0x57,
    Cmp = 0x58,
    Bem = 0x59,
    Dp2Add = 0x5A,
    Dsx = 0x5B,
    Dsy = 0x5C,
    TexLdd = 0x5D,
    SetP = 0x5E,
    TexLdl = 0x5F,
    BreakP = 0x60,
    Phase = 0xFFFD,
}

/// How an opcode's operand tokens are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// An optional destination, then `sources` sources (the 1.x length).
    Plain { dst: bool, sources: u8 },
    /// `dcl`: a usage/sampler token, then a destination.
    Dcl,
    /// `def`/`defi`: a destination, then four raw dwords.
    Def4,
    /// `defb`: a destination, then one raw dword.
    Def1,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    /// The name in 2.0+ syntax (`texld`, `texcrd`-style 1.4 names come from [`Opcode::name`]).
    pub name: &'static str,
    /// Versions (inclusive) in which a vertex shader may use it.
    pub vs: Option<(Ver, Ver)>,
    /// Versions (inclusive) in which a pixel shader may use it.
    pub ps: Option<(Ver, Ver)>,
    pub layout: Layout,
}

const fn op(
    opcode: Opcode,
    name: &'static str,
    vs: Option<(Ver, Ver)>,
    ps: Option<(Ver, Ver)>,
    dst: bool,
    sources: u8,
) -> OpcodeInfo {
    OpcodeInfo {
        opcode,
        name,
        vs,
        ps,
        layout: Layout::Plain { dst, sources },
    }
}

use Opcode::*;

/// Every opcode, sorted by number.
pub static OPCODES: &[OpcodeInfo] = &[
    op(Nop, "nop", ALL, ALL, false, 0),
    op(Mov, "mov", ALL, ALL, true, 1),
    op(Add, "add", ALL, ALL, true, 2),
    op(Sub, "sub", ALL, ALL, true, 2),
    op(Mad, "mad", ALL, ALL, true, 3),
    op(Mul, "mul", ALL, ALL, true, 2),
    op(Rcp, "rcp", ALL, from(0x200), true, 1),
    op(Rsq, "rsq", ALL, from(0x200), true, 1),
    op(Dp3, "dp3", ALL, ALL, true, 2),
    op(Dp4, "dp4", ALL, from(0x102), true, 2),
    op(Min, "min", ALL, from(0x200), true, 2),
    op(Max, "max", ALL, from(0x200), true, 2),
    op(Slt, "slt", ALL, NONE, true, 2),
    op(Sge, "sge", ALL, NONE, true, 2),
    op(Exp, "exp", ALL, from(0x200), true, 1),
    op(Log, "log", ALL, from(0x200), true, 1),
    op(Lit, "lit", ALL, NONE, true, 1),
    op(Dst, "dst", ALL, NONE, true, 2),
    op(Lrp, "lrp", from(0x200), ALL, true, 3),
    op(Frc, "frc", ALL, from(0x200), true, 1),
    op(M4x4, "m4x4", ALL, from(0x200), true, 2),
    op(M4x3, "m4x3", ALL, from(0x200), true, 2),
    op(M3x4, "m3x4", ALL, from(0x200), true, 2),
    op(M3x3, "m3x3", ALL, from(0x200), true, 2),
    op(M3x2, "m3x2", ALL, from(0x200), true, 2),
    op(Call, "call", from(0x200), from(0x201), false, 1),
    op(CallNz, "callnz", from(0x200), from(0x201), false, 2),
    op(Loop, "loop", from(0x200), from(0x300), false, 2),
    op(Ret, "ret", from(0x200), from(0x201), false, 0),
    op(EndLoop, "endloop", from(0x200), from(0x300), false, 0),
    op(Label, "label", from(0x200), from(0x201), false, 1),
    OpcodeInfo {
        opcode: Dcl,
        name: "dcl",
        vs: ALL,
        ps: from(0x200),
        layout: Layout::Dcl,
    },
    op(Pow, "pow", from(0x200), from(0x200), true, 2),
    op(Crs, "crs", from(0x200), from(0x200), true, 2),
    op(Sgn, "sgn", from(0x200), NONE, true, 3),
    op(Abs, "abs", from(0x200), from(0x200), true, 1),
    op(Nrm, "nrm", from(0x200), from(0x200), true, 1),
    op(SinCos, "sincos", from(0x200), from(0x200), true, 3),
    op(Rep, "rep", from(0x200), from(0x201), false, 1),
    op(EndRep, "endrep", from(0x200), from(0x201), false, 0),
    op(If, "if", from(0x200), from(0x201), false, 1),
    op(IfC, "ifc", from(0x201), from(0x201), false, 2),
    op(Else, "else", from(0x200), from(0x201), false, 0),
    op(EndIf, "endif", from(0x200), from(0x201), false, 0),
    op(Break, "break", from(0x201), from(0x201), false, 0),
    op(BreakC, "breakc", from(0x201), from(0x201), false, 2),
    op(MovA, "mova", from(0x200), NONE, true, 1),
    OpcodeInfo {
        opcode: DefB,
        name: "defb",
        vs: from(0x200),
        ps: from(0x201),
        layout: Layout::Def1,
    },
    OpcodeInfo {
        opcode: DefI,
        name: "defi",
        vs: from(0x200),
        ps: from(0x201),
        layout: Layout::Def4,
    },
    op(TexCoord, "texcoord", NONE, span(0x100, 0x104), true, 0),
    op(TexKill, "texkill", NONE, ALL, true, 0),
    op(Tex, "texld", NONE, ALL, true, 0),
    op(TexBem, "texbem", NONE, span(0x100, 0x103), true, 1),
    op(TexBemL, "texbeml", NONE, span(0x100, 0x103), true, 1),
    op(TexReg2Ar, "texreg2ar", NONE, span(0x100, 0x103), true, 1),
    op(TexReg2Gb, "texreg2gb", NONE, span(0x100, 0x103), true, 1),
    op(TexM3x2Pad, "texm3x2pad", NONE, span(0x100, 0x103), true, 1),
    op(TexM3x2Tex, "texm3x2tex", NONE, span(0x100, 0x103), true, 1),
    op(TexM3x3Pad, "texm3x3pad", NONE, span(0x100, 0x103), true, 1),
    op(TexM3x3Tex, "texm3x3tex", NONE, span(0x100, 0x103), true, 1),
    op(
        TexM3x3Spec,
        "texm3x3spec",
        NONE,
        span(0x100, 0x103),
        true,
        2,
    ),
    op(
        TexM3x3VSpec,
        "texm3x3vspec",
        NONE,
        span(0x100, 0x103),
        true,
        1,
    ),
    op(ExpP, "expp", ALL, NONE, true, 1),
    op(LogP, "logp", ALL, NONE, true, 1),
    op(Cnd, "cnd", NONE, span(0x100, 0x104), true, 3),
    OpcodeInfo {
        opcode: Def,
        name: "def",
        vs: ALL,
        ps: ALL,
        layout: Layout::Def4,
    },
    op(TexReg2Rgb, "texreg2rgb", NONE, span(0x102, 0x103), true, 1),
    op(TexDp3Tex, "texdp3tex", NONE, span(0x102, 0x103), true, 1),
    op(
        TexM3x2Depth,
        "texm3x2depth",
        NONE,
        span(0x103, 0x103),
        true,
        1,
    ),
    op(TexDp3, "texdp3", NONE, span(0x102, 0x103), true, 1),
    op(TexM3x3, "texm3x3", NONE, span(0x102, 0x103), true, 1),
    op(TexDepth, "texdepth", NONE, span(0x104, 0x104), true, 0),
    op(Cmp, "cmp", NONE, from(0x102), true, 3),
    op(Bem, "bem", NONE, span(0x104, 0x104), true, 2),
    op(Dp2Add, "dp2add", NONE, from(0x200), true, 3),
    op(Dsx, "dsx", NONE, from(0x201), true, 1),
    op(Dsy, "dsy", NONE, from(0x201), true, 1),
    op(TexLdd, "texldd", NONE, from(0x201), true, 4),
    op(SetP, "setp", from(0x201), from(0x201), true, 2),
    op(TexLdl, "texldl", from(0x300), from(0x300), true, 2),
    op(BreakP, "breakp", from(0x201), from(0x201), false, 1),
    op(Phase, "phase", NONE, span(0x104, 0x104), false, 0),
];

impl Opcode {
    /// The opcode with this number.
    pub fn from_u16(n: u16) -> Option<Opcode> {
        OPCODES
            .binary_search_by_key(&n, |i| i.opcode as u16)
            .ok()
            .map(|i| OPCODES[i].opcode)
    }

    /// Its table row.
    pub fn info(self) -> &'static OpcodeInfo {
        let i = OPCODES
            .binary_search_by_key(&(self as u16), |i| i.opcode as u16)
            .unwrap_or_default();
        &OPCODES[i]
    }

    /// The mnemonic in `version`'s syntax: 0x40 is `texcoord` before 1.4 and `texcrd` in 1.4;
    /// 0x42 is `tex` before 1.4 and `texld` from 1.4 on.
    pub fn name(self, version: Version) -> &'static str {
        let ps1 = |max: Ver| version.stage == Stage::Pixel && version.ver() <= max;
        match self {
            TexCoord if ps1(0x103) => "texcoord",
            TexCoord => "texcrd",
            Tex if ps1(0x103) => "tex",
            _ => self.info().name,
        }
    }

    /// Whether the opcode is defined for `version`'s stage and version.
    pub fn valid_in(self, version: Version) -> bool {
        let info = self.info();
        let range = match version.stage {
            Stage::Vertex => info.vs,
            Stage::Pixel => info.ps,
        };
        range.is_some_and(|(lo, hi)| (lo..=hi).contains(&version.ver()))
    }

    /// Whether the instruction starts with a destination token.
    pub fn has_destination(self) -> bool {
        match self.info().layout {
            Layout::Plain { dst, .. } => dst,
            _ => true,
        }
    }

    /// Opcodes whose controls field is a comparison (`ifc_gt`, `breakc_eq`, `setp_ne`).
    pub fn has_comparison(self) -> bool {
        matches!(self, IfC | BreakC | SetP)
    }

    /// The number of source tokens (relative-address tokens excluded) an instruction may
    /// have in `version`: the 1.x implied count, or the counts the 2.0+ syntax allows.
    pub fn source_counts(self, version: Version) -> &'static [usize] {
        let ps = version.stage == Stage::Pixel;
        let v = version.ver();
        match self {
            TexCoord | Tex if ps && v < 0x104 => &[0],
            TexCoord => &[1],
            Tex if v == 0x104 => &[1],
            Tex => &[2],
            SinCos | Sgn if version.major >= 3 => &[1],
            SinCos | Sgn if version.major == 2 => &[3],
            _ => match self.info().layout {
                Layout::Plain { sources, .. } => match sources {
                    0 => &[0],
                    1 => &[1],
                    2 => &[2],
                    3 => &[3],
                    _ => &[4],
                },
                _ => &[0],
            },
        }
    }
}

/// All names the assembler accepts for an opcode: its table name plus `tex`, `texcoord`
/// and `texcrd`.
pub fn by_name(name: &str) -> Option<Opcode> {
    match name {
        "tex" => Some(Tex),
        "texcrd" => Some(TexCoord),
        _ => OPCODES.iter().find(|i| i.name == name).map(|i| i.opcode),
    }
}
