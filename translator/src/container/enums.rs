//! Enumerations stored as raw 32-bit fields in container chunks.
//!
//! Chunk fields such as a signature element's system value or a resource binding's dimension
//! are Direct3D enumerations (`D3D_NAME`, `D3D_SRV_DIMENSION`, ...). Input may hold values no
//! compiler writes, so each enum here has an `Other(u32)` variant instead of failing: the value
//! is kept and printed as a number. [`raw_enum!`] generates the type, its conversions, the short
//! name fxc prints, and a serde form (the variant name, or the number for `Other`).

macro_rules! raw_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $value:literal => $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value with no known meaning, kept as read.
            Other(u32),
        }

        impl $name {
            /// Decodes a raw field value.
            pub fn from_raw(value: u32) -> Self {
                match value {
                    $( $value => $name::$variant, )*
                    other => $name::Other(other),
                }
            }

            /// The raw field value.
            pub fn raw(self) -> u32 {
                match self {
                    $( $name::$variant => $value, )*
                    $name::Other(value) => value,
                }
            }

            /// The short name fxc's disassembly prints, if the value is known.
            pub fn fxc_name(self) -> Option<&'static str> {
                match self {
                    $( $name::$variant => Some($text), )*
                    $name::Other(_) => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.fxc_name() {
                    Some(text) => f.pad(text),
                    None => f.pad(&self.raw().to_string()),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( $name::$variant => s.serialize_str(stringify!($variant)), )*
                    $name::Other(value) => s.serialize_u32(*value),
                }
            }
        }
    };
}

pub(crate) use raw_enum;

#[cfg(test)]
mod tests {
    raw_enum! {
        /// Test enum.
        pub enum Demo {
            A = 1 => "a",
            B = 7 => "bee",
        }
    }

    #[test]
    fn round_trips_and_prints() {
        assert_eq!(Demo::from_raw(7), Demo::B);
        assert_eq!(Demo::from_raw(9), Demo::Other(9));
        assert_eq!(Demo::Other(9).raw(), 9);
        assert_eq!(Demo::A.raw(), 1);
        assert_eq!(format!("{:>4}|{}", Demo::B, Demo::Other(12)), " bee|12");
    }
}
