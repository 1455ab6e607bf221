//! The SM4/5 opcode table: one entry of data per opcode number.
//!
//! The decoder, the encoder and the disassembler all read this table instead of matching on
//! opcodes: it says how an instruction's tokens are laid out (how many destination and source
//! operands follow, or which declaration layout applies), which opcode-specific control bits
//! the opcode token carries, the mnemonic, and the data type of each operand (used to print
//! immediates as floats or integers). `Opcode` is generated from the same list, so the enum
//! and the table cannot disagree.

/// How the tokens after an opcode token (and its extended opcode tokens) are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `dsts` destination operands then `srcs` source operands, each a full operand.
    Fixed { dsts: u8, srcs: u8 },
    /// A declaration with its own layout.
    Decl(DeclKind),
    /// A custom-data block (`customdata`): class in the opcode token, length in the next dword.
    CustomData,
    /// `fcall`: a function-table index dword, then one `fp` operand.
    InterfaceCall,
}

/// Which opcode-specific control bits (opcode token bits 11–23) an instruction carries,
/// besides saturate (bit 13) and the precise mask (bits 19–22) that every non-declaration
/// instruction may carry (except `sync`, whose flags overlap bit 13).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Saturate and precise only.
    Standard,
    /// Bit 18: test for zero (`_z`) or non-zero (`_nz`).
    Test,
    /// Bits 11–12: `resinfo` return type.
    ResInfo,
    /// Bit 11: `sampleinfo` returns uint (`_uint`).
    SampleInfo,
    /// Bits 11–14: `sync` flags; no saturate bit.
    Sync,
    /// Declarations, custom data: the layout decodes the control bits itself.
    Decl,
}

/// The layout of each declaration opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclKind {
    Resource,
    ConstantBuffer,
    Sampler,
    IndexRange,
    GsOutputTopology,
    GsInputPrimitive,
    MaxOutputVertexCount,
    Input,
    InputSgv,
    InputSiv,
    InputPs,
    InputPsSgv,
    InputPsSiv,
    Output,
    OutputSgv,
    OutputSiv,
    Temps,
    IndexableTemp,
    GlobalFlags,
    Stream,
    FunctionBody,
    FunctionTable,
    Interface,
    InputControlPointCount,
    OutputControlPointCount,
    TessDomain,
    TessPartitioning,
    TessOutputPrimitive,
    HsMaxTessFactor,
    HsForkPhaseInstanceCount,
    HsJoinPhaseInstanceCount,
    ThreadGroup,
    UavTyped,
    UavRaw,
    UavStructured,
    TgsmRaw,
    TgsmStructured,
    ResourceRaw,
    ResourceStructured,
    GsInstanceCount,
}

/// The data type of one operand, for printing immediates and for consumers that want to know
/// how an instruction reads its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    /// 32-bit float.
    Float,
    /// 32-bit signed integer.
    Int,
    /// 32-bit unsigned integer or bit pattern.
    Uint,
    /// 64-bit float (pairs of components).
    Double,
    /// Untyped data (moves, loads, stores), or a resource/sampler/UAV/label reference.
    Any,
}

/// One entry of the opcode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    /// Mnemonic as fxc prints it, before suffixes (`_sat`, `_nz`, `_indexable(…)`, …).
    pub name: &'static str,
    pub layout: Layout,
    pub control: Control,
    /// One character per operand of a `Layout::Fixed` instruction, destinations first:
    /// `f` float, `i` int, `u` uint, `d` double, `*` untyped/reference.
    pub types: &'static str,
}

impl OpcodeInfo {
    /// Number of destination operands of a fixed-layout instruction (0 otherwise).
    pub const fn dsts(&self) -> usize {
        match self.layout {
            Layout::Fixed { dsts, .. } => dsts as usize,
            _ => 0,
        }
    }

    /// Number of source operands of a fixed-layout instruction (0 otherwise).
    pub const fn srcs(&self) -> usize {
        match self.layout {
            Layout::Fixed { srcs, .. } => srcs as usize,
            _ => 0,
        }
    }

    /// Whether this opcode is a declaration (including custom-data blocks).
    pub const fn is_declaration(&self) -> bool {
        matches!(self.layout, Layout::Decl(_) | Layout::CustomData)
    }

    /// The data type of operand `i` of a fixed-layout instruction.
    pub fn operand_type(&self, i: usize) -> DataType {
        match self.types.as_bytes().get(i) {
            Some(b'f') => DataType::Float,
            Some(b'i') => DataType::Int,
            Some(b'u') => DataType::Uint,
            Some(b'd') => DataType::Double,
            _ => DataType::Any,
        }
    }
}

/// Builds the `Opcode` enum and the table from one list.
macro_rules! opcode_table {
    ( $( $value:literal $variant:ident $name:literal $layout:expr, $control:ident, $types:literal; )* ) => {
        /// An SM4.0–5.1 opcode (opcode token bits 0–10). Reserved numbers have no variant.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $( $variant = $value, )*
        }

        /// Table entries indexed by opcode number; `None` for reserved numbers.
        static TABLE: [Option<OpcodeInfo>; OPCODE_COUNT] = {
            let mut table: [Option<OpcodeInfo>; OPCODE_COUNT] = [None; OPCODE_COUNT];
            $(
                table[$value] = Some(OpcodeInfo {
                    opcode: Opcode::$variant,
                    name: $name,
                    layout: $layout,
                    control: Control::$control,
                    types: $types,
                });
            )*
            table
        };

        /// Every opcode, in numeric order.
        pub const ALL_OPCODES: &[Opcode] = &[ $( Opcode::$variant, )* ];
    };
}

/// One past the highest opcode number defined by the token format (WDDM 1.3).
pub const OPCODE_COUNT: usize = 0xeb;

const fn f(dsts: u8, srcs: u8) -> Layout {
    Layout::Fixed { dsts, srcs }
}

const fn d(kind: DeclKind) -> Layout {
    Layout::Decl(kind)
}

use DeclKind as K;

opcode_table! {
    0x00 Add "add" f(1, 2), Standard, "fff";
    0x01 And "and" f(1, 2), Standard, "uuu";
    0x02 Break "break" f(0, 0), Standard, "";
    0x03 Breakc "breakc" f(0, 1), Test, "u";
    0x04 Call "call" f(0, 1), Standard, "*";
    0x05 Callc "callc" f(0, 2), Test, "u*";
    0x06 Case "case" f(0, 1), Standard, "u";
    0x07 Continue "continue" f(0, 0), Standard, "";
    0x08 Continuec "continuec" f(0, 1), Test, "u";
    0x09 Cut "cut" f(0, 0), Standard, "";
    0x0a Default "default" f(0, 0), Standard, "";
    0x0b DerivRtx "deriv_rtx" f(1, 1), Standard, "ff";
    0x0c DerivRty "deriv_rty" f(1, 1), Standard, "ff";
    0x0d Discard "discard" f(0, 1), Test, "u";
    0x0e Div "div" f(1, 2), Standard, "fff";
    0x0f Dp2 "dp2" f(1, 2), Standard, "fff";
    0x10 Dp3 "dp3" f(1, 2), Standard, "fff";
    0x11 Dp4 "dp4" f(1, 2), Standard, "fff";
    0x12 Else "else" f(0, 0), Standard, "";
    0x13 Emit "emit" f(0, 0), Standard, "";
    0x14 EmitThenCut "emit_then_cut" f(0, 0), Standard, "";
    0x15 EndIf "endif" f(0, 0), Standard, "";
    0x16 EndLoop "endloop" f(0, 0), Standard, "";
    0x17 EndSwitch "endswitch" f(0, 0), Standard, "";
    0x18 Eq "eq" f(1, 2), Standard, "uff";
    0x19 Exp "exp" f(1, 1), Standard, "ff";
    0x1a Frc "frc" f(1, 1), Standard, "ff";
    0x1b FtoI "ftoi" f(1, 1), Standard, "if";
    0x1c FtoU "ftou" f(1, 1), Standard, "uf";
    0x1d Ge "ge" f(1, 2), Standard, "uff";
    0x1e IAdd "iadd" f(1, 2), Standard, "iii";
    0x1f If "if" f(0, 1), Test, "u";
    0x20 IEq "ieq" f(1, 2), Standard, "uii";
    0x21 IGe "ige" f(1, 2), Standard, "uii";
    0x22 ILt "ilt" f(1, 2), Standard, "uii";
    0x23 IMad "imad" f(1, 3), Standard, "iiii";
    0x24 IMax "imax" f(1, 2), Standard, "iii";
    0x25 IMin "imin" f(1, 2), Standard, "iii";
    0x26 IMul "imul" f(2, 2), Standard, "iiii";
    0x27 INe "ine" f(1, 2), Standard, "uii";
    0x28 INeg "ineg" f(1, 1), Standard, "ii";
    0x29 IShl "ishl" f(1, 2), Standard, "iii";
    0x2a IShr "ishr" f(1, 2), Standard, "iii";
    0x2b ItoF "itof" f(1, 1), Standard, "fi";
    0x2c Label "label" f(0, 1), Standard, "*";
    0x2d Ld "ld" f(1, 2), Standard, "*i*";
    0x2e LdMs "ldms" f(1, 3), Standard, "*i*i";
    0x2f Log "log" f(1, 1), Standard, "ff";
    0x30 Loop "loop" f(0, 0), Standard, "";
    0x31 Lt "lt" f(1, 2), Standard, "uff";
    0x32 Mad "mad" f(1, 3), Standard, "ffff";
    0x33 Min "min" f(1, 2), Standard, "fff";
    0x34 Max "max" f(1, 2), Standard, "fff";
    0x35 CustomData "customdata" Layout::CustomData, Decl, "";
    0x36 Mov "mov" f(1, 1), Standard, "**";
    0x37 Movc "movc" f(1, 3), Standard, "*u**";
    0x38 Mul "mul" f(1, 2), Standard, "fff";
    0x39 Ne "ne" f(1, 2), Standard, "uff";
    0x3a Nop "nop" f(0, 0), Standard, "";
    0x3b Not "not" f(1, 1), Standard, "uu";
    0x3c Or "or" f(1, 2), Standard, "uuu";
    0x3d ResInfo "resinfo" f(1, 2), ResInfo, "*u*";
    0x3e Ret "ret" f(0, 0), Standard, "";
    0x3f Retc "retc" f(0, 1), Test, "u";
    0x40 RoundNe "round_ne" f(1, 1), Standard, "ff";
    0x41 RoundNi "round_ni" f(1, 1), Standard, "ff";
    0x42 RoundPi "round_pi" f(1, 1), Standard, "ff";
    0x43 RoundZ "round_z" f(1, 1), Standard, "ff";
    0x44 Rsq "rsq" f(1, 1), Standard, "ff";
    0x45 Sample "sample" f(1, 3), Standard, "*f**";
    0x46 SampleC "sample_c" f(1, 4), Standard, "*f**f";
    0x47 SampleCLz "sample_c_lz" f(1, 4), Standard, "*f**f";
    0x48 SampleL "sample_l" f(1, 4), Standard, "*f**f";
    0x49 SampleD "sample_d" f(1, 5), Standard, "*f**ff";
    0x4a SampleB "sample_b" f(1, 4), Standard, "*f**f";
    0x4b Sqrt "sqrt" f(1, 1), Standard, "ff";
    0x4c Switch "switch" f(0, 1), Standard, "u";
    0x4d SinCos "sincos" f(2, 1), Standard, "fff";
    0x4e UDiv "udiv" f(2, 2), Standard, "uuuu";
    0x4f ULt "ult" f(1, 2), Standard, "uuu";
    0x50 UGe "uge" f(1, 2), Standard, "uuu";
    0x51 UMul "umul" f(2, 2), Standard, "uuuu";
    0x52 UMad "umad" f(1, 3), Standard, "uuuu";
    0x53 UMax "umax" f(1, 2), Standard, "uuu";
    0x54 UMin "umin" f(1, 2), Standard, "uuu";
    0x55 UShr "ushr" f(1, 2), Standard, "uuu";
    0x56 UtoF "utof" f(1, 1), Standard, "fu";
    0x57 Xor "xor" f(1, 2), Standard, "uuu";
    0x58 DclResource "dcl_resource" d(K::Resource), Decl, "";
    0x59 DclConstantBuffer "dcl_constantbuffer" d(K::ConstantBuffer), Decl, "";
    0x5a DclSampler "dcl_sampler" d(K::Sampler), Decl, "";
    0x5b DclIndexRange "dcl_indexrange" d(K::IndexRange), Decl, "";
    0x5c DclGsOutputPrimitiveTopology "dcl_outputtopology" d(K::GsOutputTopology), Decl, "";
    0x5d DclGsInputPrimitive "dcl_inputprimitive" d(K::GsInputPrimitive), Decl, "";
    0x5e DclMaxOutputVertexCount "dcl_maxout" d(K::MaxOutputVertexCount), Decl, "";
    0x5f DclInput "dcl_input" d(K::Input), Decl, "";
    0x60 DclInputSgv "dcl_input_sgv" d(K::InputSgv), Decl, "";
    0x61 DclInputSiv "dcl_input_siv" d(K::InputSiv), Decl, "";
    0x62 DclInputPs "dcl_input_ps" d(K::InputPs), Decl, "";
    0x63 DclInputPsSgv "dcl_input_ps_sgv" d(K::InputPsSgv), Decl, "";
    0x64 DclInputPsSiv "dcl_input_ps_siv" d(K::InputPsSiv), Decl, "";
    0x65 DclOutput "dcl_output" d(K::Output), Decl, "";
    0x66 DclOutputSgv "dcl_output_sgv" d(K::OutputSgv), Decl, "";
    0x67 DclOutputSiv "dcl_output_siv" d(K::OutputSiv), Decl, "";
    0x68 DclTemps "dcl_temps" d(K::Temps), Decl, "";
    0x69 DclIndexableTemp "dcl_indexableTemp" d(K::IndexableTemp), Decl, "";
    0x6a DclGlobalFlags "dcl_globalFlags" d(K::GlobalFlags), Decl, "";
    0x6c Lod "lod" f(1, 3), Standard, "ff**";
    0x6d Gather4 "gather4" f(1, 3), Standard, "*f**";
    0x6e SamplePos "samplepos" f(1, 2), Standard, "f*u";
    0x6f SampleInfo "sampleinfo" f(1, 1), SampleInfo, "**";
    0x71 HsDecls "hs_decls" f(0, 0), Standard, "";
    0x72 HsControlPointPhase "hs_control_point_phase" f(0, 0), Standard, "";
    0x73 HsForkPhase "hs_fork_phase" f(0, 0), Standard, "";
    0x74 HsJoinPhase "hs_join_phase" f(0, 0), Standard, "";
    0x75 EmitStream "emit_stream" f(0, 1), Standard, "*";
    0x76 CutStream "cut_stream" f(0, 1), Standard, "*";
    0x77 EmitThenCutStream "emit_then_cut_stream" f(0, 1), Standard, "*";
    0x78 InterfaceCall "fcall" Layout::InterfaceCall, Standard, "*";
    0x79 BufInfo "bufinfo" f(1, 1), Standard, "u*";
    0x7a DerivRtxCoarse "deriv_rtx_coarse" f(1, 1), Standard, "ff";
    0x7b DerivRtxFine "deriv_rtx_fine" f(1, 1), Standard, "ff";
    0x7c DerivRtyCoarse "deriv_rty_coarse" f(1, 1), Standard, "ff";
    0x7d DerivRtyFine "deriv_rty_fine" f(1, 1), Standard, "ff";
    0x7e Gather4C "gather4_c" f(1, 4), Standard, "*f**f";
    0x7f Gather4Po "gather4_po" f(1, 4), Standard, "*fi**";
    0x80 Gather4PoC "gather4_po_c" f(1, 5), Standard, "*fi**f";
    0x81 Rcp "rcp" f(1, 1), Standard, "ff";
    0x82 F32toF16 "f32tof16" f(1, 1), Standard, "uf";
    0x83 F16toF32 "f16tof32" f(1, 1), Standard, "fu";
    0x84 UAddc "uaddc" f(2, 2), Standard, "uuuu";
    0x85 USubb "usubb" f(2, 2), Standard, "uuuu";
    0x86 CountBits "countbits" f(1, 1), Standard, "uu";
    0x87 FirstBitHi "firstbit_hi" f(1, 1), Standard, "uu";
    0x88 FirstBitLo "firstbit_lo" f(1, 1), Standard, "uu";
    0x89 FirstBitShi "firstbit_shi" f(1, 1), Standard, "ui";
    0x8a UBfe "ubfe" f(1, 3), Standard, "uuuu";
    0x8b IBfe "ibfe" f(1, 3), Standard, "iuui";
    0x8c Bfi "bfi" f(1, 4), Standard, "uuuuu";
    0x8d BfRev "bfrev" f(1, 1), Standard, "uu";
    0x8e Swapc "swapc" f(2, 3), Standard, "**u**";
    0x8f DclStream "dcl_stream" d(K::Stream), Decl, "";
    0x90 DclFunctionBody "dcl_function_body" d(K::FunctionBody), Decl, "";
    0x91 DclFunctionTable "dcl_function_table" d(K::FunctionTable), Decl, "";
    0x92 DclInterface "dcl_interface" d(K::Interface), Decl, "";
    0x93 DclInputControlPointCount "dcl_input_control_point_count" d(K::InputControlPointCount), Decl, "";
    0x94 DclOutputControlPointCount "dcl_output_control_point_count" d(K::OutputControlPointCount), Decl, "";
    0x95 DclTessDomain "dcl_tessellator_domain" d(K::TessDomain), Decl, "";
    0x96 DclTessPartitioning "dcl_tessellator_partitioning" d(K::TessPartitioning), Decl, "";
    0x97 DclTessOutputPrimitive "dcl_tessellator_output_primitive" d(K::TessOutputPrimitive), Decl, "";
    0x98 DclHsMaxTessFactor "dcl_hs_max_tessfactor" d(K::HsMaxTessFactor), Decl, "";
    0x99 DclHsForkPhaseInstanceCount "dcl_hs_fork_phase_instance_count" d(K::HsForkPhaseInstanceCount), Decl, "";
    0x9a DclHsJoinPhaseInstanceCount "dcl_hs_join_phase_instance_count" d(K::HsJoinPhaseInstanceCount), Decl, "";
    0x9b DclThreadGroup "dcl_thread_group" d(K::ThreadGroup), Decl, "";
    0x9c DclUavTyped "dcl_uav_typed" d(K::UavTyped), Decl, "";
    0x9d DclUavRaw "dcl_uav_raw" d(K::UavRaw), Decl, "";
    0x9e DclUavStructured "dcl_uav_structured" d(K::UavStructured), Decl, "";
    0x9f DclTgsmRaw "dcl_tgsm_raw" d(K::TgsmRaw), Decl, "";
    0xa0 DclTgsmStructured "dcl_tgsm_structured" d(K::TgsmStructured), Decl, "";
    0xa1 DclResourceRaw "dcl_resource_raw" d(K::ResourceRaw), Decl, "";
    0xa2 DclResourceStructured "dcl_resource_structured" d(K::ResourceStructured), Decl, "";
    0xa3 LdUavTyped "ld_uav_typed" f(1, 2), Standard, "*u*";
    0xa4 StoreUavTyped "store_uav_typed" f(1, 2), Standard, "*u*";
    0xa5 LdRaw "ld_raw" f(1, 2), Standard, "*u*";
    0xa6 StoreRaw "store_raw" f(1, 2), Standard, "*u*";
    0xa7 LdStructured "ld_structured" f(1, 3), Standard, "*uu*";
    0xa8 StoreStructured "store_structured" f(1, 3), Standard, "*uu*";
    0xa9 AtomicAnd "atomic_and" f(1, 2), Standard, "*uu";
    0xaa AtomicOr "atomic_or" f(1, 2), Standard, "*uu";
    0xab AtomicXor "atomic_xor" f(1, 2), Standard, "*uu";
    0xac AtomicCmpStore "atomic_cmp_store" f(1, 3), Standard, "*uuu";
    0xad AtomicIAdd "atomic_iadd" f(1, 2), Standard, "*ui";
    0xae AtomicIMax "atomic_imax" f(1, 2), Standard, "*ui";
    0xaf AtomicIMin "atomic_imin" f(1, 2), Standard, "*ui";
    0xb0 AtomicUMax "atomic_umax" f(1, 2), Standard, "*uu";
    0xb1 AtomicUMin "atomic_umin" f(1, 2), Standard, "*uu";
    0xb2 ImmAtomicAlloc "imm_atomic_alloc" f(1, 1), Standard, "u*";
    0xb3 ImmAtomicConsume "imm_atomic_consume" f(1, 1), Standard, "u*";
    0xb4 ImmAtomicIAdd "imm_atomic_iadd" f(2, 2), Standard, "i*ui";
    0xb5 ImmAtomicAnd "imm_atomic_and" f(2, 2), Standard, "u*uu";
    0xb6 ImmAtomicOr "imm_atomic_or" f(2, 2), Standard, "u*uu";
    0xb7 ImmAtomicXor "imm_atomic_xor" f(2, 2), Standard, "u*uu";
    0xb8 ImmAtomicExch "imm_atomic_exch" f(2, 2), Standard, "u*uu";
    0xb9 ImmAtomicCmpExch "imm_atomic_cmp_exch" f(2, 3), Standard, "u*uuu";
    0xba ImmAtomicIMax "imm_atomic_imax" f(2, 2), Standard, "i*ui";
    0xbb ImmAtomicIMin "imm_atomic_imin" f(2, 2), Standard, "i*ui";
    0xbc ImmAtomicUMax "imm_atomic_umax" f(2, 2), Standard, "u*uu";
    0xbd ImmAtomicUMin "imm_atomic_umin" f(2, 2), Standard, "u*uu";
    0xbe Sync "sync" f(0, 0), Sync, "";
    0xbf DAdd "dadd" f(1, 2), Standard, "ddd";
    0xc0 DMax "dmax" f(1, 2), Standard, "ddd";
    0xc1 DMin "dmin" f(1, 2), Standard, "ddd";
    0xc2 DMul "dmul" f(1, 2), Standard, "ddd";
    0xc3 DEq "deq" f(1, 2), Standard, "udd";
    0xc4 DGe "dge" f(1, 2), Standard, "udd";
    0xc5 DLt "dlt" f(1, 2), Standard, "udd";
    0xc6 DNe "dne" f(1, 2), Standard, "udd";
    0xc7 DMov "dmov" f(1, 1), Standard, "dd";
    0xc8 DMovc "dmovc" f(1, 3), Standard, "dudd";
    0xc9 DtoF "dtof" f(1, 1), Standard, "fd";
    0xca FtoD "ftod" f(1, 1), Standard, "df";
    0xcb EvalSnapped "eval_snapped" f(1, 2), Standard, "ffi";
    0xcc EvalSampleIndex "eval_sample_index" f(1, 2), Standard, "ffi";
    0xcd EvalCentroid "eval_centroid" f(1, 1), Standard, "ff";
    0xce DclGsInstanceCount "dcl_gsinstances" d(K::GsInstanceCount), Decl, "";
    0xcf Abort "abort" f(0, 0), Standard, "";
    0xd0 DebugBreak "debug_break" f(0, 0), Standard, "";
    0xd2 DDiv "ddiv" f(1, 2), Standard, "ddd";
    0xd3 DFma "dfma" f(1, 3), Standard, "dddd";
    0xd4 DRcp "drcp" f(1, 1), Standard, "dd";
    0xd5 Msad "msad" f(1, 3), Standard, "uuuu";
    0xd6 DtoI "dtoi" f(1, 1), Standard, "id";
    0xd7 DtoU "dtou" f(1, 1), Standard, "ud";
    0xd8 ItoD "itod" f(1, 1), Standard, "di";
    0xd9 UtoD "utod" f(1, 1), Standard, "du";
    0xdb Gather4S "gather4_s" f(2, 3), Standard, "*uf**";
    0xdc Gather4CS "gather4_c_s" f(2, 4), Standard, "*uf**f";
    0xdd Gather4PoS "gather4_po_s" f(2, 4), Standard, "*ufi**";
    0xde Gather4PoCS "gather4_po_c_s" f(2, 5), Standard, "*ufi**f";
    0xdf LdS "ld_s" f(2, 2), Standard, "*ui*";
    0xe0 LdMsS "ldms_s" f(2, 3), Standard, "*ui*i";
    0xe1 LdUavTypedS "ld_uav_typed_s" f(2, 2), Standard, "*uu*";
    0xe2 LdRawS "ld_raw_s" f(2, 2), Standard, "*uu*";
    0xe3 LdStructuredS "ld_structured_s" f(2, 3), Standard, "*uuu*";
    0xe4 SampleLS "sample_l_s" f(2, 4), Standard, "*uf**f";
    0xe5 SampleCLzS "sample_c_lz_s" f(2, 4), Standard, "*uf**f";
    0xe6 SampleClampS "sample_cl_s" f(2, 4), Standard, "*uf**f";
    0xe7 SampleBClampS "sample_b_cl_s" f(2, 5), Standard, "*uf**ff";
    0xe8 SampleDClampS "sample_d_cl_s" f(2, 6), Standard, "*uf**fff";
    0xe9 SampleCClampS "sample_c_cl_s" f(2, 5), Standard, "*uf**ff";
    0xea CheckAccessFullyMapped "check_access_fully_mapped" f(1, 1), Standard, "uu";
}

impl Opcode {
    /// The opcode with this number, if it is defined (reserved numbers are not).
    pub fn from_u32(value: u32) -> Option<Self> {
        Some(TABLE.get(value as usize).copied().flatten()?.opcode)
    }

    /// The opcode number.
    pub const fn to_u32(self) -> u32 {
        self as u32
    }

    /// This opcode's table entry.
    pub fn info(self) -> &'static OpcodeInfo {
        match &TABLE[self as usize] {
            Some(info) => info,
            None => unreachable!("every Opcode variant has a table entry"),
        }
    }

    /// The mnemonic as fxc prints it (before suffixes).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The opcode whose base mnemonic is `name` (for an assembler).
    pub fn from_name(name: &str) -> Option<Self> {
        TABLE
            .iter()
            .flatten()
            .find(|i| i.name == name)
            .map(|i| i.opcode)
    }

    /// Whether this opcode declares something (including custom-data blocks).
    pub fn is_declaration(self) -> bool {
        self.info().is_declaration()
    }

    /// Whether this is a memory atomic (`atomic_*`, or `imm_atomic_*` returning the old value;
    /// not the counter's `imm_atomic_alloc`/`consume`).
    pub fn is_atomic(self) -> bool {
        use Opcode as O;
        matches!(
            self,
            O::AtomicAnd
                | O::AtomicOr
                | O::AtomicXor
                | O::AtomicCmpStore
                | O::AtomicIAdd
                | O::AtomicIMax
                | O::AtomicIMin
                | O::AtomicUMax
                | O::AtomicUMin
                | O::ImmAtomicIAdd
                | O::ImmAtomicAnd
                | O::ImmAtomicOr
                | O::ImmAtomicXor
                | O::ImmAtomicExch
                | O::ImmAtomicCmpExch
                | O::ImmAtomicIMax
                | O::ImmAtomicIMin
                | O::ImmAtomicUMax
                | O::ImmAtomicUMin
        )
    }
}

/// The table entry for an opcode number, if defined.
pub fn info(value: u32) -> Option<&'static OpcodeInfo> {
    TABLE.get(value as usize)?.as_ref()
}
