//! The decoded program: typed version, registers, operands (modifiers as enums) and
//! instructions with their byte offsets, the shape a lowering consumes.
//!
//! Every value here encodes back to exactly one token sequence ([`super::encode`]), so the
//! decoder keeps everything (co-issue, controls, comments, bytes after END) and refuses
//! tokens whose reserved bits are set rather than dropping them.

use super::opcodes::Opcode;

/// The shader stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    Vertex,
    Pixel,
}

/// The version token: stage and version (`minor` 1 in 2.x is `2_x`; 0xFF is `_sw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Version {
    pub stage: Stage,
    pub major: u8,
    pub minor: u8,
}

impl Version {
    /// `major << 8 | minor`, for comparisons against the opcode table.
    pub fn ver(self) -> u16 {
        u16::from(self.major) << 8 | u16::from(self.minor)
    }

    /// Whether this is one of the versions D3D9 defines: vs 1.0, 1.1, 2.0, 2_x, 2_sw, 3.0,
    /// 3_sw; ps 1.0–1.4, 2.0, 2_x, 2_sw, 3.0, 3_sw.
    pub fn is_defined(self) -> bool {
        matches!(
            (self.stage, self.major, self.minor),
            (Stage::Vertex, 1, 0 | 1)
                | (Stage::Pixel, 1, 0..=4)
                | (_, 2, 0 | 1 | 0xFF)
                | (_, 3, 0 | 0xFF)
        )
    }

    /// The version token.
    pub fn token(self) -> u32 {
        let hi = match self.stage {
            Stage::Vertex => 0xFFFE_0000,
            Stage::Pixel => 0xFFFF_0000,
        };
        hi | u32::from(self.major) << 8 | u32::from(self.minor)
    }

    /// Whether relative addressing carries its own token (VS 2.0+, PS 3.0+); otherwise it is
    /// the implied `a0.x` of vs_1_x (and not allowed in ps < 3.0).
    pub fn relative_token(self) -> bool {
        self.major >= 3 || (self.major == 2 && self.stage == Stage::Vertex)
    }

    pub fn is_vertex(self) -> bool {
        self.stage == Stage::Vertex
    }
}

impl Version {
    /// [`Version::name`] as a static string for the versions D3D9 defines (`None` for
    /// others), so that the reflection names a program's version without an allocation.
    pub fn static_name(&self) -> Option<&'static str> {
        let vs = self.stage == Stage::Vertex;
        Some(match (vs, self.major, self.minor) {
            (true, 1, 0) => "vs_1_0",
            (true, 1, 1) => "vs_1_1",
            (true, 2, 0) => "vs_2_0",
            (true, 2, 1) => "vs_2_x",
            (true, 2, 0xFF) => "vs_2_sw",
            (true, 3, 0) => "vs_3_0",
            (true, 3, 0xFF) => "vs_3_sw",
            (false, 1, 0) => "ps_1_0",
            (false, 1, 1) => "ps_1_1",
            (false, 1, 2) => "ps_1_2",
            (false, 1, 3) => "ps_1_3",
            (false, 1, 4) => "ps_1_4",
            (false, 2, 0) => "ps_2_0",
            (false, 2, 1) => "ps_2_x",
            (false, 2, 0xFF) => "ps_2_sw",
            (false, 3, 0) => "ps_3_0",
            (false, 3, 0xFF) => "ps_3_sw",
            _ => return None,
        })
    }

    /// Its name (`vs_3_0`, `ps_2_x`, `vs_2_sw`), as [`std::fmt::Display`] writes it, made
    /// without the formatting machinery (the reflection names every translated program's).
    pub fn name(&self) -> String {
        let mut s = String::with_capacity(8);
        s.push_str(match self.stage {
            Stage::Vertex => "vs_",
            Stage::Pixel => "ps_",
        });
        let digit = |s: &mut String, d: u8| {
            if d >= 100 {
                s.push(char::from(b'0' + d / 100));
            }
            if d >= 10 {
                s.push(char::from(b'0' + d / 10 % 10));
            }
            s.push(char::from(b'0' + d % 10));
        };
        match (self.major, self.minor) {
            (2, 1) => s.push_str("2_x"),
            (m, 0xFF) => {
                digit(&mut s, m);
                s.push_str("_sw");
            }
            (m, n) => {
                digit(&mut s, m);
                s.push('_');
                digit(&mut s, n);
            }
        }
        s
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stage = match self.stage {
            Stage::Vertex => "vs",
            Stage::Pixel => "ps",
        };
        match (self.major, self.minor) {
            (2, 1) => write!(f, "{stage}_2_x"),
            (m, 0xFF) => write!(f, "{stage}_{m}_sw"),
            (m, n) => write!(f, "{stage}_{m}_{n}"),
        }
    }
}

/// The 5-bit register type (`D3DSPR_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum RegisterType {
    /// `r#`
    Temp = 0,
    /// `v#`
    Input = 1,
    /// `c#` (0–2047)
    Const = 2,
    /// `a0` in vertex shaders, `t#` in pixel shaders.
    AddrOrTexture = 3,
    /// `oPos`, `oFog`, `oPts`.
    RastOut = 4,
    /// `oD#`
    AttrOut = 5,
    /// `oT#` (vs < 3.0) or `o#` (vs_3_0).
    Output = 6,
    /// `i#`
    ConstInt = 7,
    /// `oC#`
    ColorOut = 8,
    /// `oDepth`
    DepthOut = 9,
    /// `s#`
    Sampler = 10,
    /// `c2048`–`c4095`
    Const2 = 11,
    /// `c4096`–`c6143`
    Const3 = 12,
    /// `c6144`–`c8191`
    Const4 = 13,
    /// `b#`
    ConstBool = 14,
    /// `aL`
    Loop = 15,
    /// `half#` (temporary float16, reserved by the DDK)
    TempFloat16 = 16,
    /// `vPos`, `vFace`
    Misc = 17,
    /// `l#`
    Label = 18,
    /// `p0`
    Predicate = 19,
}

impl RegisterType {
    pub fn from_u32(v: u32) -> Option<Self> {
        use RegisterType::*;
        Some(match v {
            0 => Temp,
            1 => Input,
            2 => Const,
            3 => AddrOrTexture,
            4 => RastOut,
            5 => AttrOut,
            6 => Output,
            7 => ConstInt,
            8 => ColorOut,
            9 => DepthOut,
            10 => Sampler,
            11 => Const2,
            12 => Const3,
            13 => Const4,
            14 => ConstBool,
            15 => Loop,
            16 => TempFloat16,
            17 => Misc,
            18 => Label,
            19 => Predicate,
            _ => return None,
        })
    }
}

/// A register: type and number (11 bits in the token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Register {
    pub ty: RegisterType,
    pub num: u16,
}

/// A source swizzle: the source component each of x, y, z, w reads (0–3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Swizzle(pub [u8; 4]);

impl Swizzle {
    pub const IDENTITY: Swizzle = Swizzle([0, 1, 2, 3]);

    /// From the token's bits 16–23.
    pub fn from_bits(b: u8) -> Self {
        Swizzle([b & 3, (b >> 2) & 3, (b >> 4) & 3, (b >> 6) & 3])
    }

    pub fn bits(self) -> u8 {
        self.0[0] | self.0[1] << 2 | self.0[2] << 4 | self.0[3] << 6
    }
}

/// A source modifier (`D3DSPSM_*`, token bits 24–27).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceModifier {
    None = 0,
    /// `-r`
    Neg = 1,
    /// `r_bias`: x − 0.5
    Bias = 2,
    /// `-r_bias`
    BiasNeg = 3,
    /// `r_bx2`: 2x − 1
    Sign = 4,
    /// `-r_bx2`
    SignNeg = 5,
    /// `1 - r`
    Comp = 6,
    /// `r_x2`
    X2 = 7,
    /// `-r_x2`
    X2Neg = 8,
    /// `r_dz`: divide by z (ps_1_4 `texld`/`texcrd`)
    Dz = 9,
    /// `r_dw`: divide by w
    Dw = 10,
    /// `r_abs`
    Abs = 11,
    /// `-r_abs`
    AbsNeg = 12,
    /// `!b#`, `!p0`
    Not = 13,
}

impl SourceModifier {
    pub fn from_u32(v: u32) -> Option<Self> {
        use SourceModifier::*;
        Some(match v {
            0 => None,
            1 => Neg,
            2 => Bias,
            3 => BiasNeg,
            4 => Sign,
            5 => SignNeg,
            6 => Comp,
            7 => X2,
            8 => X2Neg,
            9 => Dz,
            10 => Dw,
            11 => Abs,
            12 => AbsNeg,
            13 => Not,
            _ => return Option::None,
        })
    }
}

/// How an operand is indexed relatively.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relative {
    /// vs_1_x: `c[a0.x + n]`, no extra token.
    Implied,
    /// VS 2.0+/PS 3.0: an extra token naming `a0` or `aL` and the component that indexes.
    Register { reg: Register, swizzle: Swizzle },
}

/// A source operand (also the predicate token and the relative-address register).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source {
    pub reg: Register,
    pub swizzle: Swizzle,
    pub modifier: SourceModifier,
    pub relative: Option<Relative>,
}

/// A destination operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Destination {
    pub reg: Register,
    /// Write mask, bit 0 = x.
    pub mask: u8,
    /// `_sat`
    pub saturate: bool,
    /// `_pp`
    pub partial_precision: bool,
    /// `_centroid`
    pub centroid: bool,
    /// ps < 2.0 result shift: 1 `_x2`, 2 `_x4`, 3 `_x8`, −1 `_d2`, −2 `_d4`, −3 `_d8` (any
    /// 4-bit signed value is kept).
    pub shift: i8,
    pub relative: Option<Relative>,
}

/// A comparison in the controls of `ifc`, `breakc` and `setp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparison {
    Gt = 1,
    Eq = 2,
    Ge = 3,
    Lt = 4,
    Ne = 5,
    Le = 6,
}

impl Comparison {
    pub const ALL: [Comparison; 6] = [
        Comparison::Gt,
        Comparison::Eq,
        Comparison::Ge,
        Comparison::Lt,
        Comparison::Ne,
        Comparison::Le,
    ];

    pub fn name(self) -> &'static str {
        ["gt", "eq", "ge", "lt", "ne", "le"][self as usize - 1]
    }
}

/// The opcode controls (token bits 16–23), typed by opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Controls {
    None,
    /// `ifc`, `breakc`, `setp`.
    Compare(Comparison),
    /// `texldp` (bit 16: divide by w).
    Project,
    /// `texldb` (bit 17: bias by w).
    Bias,
}

/// The `dcl` usage (`D3DDECLUSAGE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Usage {
    Position = 0,
    BlendWeight = 1,
    BlendIndices = 2,
    Normal = 3,
    PSize = 4,
    TexCoord = 5,
    Tangent = 6,
    Binormal = 7,
    TessFactor = 8,
    PositionT = 9,
    Color = 10,
    Fog = 11,
    Depth = 12,
    Sample = 13,
}

impl Usage {
    pub const ALL: [Usage; 14] = [
        Usage::Position,
        Usage::BlendWeight,
        Usage::BlendIndices,
        Usage::Normal,
        Usage::PSize,
        Usage::TexCoord,
        Usage::Tangent,
        Usage::Binormal,
        Usage::TessFactor,
        Usage::PositionT,
        Usage::Color,
        Usage::Fog,
        Usage::Depth,
        Usage::Sample,
    ];

    pub fn name(self) -> &'static str {
        [
            "position",
            "blendweight",
            "blendindices",
            "normal",
            "psize",
            "texcoord",
            "tangent",
            "binormal",
            "tessfactor",
            "positiont",
            "color",
            "fog",
            "depth",
            "sample",
        ][self as usize]
    }

    /// The semantic name D3D writes for the usage (`TEXCOORD`): [`Usage::name`] in capitals.
    pub fn semantic(self) -> &'static str {
        [
            "POSITION",
            "BLENDWEIGHT",
            "BLENDINDICES",
            "NORMAL",
            "PSIZE",
            "TEXCOORD",
            "TANGENT",
            "BINORMAL",
            "TESSFACTOR",
            "POSITIONT",
            "COLOR",
            "FOG",
            "DEPTH",
            "SAMPLE",
        ][self as usize]
    }
}

/// A sampler's declared texture type (`D3DSTT_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureType {
    Unknown = 0,
    Tex1d = 1,
    Tex2d = 2,
    Cube = 3,
    Volume = 4,
}

impl TextureType {
    pub const ALL: [TextureType; 5] = [
        TextureType::Unknown,
        TextureType::Tex1d,
        TextureType::Tex2d,
        TextureType::Cube,
        TextureType::Volume,
    ];

    pub fn name(self) -> &'static str {
        ["unknown", "1d", "2d", "cube", "volume"][self as usize]
    }
}

/// What a `dcl` declares: an input/output semantic or a sampler's texture type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Declaration {
    /// Usage and usage index (the register is in the instruction's destination).
    Semantic { usage: Usage, index: u8 },
    /// `s#` with its texture type.
    Sampler(TextureType),
}

/// The extra data some instructions carry besides operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    None,
    /// `dcl`.
    Dcl(Declaration),
    /// `def`: four floats as bits.
    Def([u32; 4]),
    /// `defi`: four integers.
    DefI([i32; 4]),
    /// `defb`: the raw dword (non-zero is true).
    DefB(u32),
}

/// One instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Byte offset of the instruction token in the stream.
    pub offset: usize,
    pub opcode: Opcode,
    pub controls: Controls,
    /// ps < 2.0 co-issue (`+` prefix, bit 30).
    pub coissue: bool,
    /// The predicate (`(p0)`, `(!p0.x)`) of a predicated instruction (bit 28).
    pub predicate: Option<Source>,
    pub dst: Option<Destination>,
    /// The sources in order (inline up to four, the most any opcode takes).
    pub src: Sources,
    pub extra: Extra,
}

/// An instruction's source operands.
pub type Sources = smallvec::SmallVec<[Source; 4]>;

/// A comment block (`0xFFFE` token), kept whole; [`Comment::ctab`] parses a constant table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// Byte offset of the comment token.
    pub offset: usize,
    /// The payload dwords (the first is usually a FourCC such as `CTAB`).
    pub data: Vec<u32>,
}

impl Comment {
    /// The FourCC, when the payload starts with four printable characters.
    pub fn fourcc(&self) -> Option<[u8; 4]> {
        let b = self.data.first()?.to_le_bytes();
        b.iter().all(|c| c.is_ascii_graphic()).then_some(b)
    }
}

/// An instruction or a comment, in stream order.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Instruction(Instruction),
    Comment(Comment),
}

/// A decoded program.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub version: Version,
    /// Instructions and comments up to the END token.
    pub items: Vec<Item>,
    /// Byte offset of the END token.
    pub end_offset: usize,
    /// Whatever follows the END token (effects embed several shaders back to back).
    pub trailing: Vec<u8>,
}

impl Program {
    /// The instructions, without comments.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.items.iter().filter_map(|i| match i {
            Item::Instruction(i) => Some(i),
            Item::Comment(_) => None,
        })
    }

    /// The comments.
    pub fn comments(&self) -> impl Iterator<Item = &Comment> {
        self.items.iter().filter_map(|i| match i {
            Item::Comment(c) => Some(c),
            Item::Instruction(_) => None,
        })
    }
}
