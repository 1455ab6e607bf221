//! The render-state code after a program (`tail`) prebuilt once per kind of state and way the
//! caller delivers its items, and copied into each module by the emitter.
//!
//! Fog, alpha test and user clip planes are the same instructions in every module that has
//! them, for the same options: only the values they read (the colour, the alpha, the
//! position) and the module's ids differ. So the first time a [`Translator`] meets a kind of
//! state code with a given delivery of its items, the code is generated once — by the same
//! generator as in line (`state_code`) — into a scratch module and recorded as SPIR-V words
//! (`emit::record`); the template is kept for later translations. Lowering then gives the
//! placeholder, after the values the code reads, the module's own types and constants for
//! those the code names, and the emitter copies the words in the placeholder's place
//! (`emit::Prebuilt`). The specialization constants of the items are the code's own and
//! declared with it, so a module in which other code already declares one of their SpecIds
//! (state code in line, for a `ret` inside flow control) gets the code built in place instead
//! (`tail::expand`), as does code that cannot be recorded.
//!
//! [`Translator`]: crate::Translator

use smallvec::SmallVec;
use spirv::{Op, StorageClass};

use super::state_code::{PushBlock, StateCode, resolved_delivery};
use super::tail::TailKind;
use crate::d3d9_state::{DeliveryRef, StateItem, StateTable};
use crate::emit::{External, Prebuilt};
use crate::ir::builder::FnBuilder;
use crate::ir::types::Type;
use crate::ir::{Args, Const, ConstId, GlobalId, Inst, Module, Operand, TypeId};
use crate::reflect::ShaderStage;

/// The most templates a [`Templates`] keeps (between translations; one translation may add
/// three more). Each is a few kilobytes; a caller cycling through more delivery choices
/// than this rebuilds them.
const MAX_TEMPLATES: usize = 16;

/// One kind of state code for one delivery of its items.
#[derive(Debug)]
pub(crate) struct Template {
    key: SmallVec<[u32; 12]>,
    pub code: Prebuilt,
    /// How each placeholder operand after the values the code reads is made in a module, in
    /// [`Prebuilt::externals`]' order.
    recipe: Vec<Ingredient>,
    /// The scratch module the code was recorded from: its types and constants stand for the
    /// module's own ([`Templates::operands`]).
    scratch: Box<Module>,
}

/// How one of a template's types, constants or globals is found in a module: most are
/// predefined types (at the same id in every module), pointers to them and scalars of them,
/// which need neither the scratch module nor hashing; the rest are resolved from the scratch
/// module ([`resolve_type`], [`resolve_const`]).
#[derive(Debug, Clone, Copy)]
enum Ingredient {
    /// A predefined type (void, a scalar or a vector).
    Predefined(TypeId),
    /// A pointer to a predefined type.
    Pointer(StorageClass, TypeId),
    /// A scalar constant of a predefined type.
    Scalar(TypeId, u64),
    /// Any other type or constant, or a global.
    Other(External),
}

impl Ingredient {
    /// How `e` (not an input) of the scratch module `s` is found in a module.
    fn of(s: &Module, e: External) -> Self {
        let predefined = |t: TypeId| {
            matches!(
                s.types.get(t),
                Type::Void | Type::Scalar(_) | Type::Vector(_, 2..=4)
            )
        };
        match e {
            External::Type(t) if predefined(t) => Ingredient::Predefined(t),
            External::Type(t) => match *s.types.get(t) {
                Type::Pointer { storage, pointee } if predefined(pointee) => {
                    Ingredient::Pointer(storage, pointee)
                }
                _ => Ingredient::Other(e),
            },
            External::Const(c) => match *s.consts.get(c) {
                Const::Scalar { ty, bits } if predefined(ty) => Ingredient::Scalar(ty, bits),
                _ => Ingredient::Other(e),
            },
            _ => Ingredient::Other(e),
        }
    }
}

/// The templates made so far (kept by the `Translator`).
#[derive(Debug, Default)]
pub(crate) struct Templates {
    list: Vec<Template>,
    /// Keys whose code could not be recorded (built in place each time).
    failed: Vec<SmallVec<[u32; 12]>>,
}

/// The items each kind of state code reads, in the order the generator reads them.
fn items(kind: TailKind) -> &'static [StateItem] {
    match kind {
        TailKind::Fog => &[
            StateItem::FogMode,
            StateItem::FogSource,
            StateItem::FogColour,
            StateItem::FogParams,
        ],
        TailKind::AlphaTest => &[StateItem::AlphaFunc, StateItem::AlphaRef],
        TailKind::ClipPlanes => &[StateItem::ClipPlaneMask, StateItem::ClipPlanes],
    }
}

/// What makes the code of `kind` differ between modules: the kind, and per item its SpecId
/// or push member (`None` when an item is neither, which is never deferred).
fn key(
    kind: TailKind,
    table: &StateTable<'_>,
    push: Option<&PushBlock>,
) -> Option<SmallVec<[u32; 12]>> {
    let mut k = SmallVec::new();
    k.push(kind as u32);
    for &item in items(kind) {
        match resolved_delivery(table, item) {
            DeliveryRef::Spec { first_id } => k.extend([0, first_id?]),
            DeliveryRef::Push { .. } => {
                let (_, members) = push?;
                let &(_, m) = members.iter().find(|(i, _)| *i == item)?;
                k.extend([1, m]);
            }
            _ => return None,
        }
    }
    Some(k)
}

impl Templates {
    /// Forgets every template when more than [`MAX_TEMPLATES`] are kept (between
    /// translations only: a translation's placeholders name templates by index).
    pub fn trim(&mut self) {
        if self.list.len() > MAX_TEMPLATES {
            self.list.clear();
        }
        if self.failed.len() > MAX_TEMPLATES {
            self.failed.clear();
        }
    }

    /// The index of the template of state code `kind` for this delivery of its items, made
    /// on first use; `None` when the code cannot be prebuilt.
    pub fn get(
        &mut self,
        kind: TailKind,
        stage: ShaderStage,
        table: &StateTable<'_>,
        push: Option<&PushBlock>,
    ) -> Option<u32> {
        let key = key(kind, table, push)?;
        if let Some(i) = self.list.iter().position(|t| t.key == key) {
            return Some(i as u32);
        }
        if self.failed.contains(&key) {
            return None;
        }
        match build(kind, stage, table, push) {
            Some((code, scratch)) => {
                let recipe = code
                    .externals
                    .iter()
                    .filter(|e| !matches!(e, External::Input(_)))
                    .map(|&e| Ingredient::of(&scratch, e))
                    .collect();
                self.list.push(Template {
                    key,
                    code,
                    recipe,
                    scratch,
                });
                Some(self.list.len() as u32 - 1)
            }
            None => {
                self.failed.push(key);
                None
            }
        }
    }

    pub fn template(&self, i: u32) -> &Template {
        &self.list[i as usize]
    }

    /// The placeholder operands after the values the code reads: the module `m`'s types,
    /// constants and globals for those the code names (`globals`: the module's for the
    /// scratch module's fog input or ClipDistance, FragCoord and push block, in that order).
    pub fn operands(
        &self,
        i: u32,
        m: &mut Module,
        globals: [Option<GlobalId>; 3],
        out: &mut crate::ir::Args,
    ) -> Option<()> {
        let t = &self.list[i as usize];
        // The predefined types are at the same ids in the scratch module and in `m`.
        for &r in &t.recipe {
            out.push(match r {
                Ingredient::Predefined(ty) => Operand::Lit(ty.0),
                Ingredient::Pointer(storage, ty) => Operand::Lit(m.types.pointer(storage, ty).0),
                Ingredient::Scalar(ty, bits) => Operand::Const(m.consts.scalar(ty, bits)),
                Ingredient::Other(e) => match e {
                    External::Input(_) => continue,
                    External::Type(ty) => Operand::Lit(resolve_type(&t.scratch, m, ty)?.0),
                    External::Const(c) => Operand::Const(resolve_const(&t.scratch, m, c)?),
                    External::Global(g) => Operand::Global(globals.get(g.0 as usize).copied()??),
                },
            });
        }
        Some(())
    }
}

/// The type of module `m` that is type `t` of the scratch module `s`.
fn resolve_type(s: &Module, m: &mut Module, t: TypeId) -> Option<TypeId> {
    Some(match *s.types.get(t) {
        ref ty @ (Type::Void | Type::Scalar(_) | Type::Vector(..)) => m.types.intern(ty.clone()),
        Type::Pointer { storage, pointee } => {
            let p = resolve_type(s, m, pointee)?;
            m.types.pointer(storage, p)
        }
        _ => return None,
    })
}

/// The constant of module `m` that is constant `c` of the scratch module `s` (never a
/// specialization constant: those are the code's own).
fn resolve_const(s: &Module, m: &mut Module, c: ConstId) -> Option<ConstId> {
    Some(match *s.consts.get(c) {
        Const::Scalar { ty, bits } => {
            let ty = resolve_type(s, m, ty)?;
            m.consts.scalar(ty, bits)
        }
        Const::Composite { ty, ref parts } => {
            let ty = resolve_type(s, m, ty)?;
            let parts = parts
                .iter()
                .map(|&p| resolve_const(s, m, p))
                .collect::<Option<_>>()?;
            m.consts.intern(Const::Composite { ty, parts })
        }
        Const::Null(ty) => {
            let ty = resolve_type(s, m, ty)?;
            m.consts.intern(Const::Null(ty))
        }
        Const::Undef(_) | Const::Spec { .. } => return None,
    })
}

/// Generates the code of `kind` into a scratch module and records it (`None` when it cannot
/// be recorded, or a type or constant it names could not be made in a module).
fn build(
    kind: TailKind,
    stage: ShaderStage,
    table: &StateTable<'_>,
    push: Option<&PushBlock>,
) -> Option<(Prebuilt, Box<Module>)> {
    let mut m = Box::new(Module::new(stage));
    // The globals the code names, in the order `Templates::operands` maps them.
    let (first_ty, first_class) = match kind {
        TailKind::ClipPlanes => (TypeId::F32, StorageClass::Output),
        _ => (TypeId::F32, StorageClass::Input),
    };
    let g0 = m.add_global(first_ty, first_class, None);
    let g1 = m.add_global(TypeId::VEC4, StorageClass::Input, None);
    let g2 = m.add_global(TypeId::U32, StorageClass::PushConstant, None);
    let scratch_push: Option<PushBlock> = push.map(|(_, members)| (g2, members.clone()));
    let input_types: &[TypeId] = match kind {
        TailKind::Fog => &[
            TypeId::VEC4,
            TypeId::F32,
            TypeId::F32,
            TypeId::F32,
            TypeId::F32,
        ],
        TailKind::AlphaTest => &[TypeId::F32],
        TailKind::ClipPlanes => &[TypeId::VEC4],
    };
    let mut b = FnBuilder::new(&mut m, 128);
    let inputs: SmallVec<[crate::ir::ValueId; 5]> = input_types
        .iter()
        .map(|&t| b.push(Inst::new(Op::Undef, t, Args::new())))
        .collect();
    let input = |k: usize| Operand::Value(inputs[k]);
    let mut code = StateCode {
        b: &mut b,
        table,
        push: scratch_push.as_ref(),
        structured: true,
    };
    let result = match kind {
        TailKind::Fog => code
            .fog(input(0), |_, k| input(1 + k as usize), g0, g1)
            .value(),
        TailKind::AlphaTest => {
            code.alpha_test(
                |_| input(0),
                |b| {
                    b.op_void(Op::DemoteToHelperInvocation, &[]);
                },
            );
            None
        }
        TailKind::ClipPlanes => {
            code.clip_planes(input(0), g0);
            None
        }
    };
    let f = b.into_function();
    let code = crate::emit::record(&m, &f, &inputs, result).ok()?;
    // Every type and constant it names must be one a module can make.
    let mut probe = Module::new(stage);
    for e in &code.externals {
        let ok = match *e {
            External::Type(t) => resolve_type(&m, &mut probe, t).is_some(),
            External::Const(c) => resolve_const(&m, &mut probe, c).is_some(),
            External::Input(_) | External::Global(_) => true,
        };
        if !ok {
            return None;
        }
    }
    Some((code, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of state code is prebuilt with the default delivery (specialization
    /// constants), the alpha test too, whose code opens blocks after the value it reads.
    #[test]
    fn every_kind_is_prebuilt_with_spec_constants() {
        let opts = crate::options::Options::default();
        let table = StateTable::new(&opts.d3d9.state);
        let mut templates = Templates::default();
        for (kind, stage, opens) in [
            (TailKind::Fog, ShaderStage::Pixel, false),
            (TailKind::AlphaTest, ShaderStage::Pixel, true),
            (TailKind::ClipPlanes, ShaderStage::Vertex, false),
        ] {
            let i = templates
                .get(kind, stage, &table, None)
                .unwrap_or_else(|| panic!("{kind:?} is not prebuilt"));
            let code = &templates.template(i).code;
            assert_eq!(code.opens_blocks, opens, "{kind:?}");
            assert!(!code.spec_ids.is_empty(), "{kind:?}");
        }
    }
}
