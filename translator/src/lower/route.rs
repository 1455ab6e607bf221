//! The one routing point from opcode to lowering topic.
//!
//! Every opcode of the SM4/5 table is routed here, by one exhaustive `match` (no wildcard arm,
//! so a new opcode in the table does not compile until it is given a topic), to the module that
//! lowers it, or is explicitly unsupported. `Lowerer::lower_instruction` dispatches on the
//! result; each topic's handler lowers what is routed to it. A test walks `ALL_OPCODES`.

use crate::sm4::Opcode;

/// Which part of lowering handles an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Topic {
    /// Stage inputs and outputs, streams and index ranges: `io` records them.
    IoDecl,
    /// Resources, samplers, constant buffers, UAVs, shared memory, indexable temps, immediate constant buffers: `resources`.
    ResourceDecl,
    /// Stage-wide facts (temps, flags, thread group, geometry and tessellation modes): `Lowerer::stage_declaration`, `geometry`, `tess`.
    StageDecl,
    /// Structured control flow, calls, returns, discard: `flow`.
    Flow,
    /// Geometry-shader vertex emission and strip cuts: `geometry`.
    Geometry,
    /// Float and integer arithmetic, comparisons, moves, derivatives: `alu`.
    Alu,
    /// Bit manipulation and carry arithmetic: `alu_bits`.
    AluBits,
    /// Conversions between float, integer and half: `alu_convert`.
    AluConvert,
    /// Double-precision arithmetic and conversions: `alu_double`.
    AluDouble,
    /// Sampling, gathers, texel loads, queries and pull-model interpolation: `texture`, `query`, `eval`.
    Texture,
    /// Raw, structured and typed UAV memory, atomics, counters, barriers: `memory`.
    Memory,
    /// Hull-shader phase markers: `hull` splits the program at them before lowering, so they never reach the router.
    HullPhase,
    /// Class linkage: function bodies, function tables, interfaces: `classes`.
    ClassDecl,
    /// Nothing to lower.
    Nop,
    /// Refused with an error naming the opcode (`abort`, `debug_break`).
    Unsupported,
}

impl Topic {
    /// Whether the topic takes declarations (as opposed to instructions).
    pub(crate) fn is_declaration(self) -> bool {
        matches!(
            self,
            Topic::IoDecl | Topic::ResourceDecl | Topic::StageDecl | Topic::ClassDecl
        )
    }
}

/// The topic that lowers `op`.
pub(crate) fn topic(op: Opcode) -> Topic {
    use Opcode as O;
    match op {
        O::DclIndexRange
        | O::DclInput
        | O::DclInputSgv
        | O::DclInputSiv
        | O::DclInputPs
        | O::DclInputPsSgv
        | O::DclInputPsSiv
        | O::DclOutput
        | O::DclOutputSgv
        | O::DclOutputSiv
        | O::DclStream => Topic::IoDecl,
        O::CustomData
        | O::DclResource
        | O::DclConstantBuffer
        | O::DclSampler
        | O::DclIndexableTemp
        | O::DclUavTyped
        | O::DclUavRaw
        | O::DclUavStructured
        | O::DclTgsmRaw
        | O::DclTgsmStructured
        | O::DclResourceRaw
        | O::DclResourceStructured => Topic::ResourceDecl,
        O::DclGsOutputPrimitiveTopology
        | O::DclGsInputPrimitive
        | O::DclMaxOutputVertexCount
        | O::DclTemps
        | O::DclGlobalFlags
        | O::DclInputControlPointCount
        | O::DclOutputControlPointCount
        | O::DclTessDomain
        | O::DclTessPartitioning
        | O::DclTessOutputPrimitive
        | O::DclHsMaxTessFactor
        | O::DclHsForkPhaseInstanceCount
        | O::DclHsJoinPhaseInstanceCount
        | O::DclThreadGroup
        | O::DclGsInstanceCount => Topic::StageDecl,
        O::Break
        | O::Breakc
        | O::Call
        | O::Callc
        | O::InterfaceCall
        | O::Case
        | O::Continue
        | O::Continuec
        | O::Default
        | O::Discard
        | O::Else
        | O::EndIf
        | O::EndLoop
        | O::EndSwitch
        | O::If
        | O::Label
        | O::Loop
        | O::Ret
        | O::Retc
        | O::Switch => Topic::Flow,
        O::Cut | O::Emit | O::EmitThenCut | O::EmitStream | O::CutStream | O::EmitThenCutStream => {
            Topic::Geometry
        }
        O::Add
        | O::And
        | O::DerivRtx
        | O::DerivRty
        | O::Div
        | O::Dp2
        | O::Dp3
        | O::Dp4
        | O::Eq
        | O::Exp
        | O::Frc
        | O::Ge
        | O::IAdd
        | O::IEq
        | O::IGe
        | O::ILt
        | O::IMad
        | O::IMax
        | O::IMin
        | O::IMul
        | O::INe
        | O::INeg
        | O::Log
        | O::Lt
        | O::Mad
        | O::Min
        | O::Max
        | O::Mov
        | O::Movc
        | O::Mul
        | O::Ne
        | O::Not
        | O::Or
        | O::RoundNe
        | O::RoundNi
        | O::RoundPi
        | O::RoundZ
        | O::Rsq
        | O::Sqrt
        | O::SinCos
        | O::UDiv
        | O::ULt
        | O::UGe
        | O::UMul
        | O::UMad
        | O::UMax
        | O::UMin
        | O::Xor
        | O::DerivRtxCoarse
        | O::DerivRtxFine
        | O::DerivRtyCoarse
        | O::DerivRtyFine
        | O::Rcp
        | O::UAddc
        | O::USubb
        | O::Swapc => Topic::Alu,
        O::IShl
        | O::IShr
        | O::UShr
        | O::CountBits
        | O::FirstBitHi
        | O::FirstBitLo
        | O::FirstBitShi
        | O::UBfe
        | O::IBfe
        | O::Bfi
        | O::BfRev
        | O::Msad => Topic::AluBits,
        O::FtoI | O::FtoU | O::ItoF | O::UtoF | O::F32toF16 | O::F16toF32 => Topic::AluConvert,
        O::DAdd
        | O::DMax
        | O::DMin
        | O::DMul
        | O::DEq
        | O::DGe
        | O::DLt
        | O::DNe
        | O::DMov
        | O::DMovc
        | O::DtoF
        | O::FtoD
        | O::DDiv
        | O::DFma
        | O::DRcp
        | O::DtoI
        | O::DtoU
        | O::ItoD
        | O::UtoD => Topic::AluDouble,
        O::Ld
        | O::LdMs
        | O::ResInfo
        | O::Sample
        | O::SampleC
        | O::SampleCLz
        | O::SampleL
        | O::SampleD
        | O::SampleB
        | O::Lod
        | O::Gather4
        | O::SamplePos
        | O::SampleInfo
        | O::BufInfo
        | O::Gather4C
        | O::Gather4Po
        | O::Gather4PoC
        | O::EvalSnapped
        | O::EvalSampleIndex
        | O::EvalCentroid
        | O::Gather4S
        | O::Gather4CS
        | O::Gather4PoS
        | O::Gather4PoCS
        | O::LdS
        | O::LdMsS
        | O::SampleLS
        | O::SampleCLzS
        | O::SampleClampS
        | O::SampleBClampS
        | O::SampleDClampS
        | O::SampleCClampS
        | O::CheckAccessFullyMapped => Topic::Texture,
        O::LdUavTyped
        | O::StoreUavTyped
        | O::LdRaw
        | O::StoreRaw
        | O::LdStructured
        | O::StoreStructured
        | O::AtomicAnd
        | O::AtomicOr
        | O::AtomicXor
        | O::AtomicCmpStore
        | O::AtomicIAdd
        | O::AtomicIMax
        | O::AtomicIMin
        | O::AtomicUMax
        | O::AtomicUMin
        | O::ImmAtomicAlloc
        | O::ImmAtomicConsume
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
        | O::Sync
        | O::LdUavTypedS
        | O::LdRawS
        | O::LdStructuredS => Topic::Memory,
        O::HsDecls | O::HsControlPointPhase | O::HsForkPhase | O::HsJoinPhase => Topic::HullPhase,
        O::Nop => Topic::Nop,
        O::DclFunctionBody | O::DclFunctionTable | O::DclInterface => Topic::ClassDecl,
        O::Abort | O::DebugBreak => Topic::Unsupported,
    }
}

#[cfg(test)]
mod tests {
    use super::{Topic, topic};
    use crate::sm4::Opcode;
    use crate::sm4::opcodes::ALL_OPCODES;

    /// Every opcode routes to exactly one topic (the `match` is exhaustive, so each has one);
    /// declarations go to a declaration topic and instructions to an instruction topic; what is
    /// unsupported is exactly the list below, so adding support moves an opcode on purpose.
    #[test]
    fn every_opcode_routes_to_one_topic() {
        let mut unsupported = Vec::new();
        for &op in ALL_OPCODES {
            let t = topic(op);
            if t == Topic::Unsupported {
                unsupported.push(op);
                continue;
            }
            assert_eq!(
                t.is_declaration(),
                op.is_declaration(),
                "{op:?} routes to {t:?}"
            );
        }
        use Opcode as O;
        assert_eq!(unsupported, [O::Abort, O::DebugBreak]);
        // Spot checks that pin a topic per group.
        for (op, t) in [
            (O::DclInput, Topic::IoDecl),
            (O::CustomData, Topic::ResourceDecl),
            (O::DclThreadGroup, Topic::StageDecl),
            (O::Switch, Topic::Flow),
            (O::InterfaceCall, Topic::Flow),
            (O::DclInterface, Topic::ClassDecl),
            (O::EmitStream, Topic::Geometry),
            (O::Mad, Topic::Alu),
            (O::Bfi, Topic::AluBits),
            (O::F32toF16, Topic::AluConvert),
            (O::DFma, Topic::AluDouble),
            (O::SampleCClampS, Topic::Texture),
            (O::ImmAtomicCmpExch, Topic::Memory),
            (O::HsForkPhase, Topic::HullPhase),
            (O::Nop, Topic::Nop),
        ] {
            assert_eq!(topic(op), t, "{op:?}");
        }
    }
}
