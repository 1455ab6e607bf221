//! A deliberate miscompile for testing the differential runner itself (`--inject-miscompile`):
//! it edits our translator's SPIR-V after translation so that a known output is wrong, and
//! the run must then report a difference. Only for tests; it never touches vkd3d's module.
//!
//! `swap-output`: before every return of the entry point and every vertex a geometry shader
//! emits, the first located output that is a vector of two or more components gets its first
//! two components swapped.
//! `crash`: our worker aborts on every shader, to test that the run survives a crashed side.

use rspirv::binary::Assemble;
use rspirv::dr::{Instruction, Operand};
use spirv::{Decoration, Op, StorageClass};

/// Which miscompile to inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inject {
    SwapOutput,
    Crash,
}

impl Inject {
    pub fn parse(s: &str) -> Result<Inject, String> {
        match s {
            "swap-output" => Ok(Inject::SwapOutput),
            "crash" => Ok(Inject::Crash),
            _ => Err(format!(
                "unknown miscompile '{s}' (known: swap-output, crash)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Inject::SwapOutput => "swap-output",
            Inject::Crash => "crash",
        }
    }

    /// The edited module.
    pub fn apply(self, words: &[u32]) -> Result<Vec<u32>, String> {
        if self == Inject::Crash {
            eprintln!("vk-runner diff: --inject-miscompile crash: aborting the worker");
            std::process::abort();
        }
        let mut m = rspirv::dr::load_words(words).map_err(|e| format!("SPIR-V: {e}"))?;
        let ep = m.entry_points.first().ok_or("no entry point")?;
        let Some(Operand::IdRef(main)) = ep.operands.get(1).cloned() else {
            return Err("bad entry point".into());
        };
        let interface: Vec<u32> = ep
            .operands
            .iter()
            .skip(3)
            .filter_map(|o| match o {
                Operand::IdRef(v) => Some(*v),
                _ => None,
            })
            .collect();
        let located = |id: u32| {
            m.annotations.iter().any(|a| {
                a.class.opcode == Op::Decorate
                    && a.operands.first() == Some(&Operand::IdRef(id))
                    && a.operands.get(1) == Some(&Operand::Decoration(Decoration::Location))
            })
        };
        let def = |id: u32| {
            m.types_global_values
                .iter()
                .find(|i| i.result_id == Some(id))
        };
        // (variable, vector type, component count)
        let mut target = None;
        for v in interface {
            let Some(var) = def(v) else { continue };
            if var.class.opcode != Op::Variable
                || var.operands.first() != Some(&Operand::StorageClass(StorageClass::Output))
                || !located(v)
            {
                continue;
            }
            let Some(ptr) = var.result_type.and_then(def) else {
                continue;
            };
            let Some(Operand::IdRef(pointee)) = ptr.operands.get(1) else {
                continue;
            };
            let Some(ty) = def(*pointee) else { continue };
            if ty.class.opcode == Op::TypeVector
                && let Some(Operand::LiteralBit32(n)) = ty.operands.get(1)
                && *n >= 2
            {
                target = Some((v, *pointee, *n));
                break;
            }
        }
        let (var, vec_ty, n) = target.ok_or("no located vector output to swap")?;
        let mut next = m.header.as_ref().map_or(1, |h| h.bound);
        let swap = |next: &mut u32| {
            let (loaded, swapped) = (*next, *next + 1);
            *next += 2;
            let mut shuffle = vec![
                Operand::IdRef(loaded),
                Operand::IdRef(loaded),
                Operand::LiteralBit32(1),
                Operand::LiteralBit32(0),
            ];
            shuffle.extend((2..n).map(Operand::LiteralBit32));
            [
                Instruction::new(
                    Op::Load,
                    Some(vec_ty),
                    Some(loaded),
                    vec![Operand::IdRef(var)],
                ),
                Instruction::new(Op::VectorShuffle, Some(vec_ty), Some(swapped), shuffle),
                Instruction::new(
                    Op::Store,
                    None,
                    None,
                    vec![Operand::IdRef(var), Operand::IdRef(swapped)],
                ),
            ]
        };
        // Before every return of the entry point, and before every vertex a geometry shader
        // emits (in any function).
        for func in &mut m.functions {
            let entry = func.def.as_ref().and_then(|d| d.result_id) == Some(main);
            for block in &mut func.blocks {
                let mut i = 0;
                while i < block.instructions.len() {
                    let op = block.instructions[i].class.opcode;
                    let at = matches!(op, Op::EmitVertex | Op::EmitStreamVertex)
                        || (entry && op == Op::Return);
                    if at {
                        block.instructions.splice(i..i, swap(&mut next));
                        i += 3;
                    }
                    i += 1;
                }
            }
        }
        if let Some(h) = m.header.as_mut() {
            h.bound = next;
        }
        Ok(m.assemble())
    }
}
