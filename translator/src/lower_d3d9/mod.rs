//! Lowering of Direct3D 9 (SM1.x–3.0) programs: a decoded `d3dbc::Program` becomes the same
//! IR module and [`Reflection`] the SM4 front end (`lower`) makes, so the passes and the
//! emitter are shared.
//!
//! A D3D9 program has no signatures and no resource declarations before 2.0, so lowering
//! starts with one scan ([`decls`]) that reads `dcl`/`def*`, finds every register the code
//! writes or reads, the constant sets and samplers it uses, and places them all in Vulkan at
//! once (the binding policies need every range together). The code is then lowered in order,
//! each opcode through the topic [`route::topic`] gives it: [`alu`], [`flow`], [`texture`],
//! [`ps1_tex`]. Registers are promotable variables ([`regs`]); stage inputs and outputs,
//! their locations and defaults are [`io`]; the float/int/bool constant sets [`consts`].
//! Every decision about D3D9 semantics is documented in `docs/d3d9.md`.

mod alu;
mod consts;
mod decls;
mod flow;
mod io;
mod prebuilt;
mod ps1_tex;
mod regs;
mod route;
#[cfg(test)]
mod rules_tests;
mod state;
mod state_code;
mod tail;
#[cfg(test)]
mod tests;
mod texture;

use crate::rules::d3d9::D3d9Rule;

use crate::d3dbc::{Instruction, Program, Stage, Version};
use crate::ir::builder::FnBuilder;
use crate::ir::{Module, Operand, VarId};
use crate::lower::{LowerError, ReflectionGlobals};
use crate::options::Options;
use crate::reflect::{Reflection, ShaderStage};
use route::Topic;

type R<T> = Result<T, LowerError>;

/// The stage of a D3D9 version token.
pub fn stage_of(version: Version) -> ShaderStage {
    match version.stage {
        Stage::Vertex => ShaderStage::Vertex,
        Stage::Pixel => ShaderStage::Pixel,
    }
}

/// State of the lowering of one D3D9 program.
pub(crate) struct D9<'p, 'm> {
    pub b: FnBuilder<'m>,
    pub prog: &'p Program,
    /// The instructions (comments dropped), in order.
    pub insts: Vec<&'p Instruction>,
    pub ver: Version,
    pub stage: ShaderStage,
    pub opts: &'p Options,
    /// Byte offset of the instruction being lowered (for errors).
    pub offset: usize,
    pub refl: &'m mut Reflection,
    pub refl_globals: ReflectionGlobals,
    /// Variables of the registers the code writes, by (type, number).
    pub regs: &'m mut regs::RegVars,
    pub decl: &'m mut decls::Decls,
    /// The constant sets' sizes (the runtime's limits, or grown when relaxed).
    pub limits: decls::Limits,
    pub io: &'m mut io::IoState,
    pub consts: consts::ConstState,
    pub tex: &'m mut texture::TexState,
    pub flow: flow::FlowState,
    /// The ps_1_x texture-addressing state (`texm*pad` rows, bump-environment buffer).
    pub ps1_state: ps1_tex::Ps1State,
    /// The render state compiled in (`crate::d3d9_state`).
    pub state: state::StateLowering,
    /// The caller's state choices, one look-up per item.
    pub state_table: crate::d3d9_state::StateTable<'p>,
    /// Stores held back while a co-issued pair is lowered (both read the registers as they
    /// were before the pair): `Some` while buffering.
    pub pending: Option<Vec<(VarId, Operand)>>,
    /// Placeholders of the state code made after the passes (`tail`).
    pub tails: &'m mut Vec<tail::Tail>,
    /// The prebuilt state code kept between translations (`prebuilt`).
    pub templates: &'m mut prebuilt::Templates,
}

/// What the D3D9 lowering keeps from one translation to the next (in the `Translator`):
/// the placeholders of the last module's state code, which [`expand_tails`] writes after
/// the passes.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    tails: tail::Tails,
    /// The state code prebuilt so far, for every later translation.
    templates: prebuilt::Templates,
    /// The lowering's maps and lists, emptied before the next program uses them (no program
    /// state crosses translations).
    decl: decls::Decls,
    regs: regs::RegVars,
    io: io::IoState,
    tex: texture::TexState,
    /// The decoded program's item list, emptied and refilled by the next decode.
    items: Vec<crate::d3dbc::Item>,
}

impl Kept {
    /// The largest decoded item list kept for the next program (longer ones are dropped, so
    /// one huge program does not hold its memory for the life of the translator).
    const MAX_KEPT_ITEMS: usize = 4096;

    /// The item list to decode the next program into.
    pub fn take_items(&mut self) -> Vec<crate::d3dbc::Item> {
        std::mem::take(&mut self.items)
    }

    /// Keeps a decoded program's item list for the next decode.
    pub fn keep_items(&mut self, mut items: Vec<crate::d3dbc::Item>) {
        if items.capacity() <= Self::MAX_KEPT_ITEMS {
            items.clear();
            self.items = items;
        }
    }

    /// Forgets the last module's placeholders (before any translation).
    pub fn clear(&mut self) {
        self.tails.clear();
        self.templates.trim();
    }
}

/// Writes the state code the lowering of `m` left as placeholders (`tail`) after the passes,
/// except the placeholders the emitter writes prebuilt code for (see [`Kept`]'s
/// [`Splices`](crate::emit::Splices)).
pub(crate) fn expand_tails(m: &mut Module, kept: &mut Kept, opts: &Options) {
    tail::expand(m, &mut kept.tails, &kept.templates, opts);
}

impl crate::emit::Splices for Kept {
    fn prebuilt(&self, index: u32) -> Option<&crate::emit::Prebuilt> {
        let tail = self.tails.list.get(index as usize)?;
        let t = tail.template.filter(|_| tail.spliced)?;
        Some(&self.templates.template(t).code)
    }
}

impl<'p, 'm> D9<'p, 'm> {
    pub fn unsupported(&self, what: impl Into<String>) -> LowerError {
        LowerError::unsupported(self.offset, what)
    }

    pub fn invalid(&self, what: impl Into<String>) -> LowerError {
        LowerError::invalid(self.offset, what)
    }

    /// Whether this is a pixel shader of version below 2.0 (ps_1_0–1_4).
    pub fn ps1(&self) -> bool {
        self.stage == ShaderStage::Pixel && self.ver.major < 2
    }

    /// The letter(s) of a register's name (`c`, `oD`, `oPos`).
    pub fn reg_letter(&self, r: crate::d3dbc::Register) -> &'static str {
        crate::d3dbc::register_name(r.ty, r.num, self.ver).0
    }

    /// A register's name (`c12`, `oPos`).
    pub fn reg_name(&self, r: crate::d3dbc::Register) -> String {
        let (p, numbered) = crate::d3dbc::register_name(r.ty, r.num, self.ver);
        if numbered {
            format!("{p}{}", crate::d3dbc::register_number(r))
        } else {
            p.to_string()
        }
    }

    /// Records that the module needs a Vulkan device feature.
    pub fn need_feature(&mut self, name: &'static str) {
        self.refl.need_feature(name);
    }

    /// Lowers one instruction through its topic.
    fn lower_instruction(&mut self, inst: &'p Instruction) -> R<()> {
        self.offset = inst.offset;
        match route::topic(inst.opcode) {
            Topic::Decl | Topic::Nop => Ok(()),
            Topic::Alu => self.alu(inst),
            Topic::Flow => self.flow_op(inst),
            Topic::Texture => self.texture_op(inst),
            Topic::Ps1Tex => self.ps1_tex(inst),
        }
    }

    /// Lowers instructions `range` in order, holding back the stores of an instruction and
    /// the co-issued one after it until both have read their sources.
    fn lower_range(&mut self, range: std::ops::Range<usize>) -> R<()> {
        let end = range.end;
        let mut i = range.start;
        while i < end {
            let inst = self.insts[i];
            let next_coissued = i + 1 < end && self.insts[i + 1].coissue;
            if next_coissued && self.pending.is_none() {
                self.pending = Some(Vec::new());
            }
            i = self.lower_at(i)?;
            if !next_coissued {
                self.flush_pending();
            }
            let _ = inst;
        }
        Ok(())
    }

    /// Lowers the instruction at index `i` (a `call` lowers its subroutine); returns the
    /// index of the next instruction.
    fn lower_at(&mut self, i: usize) -> R<usize> {
        let inst = self.insts[i];
        self.lower_instruction(inst)?;
        Ok(i + 1)
    }
}

/// Lowers a decoded D3D9 program to an IR module and its reflection, written into `refl` (an
/// empty one: its stage is set here), and the reflection's globals, in `globals` (empty lists,
/// their allocations reused).
///
/// `reuse`: a module from an earlier translation whose tables are reset and refilled (fewer
/// allocations); `None` makes a new one.
pub fn lower(
    prog: &Program,
    opts: &Options,
    reuse: Option<Box<Module>>,
    kept: &mut Kept,
    refl: &mut Reflection,
    globals: ReflectionGlobals,
) -> R<(Box<Module>, ReflectionGlobals)> {
    kept.clear();
    let stage = stage_of(prog.version);
    // Relaxed limits: a 2_0 program may use the 2_x instructions.
    let mut checked = prog.version;
    if opts.d3d9.relaxed_limits && checked.major == 2 && checked.minor == 0 {
        checked.minor = 1;
    }
    prog.check_opcodes_as(checked).map_err(|e| {
        LowerError::invalid(e.offset, format!("{}", e.kind))
            .with_rule(D3d9Rule::OpcodeInVersion.name())
    })?;
    let mut module = Module::reuse_or_new(reuse, stage);
    module.keep_names = opts.debug_names;
    let mut insts: Vec<&Instruction> = Vec::with_capacity(prog.items.len());
    insts.extend(prog.instructions());
    // The state kept from the last translation, emptied in place and borrowed by the lowering.
    kept.decl.clear();
    kept.regs.clear();
    kept.io.clear();
    kept.tex.samplers.clear();
    refl.stage = stage;
    // The lowering state lives in this block and is dropped where it lies at its end (a
    // `drop(l)` call would first copy the whole struct).
    let (func, globals) = {
        let mut l = D9 {
            b: FnBuilder::new(&mut module, insts.len() * 8 + 64),
            prog,
            ver: prog.version,
            insts,
            stage,
            opts,
            offset: 0,
            refl,
            refl_globals: globals,
            regs: &mut kept.regs,
            decl: &mut kept.decl,
            limits: decls::Limits::of(stage, prog.version, &opts.d3d9),
            io: &mut kept.io,
            consts: consts::ConstState::default(),
            tex: &mut kept.tex,
            flow: flow::FlowState::default(),
            ps1_state: ps1_tex::Ps1State::default(),
            state: state::StateLowering::default(),
            state_table: crate::d3d9_state::StateTable::new(&opts.d3d9.state),
            pending: None,
            tails: &mut kept.tails.list,
            templates: &mut kept.templates,
        };
        if stage == ShaderStage::Pixel {
            l.b.m
                .execution_mode(spirv::ExecutionMode::OriginUpperLeft, &[]);
        }
        if opts.float_controls2 {
            // D3D9 has no precise operations: every one may be refactored.
            crate::lower::declare_float_controls2(l.b.m, l.refl, false);
        }
        l.check_state()?;
        l.scan()?;
        l.declare()?;
        l.lower_main()?;
        l.texm_complete()?;
        if let Some(info) = l.refl.d3d9.as_mut() {
            info.state = std::mem::take(&mut l.state.read);
            info.state.sort_by_key(|e| e.item);
        }
        let lowered = crate::lower::finish_lowering(&mut l.b, l.refl, &mut l.refl_globals)?;
        kept.tails.push = l.state.push.take();
        lowered
    };
    module.functions.push(func);
    Ok((module, globals))
}
