//! What each shader-model rule refuses and the Direct3D text that backs it.
//!
//! Why: a rule that refuses what Direct3D accepts is a correctness bug, so every rule must name
//! where Direct3D makes the program invalid — a section of the D3D11.3 functional spec (`§`
//! numbers below), the runtime's or fxc's behaviour, or for D3D9 Microsoft's assembly reference.
//! `docs/rules.md` is this table printed ([`super::doc::markdown`]); a test keeps the two equal.

use super::Rule;

impl Rule {
    /// Every rule of the DXBC checker, in the order `docs/rules.md` lists them.
    pub const ALL: [Rule; 18] = [
        Rule::DeclRegisterFile,
        Rule::RegisterFileInStage,
        Rule::SystemValueInStage,
        Rule::SignatureSystemValue,
        Rule::SignatureOverlap,
        Rule::SignatureComponentType,
        Rule::SignatureStream,
        Rule::DeclOverlap,
        Rule::ThreadGroupSize,
        Rule::StageDeclaration,
        Rule::DepthOutput,
        Rule::DestinationMask,
        Rule::TempRange,
        Rule::IndexDimension,
        Rule::IndexRange,
        Rule::ResourceKind,
        Rule::StreamIndex,
        Rule::DeclarationOrder,
    ];

    /// What the rule refuses, in one sentence.
    pub fn refuses(self) -> &'static str {
        match self {
            Rule::DeclRegisterFile => {
                "an input declaration (`dcl_input*`) naming an output register file, or an \
                 output declaration naming an input one"
            }
            Rule::RegisterFileInStage => {
                "a register file the stage does not have (`oDepth`, `oMask` outside pixel \
                 shaders, `g#` and `vThreadID` outside compute shaders, `vicp`/`vpc` outside \
                 hull and domain shaders, `vocp` outside hull shaders, `v#` in a hull shader \
                 outside its control point phase, `v#` in a domain shader)"
            }
            Rule::SystemValueInStage => {
                "a declared system value the stage cannot receive or produce: a system-generated \
                 value (`vertex_id`, `instance_id`, `primitive_id`, `is_front_face`, \
                 `sample_index`) outside the inputs that receive it, `primitive_id` output \
                 from other than a geometry shader, tessellation factors outside hull shader \
                 outputs and hull/domain shader inputs, any system value on pixel shader outputs \
                 or in compute shaders. Position, clip/cull distances and the render-target and \
                 viewport indices where nothing interprets them (vertex shader inputs, patch \
                 constants, hull/domain/geometry inputs of the indices) are not refused: they \
                 travel as plain data, as D3D passes them"
            }
            Rule::SignatureSystemValue => {
                "a signature element whose system value the signature's stage and direction \
                 cannot have (as `system-value-in-stage`; also `SV_Target`, `SV_Depth*`, \
                 `SV_Coverage`, `SV_StencilRef` outside pixel shader outputs, \
                 `SV_InnerCoverage` outside pixel shader inputs, values D3D does not define)"
            }
            Rule::SignatureOverlap => {
                "two elements of one signature and stream sharing a component of a register"
            }
            Rule::SignatureComponentType => {
                "a signature element whose component type is none of D3D's (unknown, uint, \
                 int, float)"
            }
            Rule::SignatureStream => {
                "a signature element on a stream above 3, or on a stream other than 0 \
                 anywhere but in a geometry shader's output signature"
            }
            Rule::DeclOverlap => {
                "two declarations of one register file (in one hull shader phase and one \
                 geometry shader stream) sharing a component"
            }
            Rule::ThreadGroupSize => {
                "a compute shader without `dcl_thread_group`, with two, or with a size outside \
                 1 ≤ x, y ≤ 1024, 1 ≤ z ≤ 64, x·y·z ≤ 1024; a thread group in another stage is \
                 `stage-declaration`"
            }
            Rule::StageDeclaration => {
                "a stage declaration in a stage that does not have it; a geometry shader without \
                 `dcl_inputprimitive` or `dcl_maxout`, or without `dcl_outputtopology` when it \
                 declares streams or emits a vertex; a hull shader without its input control \
                 point count, tessellator domain, partitioning or output primitive; a domain \
                 shader without its domain. A geometry shader that neither declares streams \
                 nor emits may leave the topology out: it translates as a point-list shader \
                 with no output"
            }
            Rule::DepthOutput => {
                "two different depth outputs (`oDepth`, `oDepthGE`, `oDepthLE`), or a write to \
                 `oDepth*`, `oMask` or `oStencilRef` that is not declared"
            }
            Rule::DestinationMask => {
                "a store (`store_raw`, `store_structured`, `store_uav_typed`) whose UAV or \
                 shared-memory destination writes no component; an empty mask on a register \
                 destination is not refused (it writes nothing: the destination becomes `null`)"
            }
            Rule::TempRange => {
                "`r#` at or above the phase's `dcl_temps` count; `x#` not declared, or a \
                 constant index at or above its size"
            }
            Rule::IndexDimension => {
                "a register with another number of indices than its file has in the stage \
                 (`v[vertex][register]` in geometry shaders and hull shader control point \
                 phases, `vicp`/`vocp`/`x#` two, `v#` of vertex and pixel shaders, `o#`, \
                 `r#`, `vpc` one)"
            }
            Rule::IndexRange => {
                "a constant vertex index at or above the input primitive's vertex count, a \
                 constant control point index at or above the declared count, or a register \
                 index (64-bit representation) above 2^32 − 1"
            }
            Rule::ResourceKind => {
                "a resource instruction on a register file or declared kind it does not take \
                 (`sample*` on a buffer, `ld_raw` on a typed resource, `ld2dms` on a \
                 single-sample texture, `ld` on a UAV, `gather4` on a 1D or 3D texture, ...)"
            }
            Rule::StreamIndex => "a stream operand other than `m0`–`m3`",
            Rule::DeclarationOrder => {
                "a declaration after the first instruction of the program (of the phase, in a \
                 hull shader)"
            }
        }
    }

    /// The Direct3D text that makes what the rule refuses invalid.
    pub fn source(self) -> &'static str {
        match self {
            Rule::DeclRegisterFile => {
                "D3D11.3 §22.3.10–22.3.11 (input declarations declare `v#` and the input \
                 registers), §22.3.31–22.3.33 (output declarations declare `o#`)"
            }
            Rule::RegisterFileInStage => {
                "D3D11.3 §22.1.3–22.1.8 (each stage's instructions and declarations) and \
                 each declaration's `Stage(s)` line in §22.3 (§22.3.37–22.3.39 pixel shader \
                 outputs, §22.3.41 and §22.3.45–22.3.46 compute shader inputs and `g#`); \
                 §22.3.10 (`v#` is the control point phase's input; fork and join phases read \
                 `vicp`/`vocp`/`vpc`; the domain shader reads `vicp`/`vpc`)"
            }
            Rule::SystemValueInStage => {
                "D3D11.3 §23.1–23.14 (the stages that can receive each system-generated \
                 value), §22.3.33 (only a geometry shader outputs one: `primitiveID`), \
                 §22.3.32 (`dcl_output_siv` exists in vertex, hull, domain and geometry \
                 shaders, not pixel shaders), §24.8–24.9 (tessellation factors are hull \
                 shader patch-constant outputs the domain shader may read); §24.1–24.5 \
                 (\"using this name to identify data moving between other stages has no \
                 effect\": the relaxation)"
            }
            Rule::SignatureSystemValue => {
                "as `system-value-in-stage` (a signature element mirrors a declaration), and \
                 §16.9 with §22.3.37–22.3.39 (depth, coverage mask: pixel shader outputs), \
                 §16.3.2 (input coverage), `D3D_NAME` in d3dcommon.h (the values D3D defines)"
            }
            Rule::SignatureOverlap => {
                "D3D11.3 §22.3.11 restriction 2 and §22.3.32 restriction 2 (the component \
                 masks of one register's declarations may not overlap); each element \
                 describes one declared range of components"
            }
            Rule::SignatureComponentType => {
                "`D3D_REGISTER_COMPONENT_TYPE` in d3dcommon.h (learn.microsoft.com): \
                 unknown 0, uint32 1, sint32 2, float32 3 are the types of a DXBC signature"
            }
            Rule::SignatureStream => {
                "D3D11.3 §13.5.2 and §22.3.9 (four streams, m0–m3, declared by a geometry \
                 shader; without a geometry shader all vertex data is one stream)"
            }
            Rule::DeclOverlap => {
                "D3D11.3 §22.3.11 restriction 2, §22.3.32 restriction 2 and §22.3.33 \
                 restriction 3 (a register's declared components cannot overlap), §10.9.2 \
                 note 3 (fork and join phase outputs do not overlap), §13.5.2 (each stream \
                 declares its outputs on its own)"
            }
            Rule::ThreadGroupSize => {
                "D3D11.3 §22.3.40 (`dcl_thread_group` must appear once in a compute shader; \
                 1 ≤ x ≤ 1024, 1 ≤ y ≤ 1024, 1 ≤ z ≤ 64, x·y·z ≤ 1024)"
            }
            Rule::StageDeclaration => {
                "each declaration's `Stage(s)` line in D3D11.3 §22.3 (§22.3.5–22.3.9 \
                 geometry, §22.3.15–22.3.28 hull and domain, §22.3.40 compute); §22.3.5 \
                 restriction 3 and §22.3.6 restriction 3 (`dcl_maxOutputVertexCount` and \
                 `dcl_inputPrimitive` are required); §13.5.2 (with several streams the output \
                 topology must be declared for each); §13.3 (emitted vertices take the declared \
                 topology); §22.1.4.1, §22.1.5.1 and §11.7.15 (the hull shader's declaration \
                 phase states the tessellator; the domain shader declares its domain). \
                 §22.3.8 calls the output topology mandatory, but fxc omits it in a geometry \
                 shader without a stream object and D3D12 creates pipelines with such shaders \
                 (vkd3d-proton's root-signature tests): that case is relaxed"
            }
            Rule::DepthOutput => {
                "D3D11.3 §16.9.2–16.9.3 (one `oDepth` register, written only when declared; \
                 conservative depth declares that register with `depthGreaterEqual` or \
                 `depthLessEqual`), §22.3.37–22.3.39 (the declarations), §16.9.4 (`oMask`)"
            }
            Rule::DestinationMask => {
                "D3D11.3 §22.4.9 (store_uav_typed: \"dstUAV always has a .xyzw write mask; all \
                 components must be written\"), §22.4.11 (store_raw writes the components of \
                 a .x, .xy, .xyz or .xyzw mask), §22.4.13 (store_structured likewise)"
            }
            Rule::TempRange => {
                "D3D11.3 §22.3.35 (\"each r# to be used in the shader must be declared\": \
                 `dcl_temps n` declares r0–r(n−1)), §22.3.36 (each `x#[]` must be declared, \
                 with its size), §10.8.3 and §10.9.3 (each hull shader phase declares its own)"
            }
            Rule::IndexDimension => {
                "D3D11.3 §13.10 (geometry shader inputs are `v[vertex][element]`), §22.3.10 \
                 (control points are 2D arrays `v[A][#]`, `vicp[A][#]`, `vocp[A][#]`; patch \
                 constants `vpc[#]`), §22.3.35–22.3.36 (`r#` one index, `x#[i]` two), \
                 §22.3.31 (`o#`)"
            }
            Rule::IndexRange => {
                "D3D11.3 §22.3.6 and §13.10 (the input primitive fixes the vertices a \
                 geometry shader reads), §22.3.10 and §10.9.2 note 1 (control point arrays \
                 are as long as the declared counts, §22.3.18–22.3.19), §21 (every register \
                 file is far smaller than 2^32 registers)"
            }
            Rule::ResourceKind => {
                "the srcResource of each instruction in D3D11.3 §22.4 (§22.4.15–22.4.20 \
                 sample* on textures, §22.4.2–22.4.5 gather4* on 2D and cube textures, \
                 §22.4.6–22.4.7 ld/ld2dms, §22.4.8–22.4.13 UAV, raw and structured access, \
                 §22.4.1 and §22.4.14 bufinfo/resinfo), §22.3.12 (\"the only way to access a \
                 Buffer is ld\"), §22.17.17–22.17.18 (alloc/consume on structured UAVs)"
            }
            Rule::StreamIndex => {
                "D3D11.3 §22.3.9 (\"declare stream 0..3 (m0..m3)\"), §22.8.2, §22.8.4 and \
                 §22.8.6 (the stream operand is 0..3)"
            }
            Rule::DeclarationOrder => {
                "D3D11.3 §22.3.1 (\"the following statement types must precede other \
                 instructions\"), §10.6 and §22.1.4 (each hull shader phase has its own \
                 initial statements)"
            }
        }
    }
}
