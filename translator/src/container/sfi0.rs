//! Shader feature flags (SFI0): optional device features the program needs.
//!
//! SM5 compilers add this chunk when a program uses something beyond the base feature level
//! (doubles, UAVs at every stage, early depth-stencil, ...). The translator can check these
//! against the target device; `dxbc info` and the disassembly header name them. The chunk is a
//! 64-bit little-endian bit set (`D3D_SHADER_REQUIRES_*`).

use super::reader::ChunkReader;
use super::{Chunk, ContainerError};

/// `(bit, identifier, text fxc prints in its "shader requires additional functionality" note)`.
pub const FEATURE_BITS: [(u64, &str, &str); 29] = [
    (0x1, "doubles", "Double-precision floating point"),
    (0x2, "early_depth_stencil", "Early depth-stencil"),
    (0x4, "uavs_at_every_stage", "UAVs at every shader stage"),
    (0x8, "64_uavs", "64 UAV slots"),
    (0x10, "minimum_precision", "Minimum-precision data types"),
    (
        0x20,
        "11_1_double_extensions",
        "Double-precision extensions for 11.1",
    ),
    (0x40, "11_1_shader_extensions", "Shader extensions for 11.1"),
    (
        0x80,
        "level_9_comparison_filtering",
        "Comparison filtering for feature level 9",
    ),
    (0x100, "tiled_resources", "Tiled resources"),
    (0x200, "stencil_ref", "PS Output Stencil Ref"),
    (0x400, "inner_coverage", "PS Inner Coverage"),
    (
        0x800,
        "typed_uav_load_additional_formats",
        "Typed UAV Load Additional Formats",
    ),
    (0x1000, "rovs", "Raster Ordered UAVs"),
    (
        0x2000,
        "viewport_and_rt_array_index_from_any_shader",
        "SV_RenderTargetArrayIndex or SV_ViewportArrayIndex from any shader feeding rasterizer",
    ),
    (0x4000, "wave_ops", "Wave level operations"),
    (0x8000, "int64_ops", "64-Bit integer"),
    (0x10000, "view_id", "View Instancing"),
    (0x20000, "barycentrics", "Barycentrics"),
    (0x40000, "native_low_precision", "Use native low precision"),
    (0x80000, "shading_rate", "Shading Rate"),
    (
        0x100000,
        "raytracing_tier_1_1",
        "Raytracing tier 1.1 features",
    ),
    (0x200000, "sampler_feedback", "Sampler feedback"),
    (
        0x400000,
        "atomic_int64_on_typed_resource",
        "64-bit Atomics on Typed Resources",
    ),
    (
        0x800000,
        "atomic_int64_on_group_shared",
        "64-bit Atomics on Group Shared",
    ),
    (
        0x1000000,
        "derivatives_in_mesh_and_amplification",
        "Derivatives in mesh and amplification shaders",
    ),
    (
        0x2000000,
        "resource_descriptor_heap_indexing",
        "Resource descriptor heap indexing",
    ),
    (
        0x4000000,
        "sampler_descriptor_heap_indexing",
        "Sampler descriptor heap indexing",
    ),
    (0x8000000, "wave_mma", "Wave Matrix"),
    (
        0x10000000,
        "atomic_int64_on_heap_resource",
        "64-bit Atomics on Heap Resources",
    ),
];

/// A parsed SFI0 chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FeatureFlags {
    pub bits: u64,
}

impl FeatureFlags {
    /// Parses an SFI0 chunk (8 bytes; anything after them is ignored).
    pub fn parse(chunk: &Chunk<'_>) -> Result<Self, ContainerError> {
        let r = ChunkReader::new(chunk.data, chunk.offset, "SFI0");
        let low = r.u32(0, "feature flags (low word)")?;
        let high = r.u32(4, "feature flags (high word)")?;
        Ok(FeatureFlags {
            bits: u64::from(low) | (u64::from(high) << 32),
        })
    }

    /// `(identifier, fxc text)` for each known bit set.
    pub fn names(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        FEATURE_BITS
            .iter()
            .filter(|(bit, _, _)| self.bits & bit != 0)
            .map(|&(_, id, text)| (id, text))
    }

    /// Bits set that have no known meaning.
    pub fn unknown_bits(&self) -> u64 {
        FEATURE_BITS
            .iter()
            .fold(self.bits, |acc, (bit, _, _)| acc & !bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_bits() {
        let data = [0x03, 0, 0, 0, 0, 0, 0, 0x80];
        let f = FeatureFlags::parse(&Chunk {
            tag: *b"SFI0",
            offset: 0,
            data: &data,
        })
        .unwrap();
        let names: Vec<_> = f.names().map(|(id, _)| id).collect();
        assert_eq!(names, ["doubles", "early_depth_stencil"]);
        assert_eq!(f.unknown_bits(), 0x8000_0000_0000_0000);
        assert!(
            FeatureFlags::parse(&Chunk {
                tag: *b"SFI0",
                offset: 0,
                data: &data[..6]
            })
            .is_err()
        );
    }
}
