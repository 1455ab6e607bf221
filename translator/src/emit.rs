//! SPIR-V emission: a thin word writer over the `spirv` crate's enums.
//!
//! rspirv's `dr::Builder` allocates per instruction (~60–110 ns each), more than our budget for
//! whole-shader translation allows, so emission writes words straight into one buffer per
//! module section and concatenates them at the end (rspirv stays for loading and disassembly in
//! tests). Types, constants and globals get ids on first use and are written at that moment, so
//! only what the functions reference is emitted, always after what it depends on.

use spirv::{Op, Word};

use crate::ir::{
    Const, ConstId, DecorationTarget, Function, GlobalId, ImageType, Merge, Module, Operand,
    Scalar, Terminator, Type, TypeId, flags,
};

/// Why a module could not be written as SPIR-V.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// An instruction over SPIR-V's universal limits (an `OpSwitch` of 20,000 cases, an
    /// `OpPhi` of 20,000 predecessors).
    #[error(
        "unsupported an Op{op:?} of {words} words, over SPIR-V's limits (65535 words, 16383 \
         switch cases or phi predecessors)"
    )]
    TooLong { op: Op, words: usize },
    /// A bug in the translator: the IR references something the emitter cannot write.
    #[error("internal error: {what}")]
    Internal { what: String },
}

impl EmitError {
    /// What kind of failure this is.
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            EmitError::TooLong { .. } => crate::ErrorKind::Unsupported,
            EmitError::Internal { .. } => crate::ErrorKind::Internal,
        }
    }
}

/// The words of one module section, and the first instruction written to it that went over
/// SPIR-V's limits (`emit` then fails with [`EmitError::TooLong`]). Recording the failure here
/// keeps `inst`, called once per instruction, free of `Result` plumbing.
#[derive(Default)]
struct Words {
    words: Vec<Word>,
    too_long: Option<(Op, usize)>,
}

impl Words {
    fn with_capacity(n: usize) -> Self {
        Words {
            words: Vec::with_capacity(n),
            too_long: None,
        }
    }

    /// Empties the section, keeping room for at least `n` words.
    fn reset(&mut self, n: usize) {
        self.words.clear();
        self.words.reserve(n);
        self.too_long = None;
    }

    /// The header word of an instruction `op` of `words` words (operands included), noting
    /// the first instruction over SPIR-V's universal limits: 65535 words an instruction,
    /// 16383 (literal, label) pairs an OpSwitch and 16383 (value, parent) pairs an OpPhi.
    #[inline]
    fn header(&mut self, op: Op, words: usize) -> Word {
        // One compare in the common case: both limits lie above 3 + 2 * 16383 words.
        if words > 3 + 2 * 16383 {
            let pairs_over = matches!(op, Op::Switch | Op::Phi);
            if (words > 0xFFFF || pairs_over) && self.too_long.is_none() {
                self.too_long = Some((op, words));
            }
        }
        ((words.min(0xFFFF) as u32) << 16) | op as u32
    }
}

/// Buffers the emitter keeps from one module to the next (a [`crate::Translator`] holds one):
/// the id maps, the section words and the per-function scratch, each emptied before use.
#[derive(Default)]
pub struct EmitScratch {
    type_ids: Vec<Word>,
    const_ids: Vec<Word>,
    global_ids: Vec<Word>,
    /// Function-storage variables (id, pointer type, initializer) of the entry function.
    function_vars: Vec<(Word, Word, Option<Word>)>,
    // sections
    debug: Words,
    annotations: Words,
    globals: Words,
    functions: Words,
    /// Scratch of [`Emitter::function`]: the value and block ids, one instruction's words.
    value_ids: Vec<Word>,
    words: Vec<Word>,
    /// Per global of the last module written, whether it uses it.
    used: Vec<bool>,
}

impl EmitScratch {
    /// Empties every buffer for module `m` (the id maps: one zero per type, constant and
    /// global of `m`).
    fn reset(&mut self, m: &Module) {
        zero(&mut self.type_ids, m.types.len());
        zero(&mut self.const_ids, m.consts.len());
        zero(&mut self.global_ids, m.globals.len());
        self.function_vars.clear();
        self.debug.reset(0);
        self.annotations.reset(256);
        self.globals.reset(1024);
        self.functions.reset(4096);
    }
}

/// Makes `v` `n` zeros.
fn zero(v: &mut Vec<Word>, n: usize) {
    v.clear();
    v.resize(n, 0);
}

/// `v` emptied, then `n` zeros.
fn zeroed(v: &mut Vec<Word>, n: usize) -> Vec<Word> {
    let mut v = std::mem::take(v);
    zero(&mut v, n);
    v
}

impl std::ops::Deref for Words {
    type Target = Vec<Word>;
    fn deref(&self) -> &Vec<Word> {
        &self.words
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut Vec<Word> {
        &mut self.words
    }
}

/// Appends one instruction to `buf`.
#[inline]
fn inst(buf: &mut Words, op: Op, operands: &[Word]) {
    let header = buf.header(op, operands.len() + 1);
    buf.words.push(header);
    buf.words.extend_from_slice(operands);
}

/// Writes the header of the instruction whose operands follow `buf[start]` (its word count
/// and opcode), with [`Words::header`]'s check of SPIR-V's limits.
#[inline]
fn end_inst(buf: &mut Words, start: usize, op: Op) {
    let header = buf.header(op, buf.len() - start);
    buf[start] = header;
}

/// Appends a literal string (UTF-8, NUL-terminated, padded to whole words).
fn push_string(buf: &mut Vec<Word>, s: &str) {
    let bytes = s.as_bytes();
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        buf.push(u32::from_le_bytes(w));
    }
    if bytes.len().is_multiple_of(4) {
        buf.push(0);
    }
}

fn string_inst(buf: &mut Words, op: Op, pre: &[Word], s: &str, post: &[Word]) {
    let start = buf.len();
    buf.push(0);
    buf.extend_from_slice(pre);
    push_string(buf, s);
    buf.extend_from_slice(post);
    end_inst(buf, start, op);
}

struct Emitter<'m, 's> {
    m: &'m Module,
    next_id: Word,
    glsl_id: Word,
    names: bool,
    /// The id maps, sections and scratch, kept from one module to the next.
    s: &'s mut EmitScratch,
}

impl Emitter<'_, '_> {
    fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The id of type `t`, written on first use (the cached case inline, the rest in
    /// [`Emitter::new_type_id`]: most calls are per instruction and hit the cache).
    #[inline]
    fn type_id(&mut self, t: TypeId) -> Word {
        match self.s.type_ids[t.0 as usize] {
            0 => self.new_type_id(t),
            cached => cached,
        }
    }

    #[inline(never)]
    fn new_type_id(&mut self, t: TypeId) -> Word {
        // Borrowed from the module (not from `self`): struct and function types hold vectors
        // that a clone would copy.
        let m = self.m;
        let ty = m.types.get(t);
        // Dependencies first; the type's own id is taken after theirs. The operands after the
        // result id: `ops[1..=n]` (at most 7, OpTypeImage's; `ops[0]` is the result id), then
        // the ids of the types `list` (a struct's members, a function's parameters).
        let mut ops = [0 as Word; 8];
        let mut list: &[TypeId] = &[];
        let (op, n) = match ty {
            Type::Void => (Op::TypeVoid, 0),
            Type::Scalar(s) => {
                // Width, then signedness for the integers.
                let (op, bits) = match s {
                    Scalar::Bool => (Op::TypeBool, &[][..]),
                    Scalar::F32 => (Op::TypeFloat, &[32][..]),
                    Scalar::F64 => (Op::TypeFloat, &[64][..]),
                    Scalar::F16 => (Op::TypeFloat, &[16][..]),
                    Scalar::I32 => (Op::TypeInt, &[32, 1][..]),
                    Scalar::U32 => (Op::TypeInt, &[32, 0][..]),
                    Scalar::I16 => (Op::TypeInt, &[16, 1][..]),
                    Scalar::U16 => (Op::TypeInt, &[16, 0][..]),
                };
                ops[1..=bits.len()].copy_from_slice(bits);
                (op, bits.len())
            }
            Type::Vector(s, n) => {
                ops[1] = self.type_id(crate::ir::TypeTable::vec(*s, 1));
                ops[2] = *n as u32;
                (Op::TypeVector, 2)
            }
            Type::Array { elem, len, .. } => {
                ops[1] = self.type_id(*elem);
                ops[2] = self.const_id(*len);
                (Op::TypeArray, 2)
            }
            Type::RuntimeArray { elem, .. } => {
                ops[1] = self.type_id(*elem);
                (Op::TypeRuntimeArray, 1)
            }
            Type::Struct { members, .. } => {
                for &mt in members {
                    self.type_id(mt);
                }
                list = members;
                (Op::TypeStruct, 0)
            }
            Type::Pointer { storage, pointee } => {
                ops[1] = *storage as u32;
                ops[2] = self.type_id(*pointee);
                (Op::TypePointer, 2)
            }
            Type::Image(ImageType {
                sampled_type,
                dim,
                depth,
                arrayed,
                ms,
                sampled,
                format,
            }) => {
                let sampled_id = self.type_id(crate::ir::TypeTable::vec(*sampled_type, 1));
                ops[1..].copy_from_slice(&[
                    sampled_id,
                    *dim as u32,
                    *depth as u32,
                    *arrayed as u32,
                    *ms as u32,
                    *sampled as u32,
                    *format as u32,
                ]);
                (Op::TypeImage, 7)
            }
            Type::Sampler => (Op::TypeSampler, 0),
            Type::SampledImage(img) => {
                ops[1] = self.type_id(*img);
                (Op::TypeSampledImage, 1)
            }
            Type::Function { ret, params } => {
                ops[1] = self.type_id(*ret);
                for &p in params {
                    self.type_id(p);
                }
                list = params;
                (Op::TypeFunction, 1)
            }
        };
        let id = self.id();
        let s = &mut *self.s;
        s.type_ids[t.0 as usize] = id;
        ops[0] = id;
        if list.is_empty() {
            inst(&mut s.globals, op, &ops[..=n]);
        } else {
            let start = s.globals.len();
            s.globals.push(0);
            s.globals.extend_from_slice(&ops[..=n]);
            // Written above (dependencies first), so cached.
            let type_ids = &s.type_ids;
            s.globals
                .extend(list.iter().map(|&x| type_ids[x.0 as usize]));
            end_inst(&mut s.globals, start, op);
        }
        match *ty {
            Type::Array {
                stride: Some(st), ..
            }
            | Type::RuntimeArray {
                stride: Some(st), ..
            } => {
                inst(
                    &mut s.annotations,
                    Op::Decorate,
                    &[id, spirv::Decoration::ArrayStride as u32, st],
                );
            }
            _ => {}
        }
        id
    }

    /// The id of constant `c`, written on first use (cached case inline, as for types).
    #[inline]
    fn const_id(&mut self, c: ConstId) -> Word {
        match self.s.const_ids[c.0 as usize] {
            0 => self.new_const_id(c),
            cached => cached,
        }
    }

    #[inline(never)]
    fn new_const_id(&mut self, c: ConstId) -> Word {
        // Borrowed from the module, not cloned (a composite's parts are a vector).
        let m = self.m;
        let k = m.consts.get(c);
        let ty = self.type_id(k.ty());
        let id;
        match *k {
            Const::Scalar { ty: t, bits } => {
                id = self.id();
                if t == TypeId::BOOL {
                    inst(
                        &mut self.s.globals,
                        if bits != 0 {
                            Op::ConstantTrue
                        } else {
                            Op::ConstantFalse
                        },
                        &[ty, id],
                    );
                } else if t == TypeId::F64 {
                    inst(
                        &mut self.s.globals,
                        Op::Constant,
                        &[ty, id, bits as u32, (bits >> 32) as u32],
                    );
                } else {
                    inst(&mut self.s.globals, Op::Constant, &[ty, id, bits as u32]);
                }
            }
            Const::Composite { ref parts, .. } => {
                let mut words: smallvec::SmallVec<[Word; 8]> = smallvec::SmallVec::new();
                words.push(ty);
                words.push(0);
                for &p in parts {
                    let pid = self.const_id(p);
                    words.push(pid);
                }
                id = self.id();
                words[1] = id;
                let op = if self.m.consts.is_spec(c) {
                    Op::SpecConstantComposite
                } else {
                    Op::ConstantComposite
                };
                inst(&mut self.s.globals, op, &words);
            }
            Const::Spec {
                ty: t,
                id: spec_id,
                default,
            } => {
                id = self.id();
                // Only 32-bit integer specialization constants are made.
                debug_assert!(t != TypeId::BOOL && t != TypeId::F64);
                inst(
                    &mut self.s.globals,
                    Op::SpecConstant,
                    &[ty, id, default as u32],
                );
                inst(
                    &mut self.s.annotations,
                    Op::Decorate,
                    &[id, spirv::Decoration::SpecId as u32, spec_id],
                );
            }
            Const::Null(_) => {
                id = self.id();
                inst(&mut self.s.globals, Op::ConstantNull, &[ty, id]);
            }
            Const::Undef(_) => {
                id = self.id();
                inst(&mut self.s.globals, Op::Undef, &[ty, id]);
            }
        }
        self.s.const_ids[c.0 as usize] = id;
        id
    }

    /// The id of global `g`, declared on first use (cached case inline, as for types).
    #[inline]
    fn global_id(&mut self, g: GlobalId) -> Word {
        match self.s.global_ids[g.0 as usize] {
            0 => self.new_global_id(g),
            cached => cached,
        }
    }

    #[inline(never)]
    fn new_global_id(&mut self, g: GlobalId) -> Word {
        let global = &self.m.globals[g.0 as usize];
        let ty = self.type_id(global.ty);
        let init = global.init.map(|c| self.const_id(c));
        let id = self.id();
        self.s.global_ids[g.0 as usize] = id;
        if global.storage == spirv::StorageClass::Function {
            self.s.function_vars.push((id, ty, init));
            return id;
        }
        let storage = global.storage as u32;
        match init {
            Some(i) => inst(&mut self.s.globals, Op::Variable, &[ty, id, storage, i]),
            None => inst(&mut self.s.globals, Op::Variable, &[ty, id, storage]),
        }
        id
    }

    fn target_id(&mut self, t: DecorationTarget) -> Option<Word> {
        match t {
            DecorationTarget::Global(g) => {
                let id = self.s.global_ids[g.0 as usize];
                (id != 0).then_some(id)
            }
            DecorationTarget::Type(ty) | DecorationTarget::Member(ty, _) => {
                let id = self.s.type_ids[ty.0 as usize];
                (id != 0).then_some(id)
            }
        }
    }

    fn function(&mut self, f: &Function, fn_id: Word, fn_type: Word) -> Result<(), EmitError> {
        // Pre-assign ids to every placed value with a result and to every live block.
        // Both id maps in one allocation.
        let mut ids = zeroed(&mut self.s.value_ids, f.insts.len() + f.blocks.len());
        let (value_ids, block_ids) = ids.split_at_mut(f.insts.len());
        for &b in &f.layout {
            block_ids[b.0 as usize] = self.id();
            for &v in &f.block(b).insts {
                if f.inst(v).has_result() {
                    value_ids[v.0 as usize] = self.id();
                }
            }
        }
        let mut buf = std::mem::take(&mut self.s.functions);
        inst(
            &mut buf,
            Op::Function,
            &[self.type_id(TypeId::VOID), fn_id, 0, fn_type],
        );
        let mut words = std::mem::take(&mut self.s.words);
        words.clear();
        for (bi, &b) in f.layout.iter().enumerate() {
            let block = f.block(b);
            inst(&mut buf, Op::Label, &[block_ids[b.0 as usize]]);
            if bi == 0 {
                // Function-storage variables open the entry block.
                for &(var, ty, init) in &self.s.function_vars {
                    match init {
                        Some(i) => inst(
                            &mut buf,
                            Op::Variable,
                            &[ty, var, spirv::StorageClass::Function as u32, i],
                        ),
                        None => inst(
                            &mut buf,
                            Op::Variable,
                            &[ty, var, spirv::StorageClass::Function as u32],
                        ),
                    }
                }
            }
            for &v in &block.insts {
                let i = f.inst(v);
                if i.op == Op::Nop {
                    return Err(internal("a placeholder left unexpanded".into()));
                }
                // Written in place: the header once the length is known.
                let start = buf.len();
                // Non-zero exactly for the instructions with a result (ids start at 1).
                let result = value_ids[v.0 as usize];
                if result != 0 {
                    let ty = self.type_id(i.ty);
                    buf.extend_from_slice(&[0, ty, result]);
                } else {
                    buf.push(0);
                }
                if i.op == Op::ExtInst {
                    buf.push(self.glsl_id);
                }
                // One reservation for all operands; a bad one is reported after.
                let mut bad = None;
                buf.extend(i.args.iter().map(|a| match *a {
                    Operand::Value(x) => {
                        let id = value_ids[x.0 as usize];
                        if id == 0 {
                            bad.get_or_insert(*a);
                        }
                        id
                    }
                    Operand::Const(c) => self.const_id(c),
                    Operand::Global(g) => self.global_id(g),
                    Operand::Block(bb) => block_ids[bb.0 as usize],
                    Operand::Lit(l) => l,
                    Operand::Var(_) => {
                        bad.get_or_insert(*a);
                        0
                    }
                }));
                match bad {
                    None => {}
                    Some(Operand::Value(x)) => {
                        return Err(internal(format!("value %{} used but not emitted", x.0)));
                    }
                    Some(_) => return Err(internal("register variable left after SSA".into())),
                }
                end_inst(&mut buf, start, i.op);
                if i.flags & (flags::PRECISE | flags::RELAXED | flags::NON_UNIFORM) != 0
                    && result != 0
                {
                    self.decorate_value(i.flags, result);
                }
            }
            match block.merge {
                Merge::None => {}
                Merge::Selection(mb) => {
                    inst(&mut buf, Op::SelectionMerge, &[block_ids[mb.0 as usize], 0])
                }
                Merge::Loop {
                    merge,
                    continue_target,
                } => inst(
                    &mut buf,
                    Op::LoopMerge,
                    &[
                        block_ids[merge.0 as usize],
                        block_ids[continue_target.0 as usize],
                        0,
                    ],
                ),
            }
            let operand_id = |e: &mut Self, o: &Operand| -> Result<Word, EmitError> {
                Ok(match *o {
                    Operand::Value(x) => value_ids[x.0 as usize],
                    Operand::Const(c) => e.const_id(c),
                    _ => return Err(internal("branch condition is not a value".into())),
                })
            };
            match &block.term {
                Terminator::Open => return Err(internal(format!("block B{} not terminated", b.0))),
                Terminator::Branch(t) => inst(&mut buf, Op::Branch, &[block_ids[t.0 as usize]]),
                Terminator::CondBranch {
                    cond,
                    on_true,
                    on_false,
                } => {
                    let c = operand_id(self, cond)?;
                    inst(
                        &mut buf,
                        Op::BranchConditional,
                        &[
                            c,
                            block_ids[on_true.0 as usize],
                            block_ids[on_false.0 as usize],
                        ],
                    )
                }
                Terminator::Switch {
                    selector,
                    default,
                    cases,
                } => {
                    words.clear();
                    words.push(operand_id(self, selector)?);
                    words.push(block_ids[default.0 as usize]);
                    for (lit, t) in cases {
                        words.push(*lit);
                        words.push(block_ids[t.0 as usize]);
                    }
                    inst(&mut buf, Op::Switch, &words);
                }
                Terminator::Return => inst(&mut buf, Op::Return, &[]),
                Terminator::Unreachable => inst(&mut buf, Op::Unreachable, &[]),
            }
        }
        inst(&mut buf, Op::FunctionEnd, &[]);
        self.s.functions = buf;
        self.s.function_vars.clear();
        self.s.value_ids = ids;
        self.s.words = words;
        Ok(())
    }
}

impl Emitter<'_, '_> {
    /// The decorations that instruction flags `fl` ask for on value `id`.
    #[cold]
    fn decorate_value(&mut self, fl: u8, id: Word) {
        let a = &mut self.s.annotations;
        if fl & flags::PRECISE != 0 {
            match self.m.float_controls2 {
                None => {
                    let d = spirv::Decoration::NoContraction as u32;
                    inst(a, Op::Decorate, &[id, d]);
                }
                // The default allows more than a precise operation may use: no fast math.
                Some(fm) if fm.mask != 0 => {
                    let d = spirv::Decoration::FPFastMathMode as u32;
                    inst(a, Op::Decorate, &[id, d, 0]);
                }
                // Precise by default: nothing to say.
                Some(_) => {}
            }
        }
        if fl & flags::RELAXED != 0 {
            let d = spirv::Decoration::RelaxedPrecision as u32;
            inst(a, Op::Decorate, &[id, d]);
        }
        if fl & flags::NON_UNIFORM != 0 {
            let d = spirv::Decoration::NonUniform as u32;
            inst(a, Op::Decorate, &[id, d]);
        }
    }

    /// The entry point of a module with fragment shader interlock ([`Module::interlock`]):
    /// `OpBeginInvocationInterlockEXT`, a call of the program `body`, then
    /// `OpEndInvocationInterlockEXT`, in one block, so both run exactly once, in uniform
    /// control flow, however the body returns. Returns its id.
    fn interlock_entry(&mut self, body: Word, fn_type: Word) -> Word {
        let void = self.type_id(TypeId::VOID);
        let (id, label, call) = (self.id(), self.id(), self.id());
        let mut buf = std::mem::take(&mut self.s.functions);
        inst(&mut buf, Op::Function, &[void, id, 0, fn_type]);
        inst(&mut buf, Op::Label, &[label]);
        inst(&mut buf, Op::BeginInvocationInterlockEXT, &[]);
        inst(&mut buf, Op::FunctionCall, &[void, call, body]);
        inst(&mut buf, Op::EndInvocationInterlockEXT, &[]);
        inst(&mut buf, Op::Return, &[]);
        inst(&mut buf, Op::FunctionEnd, &[]);
        self.s.functions = buf;
        id
    }
}

fn internal(what: String) -> EmitError {
    EmitError::Internal { what }
}

/// Options that shape emission.
#[derive(Debug, Clone, Copy)]
pub struct EmitOptions {
    pub version: (u8, u8),
    pub debug_names: bool,
}

/// Which execution model a stage has.
pub fn execution_model(stage: crate::reflect::ShaderStage) -> spirv::ExecutionModel {
    use crate::reflect::ShaderStage::*;
    match stage {
        Vertex => spirv::ExecutionModel::Vertex,
        Pixel => spirv::ExecutionModel::Fragment,
        Geometry => spirv::ExecutionModel::Geometry,
        Hull => spirv::ExecutionModel::TessellationControl,
        Domain => spirv::ExecutionModel::TessellationEvaluation,
        Compute => spirv::ExecutionModel::GLCompute,
    }
}

/// Writes `m` as a SPIR-V module and says which globals the module uses (the ones its
/// functions reference; the others are not declared), with the buffers of `scratch` (left
/// there for the next module; the usage is one of them).
pub fn emit_with_usage<'s>(
    m: &Module,
    opts: EmitOptions,
    scratch: &'s mut EmitScratch,
) -> Result<(Vec<Word>, &'s [bool]), EmitError> {
    scratch.reset(m);
    let mut e = Emitter {
        m,
        next_id: 1,
        glsl_id: 0,
        names: opts.debug_names,
        s: scratch,
    };
    let spirv = write_module(&mut e, opts)?;
    Ok((spirv, &scratch.used))
}

/// Writes the module: the functions, then the sections before them.
fn write_module(e: &mut Emitter<'_, '_>, opts: EmitOptions) -> Result<Vec<Word>, EmitError> {
    let m = e.m;
    let uses_glsl = m.functions.iter().any(|f| {
        f.layout.iter().any(|&b| {
            f.block(b)
                .insts
                .iter()
                .any(|&v| f.inst(v).op == Op::ExtInst)
        })
    });
    if uses_glsl {
        e.glsl_id = e.id();
    }
    let fn_ids: smallvec::SmallVec<[Word; 2]> = m.functions.iter().map(|_| e.id()).collect();
    let fn_type = e.type_id(m.void_fn_type);
    // Function-storage variables used anywhere get their ids before the body is written.
    let function_storage = |g: &crate::ir::Global| g.storage == spirv::StorageClass::Function;
    if m.globals.iter().any(function_storage) {
        let used = m.used_globals();
        for (i, g) in m.globals.iter().enumerate() {
            if function_storage(g) && used[i] {
                e.global_id(GlobalId(i as u32));
            }
        }
    }
    for (f, &id) in m.functions.iter().zip(&fn_ids) {
        e.function(f, id, fn_type)?;
    }
    let entry_id = match (m.interlock, fn_ids.first()) {
        (true, Some(&body)) => e.interlock_entry(body, fn_type),
        (_, first) => first
            .copied()
            .ok_or_else(|| internal("no entry function".into()))?,
    };
    // SPV_KHR_float_controls2: the default fast-math flags of every float type the module
    // declares (any type without one would get no flags at all).
    let mut fast_math: smallvec::SmallVec<[(Word, Word); 3]> = smallvec::SmallVec::new();
    if let Some(fm) = m.float_controls2 {
        for s in [Scalar::F32, Scalar::F16, Scalar::F64] {
            let t = crate::ir::TypeTable::vec(s, 1);
            if e.s.type_ids.get(t.0 as usize).is_some_and(|&id| id != 0) {
                let ty = e.s.type_ids[t.0 as usize];
                fast_math.push((ty, e.const_id(fm.constant)));
            }
        }
    }
    // Decorations of everything emitted.
    for d in &m.decorations {
        let Some(target) = e.target_id(d.target) else {
            continue;
        };
        let buf = &mut e.s.annotations;
        let start = buf.len();
        let op = match d.target {
            DecorationTarget::Member(_, member) => {
                buf.extend_from_slice(&[0, target, member, d.decoration as u32]);
                Op::MemberDecorate
            }
            _ => {
                buf.extend_from_slice(&[0, target, d.decoration as u32]);
                Op::Decorate
            }
        };
        buf.extend_from_slice(&d.args);
        end_inst(buf, start, op);
    }
    if e.names {
        for (t, name) in &m.names {
            let Some(target) = e.target_id(*t) else {
                continue;
            };
            match t {
                DecorationTarget::Member(_, member) => string_inst(
                    &mut e.s.debug,
                    Op::MemberName,
                    &[target, *member],
                    name,
                    &[],
                ),
                _ => string_inst(&mut e.s.debug, Op::Name, &[target], name, &[]),
            }
        }
    }
    // Every global is declared by now.
    let s = &mut *e.s;
    s.used.clear();
    s.used.extend(s.global_ids.iter().map(|&id| id != 0));

    // Header and the sections before the annotations.
    let mut out = Words::with_capacity(
        64 + s.debug.len() + s.annotations.len() + s.globals.len() + s.functions.len(),
    );
    let (major, minor) = opts.version;
    out.extend_from_slice(&[
        spirv::MAGIC_NUMBER,
        ((major as u32) << 16) | ((minor as u32) << 8),
        0,
        0,
        0,
    ]);
    // Interlock's kind depends on the globals the module uses, known only now.
    let interlock = m.interlock.then(|| m.interlock_kind(&s.used));
    for &cap in &m.capabilities {
        inst(&mut out, Op::Capability, &[cap as u32]);
    }
    if let Some((cap, _, _)) = interlock {
        inst(&mut out, Op::Capability, &[cap as u32]);
    }
    for ext in &m.extensions {
        string_inst(&mut out, Op::Extension, &[], ext, &[]);
    }
    if uses_glsl {
        string_inst(
            &mut out,
            Op::ExtInstImport,
            &[e.glsl_id],
            "GLSL.std.450",
            &[],
        );
    }
    inst(
        &mut out,
        Op::MemoryModel,
        &[
            spirv::AddressingModel::Logical as u32,
            spirv::MemoryModel::GLSL450 as u32,
        ],
    );
    // Interface: SPIR-V 1.4+ lists every global the entry point uses; earlier only I/O.
    let all_globals = (major, minor) >= (1, 4);
    let start = out.len();
    out.push(0);
    out.extend_from_slice(&[execution_model(m.stage) as u32, entry_id]);
    push_string(&mut out, &m.entry_name);
    out.extend(
        m.globals
            .iter()
            .zip(&s.global_ids)
            .filter(|&(g, &id)| {
                id != 0
                    && g.storage != spirv::StorageClass::Function
                    && (all_globals
                        || matches!(
                            g.storage,
                            spirv::StorageClass::Input | spirv::StorageClass::Output
                        ))
            })
            .map(|(_, &id)| id),
    );
    end_inst(&mut out, start, Op::EntryPoint);
    for (mode, args) in &m.execution_modes {
        let start = out.len();
        out.extend_from_slice(&[0, entry_id, *mode as u32]);
        out.extend_from_slice(args);
        end_inst(&mut out, start, Op::ExecutionMode);
    }
    if let Some((_, mode, _)) = interlock {
        inst(&mut out, Op::ExecutionMode, &[entry_id, mode as u32]);
    }
    for &(ty, mask) in &fast_math {
        let mode = spirv::ExecutionMode::FPFastMathDefault as u32;
        inst(&mut out, Op::ExecutionModeId, &[entry_id, mode, ty, mask]);
    }
    out.extend_from_slice(&s.debug);
    out.extend_from_slice(&s.annotations);
    out.extend_from_slice(&s.globals);
    out.extend_from_slice(&s.functions);
    out[3] = e.next_id;
    let sections = [&out, &s.debug, &s.annotations, &s.globals, &s.functions];
    if let Some((op, words)) = sections.iter().find_map(|s| s.too_long) {
        return Err(EmitError::TooLong { op, words });
    }
    Ok(out.words)
}
