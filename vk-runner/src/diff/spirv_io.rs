//! The interface of a translated module as the generated stages around it need it: each
//! input or output variable of the entry point with its full type (arrays, blocks of
//! built-ins), `Location`/`Component`/`BuiltIn` decorations and scalar leaves, so that a
//! generated vertex stage can feed a pixel shader exactly the variables it declares and a
//! generated geometry stage can read back exactly what a vertex shader writes.

use super::shader::ScalarKind;
use rspirv::dr::{Instruction, Module, Operand};
use spirv::{BuiltIn, Decoration, Op, StorageClass};
use std::collections::HashMap;

/// A variable's type, as far as interfaces go.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Scalar(ScalarKind),
    Vector(ScalarKind, u32),
    Array(Box<Ty>, u32),
    /// A block (of built-ins): each member with its built-in, if decorated.
    Struct(Vec<(Ty, Option<BuiltIn>)>),
}

/// An interface variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub location: Option<u32>,
    pub component: u32,
    pub builtin: Option<BuiltIn>,
    pub ty: Ty,
}

/// One scalar of a variable: the access path from the variable, and where it sits.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    pub path: Vec<u32>,
    pub kind: ScalarKind,
    pub at: Place,
}

/// Where a scalar sits in the interface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    Location { location: u32, component: u32 },
    BuiltIn { builtin: BuiltIn, index: u32 },
}

impl Ty {
    /// The type's scalars in order, with their paths, for a variable placed at `location`
    /// (`component`) or as `builtin`.
    fn leaves(&self, path: &mut Vec<u32>, place: &mut PlaceCursor, out: &mut Vec<Leaf>) {
        match self {
            Ty::Scalar(k) => {
                out.push(Leaf {
                    path: path.clone(),
                    kind: *k,
                    at: place.take(),
                });
            }
            Ty::Vector(k, n) => {
                for i in 0..*n {
                    path.push(i);
                    out.push(Leaf {
                        path: path.clone(),
                        kind: *k,
                        at: place.take(),
                    });
                    path.pop();
                }
                place.next_row();
            }
            Ty::Array(e, n) => {
                for i in 0..*n {
                    path.push(i);
                    e.leaves(path, place, out);
                    path.pop();
                    place.next_row();
                }
            }
            Ty::Struct(members) => {
                for (i, (t, b)) in members.iter().enumerate() {
                    path.push(i as u32);
                    let mut p = match b {
                        Some(b) => PlaceCursor::BuiltIn(*b, 0),
                        None => place.clone(),
                    };
                    t.leaves(path, &mut p, out);
                    path.pop();
                }
            }
        }
    }
}

/// Walks locations/components (or built-in array indices) as leaves are listed.
#[derive(Debug, Clone)]
enum PlaceCursor {
    Location {
        location: u32,
        first: u32,
        component: u32,
    },
    BuiltIn(BuiltIn, u32),
}

impl PlaceCursor {
    fn take(&mut self) -> Place {
        match self {
            PlaceCursor::Location {
                location,
                component,
                ..
            } => {
                let p = Place::Location {
                    location: *location,
                    component: *component,
                };
                *component += 1;
                p
            }
            PlaceCursor::BuiltIn(b, i) => {
                let p = Place::BuiltIn {
                    builtin: *b,
                    index: *i,
                };
                *i += 1;
                p
            }
        }
    }

    /// Vectors and array elements each take a whole location.
    fn next_row(&mut self) {
        if let PlaceCursor::Location {
            location,
            first,
            component,
        } = self
            && *component != *first
        {
            *location += 1;
            *component = *first;
        }
    }
}

impl Var {
    /// Every scalar of the variable.
    pub fn leaves(&self) -> Vec<Leaf> {
        let mut out = Vec::new();
        let mut place = match (self.builtin, self.location) {
            (Some(b), _) => PlaceCursor::BuiltIn(b, 0),
            (None, l) => PlaceCursor::Location {
                location: l.unwrap_or(0),
                first: self.component,
                component: self.component,
            },
        };
        self.ty.leaves(&mut Vec::new(), &mut place, &mut out);
        out
    }
}

/// The entry point's variables of `class` (Input or Output).
pub fn interface(words: &[u32], class: StorageClass) -> Result<Vec<Var>, String> {
    let module = rspirv::dr::load_words(words).map_err(|e| format!("SPIR-V: {e}"))?;
    Ok(variables(&module, class)?
        .into_iter()
        .map(|v| v.var)
        .collect())
}

/// An interface variable with its id and geometry stream (`Stream` decoration).
pub struct Declared {
    pub id: u32,
    pub var: Var,
    pub stream: u32,
}

/// The entry point's variables of `class` in `module`.
pub fn variables(module: &Module, class: StorageClass) -> Result<Vec<Declared>, String> {
    let cx = Cx::new(module);
    let ep = module
        .entry_points
        .first()
        .ok_or("the module has no entry point")?;
    let mut out = Vec::new();
    for op in ep.operands.iter().skip(3) {
        let Operand::IdRef(var) = op else { continue };
        let Some(v) = cx.defs.get(var) else { continue };
        if v.class.opcode != Op::Variable
            || v.operands.first() != Some(&Operand::StorageClass(class))
        {
            continue;
        }
        let ptr = cx
            .defs
            .get(&v.result_type.unwrap_or(0))
            .ok_or("bad variable type")?;
        let Some(Operand::IdRef(pointee)) = ptr.operands.get(1) else {
            return Err("bad pointer type".into());
        };
        let Some(ty) = cx.ty(*pointee, 0) else {
            return Err(format!(
                "interface variable %{var} has a type this tool cannot feed"
            ));
        };
        out.push(Declared {
            id: *var,
            var: Var {
                location: cx.deco_u32(*var, Decoration::Location),
                component: cx.deco_u32(*var, Decoration::Component).unwrap_or(0),
                builtin: cx.builtin(*var, None),
                ty,
            },
            stream: cx.deco_u32(*var, Decoration::Stream).unwrap_or(0),
        });
    }
    Ok(out)
}

struct Cx<'a> {
    defs: HashMap<u32, &'a Instruction>,
    decos: HashMap<(u32, Option<u32>), Vec<&'a Instruction>>,
}

impl<'a> Cx<'a> {
    fn new(m: &'a Module) -> Cx<'a> {
        let mut defs = HashMap::new();
        for i in m.types_global_values.iter() {
            if let Some(r) = i.result_id {
                defs.insert(r, i);
            }
        }
        let mut decos: HashMap<(u32, Option<u32>), Vec<&Instruction>> = HashMap::new();
        for i in &m.annotations {
            match (i.class.opcode, i.operands.first(), i.operands.get(1)) {
                (Op::Decorate, Some(Operand::IdRef(t)), _) => {
                    decos.entry((*t, None)).or_default().push(i)
                }
                (Op::MemberDecorate, Some(Operand::IdRef(t)), Some(Operand::LiteralBit32(m))) => {
                    decos.entry((*t, Some(*m))).or_default().push(i)
                }
                _ => {}
            }
        }
        Cx { defs, decos }
    }

    /// The decoration's operands after the decoration itself.
    fn deco(&self, t: u32, member: Option<u32>, d: Decoration) -> Option<&'a [Operand]> {
        let skip = if member.is_some() { 3 } else { 2 };
        self.decos.get(&(t, member))?.iter().find_map(|i| {
            let at = skip - 1;
            (i.operands.get(at) == Some(&Operand::Decoration(d))).then(|| &i.operands[skip..])
        })
    }

    fn deco_u32(&self, t: u32, d: Decoration) -> Option<u32> {
        match self.deco(t, None, d)?.first()? {
            Operand::LiteralBit32(v) => Some(*v),
            _ => None,
        }
    }

    fn builtin(&self, t: u32, member: Option<u32>) -> Option<BuiltIn> {
        match self.deco(t, member, Decoration::BuiltIn)?.first()? {
            Operand::BuiltIn(b) => Some(*b),
            _ => None,
        }
    }

    fn ty(&self, id: u32, depth: u32) -> Option<Ty> {
        if depth > 8 {
            return None;
        }
        let d = self.defs.get(&id)?;
        let lit = |i: usize| match d.operands.get(i) {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        };
        let idref = |i: usize| match d.operands.get(i) {
            Some(Operand::IdRef(v)) => Some(*v),
            _ => None,
        };
        match d.class.opcode {
            Op::TypeFloat if lit(0) == Some(32) => Some(Ty::Scalar(ScalarKind::F32)),
            Op::TypeInt if lit(0) == Some(32) => Some(Ty::Scalar(if lit(1) == Some(1) {
                ScalarKind::I32
            } else {
                ScalarKind::U32
            })),
            Op::TypeBool => Some(Ty::Scalar(ScalarKind::U32)),
            Op::TypeVector => match self.ty(idref(0)?, depth + 1)? {
                Ty::Scalar(k) => Some(Ty::Vector(k, lit(1)?)),
                _ => None,
            },
            Op::TypeArray => {
                let n = self.defs.get(&idref(1)?)?;
                let Some(Operand::LiteralBit32(len)) = n.operands.first() else {
                    return None;
                };
                Some(Ty::Array(Box::new(self.ty(idref(0)?, depth + 1)?), *len))
            }
            Op::TypeStruct => {
                let mut members = Vec::new();
                for (i, m) in d.operands.iter().enumerate() {
                    let Operand::IdRef(m) = m else { return None };
                    members.push((self.ty(*m, depth + 1)?, self.builtin(id, Some(i as u32))));
                }
                Some(Ty::Struct(members))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_walk_locations_and_builtins() {
        let v = Var {
            location: Some(2),
            component: 1,
            builtin: None,
            ty: Ty::Array(Box::new(Ty::Vector(ScalarKind::F32, 2)), 2),
        };
        let at: Vec<Place> = v.leaves().into_iter().map(|l| l.at).collect();
        let loc = |location, component| Place::Location {
            location,
            component,
        };
        assert_eq!(at, vec![loc(2, 1), loc(2, 2), loc(3, 1), loc(3, 2)]);
        let b = Var {
            location: None,
            component: 0,
            builtin: Some(BuiltIn::ClipDistance),
            ty: Ty::Array(Box::new(Ty::Scalar(ScalarKind::F32)), 3),
        };
        let l = b.leaves();
        assert_eq!(l.len(), 3);
        assert_eq!(l[2].path, vec![2]);
        assert_eq!(
            l[2].at,
            Place::BuiltIn {
                builtin: BuiltIn::ClipDistance,
                index: 2
            }
        );
    }
}
