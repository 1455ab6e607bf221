//! What the translator does with each value of the enumerated token fields that are not flags
//! or modes: program type, register file, index encoding, resource dimension, system value
//! name, geometry shader primitives and tessellator state.
//!
//! Kept apart from the flag and mode table only for size; [`super::all`] joins the two, and the
//! same test walks each enum's `ALL` (and `sm4/enums.rs` itself, so a new enum is not missed).

use super::{Disposition, Handling, d};
use Handling::{Honoured as H, NoVulkanMeaning as N, Refused as R};

/// Field names of this table, shared with its test.
pub mod field {
    pub const PROGRAM_TYPE: &str = "program type (version token)";
    pub const OPERAND_TYPE: &str = "operand type (register file)";
    pub const INDEX_REPR: &str = "operand index representation";
    pub const RESOURCE_DIMENSION: &str = "resource dimension";
    pub const SYSTEM_NAME: &str = "system value name (`_siv`/`_sgv`)";
    pub const OUTPUT_TOPOLOGY: &str = "geometry shader output topology";
    pub const INPUT_PRIMITIVE: &str = "geometry shader input primitive";
    pub const TESS_DOMAIN: &str = "tessellator domain";
    pub const TESS_PARTITIONING: &str = "tessellator partitioning";
    pub const TESS_OUTPUT: &str = "tessellator output primitive";
}

use field as f;

const CLASS: &str =
    "class linkage: per-instance data and function tables as docs/class-linkage.md lays out";
const TESS_FACTOR: &str = "a tessellation factor: the hull shader writes `TessLevelOuter`/`TessLevelInner` (processed as D3D's tessellator does) and a patch location the domain shader reads";
const SM6_ONLY: &str = "a system value D3D defines only for SM6 (DXIL); declaring it is refused (`unsupported system value … (BARYCEN/SHDINGRATE/CULLPRIM)`)";

/// Every value of the enums above that the decoder accepts, with what the translator does.
pub const ENUM_DISPOSITIONS: &[Disposition] = &[
    // Version token
    d(f::PROGRAM_TYPE, "Pixel", H("`Fragment` execution model")),
    d(f::PROGRAM_TYPE, "Vertex", H("`Vertex` execution model")),
    d(
        f::PROGRAM_TYPE,
        "Geometry",
        H("`Geometry` execution model (docs/stages.md)"),
    ),
    d(
        f::PROGRAM_TYPE,
        "Hull",
        H("`TessellationControl` execution model (docs/stages.md)"),
    ),
    d(
        f::PROGRAM_TYPE,
        "Domain",
        H("`TessellationEvaluation` execution model"),
    ),
    d(f::PROGRAM_TYPE, "Compute", H("`GLCompute` execution model")),
    // Register files
    d(
        f::OPERAND_TYPE,
        "Temp",
        H("32-bit registers: function variables, in SSA form after lowering"),
    ),
    d(
        f::OPERAND_TYPE,
        "Input",
        H(
            "input interface variables or built-ins, as the signature and declarations lay out (docs/stages.md)",
        ),
    ),
    d(
        f::OPERAND_TYPE,
        "Output",
        H("output interface variables or built-ins, as the signature and declarations lay out"),
    ),
    d(
        f::OPERAND_TYPE,
        "IndexableTemp",
        H("a function-local array, indexed at run time"),
    ),
    d(f::OPERAND_TYPE, "Immediate32", H("constants")),
    d(
        f::OPERAND_TYPE,
        "Immediate64",
        H(
            "64-bit constants of the double instructions; refused as a source of a 32-bit instruction (`64-bit immediate in a 32-bit operation`)",
        ),
    ),
    d(
        f::OPERAND_TYPE,
        "Sampler",
        H("a sampler descriptor (docs/bindings.md)"),
    ),
    d(
        f::OPERAND_TYPE,
        "Resource",
        H("a sampled image, texel buffer or storage buffer descriptor (docs/resources.md)"),
    ),
    d(
        f::OPERAND_TYPE,
        "ConstantBuffer",
        H("a uniform buffer or push constants (docs/bindings.md)"),
    ),
    d(
        f::OPERAND_TYPE,
        "ImmediateConstantBuffer",
        H("the immediate constant buffer (see `custom data class`)"),
    ),
    d(
        f::OPERAND_TYPE,
        "Label",
        H("subroutine bodies, called by `call`/`callc`"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputPrimitiveId",
        H("`PrimitiveId` built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputDepth",
        H("`FragDepth` with execution mode `DepthReplacing`"),
    ),
    d(f::OPERAND_TYPE, "Null", H("the result is discarded")),
    d(
        f::OPERAND_TYPE,
        "Rasterizer",
        H(
            "`sampleinfo`/`samplepos` of the render target: its sample count is a specialization constant the pipeline sets (`Options::rasterizer_sample_count_spec_id`)",
        ),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputCoverageMask",
        H("`SampleMask` output built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "Stream",
        H(
            "the stream of `emit_stream`/`cut_stream`: `OpEmitStreamVertex`/`OpEndStreamPrimitive` with capability `GeometryStreams`",
        ),
    ),
    d(f::OPERAND_TYPE, "FunctionBody", H(CLASS)),
    d(f::OPERAND_TYPE, "FunctionTable", H(CLASS)),
    d(f::OPERAND_TYPE, "Interface", H(CLASS)),
    d(
        f::OPERAND_TYPE,
        "FunctionInput",
        R(
            "function parameter registers that no D3D compiler or runtime defines a use for; reading them is refused (`unsupported reading fi operands`)",
        ),
    ),
    d(
        f::OPERAND_TYPE,
        "FunctionOutput",
        R(
            "function result registers that no D3D compiler or runtime defines a use for; writing them is refused (`unsupported writing fo operands`)",
        ),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputControlPointId",
        H("`InvocationId` built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputForkInstanceId",
        H("the instance of the fork phase being run (the phase is run once per instance)"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputJoinInstanceId",
        H("the instance of the join phase being run (the phase is run once per instance)"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputControlPoint",
        H("the per-vertex input arrays of a hull or domain shader"),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputControlPoint",
        H("the hull shader's per-vertex output arrays, read back in the fork and join phases"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputPatchConstant",
        H("`Patch` variables and the tessellation levels"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputDomainPoint",
        H("`TessCoord` built-in"),
    ),
    d(f::OPERAND_TYPE, "ThisPointer", H(CLASS)),
    d(
        f::OPERAND_TYPE,
        "UnorderedAccessView",
        H("a storage image, storage texel buffer or storage buffer descriptor (docs/resources.md)"),
    ),
    d(
        f::OPERAND_TYPE,
        "ThreadGroupSharedMemory",
        H("`Workgroup` variables"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputThreadId",
        H("`GlobalInvocationId` built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputThreadGroupId",
        H("`WorkgroupId` built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputThreadIdInGroup",
        H("`LocalInvocationId` built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputCoverageMask",
        H("`SampleMask` input built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputThreadIdInGroupFlattened",
        H("`LocalInvocationIndex` built-in"),
    ),
    d(
        f::OPERAND_TYPE,
        "InputGsInstanceId",
        H("`InvocationId` built-in (execution mode `Invocations`)"),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputDepthGreaterEqual",
        H("`FragDepth` with execution modes `DepthReplacing` and `DepthGreater`"),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputDepthLessEqual",
        H("`FragDepth` with execution modes `DepthReplacing` and `DepthLess`"),
    ),
    d(
        f::OPERAND_TYPE,
        "CycleCounter",
        R(
            "a D3D11 debugging counter whose values no two devices agree on; Vulkan's `ShaderClockKHR` is optional, so declaring it is refused (`unsupported declaration of vCycleCounter`)",
        ),
    ),
    d(
        f::OPERAND_TYPE,
        "OutputStencilRef",
        H("`FragStencilRefEXT` built-in (SPV_EXT_shader_stencil_export)"),
    ),
    d(
        f::OPERAND_TYPE,
        "InnerCoverage",
        H("`FullyCoveredEXT` built-in (SPV_EXT_fragment_fully_covered), as 1 / 0"),
    ),
    // Operand index encodings
    d(f::INDEX_REPR, "Imm32", H("a constant index")),
    d(
        f::INDEX_REPR,
        "Imm64",
        H(
            "a constant index; one above 2^32 - 1 is refused by the shader-model rules (`index-range`: no register file is that large)",
        ),
    ),
    d(
        f::INDEX_REPR,
        "Relative",
        H("an index computed at run time from a register"),
    ),
    d(
        f::INDEX_REPR,
        "Imm32PlusRelative",
        H("a register plus a constant"),
    ),
    d(
        f::INDEX_REPR,
        "Imm64PlusRelative",
        H("a register plus a constant; a constant above 2^32 - 1 is refused (`index-range`)"),
    ),
    // Resource dimensions
    d(
        f::RESOURCE_DIMENSION,
        "Unknown",
        H(
            "declared as a texel buffer; no instruction may use such a view (the shader-model rules refuse each with `resource-kind`)",
        ),
    ),
    d(
        f::RESOURCE_DIMENSION,
        "Buffer",
        H("texel buffer (`Buffer` image)"),
    ),
    d(f::RESOURCE_DIMENSION, "Texture1D", H("`1D` image")),
    d(f::RESOURCE_DIMENSION, "Texture2D", H("`2D` image")),
    d(
        f::RESOURCE_DIMENSION,
        "Texture2DMS",
        H("multisampled `2D` image"),
    ),
    d(f::RESOURCE_DIMENSION, "Texture3D", H("`3D` image")),
    d(f::RESOURCE_DIMENSION, "TextureCube", H("`Cube` image")),
    d(
        f::RESOURCE_DIMENSION,
        "Texture1DArray",
        H("arrayed `1D` image"),
    ),
    d(
        f::RESOURCE_DIMENSION,
        "Texture2DArray",
        H("arrayed `2D` image"),
    ),
    d(
        f::RESOURCE_DIMENSION,
        "Texture2DMSArray",
        H("arrayed multisampled `2D` image"),
    ),
    d(
        f::RESOURCE_DIMENSION,
        "TextureCubeArray",
        H("arrayed `Cube` image (capability `SampledCubeArray`, or `ImageCubeArray` for a UAV)"),
    ),
    d(
        f::RESOURCE_DIMENSION,
        "RawBuffer",
        H("a storage buffer of 32-bit words (docs/resources.md)"),
    ),
    d(
        f::RESOURCE_DIMENSION,
        "StructuredBuffer",
        H("a storage buffer of the declared stride (docs/resources.md)"),
    ),
    // System value names
    d(
        f::SYSTEM_NAME,
        "Undefined",
        H("no system value: a plain location"),
    ),
    d(
        f::SYSTEM_NAME,
        "Position",
        H(
            "`Position` built-in, `FragCoord` in pixel shaders; a plain location where nothing interprets it (vertex shader inputs, patch constants: docs/rules.md)",
        ),
    ),
    d(
        f::SYSTEM_NAME,
        "ClipDistance",
        H(
            "elements of the `ClipDistance` built-in array; a plain location where nothing interprets it (vertex shader inputs, patch constants)",
        ),
    ),
    d(
        f::SYSTEM_NAME,
        "CullDistance",
        H(
            "elements of the `CullDistance` built-in array; a plain location where nothing interprets it (vertex shader inputs, patch constants)",
        ),
    ),
    d(
        f::SYSTEM_NAME,
        "RenderTargetArrayIndex",
        H(
            "`Layer` built-in (vertex, domain, geometry outputs; pixel inputs); elsewhere a plain location",
        ),
    ),
    d(
        f::SYSTEM_NAME,
        "ViewportArrayIndex",
        H(
            "`ViewportIndex` built-in (vertex, domain, geometry outputs; pixel inputs); elsewhere a plain location",
        ),
    ),
    d(
        f::SYSTEM_NAME,
        "VertexId",
        H("`VertexIndex` built-in minus `BaseVertex`, as D3D counts from 0"),
    ),
    d(f::SYSTEM_NAME, "PrimitiveId", H("`PrimitiveId` built-in")),
    d(
        f::SYSTEM_NAME,
        "InstanceId",
        H("`InstanceIndex` built-in minus `BaseInstance`, as D3D counts from 0"),
    ),
    d(
        f::SYSTEM_NAME,
        "IsFrontFace",
        H("`FrontFacing` built-in, as D3D's 0 / 0xffffffff"),
    ),
    d(
        f::SYSTEM_NAME,
        "SampleIndex",
        H("`SampleId` built-in; the pixel shader runs per sample"),
    ),
    d(
        f::SYSTEM_NAME,
        "FinalQuadUEq0EdgeTessFactor",
        H(TESS_FACTOR),
    ),
    d(
        f::SYSTEM_NAME,
        "FinalQuadVEq0EdgeTessFactor",
        H(TESS_FACTOR),
    ),
    d(
        f::SYSTEM_NAME,
        "FinalQuadUEq1EdgeTessFactor",
        H(TESS_FACTOR),
    ),
    d(
        f::SYSTEM_NAME,
        "FinalQuadVEq1EdgeTessFactor",
        H(TESS_FACTOR),
    ),
    d(f::SYSTEM_NAME, "FinalQuadUInsideTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalQuadVInsideTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalTriUEq0EdgeTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalTriVEq0EdgeTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalTriWEq0EdgeTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalTriInsideTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalLineDetailTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "FinalLineDensityTessFactor", H(TESS_FACTOR)),
    d(f::SYSTEM_NAME, "Barycentrics", R(SM6_ONLY)),
    d(f::SYSTEM_NAME, "ShadingRate", R(SM6_ONLY)),
    d(f::SYSTEM_NAME, "CullPrimitive", R(SM6_ONLY)),
    // dcl_outputtopology
    d(
        f::OUTPUT_TOPOLOGY,
        "Undefined",
        N(
            "a geometry shader that never emits and declares no stream may leave it out (fxc does; docs/rules.md); it gets `OutputPoints`, which nothing observes",
        ),
    ),
    d(f::OUTPUT_TOPOLOGY, "PointList", H("`OutputPoints`")),
    d(
        f::OUTPUT_TOPOLOGY,
        "LineList",
        R("not a geometry shader output D3D allows (strips only); refused as invalid"),
    ),
    d(f::OUTPUT_TOPOLOGY, "LineStrip", H("`OutputLineStrip`")),
    d(
        f::OUTPUT_TOPOLOGY,
        "TriangleList",
        R("not a geometry shader output D3D allows (strips only); refused as invalid"),
    ),
    d(
        f::OUTPUT_TOPOLOGY,
        "TriangleStrip",
        H("`OutputTriangleStrip`"),
    ),
    d(
        f::OUTPUT_TOPOLOGY,
        "LineListAdj",
        R("not a geometry shader output D3D allows; refused as invalid"),
    ),
    d(
        f::OUTPUT_TOPOLOGY,
        "LineStripAdj",
        R("not a geometry shader output D3D allows; refused as invalid"),
    ),
    d(
        f::OUTPUT_TOPOLOGY,
        "TriangleListAdj",
        R("not a geometry shader output D3D allows; refused as invalid"),
    ),
    d(
        f::OUTPUT_TOPOLOGY,
        "TriangleStripAdj",
        R("not a geometry shader output D3D allows; refused as invalid"),
    ),
    // dcl_inputprimitive
    d(
        f::INPUT_PRIMITIVE,
        "Undefined",
        R(
            "a geometry shader must name its input; refused (`unsupported geometry shader input primitive`)",
        ),
    ),
    d(f::INPUT_PRIMITIVE, "Point", H("`InputPoints`")),
    d(f::INPUT_PRIMITIVE, "Line", H("`InputLines`")),
    d(f::INPUT_PRIMITIVE, "Triangle", H("`Triangles`")),
    d(f::INPUT_PRIMITIVE, "LineAdj", H("`InputLinesAdjacency`")),
    d(
        f::INPUT_PRIMITIVE,
        "TriangleAdj",
        H("`InputTrianglesAdjacency`"),
    ),
    d(
        f::INPUT_PRIMITIVE,
        "Patch(n)",
        R(
            "D3D11 lets a geometry shader read patches when tessellation is off; Vulkan geometry shaders have no patch input, so it is refused (`unsupported geometry shader input primitive Patch(n)`)",
        ),
    ),
    // Tessellator state
    d(
        f::TESS_DOMAIN,
        "Undefined",
        R("refused as invalid (`undefined tessellator domain`)"),
    ),
    d(f::TESS_DOMAIN, "Isoline", H("`Isolines`")),
    d(f::TESS_DOMAIN, "Tri", H("`Triangles`")),
    d(f::TESS_DOMAIN, "Quad", H("`Quads`")),
    d(
        f::TESS_PARTITIONING,
        "Undefined",
        R("refused as invalid (`undefined tessellator partitioning`)"),
    ),
    d(f::TESS_PARTITIONING, "Integer", H("`SpacingEqual`")),
    d(
        f::TESS_PARTITIONING,
        "Pow2",
        H(
            "`SpacingEqual`: for the tessellator pow2 is integer partitioning, the functional spec leaves rounding to a power of two to the HLSL code (docs/stages.md)",
        ),
    ),
    d(
        f::TESS_PARTITIONING,
        "FractionalOdd",
        H("`SpacingFractionalOdd`"),
    ),
    d(
        f::TESS_PARTITIONING,
        "FractionalEven",
        H("`SpacingFractionalEven`"),
    ),
    d(
        f::TESS_OUTPUT,
        "Undefined",
        R("refused as invalid (`undefined tessellator output primitive`)"),
    ),
    d(f::TESS_OUTPUT, "Point", H("`PointMode`")),
    d(f::TESS_OUTPUT, "Line", H("isolines (the domain decides)")),
    d(f::TESS_OUTPUT, "TriangleCw", H("`VertexOrderCw`")),
    d(f::TESS_OUTPUT, "TriangleCcw", H("`VertexOrderCcw`")),
];
