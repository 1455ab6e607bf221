//! The one routing point from a D3D9 opcode to its lowering topic.
//!
//! Every opcode of the D3D9 table (`d3dbc::opcodes`) is routed here by one exhaustive `match`
//! (no wildcard arm: a new opcode does not compile until it has a topic) to the module that
//! lowers it. `D9::lower_instruction` dispatches on the result. A test walks every opcode.

use crate::d3dbc::Opcode;

/// Which part of the D3D9 lowering handles an opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Topic {
    /// `dcl`, `def`, `defi`, `defb`: read before the code by `decls` (no code of their own).
    Decl,
    /// Arithmetic, moves, comparisons, `setp`, `cnd`/`cmp`, matrix ops, derivatives: `alu`.
    Alu,
    /// Structured flow, loops, subroutines, `ret`: `flow`.
    Flow,
    /// `texld` (2.0+ and ps_1_4), `texldp/b/d/l`, `texkill`: `texture`.
    Texture,
    /// The ps_1_0–1_4 texture-addressing ops (`tex`, `texcoord`/`texcrd`, `texbem`, `texm3x*`,
    /// `texreg2*`, `texdp3*`, `texdepth`, `bem`): `ps1_tex`.
    Ps1Tex,
    /// Nothing to lower (`nop`, `phase`).
    Nop,
}

/// The topic that lowers `op`.
pub(crate) fn topic(op: Opcode) -> Topic {
    use Opcode as O;
    match op {
        O::Dcl | O::Def | O::DefI | O::DefB => Topic::Decl,
        O::Nop | O::Phase => Topic::Nop,
        O::Mov
        | O::Add
        | O::Sub
        | O::Mad
        | O::Mul
        | O::Rcp
        | O::Rsq
        | O::Dp3
        | O::Dp4
        | O::Min
        | O::Max
        | O::Slt
        | O::Sge
        | O::Exp
        | O::Log
        | O::Lit
        | O::Dst
        | O::Lrp
        | O::Frc
        | O::M4x4
        | O::M4x3
        | O::M3x4
        | O::M3x3
        | O::M3x2
        | O::Pow
        | O::Crs
        | O::Sgn
        | O::Abs
        | O::Nrm
        | O::SinCos
        | O::MovA
        | O::ExpP
        | O::LogP
        | O::Cnd
        | O::Cmp
        | O::Dp2Add
        | O::Dsx
        | O::Dsy
        | O::SetP => Topic::Alu,
        O::Call
        | O::CallNz
        | O::Loop
        | O::Ret
        | O::EndLoop
        | O::Label
        | O::Rep
        | O::EndRep
        | O::If
        | O::IfC
        | O::Else
        | O::EndIf
        | O::Break
        | O::BreakC
        | O::BreakP => Topic::Flow,
        // `tex` is `texld` from ps_1_4 on; `texture` hands the ps_1_0–1_3 form to `ps1_tex`.
        O::Tex | O::TexLdd | O::TexLdl | O::TexKill => Topic::Texture,
        O::TexCoord
        | O::TexBem
        | O::TexBemL
        | O::TexReg2Ar
        | O::TexReg2Gb
        | O::TexReg2Rgb
        | O::TexM3x2Pad
        | O::TexM3x2Tex
        | O::TexM3x3Pad
        | O::TexM3x3Tex
        | O::TexM3x3Spec
        | O::TexM3x3VSpec
        | O::TexM3x3
        | O::TexDp3Tex
        | O::TexDp3
        | O::TexDepth
        | O::TexM3x2Depth
        | O::Bem => Topic::Ps1Tex,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d3dbc::opcodes::OPCODES;

    #[test]
    fn every_opcode_routes_to_one_topic() {
        let mut seen = std::collections::HashMap::new();
        for info in OPCODES {
            *seen.entry(topic(info.opcode)).or_insert(0) += 1;
        }
        // Every opcode the table defines has a topic; the counts pin the routing.
        assert_eq!(seen.values().sum::<i32>() as usize, OPCODES.len());
        assert_eq!(seen[&Topic::Decl], 4);
        assert_eq!(seen[&Topic::Nop], 2);
        assert_eq!(seen[&Topic::Flow], 15);
        assert_eq!(seen[&Topic::Texture], 4);
        assert_eq!(seen[&Topic::Ps1Tex], 18);
        assert_eq!(seen[&Topic::Alu], 39);
        // ps_1_x texture addressing goes to its own topic, whatever else changes.
        for op in [
            Opcode::TexBem,
            Opcode::TexM3x3Spec,
            Opcode::TexDepth,
            Opcode::Bem,
        ] {
            assert_eq!(topic(op), Topic::Ps1Tex);
        }
    }
}
