//! The ps_1_0–1_4 texture-addressing instructions: `tex`, `texcoord`/`texcrd`, `texld` of
//! ps_1_4, `texbem`/`texbeml`/`bem`, `texreg2ar/gb/rgb`, `texm3x2pad/tex/depth`,
//! `texm3x3pad/tex/spec/vspec`, `texm3x3`, `texdp3`/`texdp3tex`, `texdepth`.
//!
//! They exist only before shader model 2.0 and name their texture stage by their destination
//! register; the samplers they use are found by the scan (`decls::ps1_samples`) and declared
//! like any `s#` (`texture`). Not lowered yet: each is refused naming the instruction.

use super::{D9, R};
use crate::d3dbc::Instruction;

impl<'p, 'm> D9<'p, 'm> {
    /// Lowers one ps_1_x texture-addressing instruction.
    pub(super) fn ps1_tex(&mut self, inst: &Instruction) -> R<()> {
        Err(self.unsupported(format!(
            "instruction {} of {}",
            inst.opcode.name(self.ver),
            self.ver
        )))
    }
}
