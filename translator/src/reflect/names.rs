//! The names the reflection gives SPIR-V capabilities and built-ins (their SPIR-V spelling,
//! `ClipDistance`), made without the formatting machinery for the ones nearly every module
//! lists: a translation of a small shader spent a few percent of its time formatting them.

use spirv::{BuiltIn, Capability};

use super::Name;

/// A capability's SPIR-V name.
pub(crate) fn capability(c: Capability) -> Name {
    let s = match c {
        Capability::Shader => "Shader",
        Capability::ClipDistance => "ClipDistance",
        Capability::CullDistance => "CullDistance",
        Capability::DemoteToHelperInvocation => "DemoteToHelperInvocation",
        Capability::ImageQuery => "ImageQuery",
        Capability::Geometry => "Geometry",
        Capability::Tessellation => "Tessellation",
        Capability::DrawParameters => "DrawParameters",
        Capability::StorageImageWriteWithoutFormat => "StorageImageWriteWithoutFormat",
        _ => return Name::Owned(format!("{c:?}")),
    };
    Name::Borrowed(s)
}

/// A built-in's SPIR-V name.
pub(crate) fn builtin(b: BuiltIn) -> Name {
    let s = match b {
        BuiltIn::Position => "Position",
        BuiltIn::PointSize => "PointSize",
        BuiltIn::ClipDistance => "ClipDistance",
        BuiltIn::FragCoord => "FragCoord",
        BuiltIn::PointCoord => "PointCoord",
        BuiltIn::FragDepth => "FragDepth",
        BuiltIn::FrontFacing => "FrontFacing",
        BuiltIn::GlobalInvocationId => "GlobalInvocationId",
        BuiltIn::LocalInvocationIndex => "LocalInvocationIndex",
        BuiltIn::VertexIndex => "VertexIndex",
        BuiltIn::InstanceIndex => "InstanceIndex",
        _ => return Name::Owned(format!("{b:?}")),
    };
    Name::Borrowed(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_debug_spelling() {
        for c in [
            Capability::Shader,
            Capability::ClipDistance,
            Capability::CullDistance,
            Capability::DemoteToHelperInvocation,
            Capability::ImageQuery,
            Capability::Geometry,
            Capability::Tessellation,
            Capability::DrawParameters,
            Capability::StorageImageWriteWithoutFormat,
            Capability::Float16,
        ] {
            assert_eq!(capability(c), format!("{c:?}"));
        }
        for b in [
            BuiltIn::Position,
            BuiltIn::PointSize,
            BuiltIn::ClipDistance,
            BuiltIn::FragCoord,
            BuiltIn::PointCoord,
            BuiltIn::FragDepth,
            BuiltIn::FrontFacing,
            BuiltIn::GlobalInvocationId,
            BuiltIn::LocalInvocationIndex,
            BuiltIn::VertexIndex,
            BuiltIn::InstanceIndex,
            BuiltIn::SampleId,
        ] {
            assert_eq!(builtin(b), format!("{b:?}"));
        }
    }
}
