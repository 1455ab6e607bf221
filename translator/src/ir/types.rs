//! Interned SPIR-V types of the IR.
//!
//! Every type a module uses lives once in a [`TypeTable`] and is named by a [`TypeId`]; the
//! emitter writes them in creation order, so a type's operands are always defined before it.
//! The scalar and vector types translation uses constantly are created first at fixed ids
//! (`TypeId::F32`, `TypeId::UVEC4`, ...) so that lowering code needs no lookups for them.
//! Structs are never deduplicated: two blocks with the same members stay distinct types, so
//! their `Offset` decorations cannot collide. Arrays carry their explicit stride (or none) in the
//! key, because Vulkan forbids explicit layout on arrays in Private/Function storage.

use rustc_hash::FxHashMap as HashMap;
use std::collections::hash_map::Entry;

use super::ConstId;

/// Index of a type in the [`TypeTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// Scalar kinds of the IR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    F32,
    I32,
    U32,
    F64,
    /// 16-bit types: only the optional native minimum-precision arithmetic
    /// (`MinPrecisionMode::Native16`) makes them, never a register, variable or interface.
    F16,
    I16,
    U16,
}

/// A SPIR-V type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Scalar(Scalar),
    Vector(Scalar, u8),
    /// Array of `len` elements (a constant); `stride` = explicit ArrayStride, if any.
    Array {
        elem: TypeId,
        len: ConstId,
        stride: Option<u32>,
    },
    RuntimeArray {
        elem: TypeId,
        stride: Option<u32>,
    },
    /// A struct; `unique` keeps otherwise identical structs apart.
    Struct {
        members: Vec<TypeId>,
        unique: u32,
    },
    Pointer {
        storage: spirv::StorageClass,
        pointee: TypeId,
    },
    Image(ImageType),
    Sampler,
    SampledImage(TypeId),
    Function {
        ret: TypeId,
        params: Vec<TypeId>,
    },
}

/// The operands of OpTypeImage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageType {
    pub sampled_type: Scalar,
    pub dim: spirv::Dim,
    pub depth: u8,
    pub arrayed: bool,
    pub ms: bool,
    /// 1 = sampled (SRV), 2 = storage (UAV).
    pub sampled: u8,
    pub format: spirv::ImageFormat,
}

#[allow(missing_docs)]
impl TypeId {
    pub const VOID: TypeId = TypeId(0);
    pub const BOOL: TypeId = TypeId(1);
    pub const F32: TypeId = TypeId(2);
    pub const I32: TypeId = TypeId(3);
    pub const U32: TypeId = TypeId(4);
    pub const F64: TypeId = TypeId(5);
    // vectors: base + (n - 2), n = 2..=4
    pub const VEC2: TypeId = TypeId(9);
    pub const IVEC2: TypeId = TypeId(12);
    pub const VEC3: TypeId = TypeId(10);
    pub const VEC4: TypeId = TypeId(11);
    pub const UVEC3: TypeId = TypeId(16);
    pub const UVEC4: TypeId = TypeId(17);
}

const SCALARS: [Scalar; 5] = [
    Scalar::Bool,
    Scalar::F32,
    Scalar::I32,
    Scalar::U32,
    Scalar::F64,
];

fn scalar_index(s: Scalar) -> u32 {
    match s {
        Scalar::Bool => 0,
        Scalar::F32 => 1,
        Scalar::I32 => 2,
        Scalar::U32 => 3,
        Scalar::F64 => 4,
        Scalar::F16 => 5,
        Scalar::I16 => 6,
        Scalar::U16 => 7,
    }
}

/// The 16-bit scalars, whose predefined ids follow the first five scalars' vectors.
const SCALARS16: [Scalar; 3] = [Scalar::F16, Scalar::I16, Scalar::U16];

/// First id of the 16-bit scalars (after void, five scalars and their 15 vectors).
const FIRST16: u32 = 21;

/// The module's types.
#[derive(Debug, Clone)]
pub struct TypeTable {
    types: Vec<Type>,
    map: HashMap<Type, TypeId>,
    /// The pointer types to predefined types, found without hashing (they are most of the
    /// pointers a shader makes): `pointers[class * PREDEFINED + pointee]`, for the storage
    /// classes numbered below [`POINTER_CLASSES`]; `TypeId(0)` (void) where none is made yet.
    /// These pointers are not in `map`: `intern` always looks for them here.
    pointers: Vec<TypeId>,
    next_unique: u32,
}

/// The storage classes (by number: UniformConstant 0 to StorageBuffer 12) whose pointers to
/// predefined types [`TypeTable::intern`] finds in a table.
const POINTER_CLASSES: usize = 13;

impl Default for TypeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl TypeTable {
    /// A table holding the predefined scalar and vector types at their fixed ids.
    pub fn new() -> Self {
        let mut t = TypeTable {
            types: Vec::with_capacity(64),
            map: HashMap::with_capacity_and_hasher(64, Default::default()),
            pointers: vec![TypeId::VOID; POINTER_CLASSES * Self::PREDEFINED],
            next_unique: 0,
        };
        // The predefined types sit at fixed ids and are never hashed (see `intern`).
        t.types.push(Type::Void);
        for s in SCALARS {
            t.types.push(Type::Scalar(s));
        }
        for s in SCALARS {
            for n in 2..=4 {
                t.types.push(Type::Vector(s, n));
            }
        }
        for s in SCALARS16 {
            t.types.push(Type::Scalar(s));
        }
        for s in SCALARS16 {
            for n in 2..=4 {
                t.types.push(Type::Vector(s, n));
            }
        }
        debug_assert_eq!(t.types.len(), Self::PREDEFINED);
        debug_assert_eq!(t.intern(Type::Vector(Scalar::F32, 4)), TypeId::VEC4);
        debug_assert_eq!(t.intern(Type::Vector(Scalar::U32, 4)), TypeId::UVEC4);
        t
    }

    /// How many predefined types [`TypeTable::new`] puts first: void, then each scalar and
    /// its 2- to 4-component vectors.
    const PREDEFINED: usize = 1 + 4 * (SCALARS.len() + SCALARS16.len());

    /// Makes the table what [`TypeTable::new`] makes, keeping its allocations (a
    /// [`crate::Translator`] reuses one module's tables for the next).
    pub fn reset(&mut self) {
        self.types.truncate(Self::PREDEFINED);
        self.map.clear();
        self.pointers.fill(TypeId::VOID);
        self.next_unique = 0;
    }

    /// The id of `ty`, creating it if needed (structs: see [`TypeTable::new_struct`]).
    pub fn intern(&mut self, ty: Type) -> TypeId {
        match ty {
            Type::Void => return TypeId::VOID,
            Type::Scalar(s) => return Self::vec(s, 1),
            Type::Vector(s, n) if (2..=4).contains(&n) => return Self::vec(s, n),
            _ => {}
        }
        // `new_struct`'s structs are not in `map` (each is distinct): interning one would
        // make a second type without the first one's decorations.
        debug_assert!(
            !matches!(ty, Type::Struct { unique, .. } if unique != 0),
            "intern: a struct made by new_struct"
        );
        if let Type::Pointer { storage, pointee } = ty {
            let (class, to) = (storage as usize, pointee.0 as usize);
            if class < POINTER_CLASSES && to < Self::PREDEFINED {
                let slot = class * Self::PREDEFINED + to;
                return match self.pointers[slot] {
                    TypeId::VOID => {
                        let id = TypeId(self.types.len() as u32);
                        self.types.push(ty);
                        self.pointers[slot] = id;
                        id
                    }
                    made => made,
                };
            }
        }
        // One hash and probe, found or not; the type is cloned only when new.
        match self.map.entry(ty) {
            Entry::Occupied(o) => *o.get(),
            Entry::Vacant(v) => {
                let id = TypeId(self.types.len() as u32);
                self.types.push(v.key().clone());
                *v.insert(id)
            }
        }
    }

    /// A new struct type, distinct from every other.
    pub fn new_struct(&mut self, members: Vec<TypeId>) -> TypeId {
        self.next_unique += 1;
        // Not hashed into `map`: its `unique` is new, and nothing but this function makes a
        // struct with a `unique` above 0, so no `intern` can ask for it.
        let id = TypeId(self.types.len() as u32);
        self.types.push(Type::Struct {
            members,
            unique: self.next_unique,
        });
        id
    }

    pub fn get(&self, id: TypeId) -> &Type {
        &self.types[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// The scalar or vector type with `n` components of `s` (n = 1 gives the scalar).
    pub fn vec(s: Scalar, n: u8) -> TypeId {
        debug_assert!((1..=4).contains(&n));
        let i = scalar_index(s);
        if i >= 5 {
            return if n == 1 {
                TypeId(FIRST16 + i - 5)
            } else {
                TypeId(FIRST16 + 3 + (i - 5) * 3 + (n as u32 - 2))
            };
        }
        if n == 1 {
            TypeId(1 + scalar_index(s))
        } else {
            TypeId(6 + scalar_index(s) * 3 + (n as u32 - 2))
        }
    }

    pub fn pointer(&mut self, storage: spirv::StorageClass, pointee: TypeId) -> TypeId {
        self.intern(Type::Pointer { storage, pointee })
    }

    /// Scalar kind and component count of a scalar or vector type.
    pub fn shape(&self, id: TypeId) -> Option<(Scalar, u8)> {
        if let Some(shape) = Self::predefined_shape(id) {
            return Some(shape);
        }
        match self.get(id) {
            Type::Scalar(s) => Some((*s, 1)),
            Type::Vector(s, n) => Some((*s, *n)),
            _ => None,
        }
    }

    /// [`TypeTable::shape`] of a predefined type (every scalar and vector type is one), with
    /// no table to look in: `None` for void and the types a module makes.
    pub fn predefined_shape(id: TypeId) -> Option<(Scalar, u8)> {
        let i = id.0;
        if (1..=5).contains(&i) {
            return Some((SCALARS[i as usize - 1], 1));
        }
        if (6..21).contains(&i) {
            return Some((SCALARS[((i - 6) / 3) as usize], ((i - 6) % 3 + 2) as u8));
        }
        if (FIRST16..FIRST16 + 3).contains(&i) {
            return Some((SCALARS16[(i - FIRST16) as usize], 1));
        }
        if (FIRST16 + 3..FIRST16 + 12).contains(&i) {
            let k = i - FIRST16 - 3;
            return Some((SCALARS16[(k / 3) as usize], (k % 3 + 2) as u8));
        }
        None
    }

    /// Component count of a scalar/vector type (1 for anything else).
    pub fn width(&self, id: TypeId) -> u8 {
        self.shape(id).map_or(1, |(_, n)| n)
    }

    /// Scalar kind of a scalar/vector type.
    pub fn scalar(&self, id: TypeId) -> Option<Scalar> {
        self.shape(id).map(|(s, _)| s)
    }

    /// The pointee of a pointer type.
    #[cfg(test)]
    pub fn pointee(&self, id: TypeId) -> Option<(spirv::StorageClass, TypeId)> {
        match self.get(id) {
            Type::Pointer { storage, pointee } => Some((*storage, *pointee)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_ids_match_their_types() {
        let t = TypeTable::new();
        for s in SCALARS.into_iter().chain(SCALARS16) {
            assert_eq!(t.get(TypeTable::vec(s, 1)), &Type::Scalar(s));
            for n in 2..=4 {
                assert_eq!(t.get(TypeTable::vec(s, n)), &Type::Vector(s, n));
                assert_eq!(t.shape(TypeTable::vec(s, n)), Some((s, n)));
            }
        }
        assert_eq!(t.get(TypeId::UVEC3), &Type::Vector(Scalar::U32, 3));
        assert_eq!(t.get(TypeId::IVEC2), &Type::Vector(Scalar::I32, 2));
        assert_eq!(t.get(TypeId::VEC4), &Type::Vector(Scalar::F32, 4));
    }

    #[test]
    fn structs_are_never_merged() {
        let mut t = TypeTable::new();
        let a = t.new_struct(vec![TypeId::VEC4]);
        let b = t.new_struct(vec![TypeId::VEC4]);
        assert_ne!(a, b);
    }
}
