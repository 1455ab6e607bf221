//! Unit tests of the policies, layout parsing and validation, and placement errors.

use super::*;
use crate::reflect::DescriptorType as D;

fn req(class: RegisterClass, space: u32, lower: u32, upper: Option<u32>) -> RangeRequest {
    let descriptor_type = match class {
        RegisterClass::B => D::UniformBuffer,
        RegisterClass::S => D::Sampler,
        RegisterClass::T => D::SampledImage,
        RegisterClass::U => D::StorageImage,
    };
    RangeRequest {
        class,
        space,
        lower,
        upper,
        counter: false,
        descriptor_type,
    }
}

fn one(class: RegisterClass, reg: u32) -> RangeRequest {
    req(class, 0, reg, Some(reg))
}

fn counter(reg: u32) -> RangeRequest {
    RangeRequest {
        counter: true,
        descriptor_type: D::StorageBuffer,
        ..one(RegisterClass::U, reg)
    }
}

fn desc(set: u32, binding: u32, array_offset: u32) -> Placement {
    Placement::descriptor(set, binding, array_offset)
}

use RegisterClass::{B, S, T, U};

/// Declaration order as fxc writes it: cb, s, t, u (a UAV's counter right after it).
fn program() -> Vec<RangeRequest> {
    vec![
        one(B, 1),
        one(S, 2),
        one(T, 3),
        RangeRequest {
            descriptor_type: D::StorageBuffer,
            ..one(T, 0)
        },
        one(U, 2),
        RangeRequest {
            descriptor_type: D::StorageBuffer,
            ..one(U, 1)
        },
        counter(1),
    ]
}

#[test]
fn class_offsets() {
    let p = Binding::default().place_all(&program()).unwrap();
    assert_eq!(
        p,
        vec![
            desc(0, 1, 0),
            desc(0, 18, 0),
            desc(0, 35, 0),
            desc(0, 32, 0),
            desc(0, 162, 0),
            desc(0, 161, 0),
            desc(0, 225, 0),
        ]
    );
    // set = space; a range is one binding at its first register, unbounded too.
    let r = [
        req(T, 3, 10, None),
        req(T, 3, 0, Some(7)),
        req(S, 1, 15, Some(15)),
    ];
    assert_eq!(
        Binding::default().place_all(&r).unwrap(),
        vec![desc(3, 42, 0), desc(3, 32, 0), desc(1, 31, 0)]
    );
    // A first register past the class's block goes to the interleaved region:
    // 256 + 5 × register + rank (b 0, s 1, t 2, u 3, counter 4).
    let p = Binding::default()
        .place_all(&[
            req(S, 2, 16, Some(17)),
            one(T, 128),
            one(T, 127),
            counter(64),
            req(T, 3, 199, Some(199)),
        ])
        .unwrap();
    assert_eq!(
        p,
        vec![
            desc(2, 256 + 80 + 1, 0),
            desc(0, 256 + 640 + 2, 0),
            desc(0, 32 + 127, 0),
            desc(0, 256 + 320 + 4, 0),
            desc(3, 256 + 995 + 2, 0),
        ]
    );
}

/// The default places every register a valid program can declare, up to the highest the
/// rule has room for, in any space, bounded or not, without two ranges sharing a binding.
#[test]
fn class_offsets_extremes() {
    let top = super::HIGHEST_REGISTER;
    let mut ranges = Vec::new();
    for space in [0, 1, 3, 0xffff_ffef] {
        for class in [B, S, T, U] {
            // Each class's last block register, its first past the block, a middle one and
            // the highest the rule places; bounded, unbounded and one-register ranges.
            let (_, count) = BindingPolicy::class_base(class, false);
            ranges.push(req(class, space, count - 1, Some(count - 1)));
            ranges.push(req(class, space, count, None));
            ranges.push(req(class, space, 100_000, Some(100_007)));
            ranges.push(req(class, space, top, Some(u32::MAX)));
        }
        ranges.push(RangeRequest {
            space,
            ..counter(top)
        });
        ranges.push(RangeRequest {
            space,
            ..counter(63)
        });
    }
    let p = Binding::default().place_all(&ranges).unwrap();
    let mut seen = std::collections::HashSet::new();
    for (r, p) in ranges.iter().zip(&p) {
        let Placement::Descriptor {
            set,
            binding,
            array_offset: 0,
            ..
        } = *p
        else {
            panic!("{p:?}")
        };
        assert_eq!(set, r.space);
        assert!(
            seen.insert((set, binding)),
            "{} shares a binding",
            r.describe()
        );
    }
    // The very top: register HIGHEST_REGISTER's counter is binding u32::MAX; one more is
    // the only case the rule cannot place, and the error says so.
    assert_eq!(
        Binding::default().place_all(&[counter(top)]).unwrap(),
        vec![desc(0, u32::MAX, 0)]
    );
    let e = Binding::default()
        .place_all(&[one(B, top + 1)])
        .unwrap_err();
    assert!(e.to_string().contains("up to 858993407"), "{e}");
}

#[test]
fn per_range() {
    let b = Binding::Policy(BindingPolicy::PerRange);
    assert_eq!(
        b.place_all(&program()).unwrap(),
        vec![
            desc(0, 0, 0),
            desc(0, 1, 0),
            desc(0, 3, 0),
            desc(0, 2, 0),
            desc(0, 6, 0),
            desc(0, 4, 0),
            desc(0, 5, 0),
        ]
    );
    // Sets are spaces; numbering restarts in each.
    let r = [
        req(T, 1, 0, Some(7)),
        req(T, 0, 10, None),
        req(S, 0, 5, Some(5)),
        req(T, 0, 5, Some(5)),
        req(B, 1, 0, Some(0)),
    ];
    assert_eq!(
        b.place_all(&r).unwrap(),
        vec![
            desc(1, 1, 0),
            desc(0, 2, 0),
            desc(0, 0, 0),
            desc(0, 1, 0),
            desc(1, 0, 0)
        ]
    );
}

#[test]
fn vkd3d() {
    let b = Binding::Policy(BindingPolicy::Vkd3d);
    let p = b.place_all(&program()).unwrap();
    let expect: Vec<Placement> = (0..7).map(|i| desc(0, i, 0)).collect();
    assert_eq!(p, expect);
    // Every space in set 0.
    let r = [req(T, 1, 0, Some(7)), req(T, 0, 10, None)];
    assert_eq!(b.place_all(&r).unwrap(), vec![desc(0, 0, 0), desc(0, 1, 0)]);
}

#[test]
fn policy_names() {
    for p in BindingPolicy::ALL {
        assert_eq!(BindingPolicy::from_name(p.name()), Some(p));
    }
    assert_eq!(BindingPolicy::from_name("nope"), None);
}

const LAYOUT: &str = r#"
# tex0..7 of space 1 in a table at element 2
[[descriptors]]
class = "t"
space = 1
register = 0
count = 8
set = 0
binding = 2
array_offset = 2

[[descriptors]]
class = "t"
register = 10
count = "unbounded"
set = 1
binding = 0

[[descriptors]]
class = "u"
counter = true
register = 0
count = 4
set = 2
binding = 0

[[descriptors]]
class = "t"
register = 0
count = 4
types = ["storage_buffer"]
set = 3
binding = 0

[[descriptors]]
class = "t"
register = 0
count = 4
types = ["sampled_image", "uniform_texel_buffer"]
set = 3
binding = 1

[[push_constants]]
register = 2
offset = 16
size = 12
"#;

#[test]
fn layout_places() {
    let l = BindingLayout::from_toml(LAYOUT).unwrap();
    assert_eq!(l.descriptors[0].count, Count::Bounded(8));
    assert_eq!(l.descriptors[1].count, Count::Unbounded);
    assert_eq!(l.descriptors[2].space, 0);
    let b = Binding::from(l.clone());
    let r = [
        req(T, 1, 3, Some(5)),
        req(T, 0, 10, None),
        req(T, 0, 12, Some(20)),
        counter(3),
        RangeRequest {
            descriptor_type: D::StorageBuffer,
            ..one(T, 1)
        },
        one(T, 2),
        one(B, 2),
    ];
    assert_eq!(
        b.place_all(&r).unwrap(),
        vec![
            desc(0, 2, 5),
            desc(1, 0, 0),
            desc(1, 0, 2),
            desc(2, 0, 3),
            desc(3, 0, 1),
            desc(3, 1, 2),
            Placement::PushConstant {
                offset: 16,
                size: 12
            },
        ]
    );
    // JSON reads the same, and a layout survives a round trip through both formats.
    let json = serde_json::to_string(&l).unwrap();
    assert_eq!(BindingLayout::parse(&json).unwrap(), l);
    let toml_text = toml::to_string(&l).unwrap();
    assert_eq!(BindingLayout::parse(&toml_text).unwrap(), l);
}

fn place_err(layout: &str, r: RangeRequest) -> String {
    let b = Binding::from(BindingLayout::from_toml(layout).unwrap());
    let e = b.place_all(&[r]).unwrap_err();
    e.to_string()
}

#[test]
fn layout_errors_name_the_register() {
    // Unmapped: wrong space, wrong register, wrong type, range running past the rule.
    let e = place_err(LAYOUT, req(T, 2, 0, Some(0)));
    assert!(e.starts_with("no binding for t0 in space 2: "), "{e}");
    let e = place_err(LAYOUT, one(S, 0));
    assert!(e.contains("s0") && e.contains("space 0"), "{e}");
    let e = place_err(LAYOUT, req(T, 1, 6, Some(9)));
    assert!(e.starts_with("no binding for t6..t9 in space 1: "), "{e}");
    assert!(e.contains("runs past the end of descriptors[0]"), "{e}");
    let e = place_err(LAYOUT, req(T, 1, 0, None));
    assert!(e.contains("t0.. (unbounded)"), "{e}");
    let e = place_err(LAYOUT, one(U, 0));
    assert!(e.contains("u0 in space 0"), "{e}");
    let e = place_err(LAYOUT, counter(5));
    assert!(e.contains("the counter of u5"), "{e}");
    let e = place_err(
        LAYOUT,
        RangeRequest {
            descriptor_type: D::StorageImage,
            ..one(T, 1)
        },
    );
    assert!(e.contains("StorageImage"), "{e}");
    // A push-constant register declared as an array of constant buffers.
    let e = place_err(LAYOUT, req(B, 0, 2, Some(3)));
    assert!(e.contains("push-constant"), "{e}");
}

#[test]
fn ranges_sharing_a_binding_must_agree_on_the_type() {
    let l = "[[descriptors]]\nclass = \"t\"\ncount = 4\nset = 0\nbinding = 0\n";
    let b = Binding::from(BindingLayout::from_toml(l).unwrap());
    let r = [
        one(T, 0),
        RangeRequest {
            descriptor_type: D::StorageBuffer,
            ..one(T, 1)
        },
    ];
    let e = b.place_all(&r).unwrap_err().to_string();
    assert!(e.contains("share set 0 binding 0 with t0"), "{e}");
    // Same type: fine, at different elements.
    assert_eq!(
        b.place_all(&[one(T, 0), one(T, 2)]).unwrap(),
        vec![desc(0, 0, 0), desc(0, 0, 2)]
    );
}

#[test]
fn malformed_layouts() {
    let bad = [
        (
            "[[descriptors]]\nclass = \"x\"\nset = 0\nbinding = 0\n",
            "unknown variant",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\nbinding = 0\n",
            "missing field `set`",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\nset = 0\nbinding = 0\nsapce = 1\n",
            "unknown field",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\ncount = 0\nset = 0\nbinding = 0\n",
            "count",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\ncount = \"many\"\nset = 0\nbinding = 0\n",
            "unbounded",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\ncount = -3\nset = 0\nbinding = 0\n",
            "count",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\nset = -1\nbinding = 0\n",
            "set",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\nregister = 4294967295\ncount = 2\nset = 0\nbinding = 0\n",
            "past 2^32",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\narray_offset = 4294967295\ncount = 2\nset = 0\nbinding = 0\n",
            "past 2^32",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\ncounter = true\nset = 0\nbinding = 0\n",
            "only UAVs",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\ncount = 4\nset = 0\nbinding = 0\n[[descriptors]]\nclass = \"t\"\nregister = 3\nset = 1\nbinding = 0\n",
            "cover the same registers",
        ),
        (
            "[[descriptors]]\nclass = \"t\"\ncount = \"unbounded\"\nset = 0\nbinding = 0\n[[descriptors]]\nclass = \"t\"\nregister = 300\nset = 1\nbinding = 0\n",
            "cover the same registers",
        ),
        (
            "[[push_constants]]\nregister = 0\noffset = 2\nsize = 4\n",
            "multiples of 4",
        ),
        (
            "[[push_constants]]\nregister = 0\noffset = 0\nsize = 0\n",
            "multiples of 4",
        ),
        (
            "[[push_constants]]\nregister = 0\noffset = 4294967292\nsize = 8\n",
            "past 2^32",
        ),
        (
            "[[push_constants]]\nregister = 0\noffset = 0\nsize = 16\n[[push_constants]]\nregister = 1\noffset = 8\nsize = 16\n",
            "overlaps",
        ),
        (
            "[[push_constants]]\nregister = 0\noffset = 0\nsize = 16\n[[push_constants]]\nregister = 0\noffset = 16\nsize = 16\n",
            "already holds b0",
        ),
        (
            "[[push_constants]]\nregister = 1\noffset = 0\nsize = 16\n[[descriptors]]\nclass = \"b\"\ncount = 4\nset = 0\nbinding = 0\n",
            "also places b1",
        ),
        ("descriptors = 3\n", "TOML"),
        ("[[descriptors]\n", "TOML"),
        ("{\"descriptors\": [{\"class\": \"t\"}]}", "JSON"),
        ("{\"descriptors\": [", "JSON"),
        (
            "{\"push_constants\": [{\"register\": 1, \"offset\": 0, \"size\": 6}]}",
            "multiples of 4",
        ),
    ];
    for (text, want) in bad {
        let e = BindingLayout::parse(text).unwrap_err().to_string();
        assert!(e.starts_with("binding layout: "), "{e}");
        assert!(e.contains(want), "{text:?}: {e}");
    }
    // An empty layout is valid and maps nothing.
    let l = BindingLayout::parse("").unwrap();
    let e = Binding::from(l).place_all(&[one(T, 0)]).unwrap_err();
    assert!(e.to_string().contains("t0 in space 0"), "{e}");
}

#[test]
fn arbitrary_text_never_panics() {
    let seeds = [
        LAYOUT,
        "{\"descriptors\": []}",
        "[[push_constants]]\nregister = 0\noffset = 0\nsize = 4\n",
    ];
    for seed in seeds {
        let chars: Vec<char> = seed.chars().collect();
        for i in 0..chars.len() {
            for c in ['"', '[', ']', '=', '0', '9', '-', '\n', '{', ',', 'x'] {
                let mut m = chars.clone();
                m[i] = c;
                let t: String = m.into_iter().collect();
                if let Ok(l) = BindingLayout::parse(&t) {
                    let b = Binding::from(l);
                    let _ = b.place_all(&[one(T, 0), req(T, 1, 0, None), counter(3), one(B, 2)]);
                }
            }
        }
    }
}

#[test]
fn the_documented_example_parses() {
    let doc = include_str!("../../../docs/bindings.md");
    let start = doc.find("```toml\n").expect("a TOML example") + 8;
    let end = start + doc[start..].find("```").expect("end of the example");
    let l = BindingLayout::from_toml(&doc[start..end]).unwrap();
    assert_eq!((l.descriptors.len(), l.push_constants.len()), (6, 1));
    let b = Binding::from(l);
    assert_eq!(
        b.place_all(&[req(T, 0, 10, None), req(T, 1, 0, Some(7)), one(B, 0)])
            .unwrap(),
        vec![
            desc(1, 0, 3),
            desc(0, 2, 0),
            Placement::PushConstant {
                offset: 0,
                size: 16
            }
        ]
    );
}

/// Places `t#` at set 2, binding = register; refuses everything else.
struct TexturesOnly;

impl Resolver for TexturesOnly {
    fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
        match r.class {
            RegisterClass::T => Ok(desc(2, r.lower, 0)),
            _ => Err("the test resolver only places textures".into()),
        }
    }
}

#[test]
fn resolver_places_and_refuses() {
    let b = Binding::from(TexturesOnly);
    assert_eq!(
        b.place_all(&[one(RegisterClass::T, 3), one(RegisterClass::T, 5)])
            .unwrap(),
        [desc(2, 3, 0), desc(2, 5, 0)]
    );
    let e = b
        .place_all(&[one(RegisterClass::T, 0), one(RegisterClass::S, 1)])
        .unwrap_err();
    assert_eq!((e.class, e.register, e.space), ('s', 1, 0));
    assert_eq!(
        e.to_string(),
        "no binding for s1 in space 0: the test resolver only places textures"
    );
    // Its placements are checked like any other: one binding, one descriptor type.
    let mut sampler_at_t = one(RegisterClass::T, 7);
    sampler_at_t.descriptor_type = D::StorageBuffer;
    assert!(
        b.place_all(&[one(RegisterClass::T, 7), sampler_at_t])
            .is_err()
    );
    // Equal only to itself.
    assert_eq!(b, b.clone());
    assert_ne!(b, Binding::from(TexturesOnly));
}

/// Places every range at set 0 binding 0 (element = register), mutable or not by class:
/// `fixed` classes are placed as plain bindings.
struct OneBinding {
    fixed: &'static [RegisterClass],
}

impl Resolver for OneBinding {
    fn place(&self, r: &RangeRequest) -> Result<Placement, String> {
        Ok(Placement::Descriptor {
            set: 0,
            binding: 0,
            array_offset: r.lower,
            dynamic_offset: None,
            mutable: !self.fixed.contains(&r.class),
        })
    }
}

#[test]
fn mutable_bindings_hold_several_types() {
    // A descriptor heap as one mutable binding: CBVs, SRVs and UAVs of different types.
    let ranges = [one(B, 0), one(T, 1), one(U, 2), one(T, 3)];
    let all = Binding::from(OneBinding { fixed: &[] });
    assert_eq!(all.place_all(&ranges).unwrap().len(), 4);
    // One range placed there as a plain binding: the types must agree again, whichever
    // comes first.
    for fixed in [&[U][..], &[B][..]] {
        let e = Binding::from(OneBinding { fixed })
            .place_all(&ranges)
            .unwrap_err()
            .to_string();
        assert!(e.contains("share set 0 binding 0"), "{e}");
        assert!(e.contains("mutable"), "{e}");
    }
    // Past 32 ranges the check takes the hashed path: same answers.
    let many: Vec<RangeRequest> = (0..40)
        .map(|i| match i % 3 {
            0 => one(B, i),
            1 => one(T, i),
            _ => one(U, i),
        })
        .collect();
    assert!(all.place_all(&many).is_ok());
    for fixed in [&[U][..], &[B][..], &[T][..]] {
        assert!(
            Binding::from(OneBinding { fixed })
                .place_all(&many)
                .is_err(),
            "{fixed:?}"
        );
    }
    // Mutable ranges of one type beside a fixed range of that type: fine.
    let same: Vec<RangeRequest> = (0..40).map(|i| one(T, i)).collect();
    assert!(
        Binding::from(OneBinding { fixed: &[T] })
            .place_all(&same)
            .is_ok()
    );
}

#[test]
fn layout_rules_carry_dynamic_offsets_and_mutability() {
    let l = BindingLayout::from_toml(
        "[[descriptors]]\nclass = \"t\"\ncount = \"unbounded\"\nset = 0\nbinding = 0\n\
         array_offset = 2\ndynamic_offset = 8\nmutable = true\n\
         [[descriptors]]\nclass = \"u\"\ncount = \"unbounded\"\nset = 0\nbinding = 0\n\
         dynamic_offset = 12\nmutable = true\n",
    )
    .unwrap();
    let b = Binding::from(l);
    let p = b.place_all(&[one(T, 5), one(U, 1)]).unwrap();
    assert_eq!(
        p,
        [
            Placement::Descriptor {
                set: 0,
                binding: 0,
                array_offset: 7,
                dynamic_offset: Some(8),
                mutable: true
            },
            Placement::Descriptor {
                set: 0,
                binding: 0,
                array_offset: 1,
                dynamic_offset: Some(12),
                mutable: true
            }
        ]
    );
    let e = BindingLayout::from_toml(
        "[[descriptors]]\nclass = \"t\"\nset = 0\nbinding = 0\ndynamic_offset = 6\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("dynamic_offset 6 must be a multiple of 4"),
        "{e}"
    );
}
