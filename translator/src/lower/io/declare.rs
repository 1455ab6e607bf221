//! Recording the I/O declarations (`dcl_input*`, `dcl_output*`, `dcl_indexrange`,
//! `dcl_stream`) in [`IoState`]: which registers of which file are declared, with what mask,
//! system value, interpolation, vertex count and stream. No globals are made here; that waits
//! until every declaration is read ([`super::interface`]), since several declarations and
//! signature elements can share one register.

use super::{IndexRange, IoFile, IoReg, IoState};
use crate::lower::{LowerError, R};
use crate::reflect::ShaderStage;
use crate::sm4::{Declaration, InstRef, OperandType};

fn reg_slot(regs: &mut Vec<IoReg>, reg: u32) -> Option<&mut IoReg> {
    if reg >= 4096 {
        return None;
    }
    if regs.len() <= reg as usize {
        regs.resize(reg as usize + 1, IoReg::default());
    }
    Some(&mut regs[reg as usize])
}

/// The register an I/O operand names and, for per-vertex operands (`v[3][1]`, `vicp[4][0]`),
/// the vertex count: (register, vertex count or 0). Both must be immediate.
fn io_register(op: &crate::sm4::Operand) -> Option<(u32, u32)> {
    let imm = |i: usize| -> Option<u32> {
        op.index(i)?
            .as_immediate()
            .and_then(|v| u32::try_from(v).ok())
    };
    match op.index_dim() {
        1 => Some((imm(0)?, 0)),
        2 => Some((imm(1)?, imm(0)?)),
        _ => None,
    }
}

impl IoState {
    /// Records an I/O declaration; false when `inst` is not one.
    pub fn declaration(&mut self, inst: InstRef<'_>, stage: ShaderStage) -> R<bool> {
        let Some(decl) = inst.decl() else {
            return Ok(false);
        };
        if let Declaration::Stream = decl {
            let stream = inst.operands.first().and_then(|o| o.register());
            match stream {
                Some(s) if s < 4 && stage == ShaderStage::Geometry => {
                    self.current_stream = s as u8;
                    self.declared_streams |= 1 << s;
                }
                _ => {
                    return Err(LowerError::invalid(
                        inst.offset,
                        "dcl_stream of a stream other than m0..m3",
                    ));
                }
            }
            return Ok(true);
        }
        if let Declaration::IndexRange { count } = decl {
            let Some(op) = inst.operands.first() else {
                return Err(LowerError::invalid(
                    inst.offset,
                    "dcl_indexrange without a register",
                ));
            };
            let Some((reg, _)) = io_register(op) else {
                return Err(LowerError::unsupported(
                    inst.offset,
                    "dcl_indexrange of a relatively addressed register",
                ));
            };
            if *count == 0 || *count > 32 {
                return Err(LowerError::invalid(
                    inst.offset,
                    format!("index range of {count} registers"),
                ));
            }
            let range = IndexRange {
                first: reg,
                count: *count,
                array: None,
            };
            match op.ty {
                OperandType::Input | OperandType::InputControlPoint => {
                    self.input_ranges.push(range)
                }
                OperandType::Output if self.patch_phase => self.patch_output_ranges.push(range),
                // Output control points are read per register through the output arrays.
                OperandType::Output | OperandType::OutputControlPoint => {
                    self.output_ranges.push(range)
                }
                OperandType::InputPatchConstant => self.patch_input_ranges.push(range),
                _ => {
                    return Err(LowerError::unsupported(
                        inst.offset,
                        "dcl_indexrange of this register file",
                    ));
                }
            }
            return Ok(true);
        }
        let is_input = matches!(
            decl,
            Declaration::Input
                | Declaration::InputSgv(_)
                | Declaration::InputSiv(_)
                | Declaration::InputPs(_)
                | Declaration::InputPsSgv(..)
                | Declaration::InputPsSiv(..)
        );
        let is_output = matches!(
            decl,
            Declaration::Output | Declaration::OutputSgv(_) | Declaration::OutputSiv(_)
        );
        if !is_input && !is_output {
            return Ok(false);
        }
        let Some(op) = inst.operands.first() else {
            return Err(LowerError::invalid(
                inst.offset,
                "I/O declaration without a register",
            ));
        };
        let file = match op.ty {
            OperandType::Input | OperandType::InputControlPoint => IoFile::Input,
            OperandType::Output => self.output_file(),
            // A hull shader's join phase reads the fork phases' outputs (no variables).
            OperandType::InputPatchConstant if stage == ShaderStage::Hull => return Ok(true),
            OperandType::InputPatchConstant => IoFile::PatchInput,
            // Read through the control-point output arrays; fork/join instance IDs are
            // provided by the phase loop.
            OperandType::OutputControlPoint
            | OperandType::InputForkInstanceId
            | OperandType::InputJoinInstanceId => return Ok(true),
            other => {
                if !self.special_decls.contains(&other) {
                    self.special_decls.push(other);
                }
                return Ok(true);
            }
        };
        let Some((reg, vertices)) = io_register(op) else {
            return Err(LowerError::unsupported(
                inst.offset,
                "I/O declaration of a relatively addressed register",
            ));
        };
        if vertices > 32 {
            return Err(LowerError::invalid(
                inst.offset,
                format!("per-vertex register array of {vertices} vertices (at most 32)"),
            ));
        }
        let stream = self.current_stream;
        let Some(slot) = reg_slot(self.file_mut(file), reg) else {
            return Err(LowerError::invalid(
                inst.offset,
                format!("register {reg} out of range"),
            ));
        };
        slot.declared = true;
        slot.mask |= op.mask();
        slot.array_len = slot.array_len.max(vertices);
        if file == IoFile::Output && stage == ShaderStage::Geometry {
            slot.streams |= 1 << stream;
        }
        if let Some(n) = decl.system_name() {
            slot.sysval = Some(n);
            slot.sysval_mask |= op.mask();
        }
        if let Some(m) = decl.interpolation() {
            slot.interp = Some(m);
        }
        Ok(true)
    }
}
