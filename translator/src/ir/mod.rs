//! The translator's intermediate representation (documented in `docs/ir.md`).
//!
//! The IR is SPIR-V-shaped so that emission is a straight walk: instructions carry a SPIR-V
//! opcode, a result type and operands, but operands name our own arenas (values, constants,
//! globals, blocks) instead of SPIR-V ids, and functions are basic blocks with explicit
//! terminators rather than a flat word stream. That lets the passes (structurizer, SSA
//! construction, simplification) rewrite it cheaply. D3D's untyped registers are promotable
//! scalar variables ([`VarId`], `u32`-typed) that lowering reads and writes through the
//! builder, which turns them into values and phis as it goes (`ssa`): a finished function
//! holds no variable.

pub mod builder;
pub mod consts;
pub mod display;
mod narrow;
mod ssa;
mod ssa_vector;
pub mod structured;
pub mod types;
pub mod validate;

use smallvec::SmallVec;

pub use consts::{Const, ConstId, ConstTable};
pub use types::{ImageType, Scalar, Type, TypeId, TypeTable};

use crate::reflect::ShaderStage;

/// Index of an instruction in its function's arena; the instruction's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// Index of a basic block in its function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// Index of a module-level variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// Index of a promotable function-local scalar variable (a D3D register component).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// An instruction operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    Value(ValueId),
    Const(ConstId),
    Global(GlobalId),
    Var(VarId),
    Block(BlockId),
    /// A literal word (e.g. a composite index, an image-operands mask, an ext-inst number).
    Lit(u32),
}

impl Operand {
    pub fn value(self) -> Option<ValueId> {
        match self {
            Operand::Value(v) => Some(v),
            _ => None,
        }
    }

    pub fn konst(self) -> Option<ConstId> {
        match self {
            Operand::Const(c) => Some(c),
            _ => None,
        }
    }

    pub fn lit(self) -> Option<u32> {
        match self {
            Operand::Lit(l) => Some(l),
            _ => None,
        }
    }

    pub fn block(self) -> Option<BlockId> {
        match self {
            Operand::Block(b) => Some(b),
            _ => None,
        }
    }
}

impl From<ValueId> for Operand {
    fn from(v: ValueId) -> Self {
        Operand::Value(v)
    }
}

impl From<ConstId> for Operand {
    fn from(c: ConstId) -> Self {
        Operand::Const(c)
    }
}

/// Operand list of an instruction: six inline, which holds a four-component `VectorShuffle`
/// (two vectors and four selectors) and a phi of up to three inputs without a heap allocation
/// (with four, every such shuffle allocated: measured, six is faster despite the larger
/// instruction).
pub type Args = SmallVec<[Operand; 6]>;

/// A terminator's successors (inline up to eight: switches rarely have more cases).
pub type Succs = SmallVec<[BlockId; 8]>;

/// Extra facts about an instruction that become decorations.
pub mod flags {
    /// `NoContraction` (D3D `precise`).
    pub const PRECISE: u8 = 1;
    /// `NonUniform` on the result (SM5.1 non-uniform resource index).
    pub const NON_UNIFORM: u8 = 2;
    /// `RelaxedPrecision` (D3D minimum precision `min16f`/`min2_8f`/`min16i`/`min16u`).
    pub const RELAXED: u8 = 4;
    /// Computed on 16-bit types (`MinPrecisionMode::Native16`, `passes::min16`).
    pub const HALF: u8 = 8;
    /// With [`HALF`] on an integer result: sign-extended back to 32 bits (`min16int`), not
    /// zero-extended (`min16uint`).
    pub const HALF_SIGNED: u8 = 16;
    /// A bitcast through which lowering reads a phi it is still building (`ir::ssa`); no
    /// instruction carries it once lowering is done.
    pub const VIEW: u8 = 0x40;
    /// The instruction was deleted by a pass (kept in the arena, dropped from its block).
    pub const DEAD: u8 = 0x80;
}

/// One instruction.
///
/// `Op::Nop` is a placeholder: code its front end writes after the passes, in its place
/// (`lower_d3d9::tail`), whose operands are the values that code reads (the first one a
/// literal the front end gives it). The passes keep it where it is, never fold or merge it,
/// and resolve its operands like any other's; the emitter never sees one.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    pub op: spirv::Op,
    /// Result type; [`TypeId::VOID`] for instructions without a result.
    pub ty: TypeId,
    pub args: Args,
    /// See [`flags`].
    pub flags: u8,
}

impl Inst {
    pub fn new(op: spirv::Op, ty: TypeId, args: Args) -> Self {
        Inst {
            op,
            ty,
            args,
            flags: 0,
        }
    }

    pub fn has_result(&self) -> bool {
        self.ty != TypeId::VOID || self.op == spirv::Op::FunctionCall
    }
}

/// How a block ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Terminator {
    /// The block is still being built (never present after lowering).
    Open,
    Branch(BlockId),
    CondBranch {
        cond: Operand,
        on_true: BlockId,
        on_false: BlockId,
    },
    Switch {
        selector: Operand,
        default: BlockId,
        cases: Vec<(u32, BlockId)>,
    },
    Return,
    Unreachable,
}

impl Terminator {
    /// Successor blocks, in operand order (may repeat).
    pub fn successors(&self) -> Succs {
        match self {
            Terminator::Branch(b) => smallvec::smallvec![*b],
            Terminator::CondBranch {
                on_true, on_false, ..
            } => smallvec::smallvec![*on_true, *on_false],
            Terminator::Switch { default, cases, .. } => {
                let mut s: Succs = smallvec::smallvec![*default];
                s.extend(cases.iter().map(|c| c.1));
                s
            }
            Terminator::Open | Terminator::Return | Terminator::Unreachable => SmallVec::new(),
        }
    }

    /// How many successors [`Terminator::successors`] lists.
    pub fn successor_count(&self) -> usize {
        match self {
            Terminator::Branch(_) => 1,
            Terminator::CondBranch { .. } => 2,
            Terminator::Switch { cases, .. } => 1 + cases.len(),
            Terminator::Open | Terminator::Return | Terminator::Unreachable => 0,
        }
    }

    /// Successor `i`, in [`Terminator::successors`]'s order, without building the list; `i`
    /// is below [`Terminator::successor_count`].
    pub fn successor(&self, i: usize) -> BlockId {
        match self {
            Terminator::Branch(b) => *b,
            Terminator::CondBranch {
                on_true, on_false, ..
            } => {
                if i == 0 {
                    *on_true
                } else {
                    *on_false
                }
            }
            Terminator::Switch { default, cases, .. } => {
                if i == 0 {
                    *default
                } else {
                    cases[i - 1].1
                }
            }
            Terminator::Open | Terminator::Return | Terminator::Unreachable => {
                unreachable!("successor of a terminator without successors")
            }
        }
    }

    /// Rewrites every successor equal to `from` into `to`.
    pub fn replace_successor(&mut self, from: BlockId, to: BlockId) {
        let fix = |b: &mut BlockId| {
            if *b == from {
                *b = to
            }
        };
        match self {
            Terminator::Branch(b) => fix(b),
            Terminator::CondBranch {
                on_true, on_false, ..
            } => {
                fix(on_true);
                fix(on_false)
            }
            Terminator::Switch { default, cases, .. } => {
                fix(default);
                cases.iter_mut().for_each(|c| fix(&mut c.1));
            }
            _ => {}
        }
    }
}

/// Structured-control-flow annotation of a header block (set by the structurizer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    None,
    Selection(BlockId),
    Loop {
        merge: BlockId,
        continue_target: BlockId,
    },
}

/// A basic block.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Instructions in order; phis first.
    pub insts: Vec<ValueId>,
    pub term: Terminator,
    pub merge: Merge,
    /// Structure the source program states: where the selection or switch this block's
    /// terminator starts rejoins (D3D's `endif`/`endswitch`, the code after `breakc`/`retc`).
    /// The structurizer takes it as the merge when it is valid there.
    pub join: Option<BlockId>,
    /// For a block opening a D3D `loop`: the block after its `endloop`.
    pub loop_exit: Option<BlockId>,
    /// A loop header whose loop the program states (D3D `loop`, D3D9 `loop`/`rep`): emitted
    /// with `LoopControl DontUnroll`. The HLSL compiler unrolled what it chose to (a loop
    /// stays one in the bytecode under `[loop]`, or when it could not be unrolled), and a
    /// driver that unrolls it anyway replicates what the body holds: a thread-group barrier in
    /// every copy made lavapipe's compute shaders a third slower (docs/architecture.md,
    /// "Speed").
    pub dont_unroll: bool,
}

impl Block {
    pub fn new() -> Self {
        Block {
            insts: Vec::new(),
            term: Terminator::Open,
            merge: Merge::None,
            join: None,
            loop_exit: None,
            dont_unroll: false,
        }
    }
}

impl Default for Block {
    fn default() -> Self {
        Self::new()
    }
}

/// A promotable variable: one 32-bit component of a D3D register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    pub ty: TypeId,
}

/// The `FPFastMathDefault` of a module in `SPV_KHR_float_controls2` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastMathDefault {
    /// The FP Fast Math Mode bits.
    pub mask: u32,
    /// The 32-bit integer constant holding `mask` (the execution mode's operand).
    pub constant: ConstId,
}

/// The buffers a module keeps from its last built function for the next (see
/// [`Module::reset`], which empties the function and pools its blocks' instruction lists):
/// the function's lists and the builder's per-variable state, whose contents
/// [`FnBuilder::new`](builder::FnBuilder::new) clears. The builder of a function uses its
/// state here, in place (it moves no copy of it in or out).
#[derive(Debug, Clone, Default)]
pub(crate) struct Spare {
    pub function: Function,
    pub builder: builder::Scratch,
    /// Set by [`Module::reset_kept`] (the module is what `reset` makes) until the module is
    /// handed out again: [`Module::reuse_or_new`] then need not reset it a second time.
    pub reset_done: bool,
}

/// A function: an instruction arena and basic blocks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Function {
    pub insts: Vec<Inst>,
    pub blocks: Vec<Block>,
    /// Block order for emission; `layout[0]` is the entry block. Blocks absent from it are dead.
    pub layout: Vec<BlockId>,
    pub vars: Vec<Var>,
    /// The front end's promise that this function's flow is plainly nested `if`/`else`,
    /// `switch` and `loop` constructs: cycles only through a loop's header (`loop_exit` set),
    /// no switch case falling through into another, every conditional branch and switch with
    /// its `join` recorded, and edges leaving a construct only to its join, to an enclosing
    /// loop's header or exit (`continue`, `break`), to an enclosing switch's join, or to a
    /// block that ends the invocation. Each join is then the construct's merge, and the
    /// structurizer takes them as they are (`passes::structurize`, "Plain flow"). False unless
    /// a front end sets it.
    pub plain_flow: bool,
}

impl Function {
    pub fn inst(&self, v: ValueId) -> &Inst {
        &self.insts[v.0 as usize]
    }

    pub fn inst_mut(&mut self, v: ValueId) -> &mut Inst {
        &mut self.insts[v.0 as usize]
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.0 as usize]
    }

    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.0 as usize]
    }

    pub fn entry(&self) -> BlockId {
        self.layout[0]
    }

    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block::new());
        BlockId(self.blocks.len() as u32 - 1)
    }

    /// Adds an instruction to the arena without placing it in a block.
    pub fn add_inst(&mut self, inst: Inst) -> ValueId {
        self.insts.push(inst);
        ValueId(self.insts.len() as u32 - 1)
    }

    pub fn new_var(&mut self, ty: TypeId) -> VarId {
        self.vars.push(Var { ty });
        VarId(self.vars.len() as u32 - 1)
    }

    /// Predecessor lists of every block (only blocks in `layout` count as sources).
    pub fn predecessors(&self) -> Vec<SmallVec<[BlockId; 2]>> {
        let mut preds: Vec<SmallVec<[BlockId; 2]>> = Vec::with_capacity(self.blocks.len());
        preds.resize_with(self.blocks.len(), SmallVec::new);
        for &b in &self.layout {
            let mut add = |s: BlockId| {
                let p = &mut preds[s.0 as usize];
                // `b`'s successors come one after another: a repeat is the last entry.
                if p.last() != Some(&b) {
                    p.push(b);
                }
            };
            // The successors in operand order, as `successors` lists them (no list built).
            let term = &self.block(b).term;
            for i in 0..term.successor_count() {
                add(term.successor(i));
            }
        }
        preds
    }
}

/// A module-level variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Global {
    /// Pointer type of the variable.
    pub ty: TypeId,
    pub storage: spirv::StorageClass,
    pub init: Option<ConstId>,
}

/// What a decoration applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecorationTarget {
    Global(GlobalId),
    Type(TypeId),
    /// A member of a struct type.
    Member(TypeId, u32),
}

/// A decoration on a global or type.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoration {
    pub target: DecorationTarget,
    pub decoration: spirv::Decoration,
    pub args: SmallVec<[u32; 2]>,
}

/// A whole shader module.
#[derive(Debug, Clone)]
pub struct Module {
    pub stage: ShaderStage,
    pub entry_name: String,
    pub types: TypeTable,
    pub consts: ConstTable,
    pub globals: Vec<Global>,
    /// `functions[0]` is the entry point.
    pub functions: Vec<Function>,
    pub capabilities: Vec<spirv::Capability>,
    pub extensions: Vec<&'static str>,
    pub execution_modes: Vec<(spirv::ExecutionMode, SmallVec<[u32; 3]>)>,
    pub decorations: Vec<Decoration>,
    /// Debug names (emitted only when asked for).
    pub names: Vec<(DecorationTarget, String)>,
    /// Whether [`Module::name`] records names (off when the output will not carry them).
    pub keep_names: bool,
    /// The `void()` function type of the entry point.
    pub void_fn_type: TypeId,
    /// Fragment shader interlock: the emitter writes `functions[0]` as a plain function and
    /// an entry point that calls it between `OpBeginInvocationInterlockEXT` and
    /// `OpEndInvocationInterlockEXT`, so each runs exactly once, in uniform control flow,
    /// whatever returns the body takes (rasterizer-ordered views).
    pub interlock: bool,
    /// `SPV_KHR_float_controls2` form of the precision rules (`Options::float_controls2`):
    /// the fast-math flags of every float type's `FPFastMathDefault`; operations flagged
    /// [`flags::PRECISE`] that the default does not cover get an `FPFastMathMode` of none,
    /// never `NoContraction`.
    pub float_controls2: Option<FastMathDefault>,
    /// Buffers of this module's last function and its builder, which [`Module::reset`]
    /// keeps for the next [`FnBuilder`](builder::FnBuilder) (fewer allocations when a module
    /// is reused). Holds no state any later translation reads.
    pub(crate) spare: Spare,
}

impl Module {
    pub fn new(stage: ShaderStage) -> Self {
        let mut types = TypeTable::new();
        let void_fn_type = types.intern(Type::Function {
            ret: TypeId::VOID,
            params: Vec::new(),
        });
        Module {
            void_fn_type,
            stage,
            entry_name: "main".into(),
            types,
            consts: ConstTable::new(),
            // Room for a typical shader's globals and decorations (they grow otherwise
            // one reallocation at a time).
            globals: Vec::with_capacity(16),
            functions: Vec::new(),
            capabilities: vec![spirv::Capability::Shader],
            extensions: Vec::new(),
            execution_modes: Vec::new(),
            decorations: Vec::with_capacity(32),
            names: Vec::new(),
            keep_names: true,
            interlock: false,
            float_controls2: None,
            spare: Spare::default(),
        }
    }

    /// `reuse` reset for `stage` ([`Module::reset`]), or a new module when there is none.
    /// Boxed: a module is a few kilobytes, which moving between the translation's steps
    /// would copy each time.
    pub fn reuse_or_new(reuse: Option<Box<Module>>, stage: ShaderStage) -> Box<Module> {
        match reuse {
            Some(mut m) => {
                if m.spare.reset_done {
                    m.stage = stage;
                } else {
                    m.reset(stage);
                }
                m.spare.reset_done = false;
                m
            }
            None => Box::new(Module::new(stage)),
        }
    }

    /// [`Module::reset`] of a module kept for a later translation, right after its own: its
    /// contents are dropped while they are in cache, and [`Module::reuse_or_new`] does not
    /// reset it again.
    pub(crate) fn reset_kept(&mut self) {
        self.reset(self.stage);
        self.spare.reset_done = true;
    }

    /// Makes the module what `Module::new(stage)` makes, keeping the allocations of its
    /// tables (a [`crate::Translator`] reuses them for its next translation).
    pub fn reset(&mut self, stage: ShaderStage) {
        // Every field named, so that a new one cannot be left out.
        let Module {
            stage: s,
            entry_name,
            types,
            consts,
            globals,
            functions,
            capabilities,
            extensions,
            execution_modes,
            decorations,
            names,
            keep_names,
            void_fn_type,
            interlock,
            float_controls2,
            spare,
        } = self;
        *s = stage;
        if entry_name != "main" {
            *entry_name = "main".into();
        }
        types.reset();
        *void_fn_type = types.intern(Type::Function {
            ret: TypeId::VOID,
            params: Vec::new(),
        });
        consts.clear();
        globals.clear();
        if let Some(f) = functions.pop() {
            spare.function = f;
        }
        // Its contents dropped now, its lists pooled for the next function's blocks.
        spare.builder.recycle(&mut spare.function);
        functions.clear();
        capabilities.clear();
        capabilities.push(spirv::Capability::Shader);
        extensions.clear();
        execution_modes.clear();
        decorations.clear();
        names.clear();
        *keep_names = true;
        *interlock = false;
        *float_controls2 = None;
    }

    pub fn add_global(
        &mut self,
        pointee: TypeId,
        storage: spirv::StorageClass,
        init: Option<ConstId>,
    ) -> GlobalId {
        let ty = self.types.pointer(storage, pointee);
        self.globals.push(Global { ty, storage, init });
        GlobalId(self.globals.len() as u32 - 1)
    }

    pub fn decorate(
        &mut self,
        target: DecorationTarget,
        decoration: spirv::Decoration,
        args: &[u32],
    ) {
        self.decorations.push(Decoration {
            target,
            decoration,
            args: args.into(),
        });
    }

    /// A `Block` struct whose one member, at offset 0, is `member`: the type of a buffer
    /// block holding a single array.
    pub fn block_of(&mut self, member: TypeId) -> TypeId {
        let st = self.types.new_struct(vec![member]);
        self.decorate(DecorationTarget::Type(st), spirv::Decoration::Block, &[]);
        self.decorate(
            DecorationTarget::Member(st, 0),
            spirv::Decoration::Offset,
            &[0],
        );
        st
    }

    /// A [`Self::block_of`] an array of `rows` 16-byte rows of `elem` (a four-component
    /// vector): the type of a constant buffer's uniform block.
    pub fn row_block(&mut self, elem: TypeId, rows: u32) -> TypeId {
        let len = self.consts.u32(rows);
        let arr = self.types.intern(Type::Array {
            elem,
            len,
            stride: Some(16),
        });
        self.block_of(arr)
    }

    /// Which globals the placed instructions of any function reference.
    pub fn used_globals(&self) -> Vec<bool> {
        let mut used = vec![false; self.globals.len()];
        for f in &self.functions {
            for &b in &f.layout {
                for &v in &f.block(b).insts {
                    for a in &f.inst(v).args {
                        if let Operand::Global(g) = a {
                            used[g.0 as usize] = true;
                        }
                    }
                }
            }
        }
        used
    }

    /// The fragment shader interlock of a module with [`Module::interlock`], given which
    /// globals the emitted module uses: per sample (`SampleInterlockOrderedEXT`) when Vulkan
    /// runs the shader per sample (it uses `SampleId`, `SamplePosition` or a
    /// `Sample`-interpolated input), else per pixel. Returns the capability, the execution
    /// mode and the Vulkan feature.
    pub fn interlock_kind(
        &self,
        used: &[bool],
    ) -> (spirv::Capability, spirv::ExecutionMode, &'static str) {
        use spirv::{BuiltIn, Decoration as D};
        let per_sample = self.decorations.iter().any(|d| {
            let DecorationTarget::Global(g) = d.target else {
                return false;
            };
            used.get(g.0 as usize).copied().unwrap_or(false)
                && match d.decoration {
                    D::Sample => true,
                    D::BuiltIn => d.args.first().is_some_and(|&b| {
                        b == BuiltIn::SampleId as u32 || b == BuiltIn::SamplePosition as u32
                    }),
                    _ => false,
                }
        });
        if per_sample {
            (
                spirv::Capability::FragmentShaderSampleInterlockEXT,
                spirv::ExecutionMode::SampleInterlockOrderedEXT,
                "fragmentShaderSampleInterlock",
            )
        } else {
            (
                spirv::Capability::FragmentShaderPixelInterlockEXT,
                spirv::ExecutionMode::PixelInterlockOrderedEXT,
                "fragmentShaderPixelInterlock",
            )
        }
    }

    pub fn capability(&mut self, cap: spirv::Capability) {
        if !self.capabilities.contains(&cap) {
            self.capabilities.push(cap);
        }
    }

    pub fn extension(&mut self, ext: &'static str) {
        if !self.extensions.contains(&ext) {
            self.extensions.push(ext);
        }
    }

    pub fn execution_mode(&mut self, mode: spirv::ExecutionMode, args: &[u32]) {
        if !self.execution_modes.iter().any(|(m, _)| *m == mode) {
            self.execution_modes.push((mode, args.into()));
        }
    }

    /// Records a debug name (formatted only when the module keeps names).
    pub fn name(&mut self, target: DecorationTarget, name: std::fmt::Arguments<'_>) {
        if self.keep_names {
            self.names.push((target, name.to_string()));
        }
    }
}
