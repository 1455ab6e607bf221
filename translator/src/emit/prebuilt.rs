//! Prebuilt code: SPIR-V words recorded once and written into many modules in place of a
//! placeholder, with the ids that differ per module patched in.
//!
//! A front end that writes the same code into many modules (the D3D9 render-state code after a
//! program, `lower_d3d9::tail`) builds it once in a scratch module and records it here
//! ([`record`]): its instructions become words, and every word that names something of the
//! module (a type, a constant, a global, a value the code reads) or something the code makes
//! (its results, blocks and specialization constants) becomes a patch. A module then holds a
//! placeholder (`Op::Nop`) whose operands name, in the module, what the recorded code named in
//! the scratch module ([`Prebuilt::externals`]); the emitter copies the words in its place and
//! fills the patches (`Emitter::splice`), which costs a copy instead of building, passing and
//! emitting the same instructions again in every module.

use spirv::{Op, Word};

use crate::ir::{
    Const, ConstId, Function, GlobalId, Merge, Module, Operand, Terminator, TypeId, ValueId,
};

/// Recorded code: the words it adds to the function body, the global declarations and the
/// annotations, and the patches that make them a module's.
#[derive(Debug, Default)]
pub(crate) struct Prebuilt {
    pub body: Vec<Word>,
    pub globals: Vec<Word>,
    pub annotations: Vec<Word>,
    /// The patches of `body`, `globals` and `annotations`, in that order.
    patches: [Patches; 3],
    /// Ids the code makes (results, blocks, specialization constants), numbered from 0.
    pub locals: u32,
    /// Whether the code has `GLSL.std.450` instructions.
    pub uses_glsl: bool,
    /// Whether the code opens blocks of its own: the placeholder's block then goes on in the
    /// last of them.
    pub opens_blocks: bool,
    /// What each placeholder operand after the front end's literal stands for in the scratch
    /// module, in order: the values the code reads first (`inputs`), then the types, constants
    /// and globals it names.
    pub externals: Vec<External>,
    /// The specialization constants the code declares itself (`SpecId`s, in order), which no
    /// other code of a module it is written into may declare.
    pub spec_ids: Vec<u32>,
}

/// The words of one section of [`Prebuilt`] that are filled per module, kept apart by kind so
/// that writing a copy is two tight loops: a local's word holds its number, to which the
/// copy's first local id is added; any other word is taken from the copy's table of ids (the
/// placeholder's result, the GLSL.std.450 import, then the placeholder's operands).
#[derive(Debug, Default)]
struct Patches {
    /// Where a local's number is.
    locals: Vec<u32>,
    /// Where a word of the table goes, and its index in the table.
    table: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Body = 0,
    Globals = 1,
    Annotations = 2,
}

/// What goes in a patched word.
#[derive(Debug, Clone, Copy)]
enum Fill {
    /// The code's own id number n.
    Local(u32),
    /// The id of the placeholder's operand n (after its first, the front end's literal).
    External(u32),
    /// The placeholder's result id.
    Result,
    /// The `GLSL.std.450` import.
    Glsl,
}

/// What a placeholder operand stands for in the scratch module the code was recorded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum External {
    /// A value the code reads (one of `record`'s `inputs`).
    Input(ValueId),
    /// A type: the placeholder operand is `Operand::Lit(type id)`.
    Type(TypeId),
    Const(ConstId),
    Global(GlobalId),
}

/// Why code could not be recorded (it uses something [`record`] does not write; the front end
/// then builds it in each module instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotRecordable(pub &'static str);

/// The words being recorded.
struct Recorder<'a> {
    m: &'a Module,
    p: Prebuilt,
    /// Per scratch value: its fill once defined (`None` before).
    values: Vec<Option<Fill>>,
    /// Per scratch block: its label's local number.
    labels: Vec<u32>,
    /// Per scratch constant: its fill once named.
    consts: Vec<Option<Fill>>,
}

/// Records the code of `f`, a function of the scratch module `m` whose first block begins with
/// the instructions `inputs` (stand-ins for the values the code reads, which are not
/// recorded); the code ends in the last block of the layout, left open. `result`, when given,
/// is the value that becomes the placeholder's result.
pub(crate) fn record(
    m: &Module,
    f: &Function,
    inputs: &[ValueId],
    result: Option<ValueId>,
) -> Result<Prebuilt, NotRecordable> {
    let mut r = Recorder {
        m,
        p: Prebuilt::default(),
        values: vec![None; f.insts.len()],
        labels: vec![u32::MAX; f.blocks.len()],
        consts: vec![None; m.consts.len()],
    };
    for (k, &v) in inputs.iter().enumerate() {
        r.p.externals.push(External::Input(v));
        r.values[v.0 as usize] = Some(Fill::External(k as u32));
    }
    // Labels first: branches name blocks that come later.
    for &b in f.layout.iter().skip(1) {
        r.labels[b.0 as usize] = r.local();
    }
    r.p.opens_blocks = f.layout.len() > 1;
    let last = f
        .layout
        .len()
        .checked_sub(1)
        .ok_or(NotRecordable("no block"))?;
    for (i, &b) in f.layout.iter().enumerate() {
        let block = f.block(b);
        if i > 0 {
            let l = r.labels[b.0 as usize];
            let at = r.inst_start();
            r.body_fill(Fill::Local(l));
            r.inst_end(at, Op::Label);
        }
        let skip = if i == 0 { inputs.len() } else { 0 };
        if i == 0 && block.insts.get(..skip) != Some(inputs) {
            return Err(NotRecordable("the inputs do not open the first block"));
        }
        for &v in &block.insts[skip..] {
            r.inst(f, v, result)?;
        }
        match block.merge {
            Merge::None => {}
            Merge::Selection(mb) => {
                let at = r.inst_start();
                r.body_fill(Fill::Local(r.labels[mb.0 as usize]));
                r.p.body.push(0);
                r.inst_end(at, Op::SelectionMerge);
            }
            Merge::Loop { .. } => return Err(NotRecordable("a loop")),
        }
        match (&block.term, i == last) {
            (Terminator::Open, true) => {}
            (Terminator::Branch(t), false) => {
                let at = r.inst_start();
                r.body_fill(Fill::Local(r.labels[t.0 as usize]));
                r.inst_end(at, Op::Branch);
            }
            (
                Terminator::CondBranch {
                    cond,
                    on_true,
                    on_false,
                },
                false,
            ) => {
                let at = r.inst_start();
                r.operand(*cond)?;
                r.body_fill(Fill::Local(r.labels[on_true.0 as usize]));
                r.body_fill(Fill::Local(r.labels[on_false.0 as usize]));
                r.inst_end(at, Op::BranchConditional);
            }
            _ => return Err(NotRecordable("a terminator other than a branch")),
        }
    }
    if result.is_some_and(|v| r.values[v.0 as usize].is_none()) {
        return Err(NotRecordable("the result is not made"));
    }
    Ok(r.p)
}

impl Recorder<'_> {
    fn local(&mut self) -> u32 {
        self.p.locals += 1;
        self.p.locals - 1
    }

    /// The external index of `e`, added on first use.
    fn external(&mut self, e: External) -> u32 {
        match self.p.externals.iter().position(|&x| x == e) {
            Some(i) => i as u32,
            None => {
                self.p.externals.push(e);
                self.p.externals.len() as u32 - 1
            }
        }
    }

    fn fill(&mut self, section: Section, fill: Fill) {
        let words = match section {
            Section::Body => &mut self.p.body,
            Section::Globals => &mut self.p.globals,
            Section::Annotations => &mut self.p.annotations,
        };
        let at = words.len() as u32;
        let patches = &mut self.p.patches[section as usize];
        match fill {
            Fill::Local(n) => {
                patches.locals.push(at);
                words.push(n);
            }
            Fill::Result => {
                patches.table.push((at, 0));
                words.push(0);
            }
            Fill::Glsl => {
                patches.table.push((at, 1));
                words.push(0);
            }
            Fill::External(k) => {
                patches.table.push((at, 2 + k));
                words.push(0);
            }
        }
    }

    fn body_fill(&mut self, fill: Fill) {
        self.fill(Section::Body, fill);
    }

    /// Starts a body instruction: its header's place, written by [`Recorder::inst_end`].
    fn inst_start(&mut self) -> usize {
        self.p.body.push(0);
        self.p.body.len() - 1
    }

    /// Writes the header of the body instruction started at `start`.
    fn inst_end(&mut self, start: usize, op: Op) {
        let n = (self.p.body.len() - start) as u32;
        self.p.body[start] = (n << 16) | op as u32;
    }

    /// The type's id: always the module's.
    fn type_fill(&mut self, t: TypeId) -> Fill {
        Fill::External(self.external(External::Type(t)))
    }

    fn inst(
        &mut self,
        f: &Function,
        v: ValueId,
        result: Option<ValueId>,
    ) -> Result<(), NotRecordable> {
        let i = f.inst(v);
        if i.flags != 0 {
            return Err(NotRecordable("an instruction with decorations"));
        }
        if matches!(i.op, Op::Nop | Op::Phi) {
            return Err(NotRecordable("a placeholder or phi"));
        }
        let start = self.inst_start();
        if i.has_result() {
            let t = self.type_fill(i.ty);
            self.body_fill(t);
            let fill = if Some(v) == result {
                Fill::Result
            } else {
                Fill::Local(self.local())
            };
            self.values[v.0 as usize] = Some(fill);
            self.body_fill(fill);
        }
        if i.op == Op::ExtInst {
            self.p.uses_glsl = true;
            self.body_fill(Fill::Glsl);
        }
        for &a in &i.args {
            self.operand(a)?;
        }
        self.inst_end(start, i.op);
        Ok(())
    }

    /// One operand word of a body instruction.
    fn operand(&mut self, a: Operand) -> Result<(), NotRecordable> {
        let fill = match a {
            Operand::Value(x) => {
                self.values[x.0 as usize].ok_or(NotRecordable("a value used before it is made"))?
            }
            Operand::Const(c) => self.konst(c)?,
            Operand::Global(g) => Fill::External(self.external(External::Global(g))),
            Operand::Lit(l) => {
                self.p.body.push(l);
                return Ok(());
            }
            Operand::Block(_) | Operand::Var(_) => {
                return Err(NotRecordable("a block or variable operand"));
            }
        };
        self.body_fill(fill);
        Ok(())
    }

    /// A constant's fill: specialization constants (and composites of them) are the code's own
    /// and declared with it; any other constant is the module's.
    fn konst(&mut self, c: ConstId) -> Result<Fill, NotRecordable> {
        if let Some(f) = self.consts[c.0 as usize] {
            return Ok(f);
        }
        let fill = match *self.m.consts.get(c) {
            Const::Spec { ty, id, default } => {
                if ty == TypeId::BOOL || ty == TypeId::F64 {
                    return Err(NotRecordable("a bool or 64-bit specialization constant"));
                }
                let t = self.type_fill(ty);
                let l = Fill::Local(self.local());
                let s = Section::Globals;
                self.p.globals.push((4 << 16) | Op::SpecConstant as u32);
                self.fill(s, t);
                self.fill(s, l);
                self.p.globals.push(default as u32);
                let a = Section::Annotations;
                self.p.annotations.push((4 << 16) | Op::Decorate as u32);
                self.fill(a, l);
                self.p
                    .annotations
                    .extend_from_slice(&[spirv::Decoration::SpecId as u32, id]);
                self.p.spec_ids.push(id);
                l
            }
            Const::Composite { ty, ref parts } if self.m.consts.is_spec(c) => {
                let fills: smallvec::SmallVec<[Fill; 4]> = parts
                    .iter()
                    .map(|&p| self.konst(p))
                    .collect::<Result<_, _>>()?;
                let t = self.type_fill(ty);
                let l = Fill::Local(self.local());
                let s = Section::Globals;
                let n = 3 + fills.len() as u32;
                self.p
                    .globals
                    .push((n << 16) | Op::SpecConstantComposite as u32);
                self.fill(s, t);
                self.fill(s, l);
                for fl in fills {
                    self.fill(s, fl);
                }
                l
            }
            _ => Fill::External(self.external(External::Const(c))),
        };
        self.consts[c.0 as usize] = Some(fill);
        Ok(fill)
    }
}

/// The ids a copy of prebuilt code is written with ([`Prebuilt::write`]).
pub(crate) struct SpliceIds<'a> {
    /// `externals[k]`: the id of placeholder operand k.
    pub externals: &'a [Word],
    /// The first of the [`Prebuilt::locals`] fresh ids.
    pub first_local: Word,
    /// The placeholder's result id.
    pub result: Word,
    /// The GLSL.std.450 import's id.
    pub glsl: Word,
}

impl Prebuilt {
    /// Appends the code to `body`, `globals` and `annotations` with its patches filled from
    /// `ids`.
    pub fn write(
        &self,
        body: &mut Vec<Word>,
        globals: &mut Vec<Word>,
        annotations: &mut Vec<Word>,
        ids: &SpliceIds<'_>,
    ) {
        let mut table: smallvec::SmallVec<[Word; 48]> = smallvec::SmallVec::new();
        table.extend_from_slice(&[ids.result, ids.glsl]);
        table.extend_from_slice(ids.externals);
        let sections = [
            (body, &self.body),
            (globals, &self.globals),
            (annotations, &self.annotations),
        ];
        for ((out, words), patches) in sections.into_iter().zip(&self.patches) {
            let start = out.len();
            out.extend_from_slice(words);
            let copy = &mut out[start..];
            for &at in &patches.locals {
                copy[at as usize] += ids.first_local;
            }
            for &(at, k) in &patches.table {
                copy[at as usize] = table[k as usize];
            }
        }
    }
}
