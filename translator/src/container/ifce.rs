//! Interfaces (IFCE): class types, class instances and interface slots of SM5 dynamic linking.
//!
//! A program that calls through HLSL interfaces (`fcall`) gets this chunk: the class types
//! that implement the interfaces, the class instances declared in the program, and for each
//! interface slot the (class type, function table) pairs that may be bound to it. The layout is
//! undocumented; it is read as SlimShader and dxbc-spirv describe it and as fxc's output in the
//! corpus shows it:
//!
//! - header: instance count, class type count, slot record count, total slot count, one unknown
//!   word, class type table offset, slot record table offset (7 words);
//! - class type (12 bytes): name offset, then 16-bit id, constant-buffer stride, texture and
//!   sampler counts;
//! - class instance (16 bytes, right after the class types): name offset, then 16-bit type id,
//!   an unknown half-word, constant buffer, constant-buffer offset, texture and sampler slots;
//! - slot record (16 bytes): slots covered, entry count, offset of the entries' 16-bit class type
//!   ids, offset of their 32-bit function table ids.

use super::reader::ChunkReader;
use super::{Chunk, ContainerError};

/// A class that implements interfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClassType<'a> {
    pub name: &'a str,
    pub id: u16,
    pub constant_buffer_stride: u16,
    pub texture_count: u16,
    pub sampler_count: u16,
}

/// A class instance the program declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClassInstance<'a> {
    pub name: &'a str,
    pub type_id: u16,
    pub unknown: u16,
    pub constant_buffer: u16,
    pub constant_buffer_offset: u16,
    pub texture: u16,
    pub sampler: u16,
}

/// One (class type, function table) pair an interface slot accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SlotEntry {
    pub type_id: u16,
    pub table_id: u32,
}

/// A run of interface slots (an interface array covers several).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct InterfaceSlot {
    /// First slot of the run.
    pub first: u32,
    /// Slots in the run.
    pub count: u32,
    pub entries: Vec<SlotEntry>,
}

/// A parsed IFCE chunk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Interfaces<'a> {
    /// Total interface slots the program uses.
    pub slot_count: u32,
    pub class_types: Vec<ClassType<'a>>,
    pub class_instances: Vec<ClassInstance<'a>>,
    pub slots: Vec<InterfaceSlot>,
}

impl<'a> Interfaces<'a> {
    /// Parses an IFCE chunk.
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let r = ChunkReader::new(chunk.data, chunk.offset, "IFCE");
        let instance_count = r.u32(0, "class instance count")? as usize;
        let type_count = r.u32(4, "class type count")? as usize;
        let record_count = r.u32(8, "interface slot record count")? as usize;
        let slot_count = r.u32(12, "interface slot count")?;
        let types_at = r.u32(20, "class type table offset")? as usize;
        let records_at = r.u32(24, "interface slot table offset")? as usize;

        let types_end = r.table(4, types_at, type_count, 12, "class types")?;
        r.table(0, types_end, instance_count, 16, "class instances")?;
        r.table(8, records_at, record_count, 16, "interface slot records")?;

        let mut class_types = Vec::with_capacity(type_count);
        for i in 0..type_count {
            let at = types_at + i * 12;
            class_types.push(ClassType {
                name: r.str(at, "class type name")?,
                id: r.u16(at + 4, "class type id")?,
                constant_buffer_stride: r.u16(at + 6, "class constant buffer stride")?,
                texture_count: r.u16(at + 8, "class texture count")?,
                sampler_count: r.u16(at + 10, "class sampler count")?,
            });
        }
        let mut class_instances = Vec::with_capacity(instance_count);
        for i in 0..instance_count {
            let at = types_end + i * 16;
            class_instances.push(ClassInstance {
                name: r.str(at, "class instance name")?,
                type_id: r.u16(at + 4, "class instance type id")?,
                unknown: r.u16(at + 6, "class instance reserved field")?,
                constant_buffer: r.u16(at + 8, "class instance constant buffer")?,
                constant_buffer_offset: r.u16(at + 10, "class instance constant buffer offset")?,
                texture: r.u16(at + 12, "class instance texture")?,
                sampler: r.u16(at + 14, "class instance sampler")?,
            });
        }
        let mut slots = Vec::with_capacity(record_count);
        let mut first = 0u32;
        for i in 0..record_count {
            let at = records_at + i * 16;
            let count = r.u32(at, "slot count")?;
            let entry_count = r.u32(at + 4, "slot entry count")? as usize;
            let type_ids = r.u32(at + 8, "slot type id table offset")? as usize;
            let table_ids = r.u32(at + 12, "slot table id table offset")? as usize;
            r.table(at + 4, type_ids, entry_count, 2, "slot type ids")?;
            r.table(at + 4, table_ids, entry_count, 4, "slot table ids")?;
            let entries = (0..entry_count)
                .map(|e| {
                    Ok(SlotEntry {
                        type_id: r.u16(type_ids + e * 2, "slot type id")?,
                        table_id: r.u32(table_ids + e * 4, "slot table id")?,
                    })
                })
                .collect::<Result<_, ContainerError>>()?;
            slots.push(InterfaceSlot {
                first,
                count,
                entries,
            });
            first = first.saturating_add(count);
        }
        Ok(Interfaces {
            slot_count,
            class_types,
            class_instances,
            slots,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_one_class_one_slot() {
        // The layout fxc wrote for a pixel shader with one interface and one class.
        let mut d = Vec::new();
        for w in [
            0u32,
            1,
            1,
            1,
            0x40,
            0x34,
            0x24,
            0,
            0,
            1,
            1,
            0x40,
            0x44,
            0x48,
            0x0001_0000,
            0,
            0xabab_0000,
            0,
        ] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        d.extend_from_slice(b"cTest\0\xab\xab");
        let i = Interfaces::parse(&Chunk {
            tag: *b"IFCE",
            offset: 0,
            data: &d,
        })
        .unwrap();
        assert_eq!(i.slot_count, 1);
        assert_eq!(i.class_types[0].name, "cTest");
        assert_eq!(
            (i.class_types[0].id, i.class_types[0].constant_buffer_stride),
            (0, 1)
        );
        assert!(i.class_instances.is_empty());
        assert_eq!(
            i.slots,
            [InterfaceSlot {
                first: 0,
                count: 1,
                entries: vec![SlotEntry {
                    type_id: 0,
                    table_id: 0
                }]
            }]
        );
        let mut bad = d.clone();
        bad[4..8].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
        assert!(
            Interfaces::parse(&Chunk {
                tag: *b"IFCE",
                offset: 0,
                data: &bad
            })
            .is_err()
        );
    }
}
