//! Stage inputs and outputs: D3D's `v#`/`o#` registers and system values as SPIR-V
//! interface variables.
//!
//! Every declared register becomes one or more variables, built from the signature elements
//! living in it: elements of one component type share a variable (`Location` = register,
//! `Component` = first component), system values become built-ins. Inputs are loaded once, in
//! the entry block, on first use; outputs are written through promotable per-component
//! variables and stored to the interface at every exit (`ret`), so each output is one store of
//! a whole vector however the program wrote it. Components never written are stored as zero
//! (D3D leaves them undefined; applications read them anyway).
//!
//! Linkage rule (also in `docs/bindings.md`): a register's elements live at
//! `Location = register index`, so stages compiled against matching signatures link.
//!
//! The component is split along its seams: [`declare`] records the `dcl_*` declarations in
//! [`IoState`]; [`interface`] turns declared registers and their signature elements into
//! interface variables once the declarations are read, with [`builtins`] choosing the
//! built-in, type, capabilities and execution modes of each system value; [`entry`] computes
//! input values in the entry block; [`access`] is what instructions use to read and write
//! `v#`, `o#` and the special registers; [`exit`] stores the outputs at each exit; [`xfb`]
//! applies a stream-output declaration to the outputs (transform feedback). Its state
//! is private to these modules: the rest of lowering (the geometry and tessellation stages
//! in particular) goes through [`IoState`]'s methods.

mod access;
mod builtins;
mod declare;
mod entry;
mod exit;
mod interface;
mod xfb;

use smallvec::SmallVec;

pub(crate) use xfb::check_stage as check_stream_output_stage;

use crate::ir::{GlobalId, Operand, Scalar, VarId};
use crate::sm4::{InterpolationMode, OperandType, SystemName};

/// What a part of a register maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PartKind {
    /// A user variable with a `Location`.
    Location,
    /// A built-in read or written as is.
    BuiltIn,
    /// `FragCoord`: `.w` must be turned into clip-space w (1 / FragCoord.w).
    FragCoord,
    /// `FrontFacing` (a bool) as D3D's 0xffffffff / 0.
    FrontFacing,
    /// `FullyCoveredEXT` (a bool) as D3D's `SV_InnerCoverage` uint, 1 / 0.
    FullyCovered,
    /// `VertexIndex − BaseVertex`, `InstanceIndex − BaseInstance`.
    VertexId,
    InstanceId,
    /// A `SampleMask` array element 0.
    SampleMask,
    /// Components `first..` of a clip/cull distance array, starting at array element `offset`.
    ClipCull {
        offset: u32,
    },
    /// One tessellation factor: element `index` of `TessLevelOuter` (`outer`) or
    /// `TessLevelInner`, a `float` array.
    TessLevel {
        outer: bool,
        index: u8,
    },
}

/// Consecutive components of a register held by one interface variable.
#[derive(Debug, Clone)]
pub(crate) struct IoPart {
    pub first: u8,
    pub count: u8,
    pub scalar: Scalar,
    pub global: GlobalId,
    pub kind: PartKind,
    /// The value loaded in the entry block (inputs).
    pub loaded: Option<Operand>,
    /// Per-vertex arrays (GS/HS/DS inputs, HS control-point outputs): the vertex count; 0 for
    /// plain variables.
    pub array_len: u32,
}

/// One declared input or output register.
#[derive(Debug, Clone, Default)]
pub(crate) struct IoReg {
    pub declared: bool,
    pub mask: u8,
    pub sysval: Option<SystemName>,
    /// Components the `_siv`/`_sgv` declaration of `sysval` covers (other elements of the
    /// register are not that system value).
    pub sysval_mask: u8,
    /// GS outputs: the stream whose declaration named `sysval` (the register of another
    /// stream is another output).
    pub sysval_stream: u8,
    pub interp: Option<InterpolationMode>,
    pub parts: SmallVec<[IoPart; 2]>,
    /// Output components as promotable variables.
    pub vars: [Option<VarId>; 4],
    /// Per-vertex registers (`v[n][r]`, `vicp[n][r]`): the largest declared vertex count.
    pub array_len: u32,
    /// GS outputs: the streams (bit per stream) whose declarations name this register.
    pub streams: u8,
    /// GS outputs of streams other than 0: the parts of each stream.
    pub stream_parts: SmallVec<[(u8, SmallVec<[IoPart; 2]>); 1]>,
}

/// What a register's declarations said (the plain facts of an [`IoReg`], copied without its
/// part lists).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IoRegFacts {
    pub mask: u8,
    pub sysval: Option<SystemName>,
    pub sysval_mask: u8,
    pub sysval_stream: u8,
    pub interp: Option<InterpolationMode>,
    pub array_len: u32,
}

impl IoReg {
    /// The declarations' facts of this register.
    pub fn facts(&self) -> IoRegFacts {
        IoRegFacts {
            mask: self.mask,
            sysval: self.sysval,
            sysval_mask: self.sysval_mask,
            sysval_stream: self.sysval_stream,
            interp: self.interp,
            array_len: self.array_len,
        }
    }
}

/// Which register file a declared register belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum IoFile {
    /// `v#`, `v[n][#]` (GS, HS control points), `vicp[n][#]` (HS, DS).
    Input,
    /// `o#`; in a hull shader, the control-point phase's outputs.
    Output,
    /// Domain shader `vpc#`.
    PatchInput,
    /// Hull shader fork/join phase `o#`.
    PatchOutput,
}

impl IoFile {
    pub fn is_output(self) -> bool {
        matches!(self, IoFile::Output | IoFile::PatchOutput)
    }
    pub fn is_patch(self) -> bool {
        matches!(self, IoFile::PatchInput | IoFile::PatchOutput)
    }
}

/// A non-register system value operand (`vThreadID`, `oDepth`, …).
#[derive(Debug, Clone)]
pub(crate) struct SpecialIo {
    pub ty: OperandType,
    pub global: GlobalId,
    pub scalar: Scalar,
    pub width: u8,
    pub kind: PartKind,
    pub loaded: Option<Operand>,
    pub var: Option<VarId>,
}

/// A `dcl_indexrange`: registers `first..first + count` may be indexed dynamically.
#[derive(Debug, Clone)]
pub(crate) struct IndexRange {
    pub first: u32,
    pub count: u32,
    /// Function-local copy of the input registers (inputs), made on first dynamic read.
    pub array: Option<GlobalId>,
}

/// What the I/O declarations said and the interface variables made of them. Private to the
/// `io` modules; the rest of lowering uses the methods below.
#[derive(Debug, Default)]
pub(crate) struct IoState {
    input_ranges: Vec<IndexRange>,
    output_ranges: Vec<IndexRange>,
    inputs: Vec<IoReg>,
    outputs: Vec<IoReg>,
    /// Domain shader patch-constant inputs (`vpc#`).
    patch_inputs: Vec<IoReg>,
    /// Hull shader patch-constant outputs (fork/join phase `o#`).
    patch_outputs: Vec<IoReg>,
    patch_input_ranges: Vec<IndexRange>,
    patch_output_ranges: Vec<IndexRange>,
    /// GS: the stream that later output declarations belong to (`dcl_stream`).
    current_stream: u8,
    /// GS: the streams `dcl_stream` declared (bit per stream).
    declared_streams: u8,
    /// HS: declarations and code belong to a fork or join phase (`o#` are patch constants).
    patch_phase: bool,
    /// Location of patch-constant register 0 (one past the last control-point register).
    patch_location_base: u32,
    /// GS: Location of output register 0 of each stream.
    stream_location_base: [u32; 4],
    /// Per-vertex input reads with an immediate vertex, loaded in the entry block:
    /// (file, register, part, vertex) → value.
    vertex_loads: rustc_hash::FxHashMap<(IoFile, u32, u8, u32), Operand>,
    special: Vec<SpecialIo>,
    /// Declared special operands, created in `finish_io_declarations`.
    special_decls: Vec<OperandType>,
    /// Clip/cull distance arrays (output): global and size.
    clip_out: Option<(GlobalId, u32)>,
    cull_out: Option<(GlobalId, u32)>,
    clip_in: Option<(GlobalId, u32)>,
    cull_in: Option<(GlobalId, u32)>,
    /// Globals created for built-in system values, by a key naming the built-in.
    builtins: rustc_hash::FxHashMap<&'static str, GlobalId>,
}

impl IoState {
    /// Empties this state in place for the next program (what `default()` makes), keeping its
    /// lists' and maps' allocations.
    pub fn recycle(&mut self) {
        // Every field named, so that a new one cannot be left out.
        let IoState {
            input_ranges,
            output_ranges,
            inputs,
            outputs,
            patch_inputs,
            patch_outputs,
            patch_input_ranges,
            patch_output_ranges,
            current_stream,
            declared_streams,
            patch_phase,
            patch_location_base,
            stream_location_base,
            vertex_loads,
            special,
            special_decls,
            clip_out,
            cull_out,
            clip_in,
            cull_in,
            builtins,
        } = self;
        input_ranges.clear();
        output_ranges.clear();
        inputs.clear();
        outputs.clear();
        patch_inputs.clear();
        patch_outputs.clear();
        patch_input_ranges.clear();
        patch_output_ranges.clear();
        *current_stream = 0;
        *declared_streams = 0;
        *patch_phase = false;
        *patch_location_base = 0;
        *stream_location_base = [0; 4];
        vertex_loads.clear();
        special.clear();
        special_decls.clear();
        (*clip_out, *cull_out, *clip_in, *cull_in) = (None, None, None, None);
        builtins.clear();
    }

    /// The registers of one file.
    pub fn file(&self, f: IoFile) -> &Vec<IoReg> {
        match f {
            IoFile::Input => &self.inputs,
            IoFile::Output => &self.outputs,
            IoFile::PatchInput => &self.patch_inputs,
            IoFile::PatchOutput => &self.patch_outputs,
        }
    }

    pub fn file_mut(&mut self, f: IoFile) -> &mut Vec<IoReg> {
        match f {
            IoFile::Input => &mut self.inputs,
            IoFile::Output => &mut self.outputs,
            IoFile::PatchInput => &mut self.patch_inputs,
            IoFile::PatchOutput => &mut self.patch_outputs,
        }
    }

    /// The `dcl_indexrange`s of one file.
    pub fn ranges(&self, f: IoFile) -> &[IndexRange] {
        match f {
            IoFile::Input => &self.input_ranges,
            IoFile::Output => &self.output_ranges,
            IoFile::PatchInput => &self.patch_input_ranges,
            IoFile::PatchOutput => &self.patch_output_ranges,
        }
    }

    /// The file `o#` names now: patch constants in a hull shader's fork and join phases.
    pub fn output_file(&self) -> IoFile {
        if self.patch_phase {
            IoFile::PatchOutput
        } else {
            IoFile::Output
        }
    }

    /// HS: whether declarations and code belong to a fork or join phase.
    pub fn patch_phase(&self) -> bool {
        self.patch_phase
    }

    /// HS: enters (true) or leaves a fork or join phase.
    pub fn set_patch_phase(&mut self, patch: bool) {
        self.patch_phase = patch;
    }

    /// A geometry shader with outputs in streams other than 0.
    pub fn multi_stream(&self) -> bool {
        self.declared_streams & !1 != 0
    }

    /// GS: whether `dcl_stream` declared stream `s`.
    pub fn stream_declared(&self, s: u8) -> bool {
        self.declared_streams & (1 << s) != 0
    }

    /// GS: sets the Location of output register 0 of stream `s`.
    pub fn set_stream_location_base(&mut self, s: u8, base: u32) {
        self.stream_location_base[s as usize] = base;
    }

    /// Sets the Location of patch-constant register 0.
    pub fn set_patch_location_base(&mut self, base: u32) {
        self.patch_location_base = base;
    }

    /// A per-vertex input read with an immediate vertex, if already loaded in the entry block:
    /// (file, register, part, vertex).
    pub fn vertex_load(&self, key: (IoFile, u32, u8, u32)) -> Option<Operand> {
        self.vertex_loads.get(&key).copied()
    }

    /// Records the entry-block load of a per-vertex input read (see [`Self::vertex_load`]).
    pub fn record_vertex_load(&mut self, key: (IoFile, u32, u8, u32), v: Operand) {
        self.vertex_loads.insert(key, v);
    }

    /// Whether the built-in variable named `key` exists already.
    pub fn has_builtin(&self, key: &str) -> bool {
        self.builtins.contains_key(key)
    }
}
