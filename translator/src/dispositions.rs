//! What the translator does with every flag, mode and modifier the SM4/5 decoder knows.
//!
//! "Nothing ignored in silence": each value the decoder accepts in a flag or mode field is
//! either honoured by lowering, refused with an error naming it, or has no Vulkan meaning,
//! and this table says which and why. It is data so that a test can walk the decoder's own
//! lists (`global_flags::NAMES`, `uav_flags::NAMES`, each mode enum's `ALL`, the extended
//! opcode kinds, …) and fail when one is missing here, and so that `docs/flags.md` is
//! generated from it ([`markdown`]) rather than kept in step by hand. The values of the other
//! enumerated token fields (register files, system value names, resource dimensions, …) are in
//! `enums`; [`all`] is both tables.

mod enums;

pub use enums::ENUM_DISPOSITIONS;

/// What happens to one flag or mode value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// Lowering gives it its D3D meaning; the text says how.
    Honoured(&'static str),
    /// Translating it is refused with an error naming it; the text says why.
    Refused(&'static str),
    /// It changes nothing a Vulkan program can observe; the text says why.
    NoVulkanMeaning(&'static str),
    /// Translated with a weaker guarantee than D3D's; the text says what is lost and when.
    Weakened(&'static str),
}

impl Handling {
    fn word(self) -> &'static str {
        match self {
            Handling::Honoured(_) => "honoured",
            Handling::Refused(_) => "refused",
            Handling::NoVulkanMeaning(_) => "no Vulkan meaning",
            Handling::Weakened(_) => "weakened",
        }
    }

    fn text(self) -> &'static str {
        match self {
            Handling::Honoured(t)
            | Handling::Refused(t)
            | Handling::NoVulkanMeaning(t)
            | Handling::Weakened(t) => t,
        }
    }
}

/// One value of one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disposition {
    /// The field: `global flag`, `uav flag`, `sampler mode`, …
    pub field: &'static str,
    /// The value: its disassembly spelling for flag bits, its Rust name for enum values.
    pub value: &'static str,
    pub handling: Handling,
}

const fn d(field: &'static str, value: &'static str, handling: Handling) -> Disposition {
    Disposition {
        field,
        value,
        handling,
    }
}

use Handling::{Honoured as H, NoVulkanMeaning as N};

/// Field names, shared by the table and its test.
pub mod field {
    pub const GLOBAL_FLAG: &str = "global flag (`dcl_globalFlags`)";
    pub const UAV_FLAG: &str = "UAV declaration flag";
    pub const CB_ACCESS: &str = "constant buffer access pattern";
    pub const SAMPLER_MODE: &str = "sampler mode";
    pub const INTERPOLATION: &str = "interpolation mode";
    pub const RETURN_TYPE: &str = "resource return type";
    pub const MIN_PRECISION: &str = "operand minimum precision";
    pub const MODIFIER: &str = "source operand modifier";
    pub const INSTRUCTION_BIT: &str = "instruction / operand bit";
    pub const EXT_OPCODE: &str = "extended opcode token";
    pub const RESINFO: &str = "resinfo return type";
    pub const SYNC_FLAG: &str = "sync flag";
    pub const CUSTOM_DATA: &str = "custom data class";
}

/// Every flag and mode value the decoder accepts, with what the translator does with it.
pub const DISPOSITIONS: &[Disposition] = &[
    // dcl_globalFlags
    d(
        field::GLOBAL_FLAG,
        "refactoringAllowed",
        H(
            "when absent (fxc /Gis), every float operation of the program is `precise`: `NoContraction` on all float arithmetic, as for `precise` instructions",
        ),
    ),
    d(
        field::GLOBAL_FLAG,
        "enableDoublePrecisionFloatOps",
        H(
            "the double instructions themselves add `Float64` and the `shaderFloat64` feature; the flag only announces them",
        ),
    ),
    d(
        field::GLOBAL_FLAG,
        "forceEarlyDepthStencil",
        H("pixel shaders get execution mode `EarlyFragmentTests`"),
    ),
    d(
        field::GLOBAL_FLAG,
        "enableRawAndStructuredBuffers",
        N(
            "a D3D10.x hardware gate for raw/structured buffers outside CS; Vulkan storage buffers need no opt-in",
        ),
    ),
    d(
        field::GLOBAL_FLAG,
        "skipOptimization",
        N(
            "fxc's /Od marker; it asks for no behaviour, and optimising the SPIR-V keeps the D3D semantics",
        ),
    ),
    d(
        field::GLOBAL_FLAG,
        "enableMinimumPrecision",
        N(
            "announces min-precision operands; each operand's own precision bits are what lowering reads (see `operand minimum precision`)",
        ),
    ),
    d(
        field::GLOBAL_FLAG,
        "enable11_1DoubleExtensions",
        H("ddiv/dfma/drcp/dtoi/… themselves add `Float64`; the flag only announces them"),
    ),
    d(
        field::GLOBAL_FLAG,
        "enable11_1ShaderExtensions",
        N("announces D3D11.1 instructions (msad, …) which are translated as they come"),
    ),
    d(
        field::GLOBAL_FLAG,
        "allResourcesBound",
        N(
            "a D3D12 promise that every descriptor of a table is valid; Vulkan already requires bound descriptors to be valid",
        ),
    ),
    // UAV declaration flags
    d(
        field::UAV_FLAG,
        "_glc",
        H(
            "`Coherent` on the UAV variable; in compute shaders it makes `sync_uglobal` a device-scope barrier",
        ),
    ),
    d(
        field::UAV_FLAG,
        "_rov",
        H(
            "pixel shaders run as one fragment shader interlock critical section (`PixelInterlockOrderedEXT`, per sample when the shader runs per sample) and the view is `Coherent`; `Options::rov = Unordered` (devices without interlock) weakens it to plain unordered access; no meaning in other stages (D3D orders only pixel shader invocations)",
        ),
    ),
    d(
        field::UAV_FLAG,
        "_opc",
        H(
            "the structured UAV gets a hidden counter (a separate storage buffer binding) for imm_atomic_alloc/consume",
        ),
    ),
    // dcl_constantbuffer
    d(
        field::CB_ACCESS,
        "immediateIndexed",
        H("a uniform block of the declared size"),
    ),
    d(
        field::CB_ACCESS,
        "dynamicIndexed",
        H(
            "a uniform block of 4096 rows (D3D's limit) so dynamic indices past the declared size read the buffer",
        ),
    ),
    // dcl_sampler
    d(field::SAMPLER_MODE, "Default", H("a plain sampler")),
    d(
        field::SAMPLER_MODE,
        "Comparison",
        H("a sampler used with depth-comparison (`Dref`) sampling"),
    ),
    d(
        field::SAMPLER_MODE,
        "Mono",
        N(
            "D3D10's 1-bit text filtering mode (fxc never declares it); Vulkan has no such filter, so it is a plain sampler",
        ),
    ),
    // dcl_input_ps
    d(
        field::INTERPOLATION,
        "Undefined",
        H(
            "D3D's default: perspective-correct at the pixel centre (no decoration); integer inputs are `Flat`",
        ),
    ),
    d(field::INTERPOLATION, "Constant", H("`Flat`")),
    d(
        field::INTERPOLATION,
        "Linear",
        H("perspective-correct at the pixel centre (no decoration)"),
    ),
    d(field::INTERPOLATION, "LinearCentroid", H("`Centroid`")),
    d(
        field::INTERPOLATION,
        "LinearNoPerspective",
        H("`NoPerspective`"),
    ),
    d(
        field::INTERPOLATION,
        "LinearNoPerspectiveCentroid",
        H("`NoPerspective` + `Centroid`"),
    ),
    d(
        field::INTERPOLATION,
        "LinearSample",
        H("`Sample` (capability `SampleRateShading`)"),
    ),
    d(
        field::INTERPOLATION,
        "LinearNoPerspectiveSample",
        H("`NoPerspective` + `Sample`"),
    ),
    // dcl_resource / dcl_uav_typed return types
    d(
        field::RETURN_TYPE,
        "Unorm",
        H("float image (the view's UNORM format converts), reflected as `unorm`"),
    ),
    d(
        field::RETURN_TYPE,
        "Snorm",
        H("float image (the view's SNORM format converts), reflected as `snorm`"),
    ),
    d(field::RETURN_TYPE, "Sint", H("signed integer image")),
    d(field::RETURN_TYPE, "Uint", H("unsigned integer image")),
    d(field::RETURN_TYPE, "Float", H("float image")),
    d(
        field::RETURN_TYPE,
        "Mixed",
        H(
            "float image read as raw bits (components are bit-cast where used), reflected as `mixed`",
        ),
    ),
    d(
        field::RETURN_TYPE,
        "Double",
        H(
            "reflected as `double`; texels are read as 32-bit components (no DXGI format holds doubles)",
        ),
    ),
    d(
        field::RETURN_TYPE,
        "Continued",
        H("the second 32-bit half of the preceding `double` component"),
    ),
    d(field::RETURN_TYPE, "Unused", H("the component is not read")),
    // extended operand token
    d(field::MIN_PRECISION, "Default", H("32-bit")),
    d(
        field::MIN_PRECISION,
        "Float16",
        H(
            "computed at 32 bits (D3D allows more precision than asked); the arithmetic of an instruction whose destination has it is decorated `RelaxedPrecision`, or with the option `MinPrecisionMode::Native16` runs on 16-bit types (`docs/semantics.md`)",
        ),
    ),
    d(
        field::MIN_PRECISION,
        "Float2_8",
        H(
            "computed at 32 bits (D3D allows more precision than asked); the arithmetic of an instruction whose destination has it is decorated `RelaxedPrecision`, or with the option `MinPrecisionMode::Native16` runs on 16-bit types (`docs/semantics.md`)",
        ),
    ),
    d(
        field::MIN_PRECISION,
        "Sint16",
        H(
            "computed at 32 bits (D3D allows more precision than asked); the arithmetic of an instruction whose destination has it is decorated `RelaxedPrecision`, or with the option `MinPrecisionMode::Native16` runs on 16-bit types (`docs/semantics.md`)",
        ),
    ),
    d(
        field::MIN_PRECISION,
        "Uint16",
        H(
            "computed at 32 bits (D3D allows more precision than asked); the arithmetic of an instruction whose destination has it is decorated `RelaxedPrecision`, or with the option `MinPrecisionMode::Native16` runs on 16-bit types (`docs/semantics.md`)",
        ),
    ),
    d(field::MODIFIER, "None", H("the value as is")),
    d(
        field::MODIFIER,
        "Neg",
        H("negation (float or integer by the instruction's type)"),
    ),
    d(field::MODIFIER, "Abs", H("absolute value")),
    d(field::MODIFIER, "AbsNeg", H("negated absolute value")),
    d(field::INSTRUCTION_BIT, "_sat", H("clamp to [0, 1]")),
    d(
        field::INSTRUCTION_BIT,
        "precise",
        H("`NoContraction` on the instruction's float arithmetic"),
    ),
    d(
        field::INSTRUCTION_BIT,
        "nonuniform",
        H("`NonUniform` on the descriptor index and its loads (see docs/bindings.md)"),
    ),
    d(
        field::INSTRUCTION_BIT,
        "reserved bits",
        N(
            "reserved by the format (normally 0): kept for exact re-encoding, no D3D runtime gives them meaning",
        ),
    ),
    d(
        field::EXT_OPCODE,
        "_aoffimmi(u,v,w)",
        H("constant texel offsets (`ConstOffset`)"),
    ),
    d(
        field::EXT_OPCODE,
        "_indexable(dim[, stride])",
        N(
            "repeats the resource's dimension and stride from its declaration, which is what lowering reads",
        ),
    ),
    d(
        field::EXT_OPCODE,
        "(type,type,type,type)",
        N("repeats the resource's return type from its declaration, which is what lowering reads"),
    ),
    d(field::RESINFO, "Float", H("sizes as floats")),
    d(field::RESINFO, "RcpFloat", H("reciprocal sizes as floats")),
    d(field::RESINFO, "Uint", H("sizes as integers")),
    d(
        field::SYNC_FLAG,
        "_uglobal",
        H(
            "image/buffer memory barrier, device scope (compute: only where a UAV is `_glc`, workgroup scope otherwise)",
        ),
    ),
    d(
        field::SYNC_FLAG,
        "_ugroup",
        H("workgroup-scope image/buffer memory barrier"),
    ),
    d(field::SYNC_FLAG, "_g", H("workgroup memory barrier")),
    d(
        field::SYNC_FLAG,
        "_t",
        H("`OpControlBarrier` (all threads of the group)"),
    ),
    d(field::CUSTOM_DATA, "Comment", N("text for humans")),
    d(
        field::CUSTOM_DATA,
        "DebugInfo",
        N("compiler debug data; debug info comes from `Options::debug_names` instead"),
    ),
    d(
        field::CUSTOM_DATA,
        "Opaque",
        N("vendor data with no defined meaning"),
    ),
    d(
        field::CUSTOM_DATA,
        "ImmediateConstantBuffer",
        H(
            "the `icb` array: a private array, or a uniform buffer the caller uploads with `Options::icb = UniformBuffer` (docs/bindings.md)",
        ),
    ),
    d(
        field::CUSTOM_DATA,
        "ShaderMessage",
        N("D3D11.1 debug-layer messages (errorf/abort text); no effect on a program's results"),
    ),
    d(
        field::CUSTOM_DATA,
        "ClipPlaneConstantMappings",
        N(
            "maps D3D9 clip planes of a 10Level9 shader's D3D9 part; an SM4/5 program's results do not depend on it",
        ),
    ),
];

/// Every entry: the flag and mode table, then the other enumerated fields.
pub fn all() -> impl Iterator<Item = &'static Disposition> {
    DISPOSITIONS.iter().chain(ENUM_DISPOSITIONS)
}

/// What the translator does with `value` of `field`, if the table has it.
pub fn lookup(field: &str, value: &str) -> Option<Handling> {
    all()
        .find(|e| e.field == field && e.value == value)
        .map(|e| e.handling)
}

/// The table as Markdown, as `docs/flags.md` holds it between its generated markers.
pub fn markdown() -> String {
    let mut s = String::from(
        "| field | value | what the translator does | why / how |\n|---|---|---|---|\n",
    );
    for e in all() {
        s += &format!(
            "| {} | `{}` | {} | {} |\n",
            e.field,
            e.value,
            e.handling.word(),
            e.handling.text().replace('|', "\\|")
        );
    }
    s
}

#[cfg(test)]
mod tests;
