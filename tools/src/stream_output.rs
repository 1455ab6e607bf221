//! The `--so` spelling of a stream-output declaration entry, so that a script can pass D3D's
//! `D3D11_SO_DECLARATION_ENTRY`s to `dxbc translate`/`reflect` without writing a file
//! (docs/cli.md): `[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]`, plus the strides and the rasterized
//! stream.

use translator::StreamOutputEntry;

/// Parses `[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]` (`translator::StreamOutputEntry`'s
/// `FromStr`, which vk-runner's `[stream output]` section reads too).
pub fn parse_entry(spec: &str) -> Result<StreamOutputEntry, String> {
    spec.parse()
}

/// Parses `--so-strides`: up to four byte strides, comma-separated (slot 0 first; 0 packs).
pub fn parse_strides(spec: &str) -> Result<[u32; 4], String> {
    let mut strides = [0u32; 4];
    let parts: Vec<&str> = spec.split(',').collect();
    if parts.len() > 4 {
        return Err(format!(
            "--so-strides '{spec}': at most four strides (slots 0-3)"
        ));
    }
    for (i, p) in parts.iter().enumerate() {
        strides[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("--so-strides '{spec}': '{p}' is not a byte count"))?;
    }
    Ok(strides)
}

/// `--rasterized-stream`: a stream, or `None` for `none` (nothing rasterized).
#[derive(Debug, Clone, Copy)]
pub struct Rasterized(pub Option<u32>);

/// Parses `--rasterized-stream`: a stream number or `none`.
pub fn parse_rasterized(spec: &str) -> Result<Rasterized, String> {
    if spec.eq_ignore_ascii_case("none") {
        return Ok(Rasterized(None));
    }
    spec.parse::<u32>()
        .map(|s| Rasterized(Some(s)))
        .map_err(|_| format!("--rasterized-stream '{spec}': a stream number (0-3) or none"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse() {
        // (spec, semantic name, (stream, semantic index, start component, count, slot))
        for (spec, name, fields) in [
            ("SV_Position.xyzw", "SV_Position", (0, 0, 0, 4, 0)),
            ("1:TEXCOORD12.yz@3", "TEXCOORD", (1, 12, 1, 2, 3)),
        ] {
            let e = parse_entry(spec).unwrap();
            assert_eq!(e.semantic_name.as_deref(), Some(name), "{spec}");
            let got = (
                e.stream,
                e.semantic_index,
                e.start_component,
                e.component_count,
                e.output_slot,
            );
            assert_eq!(got, fields, "{spec}");
        }
        let e = parse_entry("$SKIP.xyz@1").unwrap();
        assert!(e.is_gap());
        assert_eq!((e.component_count, e.output_slot), (3, 1));
        assert!(parse_entry("_.w").unwrap().is_gap());
        for bad in [
            "COLOR",
            "COLOR.xz",
            "COLOR.yx",
            "COLOR.q",
            "x:COLOR.x",
            "COLOR.x@a",
            "7.x",
            ".x",
        ] {
            assert!(parse_entry(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_strides("16,0,32").unwrap(), [16, 0, 32, 0]);
        assert!(parse_strides("1,2,3,4,5").is_err());
        assert_eq!(parse_rasterized("none").unwrap().0, None);
        assert_eq!(parse_rasterized("2").unwrap().0, Some(2));
        assert!(parse_rasterized("-1").is_err());
    }
}
