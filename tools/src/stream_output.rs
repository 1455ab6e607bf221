//! The `--so` spelling of a stream-output declaration entry, so that a script can pass D3D's
//! `D3D11_SO_DECLARATION_ENTRY`s to `dxbc translate`/`reflect` without writing a file
//! (docs/cli.md): `[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]`.

use translator::StreamOutputEntry;

/// Parses `[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]`: `SV_Position.xyzw`, `TEXCOORD1.yz@1`,
/// `1:COLOR.xyzw@2`; `$SKIP.xy` (or `_.xy`) is a gap of two components. MASK names consecutive
/// components of the output counted from its own first one (`x` = its first), as D3D's start
/// component and count do.
pub fn parse_entry(spec: &str) -> Result<StreamOutputEntry, String> {
    let bad = |why: &str| {
        format!(
            "stream-output entry '{spec}': {why} (expected [STREAM:]SEMANTIC[INDEX].MASK[@SLOT], e.g. 0:TEXCOORD1.xy@1)"
        )
    };
    let (stream, rest) = match spec.split_once(':') {
        Some((s, r)) => (s.parse::<u32>().map_err(|_| bad("bad stream"))?, r),
        None => (0, spec),
    };
    let (rest, slot) = match rest.rsplit_once('@') {
        Some((r, s)) => (r, s.parse::<u32>().map_err(|_| bad("bad output slot"))?),
        None => (rest, 0),
    };
    let Some((name, mask)) = rest.rsplit_once('.') else {
        return Err(bad("no component mask"));
    };
    let comps: Vec<u8> = mask
        .chars()
        .map(|c| match c {
            'x' | 'r' => Ok(0),
            'y' | 'g' => Ok(1),
            'z' | 'b' => Ok(2),
            'w' | 'a' => Ok(3),
            _ => Err(bad("the mask takes x, y, z, w")),
        })
        .collect::<Result<_, _>>()?;
    let start = *comps.first().ok_or_else(|| bad("empty component mask"))?;
    if comps.iter().enumerate().any(|(i, &c)| c != start + i as u8) {
        return Err(bad("the mask must name consecutive components in order"));
    }
    if name.is_empty() {
        return Err(bad("no semantic"));
    }
    let gap = name == "_" || name.eq_ignore_ascii_case("$SKIP");
    let (semantic_name, semantic_index) = if gap {
        (None, 0)
    } else {
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (n, i) = name.split_at(name.len() - digits);
        if n.is_empty() {
            return Err(bad("no semantic name"));
        }
        let index = if i.is_empty() {
            0
        } else {
            i.parse::<u32>().map_err(|_| bad("bad semantic index"))?
        };
        (Some(n.to_string()), index)
    };
    Ok(StreamOutputEntry {
        stream,
        semantic_name,
        semantic_index,
        start_component: if gap { 0 } else { start },
        component_count: comps.len() as u8,
        output_slot: slot,
    })
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
        let e = parse_entry("SV_Position.xyzw").unwrap();
        assert_eq!(e.semantic_name.as_deref(), Some("SV_Position"));
        assert_eq!(
            (
                e.stream,
                e.semantic_index,
                e.start_component,
                e.component_count,
                e.output_slot
            ),
            (0, 0, 0, 4, 0)
        );
        let e = parse_entry("1:TEXCOORD12.yz@3").unwrap();
        assert_eq!(e.semantic_name.as_deref(), Some("TEXCOORD"));
        assert_eq!(
            (
                e.stream,
                e.semantic_index,
                e.start_component,
                e.component_count,
                e.output_slot
            ),
            (1, 12, 1, 2, 3)
        );
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
