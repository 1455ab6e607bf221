//! Compiler statistics (STAT): instruction and register counts the compiler recorded.
//!
//! Nothing in translation depends on STAT; `dxbc info` prints it and the disassembly footer
//! uses its instruction count (`// Approximately N instruction slots used`). The chunk is an
//! array of 32-bit counts: 28 or 29 for SM4 compilers, 37 for SM5. The meaning of each index
//! follows Wine's reflection code (`d3dcompiler_parse_stat`) and the `D3D11_SHADER_DESC` field
//! order; indices with no known meaning are named `unknown_N`.

use super::reader::ChunkReader;
use super::{Chunk, ContainerError, ContainerErrorKind};

/// Field names by index.
pub const STAT_FIELDS: [&str; 37] = [
    "instruction_count",
    "temp_register_count",
    "def_count",
    "dcl_count",
    "float_instruction_count",
    "int_instruction_count",
    "uint_instruction_count",
    "static_flow_control_count",
    "dynamic_flow_control_count",
    "macro_instruction_count",
    "temp_array_count",
    "array_instruction_count",
    "cut_instruction_count",
    "emit_instruction_count",
    "texture_normal_instructions",
    "texture_load_instructions",
    "texture_comp_instructions",
    "texture_bias_instructions",
    "texture_gradient_instructions",
    "mov_instruction_count",
    "movc_instruction_count",
    "conversion_instruction_count",
    "unknown_22",
    "input_primitive",
    "gs_output_topology",
    "gs_max_output_vertex_count",
    "unknown_26",
    "unknown_27",
    "unknown_28",
    "unknown_29",
    "control_points",
    "hs_output_primitive",
    "hs_partitioning",
    "tessellator_domain",
    "barrier_instructions",
    "interlocked_instructions",
    "texture_store_instructions",
];

/// A parsed STAT chunk: the counts in chunk order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Statistics {
    pub values: Vec<u32>,
}

impl Statistics {
    /// Parses a STAT chunk: a whole number of 32-bit counts, at most as many as the largest
    /// known layout.
    pub fn parse(chunk: &Chunk<'_>) -> Result<Self, ContainerError> {
        let r = ChunkReader::new(chunk.data, chunk.offset, "STAT");
        if !chunk.data.len().is_multiple_of(4) || chunk.data.len() > STAT_FIELDS.len() * 4 {
            return Err(r.error(
                0,
                ContainerErrorKind::Invalid,
                format!(
                    "size {} is not a whole number of at most {} counts",
                    chunk.data.len(),
                    STAT_FIELDS.len()
                ),
            ));
        }
        let values = (0..chunk.data.len() / 4)
            .map(|i| r.u32(i * 4, "count"))
            .collect::<Result<_, _>>()?;
        Ok(Statistics { values })
    }

    /// A count by its name in [`STAT_FIELDS`], if the chunk holds it.
    pub fn get(&self, name: &str) -> Option<u32> {
        let index = STAT_FIELDS.iter().position(|&f| f == name)?;
        self.values.get(index).copied()
    }

    /// `(name, value)` for every count present.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, u32)> + '_ {
        STAT_FIELDS.iter().copied().zip(self.values.iter().copied())
    }

    /// The instruction count, if present.
    pub fn instruction_count(&self) -> Option<u32> {
        self.values.first().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_counts() {
        let data: Vec<u8> = (0..29u32).flat_map(|i| (i * 10).to_le_bytes()).collect();
        let s = Statistics::parse(&Chunk {
            tag: *b"STAT",
            offset: 8,
            data: &data,
        })
        .unwrap();
        assert_eq!(s.instruction_count(), Some(0));
        assert_eq!(s.get("temp_register_count"), Some(10));
        assert_eq!(s.get("gs_max_output_vertex_count"), Some(250));
        assert_eq!(s.get("control_points"), None);
        assert_eq!(s.fields().count(), 29);
        assert!(
            Statistics::parse(&Chunk {
                tag: *b"STAT",
                offset: 8,
                data: &data[..5]
            })
            .is_err()
        );
        let big = vec![0u8; 38 * 4];
        assert!(
            Statistics::parse(&Chunk {
                tag: *b"STAT",
                offset: 8,
                data: &big
            })
            .is_err()
        );
    }
}
