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

    /// The (emptied) buffer `v`, with room for at least `n` words.
    fn reusing(v: &mut Vec<Word>, n: usize) -> Self {
        let mut words = std::mem::take(v);
        words.clear();
        words.reserve(n);
        Words {
            words,
            too_long: None,
        }
    }
}

/// Buffers the emitter keeps from one module to the next (a [`crate::Translator`] holds one):
/// the id maps, the section words and the per-function scratch, each emptied before use.
#[derive(Default)]
pub struct EmitScratch {
    type_ids: Vec<Word>,
    const_ids: Vec<Word>,
    global_ids: Vec<Word>,
    function_vars: Vec<(Word, Word, Option<Word>)>,
    debug: Vec<Word>,
    annotations: Vec<Word>,
    globals: Vec<Word>,
    functions: Vec<Word>,
    value_ids: Vec<Word>,
    words: Vec<Word>,
}

/// `v` emptied, then `n` zeros.
fn zeroed(v: &mut Vec<Word>, n: usize) -> Vec<Word> {
    let mut v = std::mem::take(v);
    v.clear();
    v.resize(n, 0);
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
    let words = operands.len() + 1;
    // SPIR-V's universal limits: 65535 words an instruction, 16383 (literal, label) pairs an
    // OpSwitch and 16383 (value, parent) pairs an OpPhi.
    // One compare in the common case: both limits lie above 2 + 2 * 16383 operands.
    if operands.len() > 2 + 2 * 16383 {
        let pairs_over = matches!(op, Op::Switch | Op::Phi);
        if (words > 0xFFFF || pairs_over) && buf.too_long.is_none() {
            buf.too_long = Some((op, words));
        }
    }
    buf.words
        .push(((words.min(0xFFFF) as u32) << 16) | op as u32);
    buf.words.extend_from_slice(operands);
}

/// Writes the header of the instruction whose operands follow `buf[start]` (its word count
/// and opcode), with [`inst`]'s check of SPIR-V's limits.
#[inline]
fn end_inst(buf: &mut Words, start: usize, op: Op) {
    let words = buf.len() - start;
    // One compare in the common case: both limits lie above 2 + 2 * 16383 operands.
    if words - 1 > 2 + 2 * 16383 {
        let pairs_over = matches!(op, Op::Switch | Op::Phi);
        if (words > 0xFFFF || pairs_over) && buf.too_long.is_none() {
            buf.too_long = Some((op, words));
        }
    }
    buf[start] = ((words.min(0xFFFF) as u32) << 16) | op as u32;
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
    let words = buf.len() - start;
    if words > 0xFFFF && buf.too_long.is_none() {
        buf.too_long = Some((op, words));
    }
    buf[start] = ((words.min(0xFFFF) as u32) << 16) | op as u32;
}

struct Emitter<'m> {
    m: &'m Module,
    next_id: Word,
    type_ids: Vec<Word>,
    const_ids: Vec<Word>,
    global_ids: Vec<Word>,
    glsl_id: Word,
    names: bool,
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
}

impl<'m> Emitter<'m> {
    fn id(&mut self) -> Word {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The id of type `t`, written on first use (the cached case inline, the rest in
    /// [`Emitter::new_type_id`]: most calls are per instruction and hit the cache).
    #[inline]
    fn type_id(&mut self, t: TypeId) -> Word {
        match self.type_ids[t.0 as usize] {
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
        // Dependencies first; the type's own id (`ops[0]`) is taken after theirs.
        let mut ops: smallvec::SmallVec<[Word; 9]> = smallvec::smallvec![0];
        let op = match ty {
            Type::Void => Op::TypeVoid,
            Type::Scalar(Scalar::Bool) => Op::TypeBool,
            Type::Scalar(Scalar::F32) => {
                ops.push(32);
                Op::TypeFloat
            }
            Type::Scalar(Scalar::F64) => {
                ops.push(64);
                Op::TypeFloat
            }
            Type::Scalar(Scalar::I32) => {
                ops.extend_from_slice(&[32, 1]);
                Op::TypeInt
            }
            Type::Scalar(Scalar::U32) => {
                ops.extend_from_slice(&[32, 0]);
                Op::TypeInt
            }
            Type::Scalar(Scalar::F16) => {
                ops.push(16);
                Op::TypeFloat
            }
            Type::Scalar(Scalar::I16) => {
                ops.extend_from_slice(&[16, 1]);
                Op::TypeInt
            }
            Type::Scalar(Scalar::U16) => {
                ops.extend_from_slice(&[16, 0]);
                Op::TypeInt
            }
            Type::Vector(s, n) => {
                ops.push(self.type_id(crate::ir::TypeTable::vec(*s, 1)));
                ops.push(*n as u32);
                Op::TypeVector
            }
            Type::Array { elem, len, .. } => {
                ops.push(self.type_id(*elem));
                ops.push(self.const_id(*len));
                Op::TypeArray
            }
            Type::RuntimeArray { elem, .. } => {
                ops.push(self.type_id(*elem));
                Op::TypeRuntimeArray
            }
            Type::Struct { members, .. } => {
                for &mt in members {
                    let id = self.type_id(mt);
                    ops.push(id);
                }
                Op::TypeStruct
            }
            Type::Pointer { storage, pointee } => {
                ops.push(*storage as u32);
                ops.push(self.type_id(*pointee));
                Op::TypePointer
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
                ops.push(self.type_id(crate::ir::TypeTable::vec(*sampled_type, 1)));
                ops.extend_from_slice(&[
                    *dim as u32,
                    *depth as u32,
                    *arrayed as u32,
                    *ms as u32,
                    *sampled as u32,
                    *format as u32,
                ]);
                Op::TypeImage
            }
            Type::Sampler => Op::TypeSampler,
            Type::SampledImage(img) => {
                ops.push(self.type_id(*img));
                Op::TypeSampledImage
            }
            Type::Function { ret, params } => {
                ops.push(self.type_id(*ret));
                for &p in params {
                    let id = self.type_id(p);
                    ops.push(id);
                }
                Op::TypeFunction
            }
        };
        let id = self.id();
        self.type_ids[t.0 as usize] = id;
        ops[0] = id;
        inst(&mut self.globals, op, &ops);
        match *ty {
            Type::Array {
                stride: Some(s), ..
            }
            | Type::RuntimeArray {
                stride: Some(s), ..
            } => {
                inst(
                    &mut self.annotations,
                    Op::Decorate,
                    &[id, spirv::Decoration::ArrayStride as u32, s],
                );
            }
            _ => {}
        }
        id
    }

    /// The id of constant `c`, written on first use (cached case inline, as for types).
    #[inline]
    fn const_id(&mut self, c: ConstId) -> Word {
        match self.const_ids[c.0 as usize] {
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
                        &mut self.globals,
                        if bits != 0 {
                            Op::ConstantTrue
                        } else {
                            Op::ConstantFalse
                        },
                        &[ty, id],
                    );
                } else if t == TypeId::F64 {
                    inst(
                        &mut self.globals,
                        Op::Constant,
                        &[ty, id, bits as u32, (bits >> 32) as u32],
                    );
                } else {
                    inst(&mut self.globals, Op::Constant, &[ty, id, bits as u32]);
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
                inst(&mut self.globals, op, &words);
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
                    &mut self.globals,
                    Op::SpecConstant,
                    &[ty, id, default as u32],
                );
                inst(
                    &mut self.annotations,
                    Op::Decorate,
                    &[id, spirv::Decoration::SpecId as u32, spec_id],
                );
            }
            Const::Null(_) => {
                id = self.id();
                inst(&mut self.globals, Op::ConstantNull, &[ty, id]);
            }
            Const::Undef(_) => {
                id = self.id();
                inst(&mut self.globals, Op::Undef, &[ty, id]);
            }
        }
        self.const_ids[c.0 as usize] = id;
        id
    }

    /// The id of global `g`, declared on first use (cached case inline, as for types).
    #[inline]
    fn global_id(&mut self, g: GlobalId) -> Word {
        match self.global_ids[g.0 as usize] {
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
        self.global_ids[g.0 as usize] = id;
        if global.storage == spirv::StorageClass::Function {
            self.function_vars.push((id, ty, init));
            return id;
        }
        let storage = global.storage as u32;
        match init {
            Some(i) => inst(&mut self.globals, Op::Variable, &[ty, id, storage, i]),
            None => inst(&mut self.globals, Op::Variable, &[ty, id, storage]),
        }
        id
    }

    fn target_id(&mut self, t: DecorationTarget) -> Option<Word> {
        match t {
            DecorationTarget::Global(g) => {
                let id = self.global_ids[g.0 as usize];
                (id != 0).then_some(id)
            }
            DecorationTarget::Type(ty) | DecorationTarget::Member(ty, _) => {
                let id = self.type_ids[ty.0 as usize];
                (id != 0).then_some(id)
            }
        }
    }

    fn function(&mut self, f: &Function, fn_id: Word, fn_type: Word) -> Result<(), EmitError> {
        // Pre-assign ids to every placed value with a result and to every live block.
        // Both id maps in one allocation.
        let mut ids = zeroed(&mut self.value_ids, f.insts.len() + f.blocks.len());
        let (value_ids, block_ids) = ids.split_at_mut(f.insts.len());
        for &b in &f.layout {
            block_ids[b.0 as usize] = self.id();
            for &v in &f.block(b).insts {
                if f.inst(v).has_result() {
                    value_ids[v.0 as usize] = self.id();
                }
            }
        }
        let mut buf = std::mem::take(&mut self.functions);
        inst(
            &mut buf,
            Op::Function,
            &[self.type_id(TypeId::VOID), fn_id, 0, fn_type],
        );
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        for (bi, &b) in f.layout.iter().enumerate() {
            let block = f.block(b);
            inst(&mut buf, Op::Label, &[block_ids[b.0 as usize]]);
            if bi == 0 {
                // Function-storage variables open the entry block.
                for &(var, ty, init) in &self.function_vars {
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
                // Written in place: the header once the length is known.
                let start = buf.len();
                buf.push(0);
                // Non-zero exactly for the instructions with a result (ids start at 1).
                let result = value_ids[v.0 as usize];
                if result != 0 {
                    let ty = self.type_id(i.ty);
                    buf.push(ty);
                    buf.push(result);
                }
                if i.op == Op::ExtInst {
                    buf.push(self.glsl_id);
                }
                for a in &i.args {
                    let w = match *a {
                        Operand::Value(x) => {
                            let id = value_ids[x.0 as usize];
                            if id == 0 {
                                return Err(internal(format!(
                                    "value %{} used but not emitted",
                                    x.0
                                )));
                            }
                            id
                        }
                        Operand::Const(c) => self.const_id(c),
                        Operand::Global(g) => self.global_id(g),
                        Operand::Block(bb) => block_ids[bb.0 as usize],
                        Operand::Lit(l) => l,
                        Operand::Var(_) => {
                            return Err(internal("register variable left after SSA".into()));
                        }
                    };
                    buf.push(w);
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
        self.functions = buf;
        self.function_vars.clear();
        self.value_ids = ids;
        self.words = words;
        Ok(())
    }
}

impl Emitter<'_> {
    /// The decorations that instruction flags `fl` ask for on value `id`.
    #[cold]
    fn decorate_value(&mut self, fl: u8, id: Word) {
        let table = [
            (flags::PRECISE, spirv::Decoration::NoContraction),
            (flags::RELAXED, spirv::Decoration::RelaxedPrecision),
            (flags::NON_UNIFORM, spirv::Decoration::NonUniform),
        ];
        for (bit, decoration) in table {
            if fl & bit != 0 {
                inst(
                    &mut self.annotations,
                    Op::Decorate,
                    &[id, decoration as u32],
                );
            }
        }
    }

    /// The entry point of a module with fragment shader interlock ([`Module::interlock`]):
    /// `OpBeginInvocationInterlockEXT`, a call of the program `body`, then
    /// `OpEndInvocationInterlockEXT`, in one block, so both run exactly once, in uniform
    /// control flow, however the body returns. Returns its id.
    fn interlock_entry(&mut self, body: Word, fn_type: Word) -> Word {
        let void = self.type_id(TypeId::VOID);
        let (id, label, call) = (self.id(), self.id(), self.id());
        let mut buf = std::mem::take(&mut self.functions);
        inst(&mut buf, Op::Function, &[void, id, 0, fn_type]);
        inst(&mut buf, Op::Label, &[label]);
        inst(&mut buf, Op::BeginInvocationInterlockEXT, &[]);
        inst(&mut buf, Op::FunctionCall, &[void, call, body]);
        inst(&mut buf, Op::EndInvocationInterlockEXT, &[]);
        inst(&mut buf, Op::Return, &[]);
        inst(&mut buf, Op::FunctionEnd, &[]);
        self.functions = buf;
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
/// there for the next module).
pub fn emit_with_usage(
    m: &Module,
    opts: EmitOptions,
    scratch: &mut EmitScratch,
) -> Result<(Vec<Word>, Vec<bool>), EmitError> {
    let s = scratch;
    let mut function_vars = std::mem::take(&mut s.function_vars);
    function_vars.clear();
    let mut e = Emitter {
        m,
        next_id: 1,
        type_ids: zeroed(&mut s.type_ids, m.types.len()),
        const_ids: zeroed(&mut s.const_ids, m.consts.len()),
        global_ids: zeroed(&mut s.global_ids, m.globals.len()),
        glsl_id: 0,
        names: opts.debug_names,
        function_vars,
        debug: Words::reusing(&mut s.debug, 0),
        annotations: Words::reusing(&mut s.annotations, 256),
        globals: Words::reusing(&mut s.globals, 1024),
        functions: Words::reusing(&mut s.functions, 4096),
        value_ids: std::mem::take(&mut s.value_ids),
        words: std::mem::take(&mut s.words),
    };
    let r = write_module(&mut e, opts);
    *s = EmitScratch {
        type_ids: e.type_ids,
        const_ids: e.const_ids,
        global_ids: e.global_ids,
        function_vars: e.function_vars,
        debug: e.debug.words,
        annotations: e.annotations.words,
        globals: e.globals.words,
        functions: e.functions.words,
        value_ids: e.value_ids,
        words: e.words,
    };
    r
}

/// Writes the module: the functions, then the sections before them.
fn write_module(
    e: &mut Emitter<'_>,
    opts: EmitOptions,
) -> Result<(Vec<Word>, Vec<bool>), EmitError> {
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
    // Decorations of everything emitted.
    for d in &m.decorations {
        let Some(target) = e.target_id(d.target) else {
            continue;
        };
        match d.target {
            DecorationTarget::Member(_, member) => {
                let mut w: smallvec::SmallVec<[Word; 5]> =
                    smallvec::smallvec![target, member, d.decoration as u32];
                w.extend_from_slice(&d.args);
                inst(&mut e.annotations, Op::MemberDecorate, &w);
            }
            _ => {
                let mut w: smallvec::SmallVec<[Word; 4]> =
                    smallvec::smallvec![target, d.decoration as u32];
                w.extend_from_slice(&d.args);
                inst(&mut e.annotations, Op::Decorate, &w);
            }
        }
    }
    if e.names {
        for (t, name) in &m.names {
            let Some(target) = e.target_id(*t) else {
                continue;
            };
            match t {
                DecorationTarget::Member(_, member) => {
                    string_inst(&mut e.debug, Op::MemberName, &[target, *member], name, &[])
                }
                _ => string_inst(&mut e.debug, Op::Name, &[target], name, &[]),
            }
        }
    }

    // Header and the sections before the annotations.
    let mut out = Words::with_capacity(
        64 + e.debug.len() + e.annotations.len() + e.globals.len() + e.functions.len(),
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
    let interlock = m.interlock.then(|| {
        let used: Vec<bool> = e.global_ids.iter().map(|&id| id != 0).collect();
        m.interlock_kind(&used)
    });
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
    let interface: smallvec::SmallVec<[Word; 16]> = m
        .globals
        .iter()
        .enumerate()
        .filter(|(i, g)| {
            e.global_ids[*i] != 0
                && g.storage != spirv::StorageClass::Function
                && (all_globals
                    || matches!(
                        g.storage,
                        spirv::StorageClass::Input | spirv::StorageClass::Output
                    ))
        })
        .map(|(i, _)| e.global_ids[i])
        .collect();
    string_inst(
        &mut out,
        Op::EntryPoint,
        &[execution_model(m.stage) as u32, entry_id],
        &m.entry_name,
        &interface,
    );
    for (mode, args) in &m.execution_modes {
        let mut w: smallvec::SmallVec<[Word; 5]> = smallvec::smallvec![entry_id, *mode as u32];
        w.extend_from_slice(args);
        inst(&mut out, Op::ExecutionMode, &w);
    }
    if let Some((_, mode, _)) = interlock {
        inst(&mut out, Op::ExecutionMode, &[entry_id, mode as u32]);
    }
    out.extend_from_slice(&e.debug);
    out.extend_from_slice(&e.annotations);
    out.extend_from_slice(&e.globals);
    out.extend_from_slice(&e.functions);
    out[3] = e.next_id;
    let used = e.global_ids.iter().map(|&id| id != 0).collect();
    let sections = [&out, &e.debug, &e.annotations, &e.globals, &e.functions];
    if let Some((op, words)) = sections.iter().find_map(|s| s.too_long) {
        return Err(EmitError::TooLong { op, words });
    }
    Ok((out.words, used))
}
