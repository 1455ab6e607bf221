//! The `CTAB` comment (D3DX constant table) parsed into a typed [`ConstantTable`].
//!
//! Layout (`d3dx9shader.h`): after the FourCC, `D3DXSHADER_CONSTANTTABLE` (size, creator,
//! version, constant count, constant-info offset, flags, target), then 20-byte
//! `D3DXSHADER_CONSTANTINFO` entries pointing at names, type descriptions (which may nest
//! struct members) and default values. Offsets are relative to the table, i.e. the payload
//! after the FourCC. The table is metadata only: translation never depends on it; the
//! disassembler shows it and reflection can use its names.
//!
//! Hostile input: counts are checked against the bytes available before anything is
//! allocated, struct nesting is bounded by [`MAX_DEPTH`], and errors name the byte offset in
//! the token stream.

use super::types::Comment;

/// Struct member nesting deeper than this is refused (and the total number of type
/// descriptions read is bounded by the table's size).
pub const MAX_DEPTH: usize = 16;

/// The `CTAB` FourCC as a little-endian dword.
pub const CTAB: u32 = u32::from_le_bytes(*b"CTAB");

/// A parsed constant table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstantTable {
    pub creator: String,
    /// The version token the table was built for.
    pub version: u32,
    pub flags: u32,
    pub target: String,
    pub constants: Vec<Constant>,
}

/// Which register set a constant lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterSet {
    Bool,
    Int4,
    Float4,
    Sampler,
    /// A value the format does not define, kept.
    Other(u16),
}

impl RegisterSet {
    fn from_u16(v: u16) -> Self {
        match v {
            0 => RegisterSet::Bool,
            1 => RegisterSet::Int4,
            2 => RegisterSet::Float4,
            3 => RegisterSet::Sampler,
            n => RegisterSet::Other(n),
        }
    }

    /// The register letter (`b`, `i`, `c`, `s`).
    pub fn prefix(self) -> &'static str {
        match self {
            RegisterSet::Bool => "b",
            RegisterSet::Int4 => "i",
            RegisterSet::Float4 => "c",
            RegisterSet::Sampler => "s",
            RegisterSet::Other(_) => "?",
        }
    }
}

/// One constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Constant {
    pub name: String,
    pub register_set: RegisterSet,
    pub register_index: u16,
    pub register_count: u16,
    pub ty: TypeInfo,
    /// Offset of the default value in the table (0: none).
    pub default_value: u32,
}

/// `D3DXSHADER_TYPEINFO`: class (scalar, vector, matrix rows/columns, object, struct), type
/// (bool, int, float, sampler…), shape and members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeInfo {
    pub class: u16,
    pub ty: u16,
    pub rows: u16,
    pub columns: u16,
    pub elements: u16,
    pub members: Vec<(String, TypeInfo)>,
}

impl TypeInfo {
    /// An HLSL-like spelling: `float4`, `float4x4`, `sampler2D`, `struct`, with `[n]`.
    pub fn hlsl(&self) -> String {
        let base = match self.ty {
            0 => "void",
            1 => "bool",
            2 => "int",
            3 => "float",
            4 => "string",
            5 => "texture",
            6 => "texture1D",
            7 => "texture2D",
            8 => "texture3D",
            9 => "textureCUBE",
            10 => "sampler",
            11 => "sampler1D",
            12 => "sampler2D",
            13 => "sampler3D",
            14 => "samplerCUBE",
            _ => "type",
        };
        let mut s = match self.class {
            0 => base.to_string(),
            1 => format!("{base}{}", self.columns),
            2 | 3 => format!("{base}{}x{}", self.rows, self.columns),
            4 => base.to_string(),
            5 => "struct".to_string(),
            _ => format!("class{}", self.class),
        };
        if self.elements > 1 {
            s += &format!("[{}]", self.elements);
        }
        s
    }
}

/// A malformed constant table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CTAB at byte offset {offset:#x}: {what}")]
pub struct CtabError {
    /// Byte offset in the token stream.
    pub offset: usize,
    pub what: &'static str,
}

struct Reader<'a> {
    table: &'a [u8],
    /// Byte offset of the table in the token stream.
    base: usize,
    /// Type descriptions left to read: members may share types, so without a budget a
    /// small table could describe an exponentially large tree.
    budget: std::cell::Cell<usize>,
}

impl Reader<'_> {
    fn err(&self, at: usize, what: &'static str) -> CtabError {
        CtabError {
            offset: self.base + at,
            what,
        }
    }

    fn u32(&self, at: usize) -> Result<u32, CtabError> {
        self.table
            .get(at..at.saturating_add(4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| self.err(at, "field past the end of the table"))
    }

    fn u16(&self, at: usize) -> Result<u16, CtabError> {
        self.table
            .get(at..at.saturating_add(2))
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .ok_or_else(|| self.err(at, "field past the end of the table"))
    }

    fn string(&self, at: usize, offset: u32) -> Result<String, CtabError> {
        let start = offset as usize;
        let rest = self
            .table
            .get(start..)
            .ok_or_else(|| self.err(at, "string offset past the end of the table"))?;
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.err(start, "string without a terminating NUL"))?;
        Ok(String::from_utf8_lossy(&rest[..len]).into_owned())
    }

    /// Checks that `count` entries of `size` bytes fit at `offset`.
    fn array(&self, at: usize, offset: u32, count: usize, size: usize) -> Result<usize, CtabError> {
        let start = offset as usize;
        if count == 0 {
            return Ok(start);
        }
        match count.checked_mul(size).and_then(|n| n.checked_add(start)) {
            Some(end) if end <= self.table.len() => Ok(start),
            _ => Err(self.err(at, "array runs past the end of the table")),
        }
    }

    fn type_info(&self, at: usize, offset: u32, depth: usize) -> Result<TypeInfo, CtabError> {
        if depth > MAX_DEPTH {
            return Err(self.err(at, "struct members nest too deep"));
        }
        let Some(left) = self.budget.get().checked_sub(1) else {
            return Err(self.err(at, "more type descriptions than the table can hold"));
        };
        self.budget.set(left);
        let o = self.array(at, offset, 1, 16)?;
        let count = self.u16(o + 10)? as usize;
        let member_offset = self.u32(o + 12)?;
        let m = self.array(o + 12, member_offset, count, 8)?;
        let Some(left) = self.budget.get().checked_sub(count) else {
            return Err(self.err(at, "more type descriptions than the table can hold"));
        };
        self.budget.set(left);
        let mut members = Vec::with_capacity(count);
        for i in 0..count {
            let e = m + 8 * i;
            let name = self.string(e, self.u32(e)?)?;
            members.push((name, self.type_info(e + 4, self.u32(e + 4)?, depth + 1)?));
        }
        Ok(TypeInfo {
            class: self.u16(o)?,
            ty: self.u16(o + 2)?,
            rows: self.u16(o + 4)?,
            columns: self.u16(o + 6)?,
            elements: self.u16(o + 8)?,
            members,
        })
    }
}

impl Comment {
    /// The constant table, when this comment is a `CTAB` comment.
    pub fn ctab(&self) -> Option<Result<ConstantTable, CtabError>> {
        if self.data.first() != Some(&CTAB) {
            return None;
        }
        let table: Vec<u8> = self.data[1..]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        Some(parse(&table, self.offset + 8))
    }
}

/// Parses a table (the comment payload after the FourCC) at byte `base` of the stream.
pub fn parse(table: &[u8], base: usize) -> Result<ConstantTable, CtabError> {
    let r = Reader {
        table,
        base,
        budget: std::cell::Cell::new(table.len().saturating_mul(4) + 64),
    };
    let size = r.u32(0)?;
    if size < 28 {
        return Err(r.err(0, "header size below 28 bytes"));
    }
    let count = r.u32(12)? as usize;
    let info = r.array(16, r.u32(16)?, count, 20)?;
    let mut constants = Vec::with_capacity(count);
    for i in 0..count {
        let e = info + 20 * i;
        constants.push(Constant {
            name: r.string(e, r.u32(e)?)?,
            register_set: RegisterSet::from_u16(r.u16(e + 4)?),
            register_index: r.u16(e + 6)?,
            register_count: r.u16(e + 8)?,
            ty: r.type_info(e + 12, r.u32(e + 12)?, 0)?,
            default_value: r.u32(e + 16)?,
        });
    }
    Ok(ConstantTable {
        creator: r.string(4, r.u32(4)?)?,
        version: r.u32(8)?,
        flags: r.u32(20)?,
        target: r.string(24, r.u32(24)?)?,
        constants,
    })
}
