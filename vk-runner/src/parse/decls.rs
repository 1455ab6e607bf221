//! Parsers for the declaration sections: `[require]`, resources, `[sampler]`, `[input layout]`.

use super::cursor::{Cursor, parse_c_float, parse_c_int, token_is_float};
use super::format::{DataKind, Format};
use super::qualifier::{Qualifier, ShaderModel};
use super::sections::*;

/// Applies one `[require]` line.
pub fn require_line(req: &mut Require, line: &str) -> Result<(), String> {
    let mut c = Cursor::new(line);
    if c.eat_words("shader model >=") {
        let m = ShaderModel::parse(&mut c)?;
        req.min_model = req.min_model.max(m);
    } else if c.eat_words("shader model <") {
        let m = ShaderModel::parse(&mut c)?;
        let below = m
            .predecessor()
            .ok_or_else(|| format!("shader model < {m} is empty"))?;
        req.max_model = req.max_model.min(below);
    } else if c.eat_words("shader model =") {
        let m = ShaderModel::parse(&mut c)?;
        req.min_model = req.min_model.max(m);
        req.max_model = req.max_model.min(m);
    } else if c.eat_words("compile shader model") {
        req.compile_models.push(ShaderModel::parse(&mut c)?);
    } else if c.eat_word("options:") {
        req.options = c.rest().split_whitespace().map(str::to_string).collect();
    } else if c.eat_word("non-warp") {
        // Older vkd3d files: the block crashes Microsoft's WARP, so it needs any other device.
        let q = Qualifier::parse_opt(&mut Cursor::new("(!warp)"))?;
        req.tag_conditions.push(("non-warp".to_string(), q));
    } else if c.eat_word("format") {
        let f = Format::parse(&mut c)?;
        for cap in c.rest().split_whitespace() {
            req.caps.push(format!("format {} {cap}", f.name));
        }
    } else {
        let word = c.rest().trim();
        if word.is_empty() {
            return Ok(());
        }
        const CAPS: &[&str] = &[
            "clip-planes",
            "cull-distance",
            "denorm-flush-f32",
            "depth-bounds",
            "descriptors",
            "filter-minmax",
            "float64",
            "fog",
            "geometry-shader",
            "inner-coverage",
            "int64",
            "native-16-bit",
            "point-size",
            "rov",
            "rt-vp-array-index",
            "tessellation-shader",
            "wave-ops",
        ];
        // Older files spell some capabilities with spaces (`wave ops`).
        let dashed = word.split_whitespace().collect::<Vec<_>>().join("-");
        if CAPS.contains(&dashed.as_str()) {
            req.caps.push(dashed);
        } else if let Ok(q) = Qualifier::parse_opt(&mut Cursor::new(&format!("({word})"))) {
            // A tag condition (`vulkan`, `!msl`, `llvmpipe | d3d12`).
            req.tag_conditions.push((word.to_string(), q));
        } else {
            // A requirement this runner does not know: the block's checks skip, naming it.
            req.caps.push(format!("unknown {word}"));
        }
    }
    Ok(())
}

/// Starts a resource section from its header, with the defaults vkd3d uses.
pub fn new_resource(kind: ResourceKind, slot: u32) -> ResourceDecl {
    let format = match kind {
        ResourceKind::Dsv => Format::D32,
        ResourceKind::VertexBuffer => Format::RAW,
        _ => Format::RGBA32F,
    };
    ResourceDecl {
        kind,
        slot,
        space: 0,
        format,
        explicit_format: false,
        stride: None,
        dims: Dimensions::Unspecified,
        levels: 1,
        data: Vec::new(),
    }
}

/// Applies one line of a resource section.
pub fn resource_line(r: &mut ResourceDecl, line: &str) -> Result<(), String> {
    let mut c = Cursor::new(line);
    if c.eat_word("format") {
        r.format = Format::parse(&mut c)?;
        r.explicit_format = true;
    } else if c.eat_word("stride") {
        let s = c.u32()?;
        // Any positive stride: structures of 16-bit members have strides like 6.
        if s == 0 || s > 2048 {
            return Err(format!("stride {s} out of range (1 to 2048)"));
        }
        r.stride = Some(s);
        r.format = Format::RAW;
        r.explicit_format = true;
    } else if c.eat_word("size") {
        r.dims = parse_size(&mut c)?;
        if let Dimensions::CounterBuffer { .. } = r.dims {
            r.stride = Some(4);
            r.format = Format::RAW;
            r.explicit_format = true;
        }
    } else if c.eat_word("levels") {
        r.levels = c.u32()?;
        if r.levels == 0 || r.levels > 16 {
            return Err(format!("bad level count {}", r.levels));
        }
    } else {
        // Raw buffers hold words whatever the (default) format says; vertex buffers have no
        // format here (their input layout gives the types), so they take words too.
        let float_texels = r.format.kind == DataKind::Float
            && r.format.texel_size == 4 * r.format.channels
            && !matches!(r.dims, Dimensions::RawBuffer { .. });
        for tok in line.split_whitespace() {
            r.data.push(data_word(tok, float_texels)?);
        }
    }
    Ok(())
}

/// One data token: a float (has `.`/exponent/inf/nan) stored as its bits, else an integer.
///
/// vkd3d's runner changed here: it used to read every token by the format's data type (`strtof`
/// for float formats, so `1` in an `r32g32b32a32-float` texture is 1.0), and now reads a token
/// without `.` as an integer bit pattern. Files of both ages are in use, so in a resource of
/// 32-bit float texels (`float_texels`) a plain decimal integer is a value (what older files
/// mean; a newer file writing bits uses hex), and a `0x` token stays a bit pattern.
pub fn data_word(tok: &str, float_texels: bool) -> Result<u32, String> {
    let plain_decimal = {
        let digits = tok.strip_prefix(['-', '+']).unwrap_or(tok);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    if token_is_float(tok) || (float_texels && plain_decimal) {
        let v = parse_c_float(tok).ok_or_else(|| format!("bad number '{tok}'"))?;
        Ok((v as f32).to_bits())
    } else {
        match parse_c_int(tok) {
            Some(v) if v >= i64::from(i32::MIN) && v <= i64::from(u32::MAX) => Ok(v as u32),
            _ => Err(format!("bad number '{tok}'")),
        }
    }
}

fn parse_size(c: &mut Cursor<'_>) -> Result<Dimensions, String> {
    c.expect_char('(')?;
    let kind = c.take_token(&[',', ')']);
    // Older files: `size (W, H)` is a 2D texture.
    if let Ok(width) = kind.trim().parse::<u32>() {
        c.expect_char(',')?;
        let height = c.u32()?;
        c.expect_char(')')?;
        return Ok(Dimensions::Tex2d { width, height });
    }
    let mut nums = Vec::new();
    while c.eat_char(',') {
        nums.push(c.u32()?);
    }
    c.expect_char(')')?;
    let want = |n: usize| -> Result<(), String> {
        if nums.len() == n {
            Ok(())
        } else {
            Err(format!("size ({kind}, ...) takes {n} numbers"))
        }
    };
    let d = match kind {
        "buffer" => {
            want(1)?;
            Dimensions::Buffer { elements: nums[0] }
        }
        "raw_buffer" => {
            want(1)?;
            Dimensions::RawBuffer { bytes: nums[0] }
        }
        "counter_buffer" => {
            want(1)?;
            Dimensions::CounterBuffer { elements: nums[0] }
        }
        "2d" => {
            want(2)?;
            Dimensions::Tex2d {
                width: nums[0],
                height: nums[1],
            }
        }
        "2dms" => {
            want(3)?;
            Dimensions::Tex2dMs {
                samples: nums[0],
                width: nums[1],
                height: nums[2],
            }
        }
        "2darray" => {
            want(3)?;
            Dimensions::Tex2dArray {
                width: nums[0],
                height: nums[1],
                layers: nums[2],
            }
        }
        "3d" => {
            want(3)?;
            Dimensions::Tex3d {
                width: nums[0],
                height: nums[1],
                depth: nums[2],
            }
        }
        "cube" => {
            want(1)?;
            Dimensions::Cube { size: nums[0] }
        }
        _ => return Err(format!("unknown resource size kind '{kind}'")),
    };
    // Keep sizes sane: the runner allocates them.
    let too_big = match d {
        Dimensions::Buffer { elements: n } | Dimensions::CounterBuffer { elements: n } => {
            n > 1 << 24
        }
        Dimensions::RawBuffer { bytes } => bytes > 1 << 26,
        Dimensions::Tex2d { width, height } => width > 16384 || height > 16384,
        Dimensions::Tex2dMs {
            samples,
            width,
            height,
        } => samples > 64 || width > 16384 || height > 16384,
        Dimensions::Tex2dArray {
            width,
            height,
            layers,
        } => width > 16384 || height > 16384 || layers > 2048,
        Dimensions::Tex3d {
            width,
            height,
            depth,
        } => width > 2048 || height > 2048 || depth > 2048,
        Dimensions::Cube { size } => size > 16384,
        Dimensions::Unspecified => false,
    };
    if too_big {
        return Err("resource size too large".into());
    }
    Ok(d)
}

/// Applies one `[sampler N]` line.
pub fn sampler_line(s: &mut SamplerDecl, line: &str) -> Result<(), String> {
    let mut c = Cursor::new(line);
    if c.eat_word("address") {
        for a in &mut s.address {
            *a = parse_address(&mut c)?;
        }
    } else if c.eat_word("filter") {
        if c.eat_word("minimum") {
            s.reduction = Reduction::Minimum;
        } else if c.eat_word("maximum") {
            s.reduction = Reduction::Maximum;
        }
        for l in &mut s.linear {
            *l = if c.eat_word("linear") {
                true
            } else if c.eat_word("point") {
                false
            } else {
                return Err(format!("unknown sampler filter '{}'", c.rest()));
            };
        }
    } else if c.eat_word("comparison") {
        s.compare = Some(parse_compare(&mut c)?);
        s.reduction = Reduction::Comparison;
    } else {
        return Err(format!("unknown sampler directive '{line}'"));
    }
    Ok(())
}

fn parse_address(c: &mut Cursor<'_>) -> Result<AddressMode, String> {
    for (w, m) in [
        ("border", AddressMode::Border),
        ("clamp", AddressMode::Clamp),
        ("mirror_once", AddressMode::MirrorOnce),
        ("mirror", AddressMode::Mirror),
        ("wrap", AddressMode::Wrap),
    ] {
        if c.eat_word(w) {
            return Ok(m);
        }
    }
    Err(format!("unknown address mode '{}'", c.rest()))
}

pub fn parse_compare(c: &mut Cursor<'_>) -> Result<CompareFunc, String> {
    for (w, f) in [
        ("less equal", CompareFunc::LessEqual),
        ("not equal", CompareFunc::NotEqual),
        ("greater equal", CompareFunc::GreaterEqual),
        ("never", CompareFunc::Never),
        ("less", CompareFunc::Less),
        ("equal", CompareFunc::Equal),
        ("greater", CompareFunc::Greater),
        ("always", CompareFunc::Always),
    ] {
        if c.eat_words(w) {
            return Ok(f);
        }
    }
    Err(format!("unknown comparison function '{}'", c.rest()))
}

/// Parses one `[input layout]` line.
pub fn input_layout_line(line: &str) -> Result<InputElement, String> {
    let mut c = Cursor::new(line);
    let slot = c.u32()?;
    let format = Format::parse(&mut c)?;
    let semantic = c.take_token(&[]).to_string();
    if semantic.is_empty() {
        return Err("input element without a semantic name".into());
    }
    let index = if c.is_empty() { 0 } else { c.u32()? };
    Ok(InputElement {
        slot,
        format,
        semantic,
        index,
    })
}

/// Applies one line of a `[stream output]` section: an entry
/// (`[STREAM:]SEMANTIC[INDEX].MASK[@SLOT]`, in declaration order; `$SKIP.xy` is a gap),
/// `stride SLOT BYTES` or `rasterized-stream N|none`.
pub fn stream_output_line(so: &mut translator::StreamOutput, line: &str) -> Result<(), String> {
    let mut c = Cursor::new(line);
    if c.eat_word("stride") {
        let slot = c.u32()?;
        let bytes = c.u32()?;
        if !c.is_empty() {
            return Err(format!("trailing text '{}'", c.rest()));
        }
        let s = so
            .strides
            .get_mut(slot as usize)
            .ok_or_else(|| format!("stride of slot {slot} (slots are 0-3)"))?;
        *s = bytes;
        return Ok(());
    }
    if c.eat_word("rasterized-stream") {
        let r = c.rest().trim();
        so.rasterized_stream = if r == "none" {
            None
        } else {
            Some(
                r.parse()
                    .map_err(|_| format!("rasterized-stream '{r}': a stream or none"))?,
            )
        };
        return Ok(());
    }
    so.entries.push(line.parse()?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn require() {
        let mut r = Require::default();
        require_line(&mut r, "shader model >= 5.0").unwrap();
        require_line(&mut r, "shader model < 6.0").unwrap();
        require_line(&mut r, "float64").unwrap();
        require_line(&mut r, "format r32-float uav-load").unwrap();
        require_line(&mut r, "options: row-major").unwrap();
        // Models to test at: restricts nothing.
        require_line(&mut r, "compile shader model 2.0").unwrap();
        require_line(&mut r, "compile shader model 3.0").unwrap();
        assert_eq!(
            r.compile_models,
            [ShaderModel::new(2, 0), ShaderModel::new(3, 0)]
        );
        assert!(require_line(&mut r, "compile shader model two").is_err());
        // Older spellings and requirements the runner does not know: skipped, not an error.
        require_line(&mut r, "wave ops").unwrap();
        require_line(&mut r, "shiny new feature (v2)").unwrap();
        assert_eq!(r.caps[2..], ["wave-ops", "unknown shiny new feature (v2)"]);
        r.caps.truncate(2);
        assert_eq!(r.min_model, ShaderModel::new(5, 0));
        assert_eq!(r.max_model, ShaderModel::new(5, 1));
        assert_eq!(
            r.caps,
            vec![
                "float64".to_string(),
                "format r32-float uav-load".to_string()
            ]
        );
        assert_eq!(r.options, vec!["row-major".to_string()]);
        require_line(&mut r, "vulkan").unwrap();
        assert_eq!(r.tag_conditions.len(), 1);
        require_line(&mut r, "non-warp").unwrap();
        assert_eq!(r.tag_conditions.len(), 2);
        require_line(&mut r, "denorm-flush-f32").unwrap();
        assert!(r.caps.contains(&"denorm-flush-f32".to_string()));
        require_line(&mut r, "teleportation").unwrap();
        assert!(r.caps.contains(&"unknown teleportation".to_string()));
    }

    #[test]
    fn resources() {
        let mut r = new_resource(ResourceKind::Uav, 1);
        resource_line(&mut r, "format r32-uint").unwrap();
        resource_line(&mut r, "size (2d, 4, 2)").unwrap();
        resource_line(&mut r, "levels 2").unwrap();
        resource_line(&mut r, "1 0x10 -1 2.5").unwrap();
        assert_eq!(
            r.dims,
            Dimensions::Tex2d {
                width: 4,
                height: 2
            }
        );
        assert_eq!(r.levels, 2);
        assert_eq!(r.data, vec![1, 16, u32::MAX, 2.5f32.to_bits()]);
        let mut b = new_resource(ResourceKind::Srv, 0);
        resource_line(&mut b, "stride 8").unwrap();
        resource_line(&mut b, "size (buffer, 3)").unwrap();
        assert_eq!(b.stride, Some(8));
        assert_eq!(b.dims, Dimensions::Buffer { elements: 3 });
        assert!(resource_line(&mut b, "size (5d, 1)").is_err());
        assert!(resource_line(&mut b, "size (2d, 1)").is_err());
        // Older files: `size (W, H)` is a 2D texture.
        resource_line(&mut b, "size (3, 2)").unwrap();
        assert_eq!(
            b.dims,
            Dimensions::Tex2d {
                width: 3,
                height: 2
            }
        );
        assert!(resource_line(&mut b, "size (3)").is_err());
        assert!(resource_line(&mut b, "1.0 zebra").is_err());
    }

    #[test]
    fn data_tokens_by_format() {
        // Default format r32g32b32a32-float: plain integers are values (older vkd3d files),
        // hex tokens are bit patterns (newer ones), `.` tokens are floats.
        let mut t = new_resource(ResourceKind::Srv, 0);
        resource_line(&mut t, "size (2d, 1, 1)").unwrap();
        resource_line(&mut t, "0 -2 0x3f800000 0.5").unwrap();
        assert_eq!(
            t.data,
            vec![0, (-2.0f32).to_bits(), 1.0f32.to_bits(), 0.5f32.to_bits()]
        );
        // Integer formats, raw and structured buffers: integer words.
        let mut u = new_resource(ResourceKind::Uav, 0);
        resource_line(&mut u, "format r32g32b32a32-sint").unwrap();
        resource_line(&mut u, "-1 2 3 4").unwrap();
        assert_eq!(u.data, vec![u32::MAX, 2, 3, 4]);
        let mut raw = new_resource(ResourceKind::Srv, 1);
        resource_line(&mut raw, "size (raw_buffer, 8)").unwrap();
        resource_line(&mut raw, "1 2").unwrap();
        assert_eq!(raw.data, vec![1, 2]);
        let mut st = new_resource(ResourceKind::Srv, 2);
        resource_line(&mut st, "stride 4").unwrap();
        resource_line(&mut st, "7").unwrap();
        assert_eq!(st.data, vec![7]);
        // 8-bit channels are packed words.
        let mut n = new_resource(ResourceKind::Srv, 3);
        resource_line(&mut n, "format r8g8b8a8-unorm").unwrap();
        resource_line(&mut n, "255").unwrap();
        assert_eq!(n.data, vec![255]);
    }

    #[test]
    fn samplers_and_layouts() {
        let mut s = SamplerDecl::new(0);
        sampler_line(&mut s, "filter linear point linear").unwrap();
        sampler_line(&mut s, "address wrap mirror_once border").unwrap();
        sampler_line(&mut s, "comparison less equal").unwrap();
        assert_eq!(s.linear, [true, false, true]);
        assert_eq!(
            s.address,
            [
                AddressMode::Wrap,
                AddressMode::MirrorOnce,
                AddressMode::Border
            ]
        );
        assert_eq!(s.compare, Some(CompareFunc::LessEqual));
        let e = input_layout_line("1 r32g32-float TEXCOORD 2").unwrap();
        assert_eq!(
            (e.slot, e.semantic.as_str(), e.index, e.format.texel_size),
            (1, "TEXCOORD", 2, 8)
        );
        let e = input_layout_line("0 r32g32b32a32-float position").unwrap();
        assert_eq!(e.index, 0);
    }

    #[test]
    fn stream_output_lines() {
        let mut so = translator::StreamOutput::default();
        for l in [
            "SV_Position.xyzw",
            "1:TEXCOORD2.yz@3",
            "$SKIP.xy",
            "stride 3 40",
            "rasterized-stream none",
        ] {
            stream_output_line(&mut so, l).unwrap();
        }
        assert_eq!(so.entries.len(), 3);
        assert_eq!(so.entries[1].semantic_index, 2);
        assert_eq!((so.entries[1].stream, so.entries[1].output_slot), (1, 3));
        assert!(so.entries[2].is_gap());
        assert_eq!(so.strides, [0, 0, 0, 40]);
        assert_eq!(so.rasterized_stream, None);
        stream_output_line(&mut so, "rasterized-stream 2").unwrap();
        assert_eq!(so.rasterized_stream, Some(2));
        for bad in [
            "stride 4 16",
            "stride 0",
            "rasterized-stream x",
            "COLOR",
            "COLOR.xz",
        ] {
            assert!(stream_output_line(&mut so, bad).is_err(), "{bad}");
        }
    }
}
