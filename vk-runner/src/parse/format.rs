//! Resource formats as `.shader_test` files name them (`r32g32b32a32-float`, `r32-uint`, ...).
//!
//! One table maps each name to its Vulkan format, texel size, channel count and how its
//! channels read back, so that parsing, resource creation and probing all agree.

use ash::vk;

/// How a format's channels are interpreted when reading back or comparing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    Float,
    Uint,
    Sint,
    Unorm,
    Snorm,
    /// No element format (`unknown`, structured buffers): raw 32-bit words.
    Raw,
}

/// A format from the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub name: &'static str,
    pub vk: vk::Format,
    /// Bytes per texel (0 for `unknown`).
    pub texel_size: u32,
    pub channels: u32,
    pub kind: DataKind,
    /// `r32-float-shadow`: a depth texture sampled with comparison.
    pub shadow: bool,
}

const fn f(
    name: &'static str,
    vk: vk::Format,
    texel_size: u32,
    channels: u32,
    kind: DataKind,
    shadow: bool,
) -> Format {
    Format {
        name,
        vk,
        texel_size,
        channels,
        kind,
        shadow,
    }
}

/// Every format the runner knows. Longer names first where one is a prefix of another.
pub const FORMATS: &[Format] = &[
    f(
        "r32g32b32a32-float",
        vk::Format::R32G32B32A32_SFLOAT,
        16,
        4,
        DataKind::Float,
        false,
    ),
    f(
        "r32g32b32a32-sint",
        vk::Format::R32G32B32A32_SINT,
        16,
        4,
        DataKind::Sint,
        false,
    ),
    f(
        "r32g32b32a32-uint",
        vk::Format::R32G32B32A32_UINT,
        16,
        4,
        DataKind::Uint,
        false,
    ),
    f(
        "r32g32b32-float",
        vk::Format::R32G32B32_SFLOAT,
        12,
        3,
        DataKind::Float,
        false,
    ),
    f(
        "r32g32b32-uint",
        vk::Format::R32G32B32_UINT,
        12,
        3,
        DataKind::Uint,
        false,
    ),
    f(
        "r32g32b32-sint",
        vk::Format::R32G32B32_SINT,
        12,
        3,
        DataKind::Sint,
        false,
    ),
    f(
        "r32g32-float",
        vk::Format::R32G32_SFLOAT,
        8,
        2,
        DataKind::Float,
        false,
    ),
    f(
        "r32g32-sint",
        vk::Format::R32G32_SINT,
        8,
        2,
        DataKind::Sint,
        false,
    ),
    f(
        "r32g32-uint",
        vk::Format::R32G32_UINT,
        8,
        2,
        DataKind::Uint,
        false,
    ),
    f(
        "r32-float-shadow",
        vk::Format::D32_SFLOAT,
        4,
        1,
        DataKind::Float,
        true,
    ),
    f(
        "r32-float",
        vk::Format::R32_SFLOAT,
        4,
        1,
        DataKind::Float,
        false,
    ),
    f(
        "r32-sint",
        vk::Format::R32_SINT,
        4,
        1,
        DataKind::Sint,
        false,
    ),
    f(
        "r32-uint",
        vk::Format::R32_UINT,
        4,
        1,
        DataKind::Uint,
        false,
    ),
    f(
        "r32-typeless",
        vk::Format::R32_UINT,
        4,
        1,
        DataKind::Uint,
        false,
    ),
    f(
        "r16g16b16a16-float",
        vk::Format::R16G16B16A16_SFLOAT,
        8,
        4,
        DataKind::Float,
        false,
    ),
    f(
        "r16g16b16a16-uint",
        vk::Format::R16G16B16A16_UINT,
        8,
        4,
        DataKind::Uint,
        false,
    ),
    f(
        "r16g16b16a16-sint",
        vk::Format::R16G16B16A16_SINT,
        8,
        4,
        DataKind::Sint,
        false,
    ),
    f(
        "r16g16b16a16-unorm",
        vk::Format::R16G16B16A16_UNORM,
        8,
        4,
        DataKind::Unorm,
        false,
    ),
    f(
        "r16g16-float",
        vk::Format::R16G16_SFLOAT,
        4,
        2,
        DataKind::Float,
        false,
    ),
    f(
        "r16-float",
        vk::Format::R16_SFLOAT,
        2,
        1,
        DataKind::Float,
        false,
    ),
    f(
        "r16-uint",
        vk::Format::R16_UINT,
        2,
        1,
        DataKind::Uint,
        false,
    ),
    f(
        "r8g8b8a8-unorm",
        vk::Format::R8G8B8A8_UNORM,
        4,
        4,
        DataKind::Unorm,
        false,
    ),
    f(
        "r8g8b8a8-snorm",
        vk::Format::R8G8B8A8_SNORM,
        4,
        4,
        DataKind::Snorm,
        false,
    ),
    f(
        "r8g8b8a8-uint",
        vk::Format::R8G8B8A8_UINT,
        4,
        4,
        DataKind::Uint,
        false,
    ),
    f(
        "r8g8b8a8-sint",
        vk::Format::R8G8B8A8_SINT,
        4,
        4,
        DataKind::Sint,
        false,
    ),
    f(
        "r8-unorm",
        vk::Format::R8_UNORM,
        1,
        1,
        DataKind::Unorm,
        false,
    ),
    f(
        "d32-float",
        vk::Format::D32_SFLOAT,
        4,
        1,
        DataKind::Float,
        false,
    ),
    f("unknown", vk::Format::UNDEFINED, 0, 1, DataKind::Raw, false),
];

impl Format {
    pub fn by_name(name: &str) -> Option<Format> {
        FORMATS.iter().find(|f| f.name == name).copied()
    }

    /// Reads a format name at the cursor: `r32g32b32a32-float`, or the older spelling with
    /// spaces that vkd3d's test files used until 2024 (`r32g32b32a32 float`, `r32 float shadow`,
    /// `r32g32 int` for `r32g32-sint`).
    pub fn parse(c: &mut super::cursor::Cursor<'_>) -> Result<Format, String> {
        for fmt in FORMATS {
            if c.eat_word(fmt.name) {
                return Ok(*fmt);
            }
        }
        for fmt in FORMATS {
            if c.eat_words(&fmt.name.replace('-', " ")) {
                return Ok(*fmt);
            }
        }
        if c.eat_words("r32g32 int") {
            return Ok(Format::by_name("r32g32-sint").expect("in the table"));
        }
        Err(format!("unknown format '{}'", c.rest()))
    }

    pub const RGBA32F: Format = FORMATS[0];
    pub const D32: Format = f(
        "d32-float",
        vk::Format::D32_SFLOAT,
        4,
        1,
        DataKind::Float,
        false,
    );
    pub const RAW: Format = f("unknown", vk::Format::UNDEFINED, 0, 1, DataKind::Raw, false);

    pub fn is_depth(&self) -> bool {
        self.vk == vk::Format::D32_SFLOAT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::cursor::Cursor;

    #[test]
    fn prefixes_do_not_shadow() {
        let mut c = Cursor::new("r32-float-shadow");
        assert!(Format::parse(&mut c).unwrap().shadow);
        let mut c = Cursor::new("r32-float");
        assert_eq!(Format::parse(&mut c).unwrap().vk, vk::Format::R32_SFLOAT);
        assert!(Format::parse(&mut Cursor::new("r99")).is_err());
        assert_eq!(Format::by_name("r32g32b32a32-float"), Some(Format::RGBA32F));
        for (old, new) in [
            ("r32g32b32a32 float", "r32g32b32a32-float"),
            ("r32 float shadow", "r32-float-shadow"),
            ("r32 float", "r32-float"),
            ("r32 sint", "r32-sint"),
            ("r32g32 int", "r32g32-sint"),
        ] {
            let mut c = Cursor::new(old);
            assert_eq!(Format::parse(&mut c).map(|f| f.name), Ok(new), "{old}");
            assert!(c.is_empty(), "{old}");
        }
    }
}
