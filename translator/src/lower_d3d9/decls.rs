//! The scan before the code: `dcl`/`def`/`defi`/`defb`, the registers the code writes, the
//! constants and samplers it reads, the subroutine labels — and the D3D9 runtime's limits on
//! register numbers (checked here, each an error naming its rule).
//!
//! D3D9 programs declare little (nothing at all before ps_2_0, and D3D8 vertex shaders declare
//! no inputs), so what lowering must create up front — register variables with their initial
//! values, constant buffers and samplers placed together by the binding policy — comes from
//! this one walk over the instructions.

use crate::rules::d3d9::D3d9Rule;

use rustc_hash::FxHashMap as HashMap;

use super::{D9, R};
use crate::d3dbc::{
    Declaration, Extra, Instruction, Opcode, Register, RegisterType as RT, Relative, Source,
    TextureType, Usage,
};
use crate::reflect::ShaderStage;

/// A `dcl` of an input or output register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Semantic {
    pub reg: Register,
    pub usage: Usage,
    pub index: u8,
    pub mask: u8,
    pub centroid: bool,
}

/// Use of one constant set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SetUse {
    /// Lowest and highest register read directly (relative reads count their base).
    pub range: Option<(u32, u32)>,
    /// Read with relative addressing.
    pub relative: bool,
}

impl SetUse {
    fn add(&mut self, n: u32) {
        self.range = Some(match self.range {
            None => (n, n),
            Some((lo, hi)) => (lo.min(n), hi.max(n)),
        });
    }
}

/// A map of a few entries kept sorted by key in a vector: iterated in key order like a
/// `BTreeMap`, and its allocation kept from one program to the next (a `BTreeMap` frees its
/// nodes when cleared).
#[derive(Debug)]
pub(crate) struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap(Vec::new())
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
    /// Sets `k` to `v`; returns the value it replaces.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.0.binary_search_by(|(x, _)| x.cmp(&k)) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, v)),
            Err(i) => {
                self.0.insert(i, (k, v));
                None
            }
        }
    }

    pub fn get(&self, k: &K) -> Option<&V> {
        self.0
            .binary_search_by(|(x, _)| x.cmp(k))
            .ok()
            .map(|i| &self.0[i].1)
    }

    pub fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// A set of a few keys kept sorted in a vector (see [`SortedMap`]).
#[derive(Debug)]
pub(crate) struct SortedSet<K>(Vec<K>);

impl<K> Default for SortedSet<K> {
    fn default() -> Self {
        SortedSet(Vec::new())
    }
}

impl<K: Ord + Copy> SortedSet<K> {
    /// Adds `k`; whether it was new.
    pub fn insert(&mut self, k: K) -> bool {
        match self.0.binary_search(&k) {
            Ok(_) => false,
            Err(i) => {
                self.0.insert(i, k);
                true
            }
        }
    }

    pub fn contains(&self, k: &K) -> bool {
        self.0.binary_search(k).is_ok()
    }

    /// The keys in order.
    pub fn iter(&self) -> std::slice::Iter<'_, K> {
        self.0.iter()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

#[derive(Debug, Default)]
pub(crate) struct Decls {
    pub semantics: Vec<Semantic>,
    /// Declared sampler types, by `s#`.
    pub sampler_types: SortedMap<u16, TextureType>,
    /// The types ps_1_x instructions imply for their (undeclared) stages (`ps1_tex`).
    pub implied_types: SortedMap<u16, TextureType>,
    /// Samplers (texture stages in ps_1_x) the code samples.
    pub samplers: SortedSet<u16>,
    pub defs: SortedMap<u16, [u32; 4]>,
    pub defis: SortedMap<u16, [i32; 4]>,
    pub defbs: SortedMap<u16, bool>,
    /// Registers some instruction writes.
    pub written: SortedSet<(RT, u16)>,
    /// Registers some instruction reads (inputs and texture coordinates among them).
    pub read: SortedSet<(RT, u16)>,
    pub floats: SetUse,
    pub ints: SetUse,
    pub bools: SetUse,
    /// Subroutine labels: `l#` → index of its `label` instruction.
    pub labels: HashMap<u16, usize>,
    /// Index of the first `label` (the main program ends there).
    pub main_end: usize,
}

impl Decls {
    /// Empty, with the allocations kept (for the next program).
    pub fn clear(&mut self) {
        let Decls {
            semantics,
            sampler_types,
            implied_types,
            samplers,
            defs,
            defis,
            defbs,
            written,
            read,
            floats,
            ints,
            bools,
            labels,
            main_end,
        } = self;
        semantics.clear();
        sampler_types.clear();
        implied_types.clear();
        samplers.clear();
        defs.clear();
        defis.clear();
        defbs.clear();
        written.clear();
        read.clear();
        *floats = SetUse::default();
        *ints = SetUse::default();
        *bools = SetUse::default();
        labels.clear();
        *main_end = 0;
    }
}

/// The float constant registers a version has (the D3D9 runtime rejects higher ones).
pub(crate) fn float_count(stage: ShaderStage, major: u8, minor: u8) -> u32 {
    match (stage, major) {
        (ShaderStage::Vertex, _) if minor == 0xFF => SOFTWARE_FLOATS,
        (ShaderStage::Vertex, _) => 256,
        (_, 1) => 8,
        (_, 2) => 32,
        _ => 224,
    }
}

/// Float constants of a vertex shader under software vertex processing (`vs_*_sw` and every
/// vertex shader on a software vertex-processing device).
const SOFTWARE_FLOATS: u32 = 8192;
/// Integer and boolean constants of a vertex shader under software vertex processing.
const SOFTWARE_OTHERS: u32 = 2048;

/// The sizes of the three constant sets: the D3D9 runtime's limits for the version and device
/// mode; with relaxed limits, grown after the scan to hold every register the program names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub floats: u32,
    pub ints: u32,
    pub bools: u32,
    /// Registers past the limits grow the sets instead of being refused.
    pub relaxed: bool,
}

impl Limits {
    /// The limits of `ver` in `stage` under the caller's D3D9 options.
    pub fn of(stage: ShaderStage, ver: crate::d3dbc::Version, o: &crate::D3d9Options) -> Limits {
        let vertex = stage == ShaderStage::Vertex;
        let software = vertex && (ver.minor == 0xFF || o.software_vertex_processing);
        // ps_1_x has no integer or boolean constants; ps_2_0 neither (ps_2_x does), unless
        // relaxed, where ps_2_0 has the ps_2_x sets.
        let others = if software {
            SOFTWARE_OTHERS
        } else if !vertex && (ver.major < 2 || (ver.ver() == 0x200 && !o.relaxed_limits)) {
            0
        } else {
            16
        };
        Limits {
            floats: if software {
                SOFTWARE_FLOATS
            } else {
                float_count(stage, ver.major, ver.minor)
            },
            ints: others,
            bools: others,
            relaxed: o.relaxed_limits,
        }
    }
}

/// Opcodes of ps_1_0–1_3 that sample the texture stage named by their destination.
pub(crate) fn ps1_samples(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Tex
            | Opcode::TexBem
            | Opcode::TexBemL
            | Opcode::TexReg2Ar
            | Opcode::TexReg2Gb
            | Opcode::TexReg2Rgb
            | Opcode::TexM3x2Tex
            | Opcode::TexM3x3Tex
            | Opcode::TexM3x3Spec
            | Opcode::TexM3x3VSpec
            | Opcode::TexDp3Tex
    )
}

/// Opcodes of ps_1_3/1_4 that write the fragment depth.
pub(crate) fn ps1_writes_depth(op: Opcode) -> bool {
    matches!(op, Opcode::TexDepth | Opcode::TexM3x2Depth)
}

impl<'p, 'm> D9<'p, 'm> {
    /// Reads the declarations and the register use of the whole program.
    pub(super) fn scan(&mut self) -> R<()> {
        self.decl.main_end = self.insts.len();
        // By index: each element is a plain reference into the program (no copy of the list).
        for i in 0..self.insts.len() {
            let inst: &'p Instruction = self.insts[i];
            self.offset = inst.offset;
            self.scan_instruction(i, inst)?;
        }
        Ok(())
    }

    fn scan_instruction(&mut self, i: usize, inst: &Instruction) -> R<()> {
        match (inst.opcode, inst.extra, inst.dst) {
            (Opcode::Dcl, Extra::Dcl(d), Some(dst)) => {
                match d {
                    Declaration::Semantic { usage, index } => self.decl.semantics.push(Semantic {
                        reg: dst.reg,
                        usage,
                        index,
                        mask: dst.mask,
                        centroid: dst.centroid,
                    }),
                    Declaration::Sampler(t) => {
                        if dst.reg.ty != RT::Sampler {
                            return Err(self.invalid("a sampler declaration names no s# register"));
                        }
                        self.decl.sampler_types.insert(dst.reg.num, t);
                    }
                }
                return Ok(());
            }
            (Opcode::Def, Extra::Def(v), Some(dst)) => {
                self.check_const(dst.reg)?;
                self.decl.defs.insert(dst.reg.num, v);
                return Ok(());
            }
            (Opcode::DefI, Extra::DefI(v), Some(dst)) => {
                self.check_const(dst.reg)?;
                self.decl.defis.insert(dst.reg.num, v);
                return Ok(());
            }
            (Opcode::DefB, Extra::DefB(v), Some(dst)) => {
                self.check_const(dst.reg)?;
                self.decl.defbs.insert(dst.reg.num, v != 0);
                return Ok(());
            }
            (Opcode::Dcl | Opcode::Def | Opcode::DefI | Opcode::DefB, _, _) => {
                return Err(self.invalid("malformed declaration"));
            }
            (Opcode::Label, _, _) => {
                let Some(l) = inst.src.first().filter(|s| s.reg.ty == RT::Label) else {
                    return Err(self.invalid("label without an l# operand"));
                };
                if self.decl.labels.insert(l.reg.num, i).is_some() {
                    return Err(self.invalid(format!("label l{} defined twice", l.reg.num)));
                }
                self.decl.main_end = self.decl.main_end.min(i);
                return Ok(());
            }
            _ => {}
        }
        if let Some(dst) = &inst.dst {
            if inst.opcode == Opcode::TexKill {
                self.decl.read.insert((dst.reg.ty, dst.reg.num));
            } else {
                if matches!(dst.reg.ty, RT::Const | RT::ConstInt | RT::ConstBool)
                    || matches!(dst.reg.ty, RT::Const2 | RT::Const3 | RT::Const4)
                {
                    return Err(self.invalid("a constant register is written"));
                }
                // ps_1_x writes its colour as r0 and its depth only through `texdepth` /
                // `texm3x2depth`; oC#/oDepth registers are 2.0+.
                if self.ps1() && matches!(dst.reg.ty, RT::ColorOut | RT::DepthOut) {
                    return Err(self
                        .invalid(format!(
                            "{} is written in {}",
                            self.reg_name(dst.reg),
                            self.ver
                        ))
                        .with_rule(D3d9Rule::RegisterWritable.name()));
                }
                self.decl.written.insert((dst.reg.ty, dst.reg.num));
            }
            if let Some(rel) = &dst.relative {
                self.scan_relative(rel);
            }
        }
        if let Some(p) = &inst.predicate {
            self.decl.read.insert((p.reg.ty, p.reg.num));
        }
        for s in &inst.src {
            self.scan_source(s)?;
        }
        // A matrix instruction also reads the registers after its second source, one per row
        // (`m4x4 r0, v0, c4` reads c4-c7): they count as used and are held to the limits.
        if let (Some((_, rows)), Some(m)) = (super::alu::matrix_shape(inst.opcode), inst.src.get(1))
        {
            for k in 1..rows {
                self.scan_source(&D9::row(m, k))?;
            }
        }
        if ps1_writes_depth(inst.opcode) {
            self.decl.written.insert((RT::DepthOut, 0));
        }
        // Samplers.
        let ps1 = self.ps1();
        // ps_1_0–1_3 sampling ops and ps_1_4 `texld` name the stage by their destination.
        if ps1 && ((self.ver.minor < 4 && ps1_samples(inst.opcode)) || inst.opcode == Opcode::Tex) {
            if let Some(d) = &inst.dst {
                self.decl.samplers.insert(d.reg.num);
                // ps_1_4 `texld` implies nothing (`implied_type` of `tex` is `None`).
                if let Some(t) = super::ps1_tex::implied_type(inst.opcode) {
                    self.decl.implied_types.insert(d.reg.num, t);
                }
            }
        } else if matches!(inst.opcode, Opcode::Tex | Opcode::TexLdd | Opcode::TexLdl) {
            match inst.src.get(1) {
                Some(s) if s.reg.ty == RT::Sampler => {
                    self.decl.samplers.insert(s.reg.num);
                }
                _ => return Err(self.invalid("texture sampling without an s# operand")),
            }
        }
        Ok(())
    }

    fn scan_relative(&mut self, rel: &Relative) {
        match rel {
            Relative::Implied => {
                self.decl.read.insert((RT::AddrOrTexture, 0));
            }
            Relative::Register { reg, .. } => {
                self.decl.read.insert((reg.ty, reg.num));
            }
        }
    }

    fn scan_source(&mut self, s: &Source) -> R<()> {
        self.decl.read.insert((s.reg.ty, s.reg.num));
        if let Some(rel) = &s.relative {
            self.scan_relative(rel);
        }
        let relative = s.relative.is_some();
        match s.reg.ty {
            RT::Const | RT::Const2 | RT::Const3 | RT::Const4 => {
                let n = crate::d3dbc::register_number(s.reg);
                if !relative {
                    self.check_const(s.reg)?;
                }
                self.decl.floats.add(n.min(self.limits.floats - 1));
                self.decl.floats.relative |= relative;
            }
            RT::ConstInt => {
                self.check_const(s.reg)?;
                self.decl.ints.add(s.reg.num.into());
            }
            RT::ConstBool => {
                self.check_const(s.reg)?;
                self.decl.bools.add(s.reg.num.into());
            }
            _ => {}
        }
        Ok(())
    }

    /// The runtime's limits on constant register numbers; with relaxed limits the set grows
    /// to hold the register instead.
    fn check_const(&mut self, reg: Register) -> R<()> {
        let lim = &mut self.limits;
        let (n, limit, what) = match reg.ty {
            RT::Const | RT::Const2 | RT::Const3 | RT::Const4 => (
                crate::d3dbc::register_number(reg),
                &mut lim.floats,
                "float constants",
            ),
            RT::ConstInt => (u32::from(reg.num), &mut lim.ints, "integer constants"),
            RT::ConstBool => (u32::from(reg.num), &mut lim.bools, "boolean constants"),
            _ => return Err(self.invalid("a def names no constant register")),
        };
        if n >= *limit && lim.relaxed {
            *limit = n + 1;
            return Ok(());
        }
        let limit = *limit;
        if n >= limit {
            return Err(self
                .invalid(format!(
                    "{}{n} is past the {limit} {what} of {}",
                    self.reg_letter(reg),
                    self.ver
                ))
                .with_rule(D3d9Rule::ConstantRegisterRange.name()));
        }
        Ok(())
    }
}
