//! The rules the D3D9 runtime enforces on SM1–3 programs, as the D3D9 front end names them.
//!
//! Why: the D3D9 decoder and lowering refuse programs the runtime refuses, naming the rule (as
//! [`super::Rule`] does for DXBC); this table is where each name lives with what it refuses and
//! the Microsoft assembly reference (or runtime behaviour) that backs it, printed into
//! `docs/rules.md`. Lowering names rules only through [`D3d9Rule::name`].

/// A rule of the D3D9 shader models that a program can break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum D3d9Rule {
    OpcodeInVersion,
    ConstantRegisterRange,
    RegisterWritable,
    RegisterReadable,
    InputDeclared,
    OutputDeclared,
    RelativeAddressing,
    ResultShift,
    SourceModifier,
    Mova,
    TextureDestination,
    BemMask,
    TexmSequence,
}

impl D3d9Rule {
    /// Every D3D9 rule, in the order `docs/rules.md` lists them.
    pub const ALL: [D3d9Rule; 13] = [
        D3d9Rule::OpcodeInVersion,
        D3d9Rule::ConstantRegisterRange,
        D3d9Rule::RegisterWritable,
        D3d9Rule::RegisterReadable,
        D3d9Rule::InputDeclared,
        D3d9Rule::OutputDeclared,
        D3d9Rule::RelativeAddressing,
        D3d9Rule::ResultShift,
        D3d9Rule::SourceModifier,
        D3d9Rule::Mova,
        D3d9Rule::TextureDestination,
        D3d9Rule::BemMask,
        D3d9Rule::TexmSequence,
    ];

    /// The rule's name, as errors print it.
    pub fn name(self) -> &'static str {
        match self {
            D3d9Rule::OpcodeInVersion => "opcode-in-version",
            D3d9Rule::ConstantRegisterRange => "constant-register-range",
            D3d9Rule::RegisterWritable => "register-writable",
            D3d9Rule::RegisterReadable => "register-readable",
            D3d9Rule::InputDeclared => "input-declared",
            D3d9Rule::OutputDeclared => "output-declared",
            D3d9Rule::RelativeAddressing => "relative-addressing",
            D3d9Rule::ResultShift => "result-shift",
            D3d9Rule::SourceModifier => "source-modifier",
            D3d9Rule::Mova => "mova",
            D3d9Rule::TextureDestination => "texture-destination",
            D3d9Rule::BemMask => "bem-mask",
            D3d9Rule::TexmSequence => "texm-sequence",
        }
    }

    /// What the rule refuses, in one sentence.
    pub fn refuses(self) -> &'static str {
        match self {
            D3d9Rule::OpcodeInVersion => {
                "an instruction the program's version does not have (`defb` in ps_2_0, \
                 `mova` in vs_1_1, `texbem` in ps_2_0, a ps_1_x texture instruction in a \
                 later version); `relaxed_limits` admits 2_x instructions in 2_0 programs"
            }
            D3d9Rule::ConstantRegisterRange => {
                "`c#` past the version's float constants (vs 256, ps_1_x 8, ps_2_x 32, ps_3_0 \
                 224), `i#`/`b#` past 15 or in ps_1_x/ps_2_0; under software vertex \
                 processing `c#` past 8191 and `i#`/`b#` past 2047 (`relaxed_limits` grows \
                 the sets instead)"
            }
            D3d9Rule::RegisterWritable => {
                "a write to a read-only register (`v#`, `c#`, `i#`, `b#`, `s#`, labels), or to \
                 `oC#`/`oDepth` in ps_1_x (whose output is `r0`)"
            }
            D3d9Rule::RegisterReadable => {
                "a read of a register that cannot be read as a value (an output register the \
                 program never wrote, a sampler, a label)"
            }
            D3d9Rule::InputDeclared => "a ps_3_0 or vs_3_0 input `v#` read without a `dcl`",
            D3d9Rule::OutputDeclared => "a vs_3_0 output `o#` written without a `dcl`",
            D3d9Rule::RelativeAddressing => {
                "relative addressing of a register the version cannot index (only `c#`, \
                 3_0 inputs `v#` through `aL`, vs_3_0 outputs `o#`)"
            }
            D3d9Rule::ResultShift => {
                "a result shift (`_x2`, `_x4`, `_x8`, `_d2`, `_d4`, `_d8`) outside ps_1_x, or \
                 a shift value D3D9 does not define"
            }
            D3d9Rule::SourceModifier => "the `!` (not) modifier on a float operand",
            D3d9Rule::Mova => "`mov a0` from vs_2_0 on (where `a0` is written by `mova`)",
            D3d9Rule::TextureDestination => {
                "a ps_1_x texture instruction writing other than `t#` (ps_1_1–1_3) or `r#` \
                 (ps_1_4)"
            }
            D3d9Rule::BemMask => "`bem` writing other than `.xy` (`.rg`)",
            D3d9Rule::TexmSequence => {
                "a `texm3x2*`/`texm3x3*` matrix without exactly its pad instructions on \
                 consecutive registers, a pad past them, pads of the other matrix size, or pads \
                 the program never completes"
            }
        }
    }

    /// The Microsoft text (or runtime behaviour) that makes what the rule refuses invalid.
    pub fn source(self) -> &'static str {
        match self {
            D3d9Rule::OpcodeInVersion => {
                "Microsoft's D3D9 assembly reference: each instruction's page lists the \
                 versions that have it, and the per-version instruction lists (\"ps_1_1, \
                 ps_1_2, ps_1_3, ps_1_4 Instructions\", \"ps_2_0 Instructions\", \"vs_2_0 \
                 Instructions\", ...)"
            }
            D3d9Rule::ConstantRegisterRange => {
                "Microsoft's register pages (\"ps_1_1__ps_1_2__ps_1_3__ps_1_4 Registers\": 8 \
                 `c#`; \"ps_2_0 Registers\": 32; \"ps_3_0 Registers\": 224; \"vs_2_0/vs_3_0 \
                 Registers\": 256 `c#`, 16 `i#`/`b#`; \"vs_3_sw\": 8192 and 2048), and the \
                 runtime's refusal at creation that Wine's `test_unsupported_shaders` checks"
            }
            D3d9Rule::RegisterWritable => {
                "the R/W columns of Microsoft's register pages (\"Read-only, Read/Write\" of \
                 ps_1_x: `c#`, `v#` read-only; the input and constant registers of ps_2_0, \
                 vs_2_0 and the 3_0 pages) and \"ps_1_x Registers\" (r0 is the pixel shader's \
                 output)"
            }
            D3d9Rule::RegisterReadable => {
                "the R/W columns of Microsoft's register pages (output registers are \
                 write-only; samplers are read only by texture instructions, labels only by \
                 call)"
            }
            D3d9Rule::InputDeclared => {
                "\"ps_3_0 Registers\" and \"vs_3_0 Registers\" (`v#`: \"Requires DCL\": yes), \
                 \"dcl_usage input (sm2, sm3 - vs asm)\" and \"dcl_usage input (sm3 - ps asm)\""
            }
            D3d9Rule::OutputDeclared => {
                "\"vs_3_0 Registers\" (`o#`: \"Requires DCL\": yes) and \"dcl_usage output \
                 (sm3 - vs asm)\""
            }
            D3d9Rule::RelativeAddressing => {
                "the RelAddr columns of Microsoft's register pages (vs `c#`; 3_0 `v#` and \
                 vs_3_0 `o#` through `aL`) and \"Relative Addressing\" in the shader \
                 reference"
            }
            D3d9Rule::ResultShift => {
                "\"Modifiers - ps_1_X\" (instruction modifiers `_x2`…`_d8` are ps_1_x's); the \
                 2_0 and 3_0 modifier pages have `_sat`, `_pp` and `_centroid` only"
            }
            D3d9Rule::SourceModifier => {
                "\"Source Register Modifiers\" of vs_2_0/ps_2_x/3_0: `!` applies to boolean \
                 and predicate registers only"
            }
            D3d9Rule::Mova => {
                "\"mova - vs\" (vs_2_0 and later load the address register with `mova`; `mov \
                 a0` is the vs_1_1 form, \"Address Register\")"
            }
            D3d9Rule::TextureDestination => {
                "\"tex - ps\", \"texcoord - ps\", \"texbem - ps\" and the other ps_1_1–1_3 \
                 texture instruction pages (the destination is `t#`), \"texld - ps_1_4\", \
                 \"texcrd - ps\" (the destination is `r#`)"
            }
            D3d9Rule::BemMask => {
                "\"bem - ps\" (the destination write mask must be .rg; ps_1_4 only)"
            }
            D3d9Rule::TexmSequence => {
                "\"texm3x2pad - ps\", \"texm3x2tex - ps\", \"texm3x3pad - ps\", \
                 \"texm3x3tex - ps\", \"texm3x3spec - ps\", \"texm3x3vspec - ps\", \
                 \"texm3x3 - ps\", \"texm3x2depth - ps\": each matrix is its pads followed by \
                 the final instruction on consecutive texture registers"
            }
        }
    }
}
