//! Interned constants of the IR.
//!
//! Constants live at module level (SPIR-V declares them beside the types), deduplicated by type
//! and value, so that `l(1.0)` used fifty times is one `OpConstant`. Scalars are stored as raw
//! bits; composites as their parts.

use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;
use std::collections::hash_map::Entry;

use super::types::{Scalar, TypeId, TypeTable};

/// Index of a constant in the [`ConstTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstId(pub u32);

/// The parts of a composite constant: a vector's fit in place (no heap allocation for the
/// vectors every shader interns, nor for the copy the table keeps as a map key).
pub type Parts = SmallVec<[ConstId; 4]>;

/// A constant value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Const {
    /// A scalar: raw bits (f32/i32/u32 in the low 32 bits; bool as 0/1; f64 as all 64).
    Scalar { ty: TypeId, bits: u64 },
    /// A vector, array or struct constant.
    Composite { ty: TypeId, parts: Parts },
    /// OpConstantNull.
    Null(TypeId),
    /// OpUndef (declared at module level).
    Undef(TypeId),
    /// A scalar specialization constant (`OpSpecConstant` decorated `SpecId id`): its value is
    /// set when the pipeline is created, so no pass may fold it. A composite with a
    /// specialization part is emitted as `OpSpecConstantComposite`.
    Spec { ty: TypeId, id: u32, default: u64 },
}

impl Const {
    pub fn ty(&self) -> TypeId {
        match self {
            Const::Scalar { ty, .. }
            | Const::Composite { ty, .. }
            | Const::Null(ty)
            | Const::Undef(ty)
            | Const::Spec { ty, .. } => *ty,
        }
    }
}

/// How many of the smallest values of each 32-bit scalar type [`ConstTable`] finds in a table.
const SMALL: usize = 64;

/// The module's constants.
#[derive(Debug, Clone, Default)]
pub struct ConstTable {
    consts: Vec<Const>,
    /// The composites, by value.
    map: HashMap<Const, ConstId>,
    /// Null, undef and specialization constants by (kind, type, SpecId, default): a key with
    /// every byte set. (Probing `map` with such a `Const` made LLVM test a composite's part
    /// count in the unset bytes of the key before its variant, which valgrind reports as a
    /// branch on uninitialised memory.)
    leaves: HashMap<(u8, u32, u32, u64), ConstId>,
    /// Scalars by (type, bits): the common case, without hashing a whole `Const`.
    scalars: HashMap<(u32, u64), ConstId>,
    /// The small scalars (bits below [`SMALL`]) of the types bool, f32, i32 and u32 (ids 1 to
    /// 4), found without hashing: `small[(type - 1) * SMALL + bits]` holds the constant's id
    /// plus one, 0 where none is made yet. These scalars are not in `scalars`: `scalar`
    /// always looks for them here (empty in a `default()` table: then they are in `scalars`).
    small: Vec<u32>,
    /// Vectors of plain scalars by (scalar type, per-component bits), without building a
    /// `Const` to look up: the only place they are kept (`map` never holds one).
    vectors: HashMap<(u32, [u64; 4], u8), ConstId>,
    /// Specialization constants by SpecId below [`SPECS`], found without hashing (the D3D9
    /// render state makes dozens per module): the constant's id plus one, 0 where none is
    /// made yet. A second constant with the same SpecId (another type or default) goes to
    /// `map`, where every other specialization constant is.
    specs: Vec<u32>,
    /// The SpecIds set in `specs` (so that clearing touches only those).
    specs_set: Vec<u32>,
}

/// How many SpecIds [`ConstTable`] finds in a table.
const SPECS: u32 = 256;

impl ConstTable {
    /// An empty table with room for what a typical shader interns (a few dozen scalars, a
    /// few vectors), so that filling it seldom grows its vectors and maps.
    pub fn new() -> Self {
        ConstTable {
            consts: Vec::with_capacity(48),
            map: HashMap::with_capacity_and_hasher(8, Default::default()),
            leaves: HashMap::with_capacity_and_hasher(8, Default::default()),
            scalars: HashMap::with_capacity_and_hasher(48, Default::default()),
            small: vec![0; 4 * SMALL],
            vectors: HashMap::with_capacity_and_hasher(8, Default::default()),
            specs: vec![0; SPECS as usize],
            specs_set: Vec::new(),
        }
    }

    /// Empties the table, keeping its allocations.
    pub fn clear(&mut self) {
        self.consts.clear();
        self.map.clear();
        self.leaves.clear();
        self.scalars.clear();
        self.small.fill(0);
        self.vectors.clear();
        for &id in &self.specs_set {
            self.specs[id as usize] = 0;
        }
        self.specs_set.clear();
    }

    pub fn intern(&mut self, c: Const) -> ConstId {
        match c {
            Const::Scalar { ty, bits } => return self.scalar(ty, bits),
            Const::Spec { ty, id, default } => return self.spec(ty, id, default),
            Const::Null(ty) => return self.leaf((0, ty.0, 0, 0), c),
            Const::Undef(ty) => return self.leaf((1, ty.0, 0, 0), c),
            Const::Composite { ty, ref parts } => {
                // A vector of plain scalars lives only in `vectors` (see `vector`).
                if let Some((s, n)) = TypeTable::predefined_shape(ty)
                    && n >= 2
                    && parts.len() == n as usize
                {
                    let sty = TypeTable::vec(s, 1);
                    let mut bits = [0u64; 4];
                    let scalars = parts.iter().zip(&mut bits).all(|(&p, b)| {
                        match self.consts[p.0 as usize] {
                            Const::Scalar { ty, bits: x } if ty == sty => {
                                *b = x;
                                true
                            }
                            _ => false,
                        }
                    });
                    if scalars {
                        return self.vector(s, &bits[..n as usize]);
                    }
                }
            }
        }
        self.intern_in_map(c)
    }

    /// Null, undef and specialization constants by a plain key (`(kind, type, id, default)`),
    /// not through `map`: probing the `Const`-keyed map with them made the compiled equality
    /// test read a composite's part count from the key's unset bytes first (valgrind).
    fn leaf(&mut self, key: (u8, u32, u32, u64), c: Const) -> ConstId {
        let next = ConstId(self.consts.len() as u32);
        let id = *self.leaves.entry(key).or_insert(next);
        if id == next {
            self.consts.push(c);
        }
        id
    }

    /// [`ConstTable::intern`] through `map`.
    fn intern_in_map(&mut self, c: Const) -> ConstId {
        // One hash and probe, found or not; the constant is cloned only when new.
        match self.map.entry(c) {
            Entry::Occupied(o) => *o.get(),
            Entry::Vacant(v) => {
                let id = ConstId(self.consts.len() as u32);
                self.consts.push(v.key().clone());
                *v.insert(id)
            }
        }
    }

    pub fn get(&self, id: ConstId) -> &Const {
        &self.consts[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.consts.len()
    }

    pub fn u32(&mut self, v: u32) -> ConstId {
        self.intern(Const::Scalar {
            ty: TypeId::U32,
            bits: v as u64,
        })
    }

    pub fn i32(&mut self, v: i32) -> ConstId {
        self.intern(Const::Scalar {
            ty: TypeId::I32,
            bits: v as u32 as u64,
        })
    }

    pub fn f32(&mut self, v: f32) -> ConstId {
        self.intern(Const::Scalar {
            ty: TypeId::F32,
            bits: v.to_bits() as u64,
        })
    }

    pub fn bool(&mut self, v: bool) -> ConstId {
        self.intern(Const::Scalar {
            ty: TypeId::BOOL,
            bits: v as u64,
        })
    }

    /// A scalar of type `ty` holding `bits` (low 32 bits for 32-bit types).
    pub fn scalar(&mut self, ty: TypeId, bits: u64) -> ConstId {
        // Scalars live only in `small` and this map (see `intern`).
        if bits < SMALL as u64
            && (TypeId::BOOL.0..=TypeId::U32.0).contains(&ty.0)
            && let Some(slot) = self
                .small
                .get_mut((ty.0 - TypeId::BOOL.0) as usize * SMALL + bits as usize)
        {
            if *slot == 0 {
                self.consts.push(Const::Scalar { ty, bits });
                *slot = self.consts.len() as u32;
            }
            return ConstId(*slot - 1);
        }
        *self.scalars.entry((ty.0, bits)).or_insert_with(|| {
            self.consts.push(Const::Scalar { ty, bits });
            ConstId(self.consts.len() as u32 - 1)
        })
    }

    /// A splat or per-component vector of the given scalar bits (`n` = 1 gives a scalar).
    pub fn vector(&mut self, s: Scalar, bits: &[u64]) -> ConstId {
        let n = bits.len() as u8;
        let sty = TypeTable::vec(s, 1);
        if n == 1 {
            return self.scalar(sty, bits[0]);
        }
        let mut key = [0u64; 4];
        key[..bits.len().min(4)].copy_from_slice(&bits[..bits.len().min(4)]);
        if let Some(&c) = self.vectors.get(&(sty.0, key, n)) {
            return c;
        }
        // Vectors of plain scalars are only here, never in `map` (`intern` sends them here),
        // so a new one is pushed without hashing the whole constant.
        let parts = bits.iter().map(|&b| self.scalar(sty, b)).collect();
        let c = ConstId(self.consts.len() as u32);
        self.consts.push(Const::Composite {
            ty: TypeTable::vec(s, n),
            parts,
        });
        self.vectors.insert((sty.0, key, n), c);
        c
    }

    pub fn undef(&mut self, ty: TypeId) -> ConstId {
        self.intern(Const::Undef(ty))
    }

    pub fn null(&mut self, ty: TypeId) -> ConstId {
        self.intern(Const::Null(ty))
    }

    /// A scalar specialization constant with SpecId `id` and the value `default` (raw bits).
    pub fn spec(&mut self, ty: TypeId, id: u32, default: u64) -> ConstId {
        let c = Const::Spec { ty, id, default };
        let Some(&slot) = self.specs.get(id as usize) else {
            return self.leaf((2, ty.0, id, default), c);
        };
        if slot == 0 {
            // A table built by `default()` has no slots; `new()`'s are all free here.
            self.consts.push(c);
            let n = self.consts.len() as u32;
            self.specs[id as usize] = n;
            self.specs_set.push(id);
            return ConstId(n - 1);
        }
        let found = ConstId(slot - 1);
        if *self.get(found) == c {
            found
        } else {
            self.leaf((2, ty.0, id, default), c)
        }
    }

    /// Whether the table holds a specialization constant with SpecId `id`.
    pub fn has_spec_id(&self, id: u32) -> bool {
        match self.specs.get(id as usize) {
            Some(&slot) if slot != 0 => true,
            // The first constant of an id below `SPECS` takes its slot (in a `new()` table).
            Some(_) => false,
            None => self
                .map
                .keys()
                .any(|c| matches!(*c, Const::Spec { id: i, .. } if i == id)),
        }
    }

    /// Whether `id` is, or is made of, a specialization constant (its value is unknown here).
    pub fn is_spec(&self, id: ConstId) -> bool {
        match self.get(id) {
            Const::Spec { .. } => true,
            Const::Composite { parts, .. } => parts.iter().any(|&p| self.is_spec(p)),
            _ => false,
        }
    }

    /// Raw bits of a scalar constant, or of each component of a vector constant.
    pub fn scalar_bits(&self, id: ConstId) -> Option<u64> {
        match self.get(id) {
            Const::Scalar { bits, .. } => Some(*bits),
            Const::Null(_) => Some(0),
            _ => None,
        }
    }

    /// Component `i` of a scalar or vector constant (a scalar is its own component 0).
    pub fn component(&mut self, id: ConstId, i: u8, types: &TypeTable) -> Option<ConstId> {
        // Matched by reference: a composite's parts are not copied to read one of them.
        match *self.get(id) {
            Const::Scalar { .. } | Const::Spec { .. } if i == 0 => Some(id),
            Const::Composite { ref parts, .. } => parts.get(i as usize).copied(),
            Const::Null(ty) => {
                let (s, _) = types.shape(ty)?;
                Some(self.null(TypeTable::vec(s, 1)))
            }
            Const::Undef(ty) => {
                let (s, _) = types.shape(ty)?;
                Some(self.undef(TypeTable::vec(s, 1)))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A vector of scalars is one constant however it is asked for (`vector`, `intern` of its
    /// composite, either first), in a `new()` table and in a `default()` one; a composite
    /// with a specialization part is another constant.
    #[test]
    fn a_vector_is_one_constant_by_either_path() {
        for mut t in [ConstTable::new(), ConstTable::default()] {
            let one = 1f32.to_bits() as u64;
            let v = t.vector(Scalar::F32, &[0, one, 0, one]);
            let parts = [0, one, 0, one].map(|b| t.scalar(TypeId::F32, b));
            let c = Const::Composite {
                ty: TypeId::VEC4,
                parts: parts.into_iter().collect(),
            };
            assert_eq!(t.intern(c.clone()), v);
            assert_eq!(t.get(v), &c);
            // Composite first, then the vector.
            let k = t.u32(7);
            let u = t.intern(Const::Composite {
                ty: TypeTable::vec(Scalar::U32, 2),
                parts: [k, k].into_iter().collect(),
            });
            assert_eq!(t.vector(Scalar::U32, &[7, 7]), u);
            assert_ne!(u, v);
            // A specialization part: through the map, not the vector table.
            let s = t.spec(TypeId::F32, 3, 0);
            let zero = t.f32(0.0);
            let w = Const::Composite {
                ty: TypeTable::vec(Scalar::F32, 2),
                parts: [s, zero].into_iter().collect(),
            };
            let wid = t.intern(w.clone());
            assert_eq!(t.intern(w), wid);
            assert_ne!(wid, t.vector(Scalar::F32, &[0, 0]));
            let n = t.len();
            t.vector(Scalar::F32, &[0, one, 0, one]);
            assert_eq!(t.len(), n, "no second copy of a known vector");
        }
    }
}
