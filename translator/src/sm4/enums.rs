//! Typed values of the small enumerated fields found in SM4/5 tokens.
//!
//! Each field of the token format that holds one of a fixed set of values (operand type,
//! resource dimension, interpolation mode, system value name, …) gets a Rust enum here with
//! its numeric encoding, its disassembly spelling (`name`) and the reverse lookup an assembler
//! needs (`from_name`). Values outside the defined set are rejected by the decoder, so a
//! decoded program only ever holds meaningful values.

/// Defines a `#[repr(u8)]` enum for a token field, with `from_u32` (decoding), `name`
/// (disassembly text) and `from_name` (assembler) lookups.
macro_rules! token_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $( $(#[$vmeta])* $variant = $value, )*
        }

        impl $name {
            /// What this field is, for error messages.
            pub const WHAT: &'static str = $what;

            /// Every defined value, in encoding order.
            pub const ALL: &'static [Self] = &[ $( Self::$variant, )* ];

            /// The value with this encoding, if it is a defined one.
            pub const fn from_u32(value: u32) -> Option<Self> {
                match value {
                    $( $value => Some(Self::$variant), )*
                    _ => None,
                }
            }

            /// The numeric encoding.
            pub const fn to_u32(self) -> u32 {
                self as u32
            }

            /// The disassembly spelling.
            pub const fn name(self) -> &'static str {
                match self {
                    $( Self::$variant => $text, )*
                }
            }

            /// The value spelled `text` in disassembly.
            pub fn from_name(text: &str) -> Option<Self> {
                match text {
                    $( $text => Some(Self::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

token_enum! {
    /// The shader stage, from the version token (bits 16–31).
    pub enum ProgramType ("program type") {
        Pixel = 0 => "ps",
        Vertex = 1 => "vs",
        Geometry = 2 => "gs",
        Hull = 3 => "hs",
        Domain = 4 => "ds",
        Compute = 5 => "cs",
    }
}

token_enum! {
    /// The register file an operand refers to (operand token bits 12–19). The name is the
    /// register prefix used in disassembly.
    pub enum OperandType ("operand type") {
        /// `r#`
        Temp = 0 => "r",
        /// `v#`, `v[#][#]`
        Input = 1 => "v",
        /// `o#`
        Output = 2 => "o",
        /// `x#[#]`
        IndexableTemp = 3 => "x",
        /// `l(…)`: 32-bit immediate values follow the operand token.
        Immediate32 = 4 => "l",
        /// `d(…)`: 64-bit immediate values follow the operand token.
        Immediate64 = 5 => "d",
        Sampler = 6 => "s",
        Resource = 7 => "t",
        ConstantBuffer = 8 => "cb",
        ImmediateConstantBuffer = 9 => "icb",
        /// A subroutine label (`call l0`); spelled `label` to keep it apart from `l(…)`.
        Label = 10 => "label",
        InputPrimitiveId = 11 => "vPrim",
        OutputDepth = 12 => "oDepth",
        Null = 13 => "null",
        Rasterizer = 14 => "rasterizer",
        OutputCoverageMask = 15 => "oMask",
        Stream = 16 => "m",
        FunctionBody = 17 => "fb",
        FunctionTable = 18 => "ft",
        Interface = 19 => "fp",
        FunctionInput = 20 => "fi",
        FunctionOutput = 21 => "fo",
        OutputControlPointId = 22 => "vOutputControlPointID",
        InputForkInstanceId = 23 => "vForkInstanceID",
        InputJoinInstanceId = 24 => "vJoinInstanceID",
        InputControlPoint = 25 => "vicp",
        OutputControlPoint = 26 => "vocp",
        InputPatchConstant = 27 => "vpc",
        InputDomainPoint = 28 => "vDomain",
        ThisPointer = 29 => "this",
        UnorderedAccessView = 30 => "u",
        ThreadGroupSharedMemory = 31 => "g",
        InputThreadId = 32 => "vThreadID",
        InputThreadGroupId = 33 => "vThreadGroupID",
        InputThreadIdInGroup = 34 => "vThreadIDInGroup",
        InputCoverageMask = 35 => "vCoverage",
        InputThreadIdInGroupFlattened = 36 => "vThreadIDInGroupFlattened",
        InputGsInstanceId = 37 => "vGSInstanceID",
        OutputDepthGreaterEqual = 38 => "oDepthGE",
        OutputDepthLessEqual = 39 => "oDepthLE",
        CycleCounter = 40 => "vCycleCounter",
        OutputStencilRef = 41 => "oStencilRef",
        InnerCoverage = 42 => "vInnerCoverage",
    }
}

impl OperandType {
    /// Whether this is an `l(…)` or `d(…)` immediate.
    pub const fn is_immediate(self) -> bool {
        matches!(self, Self::Immediate32 | Self::Immediate64)
    }

    /// Whether SM5.1 turns this register file into ranges of descriptors (`t`, `s`, `cb`,
    /// `u`), which fxc spells in upper case in SM5.1 programs (`T0`, `S0`, `CB0`, `U0`).
    pub const fn is_descriptor(self) -> bool {
        matches!(
            self,
            Self::Resource | Self::Sampler | Self::ConstantBuffer | Self::UnorderedAccessView
        )
    }
}

token_enum! {
    /// How one index of an operand is encoded (operand token bits 22–24, 25–27, 28–30).
    pub enum IndexRepr ("index representation") {
        Imm32 = 0 => "imm32",
        Imm64 = 1 => "imm64",
        Relative = 2 => "relative",
        Imm32PlusRelative = 3 => "imm32+relative",
        Imm64PlusRelative = 4 => "imm64+relative",
    }
}

impl IndexRepr {
    /// Whether an immediate part is present, and how many dwords it takes (0, 1 or 2).
    pub const fn immediate_dwords(self) -> usize {
        match self {
            Self::Imm32 | Self::Imm32PlusRelative => 1,
            Self::Imm64 | Self::Imm64PlusRelative => 2,
            Self::Relative => 0,
        }
    }

    /// Whether a relative (register) part follows.
    pub const fn has_relative(self) -> bool {
        matches!(
            self,
            Self::Relative | Self::Imm32PlusRelative | Self::Imm64PlusRelative
        )
    }
}

token_enum! {
    /// Source operand modifier (extended operand token bits 6–13).
    pub enum Modifier ("operand modifier") {
        None = 0 => "",
        Neg = 1 => "-",
        Abs = 2 => "|",
        AbsNeg = 3 => "-|",
    }
}

impl Modifier {
    /// Whether the value is negated.
    pub const fn neg(self) -> bool {
        matches!(self, Self::Neg | Self::AbsNeg)
    }

    /// Whether the absolute value is taken (before negation).
    pub const fn abs(self) -> bool {
        matches!(self, Self::Abs | Self::AbsNeg)
    }
}

token_enum! {
    /// Minimum precision of an operand (extended operand token bits 14–16).
    pub enum MinPrecision ("minimum precision") {
        Default = 0 => "",
        Float16 = 1 => "min16f",
        Float2_8 = 2 => "min2_8f",
        Sint16 = 4 => "min16i",
        Uint16 = 5 => "min16u",
    }
}

token_enum! {
    /// Resource dimension (resource declarations, `_indexable(…)` extended opcode tokens).
    pub enum ResourceDimension ("resource dimension") {
        Unknown = 0 => "unknown",
        Buffer = 1 => "buffer",
        Texture1D = 2 => "texture1d",
        Texture2D = 3 => "texture2d",
        Texture2DMS = 4 => "texture2dms",
        Texture3D = 5 => "texture3d",
        TextureCube = 6 => "texturecube",
        Texture1DArray = 7 => "texture1darray",
        Texture2DArray = 8 => "texture2darray",
        Texture2DMSArray = 9 => "texture2dmsarray",
        TextureCubeArray = 10 => "texturecubearray",
        RawBuffer = 11 => "raw_buffer",
        StructuredBuffer = 12 => "structured_buffer",
    }
}

impl ResourceDimension {
    /// Whether the dimension is multisampled (its declaration carries a sample count).
    pub const fn is_multisampled(self) -> bool {
        matches!(self, Self::Texture2DMS | Self::Texture2DMSArray)
    }
}

token_enum! {
    /// Per-component data type returned by a resource.
    pub enum ReturnType ("resource return type") {
        Unorm = 1 => "unorm",
        Snorm = 2 => "snorm",
        Sint = 3 => "sint",
        Uint = 4 => "uint",
        Float = 5 => "float",
        Mixed = 6 => "mixed",
        Double = 7 => "double",
        Continued = 8 => "continued",
        Unused = 9 => "unused",
    }
}

token_enum! {
    /// Pixel shader input interpolation (`dcl_input_ps*` opcode token bits 11–14).
    pub enum InterpolationMode ("interpolation mode") {
        Undefined = 0 => "undefined",
        Constant = 1 => "constant",
        Linear = 2 => "linear",
        LinearCentroid = 3 => "linear centroid",
        LinearNoPerspective = 4 => "linear noperspective",
        LinearNoPerspectiveCentroid = 5 => "linear noperspective centroid",
        LinearSample = 6 => "linear sample",
        LinearNoPerspectiveSample = 7 => "linear noperspective sample",
    }
}

token_enum! {
    /// System value name of a `_siv`/`_sgv` declaration (name token bits 0–15).
    pub enum SystemName ("system value name") {
        Undefined = 0 => "undefined",
        Position = 1 => "position",
        ClipDistance = 2 => "clip_distance",
        CullDistance = 3 => "cull_distance",
        RenderTargetArrayIndex = 4 => "rendertarget_array_index",
        ViewportArrayIndex = 5 => "viewport_array_index",
        VertexId = 6 => "vertex_id",
        PrimitiveId = 7 => "primitive_id",
        InstanceId = 8 => "instance_id",
        IsFrontFace = 9 => "is_front_face",
        SampleIndex = 10 => "sampleIndex",
        FinalQuadUEq0EdgeTessFactor = 11 => "finalQuadUeq0EdgeTessFactor",
        FinalQuadVEq0EdgeTessFactor = 12 => "finalQuadVeq0EdgeTessFactor",
        FinalQuadUEq1EdgeTessFactor = 13 => "finalQuadUeq1EdgeTessFactor",
        FinalQuadVEq1EdgeTessFactor = 14 => "finalQuadVeq1EdgeTessFactor",
        FinalQuadUInsideTessFactor = 15 => "finalQuadUInsideTessFactor",
        FinalQuadVInsideTessFactor = 16 => "finalQuadVInsideTessFactor",
        FinalTriUEq0EdgeTessFactor = 17 => "finalTriUeq0EdgeTessFactor",
        FinalTriVEq0EdgeTessFactor = 18 => "finalTriVeq0EdgeTessFactor",
        FinalTriWEq0EdgeTessFactor = 19 => "finalTriWeq0EdgeTessFactor",
        FinalTriInsideTessFactor = 20 => "finalTriInsideTessFactor",
        FinalLineDetailTessFactor = 21 => "finalLineDetailTessFactor",
        FinalLineDensityTessFactor = 22 => "finalLineDensityTessFactor",
        Barycentrics = 23 => "barycentrics",
        ShadingRate = 24 => "shadingrate",
        CullPrimitive = 25 => "cullprimitive",
    }
}

token_enum! {
    /// Sampler mode (`dcl_sampler` opcode token bits 11–14).
    pub enum SamplerMode ("sampler mode") {
        Default = 0 => "mode_default",
        Comparison = 1 => "mode_comparison",
        Mono = 2 => "mode_mono",
    }
}

token_enum! {
    /// Geometry shader output topology (`dcl_outputtopology`, opcode token bits 11–17).
    pub enum PrimitiveTopology ("primitive topology") {
        Undefined = 0 => "undefined",
        PointList = 1 => "pointlist",
        LineList = 2 => "linelist",
        LineStrip = 3 => "linestrip",
        TriangleList = 4 => "trianglelist",
        TriangleStrip = 5 => "trianglestrip",
        LineListAdj = 10 => "linelist_adj",
        LineStripAdj = 11 => "linestrip_adj",
        TriangleListAdj = 12 => "trianglelist_adj",
        TriangleStripAdj = 13 => "trianglestrip_adj",
    }
}

/// Geometry shader input primitive (`dcl_inputprimitive`, opcode token bits 11–16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    Undefined,
    Point,
    Line,
    Triangle,
    LineAdj,
    TriangleAdj,
    /// A patch with this many control points (1–32).
    Patch(u8),
}

impl Primitive {
    pub const WHAT: &'static str = "input primitive";

    /// The value with this encoding, if it is a defined one.
    pub const fn from_u32(value: u32) -> Option<Self> {
        Some(match value {
            0 => Self::Undefined,
            1 => Self::Point,
            2 => Self::Line,
            3 => Self::Triangle,
            6 => Self::LineAdj,
            7 => Self::TriangleAdj,
            8..=39 => Self::Patch((value - 7) as u8),
            _ => return None,
        })
    }

    /// The numeric encoding.
    pub const fn to_u32(self) -> u32 {
        match self {
            Self::Undefined => 0,
            Self::Point => 1,
            Self::Line => 2,
            Self::Triangle => 3,
            Self::LineAdj => 6,
            Self::TriangleAdj => 7,
            Self::Patch(n) => n as u32 + 7,
        }
    }

    /// Disassembly spelling: `point`, `line`, `triangle`, `lineadj`, `triangleadj`, `patch3`…
    pub fn name(self) -> std::borrow::Cow<'static, str> {
        match self {
            Self::Undefined => "undefined".into(),
            Self::Point => "point".into(),
            Self::Line => "line".into(),
            Self::Triangle => "triangle".into(),
            Self::LineAdj => "lineadj".into(),
            Self::TriangleAdj => "triangleadj".into(),
            Self::Patch(n) => format!("patch{n}").into(),
        }
    }

    /// The value spelled `text` in disassembly.
    pub fn from_name(text: &str) -> Option<Self> {
        Some(match text {
            "undefined" => Self::Undefined,
            "point" => Self::Point,
            "line" => Self::Line,
            "triangle" => Self::Triangle,
            "lineadj" => Self::LineAdj,
            "triangleadj" => Self::TriangleAdj,
            _ => {
                let n: u8 = text.strip_prefix("patch")?.parse().ok()?;
                if !(1..=32).contains(&n) {
                    return None;
                }
                Self::Patch(n)
            }
        })
    }
}

token_enum! {
    /// Tessellator domain (`dcl_tessellator_domain`, opcode token bits 11–12).
    pub enum TessDomain ("tessellator domain") {
        Undefined = 0 => "domain_undefined",
        Isoline = 1 => "domain_isoline",
        Tri = 2 => "domain_tri",
        Quad = 3 => "domain_quad",
    }
}

token_enum! {
    /// Tessellator partitioning (`dcl_tessellator_partitioning`, opcode token bits 11–13).
    pub enum TessPartitioning ("tessellator partitioning") {
        Undefined = 0 => "partitioning_undefined",
        Integer = 1 => "partitioning_integer",
        Pow2 = 2 => "partitioning_pow2",
        FractionalOdd = 3 => "partitioning_fractional_odd",
        FractionalEven = 4 => "partitioning_fractional_even",
    }
}

token_enum! {
    /// Tessellator output primitive (`dcl_tessellator_output_primitive`, bits 11–13).
    pub enum TessOutputPrimitive ("tessellator output primitive") {
        Undefined = 0 => "output_undefined",
        Point = 1 => "output_point",
        Line = 2 => "output_line",
        TriangleCw = 3 => "output_triangle_cw",
        TriangleCcw = 4 => "output_triangle_ccw",
    }
}

token_enum! {
    /// What `resinfo` returns (opcode token bits 11–12); the name is the mnemonic suffix.
    pub enum ResInfoReturnType ("resinfo return type") {
        Float = 0 => "",
        RcpFloat = 1 => "_rcpFloat",
        Uint = 2 => "_uint",
    }
}

token_enum! {
    /// The class of a custom-data block (opcode token bits 11–31 of opcode `customdata`).
    pub enum CustomDataClass ("custom data class") {
        Comment = 0 => "comment",
        DebugInfo = 1 => "debuginfo",
        Opaque = 2 => "opaque",
        ImmediateConstantBuffer = 3 => "immediateConstantBuffer",
        ShaderMessage = 4 => "shadermessage",
        ClipPlaneConstantMappings = 5 => "clipplaneconstantmappings",
    }
}

/// `dcl_globalFlags` bits, as they sit in the opcode token shifted down by 11.
pub mod global_flags {
    pub const REFACTORING_ALLOWED: u32 = 1 << 0;
    pub const ENABLE_DOUBLE_PRECISION_FLOAT_OPS: u32 = 1 << 1;
    pub const FORCE_EARLY_DEPTH_STENCIL: u32 = 1 << 2;
    pub const ENABLE_RAW_AND_STRUCTURED_BUFFERS: u32 = 1 << 3;
    pub const SKIP_OPTIMIZATION: u32 = 1 << 4;
    pub const ENABLE_MINIMUM_PRECISION: u32 = 1 << 5;
    pub const ENABLE_11_1_DOUBLE_EXTENSIONS: u32 = 1 << 6;
    pub const ENABLE_11_1_SHADER_EXTENSIONS: u32 = 1 << 7;
    pub const ALL_RESOURCES_BOUND: u32 = 1 << 8;

    /// Every defined flag with its disassembly spelling, in the order they are printed.
    pub const NAMES: [(u32, &str); 9] = [
        (REFACTORING_ALLOWED, "refactoringAllowed"),
        (
            ENABLE_DOUBLE_PRECISION_FLOAT_OPS,
            "enableDoublePrecisionFloatOps",
        ),
        (FORCE_EARLY_DEPTH_STENCIL, "forceEarlyDepthStencil"),
        (
            ENABLE_RAW_AND_STRUCTURED_BUFFERS,
            "enableRawAndStructuredBuffers",
        ),
        (SKIP_OPTIMIZATION, "skipOptimization"),
        (ENABLE_MINIMUM_PRECISION, "enableMinimumPrecision"),
        (ENABLE_11_1_DOUBLE_EXTENSIONS, "enable11_1DoubleExtensions"),
        (ENABLE_11_1_SHADER_EXTENSIONS, "enable11_1ShaderExtensions"),
        (ALL_RESOURCES_BOUND, "allResourcesBound"),
    ];

    /// All defined bits.
    pub const ALL: u32 = (1 << 9) - 1;
}

/// `sync` flags, as they sit in the opcode token shifted down by 11.
pub mod sync_flags {
    /// `_t`: wait for all threads of the group.
    pub const THREADS_IN_GROUP: u32 = 1 << 0;
    /// `_g`: thread group shared memory barrier.
    pub const THREAD_GROUP_SHARED_MEMORY: u32 = 1 << 1;
    /// `_ugroup`: UAV memory barrier, group scope.
    pub const UAV_MEMORY_GROUP: u32 = 1 << 2;
    /// `_uglobal`: UAV memory barrier, global scope.
    pub const UAV_MEMORY_GLOBAL: u32 = 1 << 3;

    /// Every flag with its mnemonic suffix, in the order fxc prints them.
    pub const NAMES: [(u32, &str); 4] = [
        (UAV_MEMORY_GLOBAL, "_uglobal"),
        (UAV_MEMORY_GROUP, "_ugroup"),
        (THREAD_GROUP_SHARED_MEMORY, "_g"),
        (THREADS_IN_GROUP, "_t"),
    ];
}

/// UAV declaration flags, as they sit in the opcode token (not shifted).
pub mod uav_flags {
    /// `_glc`: globally coherent (bit 16).
    pub const GLOBALLY_COHERENT: u32 = 1 << 16;
    /// `_rov`: rasterizer ordered (bit 17).
    pub const RASTERIZER_ORDERED: u32 = 1 << 17;
    /// `_opc`: structured UAV with a hidden (order-preserving) counter (bit 23).
    pub const HAS_COUNTER: u32 = 1 << 23;

    /// Every flag with its mnemonic suffix.
    pub const NAMES: [(u32, &str); 3] = [
        (GLOBALLY_COHERENT, "_glc"),
        (RASTERIZER_ORDERED, "_rov"),
        (HAS_COUNTER, "_opc"),
    ];
}
