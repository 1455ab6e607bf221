//! A readable dump of IR functions, for debugging passes (`dxbc cfg`, failing tests).

use std::fmt::{self, Write};

use super::{Function, Merge, Operand, Terminator};

fn operand(o: &Operand) -> String {
    match o {
        Operand::Value(v) => format!("%{}", v.0),
        Operand::Const(c) => format!("c{}", c.0),
        Operand::Global(g) => format!("g{}", g.0),
        Operand::Var(v) => format!("var{}", v.0),
        Operand::Block(b) => format!("B{}", b.0),
        Operand::Lit(l) => format!("#{l}"),
    }
}

/// Writes `f` as text: one line per instruction, blocks in layout order.
pub fn write_function(out: &mut impl Write, f: &Function) -> fmt::Result {
    for &b in &f.layout {
        let block = f.block(b);
        write!(out, "B{}:", b.0)?;
        match block.merge {
            Merge::None => {}
            Merge::Selection(m) => write!(out, "  ; selection merge B{}", m.0)?,
            Merge::Loop {
                merge,
                continue_target,
            } => write!(
                out,
                "  ; loop merge B{} continue B{}",
                merge.0, continue_target.0
            )?,
        }
        writeln!(out)?;
        for &v in &block.insts {
            let inst = f.inst(v);
            let args: Vec<String> = inst.args.iter().map(operand).collect();
            if inst.has_result() {
                writeln!(
                    out,
                    "    %{} = {:?} t{} {}",
                    v.0,
                    inst.op,
                    inst.ty.0,
                    args.join(" ")
                )?;
            } else {
                writeln!(out, "    {:?} {}", inst.op, args.join(" "))?;
            }
        }
        match &block.term {
            Terminator::Open => writeln!(out, "    <open>")?,
            Terminator::Branch(t) => writeln!(out, "    br B{}", t.0)?,
            Terminator::CondBranch {
                cond,
                on_true,
                on_false,
            } => writeln!(
                out,
                "    br_if {} B{} B{}",
                operand(cond),
                on_true.0,
                on_false.0
            )?,
            Terminator::Switch {
                selector,
                default,
                cases,
            } => {
                write!(
                    out,
                    "    switch {} default B{}",
                    operand(selector),
                    default.0
                )?;
                for (v, t) in cases {
                    write!(out, " {v}:B{}", t.0)?;
                }
                writeln!(out)?;
            }
            Terminator::Return => writeln!(out, "    ret")?,
            Terminator::Unreachable => writeln!(out, "    unreachable")?,
        }
    }
    Ok(())
}
