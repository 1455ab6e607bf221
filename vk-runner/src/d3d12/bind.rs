//! The root signature of a draw or dispatch and what its parameters hold, built as a D3D12
//! application would from what its shaders declare ([`super::scan`]) and what the test
//! provides:
//!
//! * the constant buffer `b0` of space 0 (the one `uniform` lines write) becomes root
//!   constants when it is a single register that no stage indexes dynamically (reads past
//!   root constants are undefined, past a buffer's end they read 0) and it fits the
//!   64-DWORD root signature;
//! * every other single constant buffer is a root CBV (an upload-heap buffer);
//! * shader resource views, unordered access views and constant buffer arrays go in one
//!   descriptor table per class in the shader-visible CBV/SRV/UAV heap, one range per
//!   register range the shaders declare (overlapping declarations of several stages merged),
//!   and samplers in one table in the sampler heap;
//! * an unbounded range (SM5.1 `t0[]`) gets a table of its own, unbounded, whose descriptors
//!   are the test's registers of that class and space from its first on.
//!
//! Each register's descriptor views the test resource `[srv N]`/`[uav N]`/`[sampler N]` of
//! that register (or the one a `[descriptors]` line maps it to). A register that the shaders
//! declare alone and the test does not provide fails the check, as with the direct executor;
//! elements of arrays the test does not fill get null descriptors.

use super::ffi::types::*;
use super::ffi::{D3d12, DescriptorHeap, Recorder, Resource, RootParam, RootSignature};
use super::resource::TestResource;
use super::scan::{Class, Decl, Kind};
use super::views;
use crate::parse::{DescriptorMap, ResourceKind, SamplerDecl};
use crate::vk::bind::{RunError, resource_key};
use std::collections::{BTreeMap, HashMap};

/// The shader-visible heaps draws and dispatches use, and the CPU-only ones render targets,
/// depth buffers and UAV clears use. Every submission waits for the GPU, so each draw or
/// dispatch writes its descriptors from the start of the heaps.
pub struct Heaps {
    pub view: DescriptorHeap,
    pub sampler: DescriptorHeap,
    pub rtv: DescriptorHeap,
    pub dsv: DescriptorHeap,
    /// One CPU-only CBV/SRV/UAV descriptor (`ClearUnorderedAccessView*` wants one).
    pub cpu_view: DescriptorHeap,
}

/// Descriptors in the shader-visible CBV/SRV/UAV heap.
pub const VIEW_HEAP_SIZE: u32 = 4096;
/// Descriptors in the shader-visible sampler heap (D3D12's maximum).
pub const SAMPLER_HEAP_SIZE: u32 = 2048;

impl Heaps {
    pub fn new(dev: &D3d12) -> Result<Heaps, String> {
        Ok(Heaps {
            view: dev.create_heap(DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, VIEW_HEAP_SIZE, true)?,
            sampler: dev.create_heap(DESCRIPTOR_HEAP_TYPE_SAMPLER, SAMPLER_HEAP_SIZE, true)?,
            rtv: dev.create_heap(DESCRIPTOR_HEAP_TYPE_RTV, 8, false)?,
            dsv: dev.create_heap(DESCRIPTOR_HEAP_TYPE_DSV, 1, false)?,
            cpu_view: dev.create_heap(DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV, 1, false)?,
        })
    }
}

/// What the binding reads from the file's state.
pub struct Sources<'a> {
    pub resources: &'a HashMap<(ResourceKind, u32, u32), TestResource>,
    pub resource_errors: &'a HashMap<(ResourceKind, u32, u32), RunError>,
    pub samplers: &'a HashMap<(u32, u32), SamplerDecl>,
    pub cbuffers: &'a HashMap<(u32, u32), Vec<u32>>,
    pub descriptors: &'a [DescriptorMap],
}

/// A merged register range of one class and space, with the declarations in it.
#[derive(Debug, Clone)]
struct Interval {
    class: Class,
    space: u32,
    lower: u32,
    /// `None`: unbounded.
    upper: Option<u32>,
    decls: Vec<Decl>,
}

impl Interval {
    fn single(&self) -> bool {
        self.upper == Some(self.lower)
    }

    /// The declaration covering register `r` (the first one).
    fn decl_at(&self, r: u32) -> Option<&Decl> {
        self.decls
            .iter()
            .find(|d| d.lower <= r && d.upper.is_none_or(|u| r <= u))
    }
}

/// Declarations of every stage merged by (class, space): overlapping ranges become one.
fn intervals(stages: &[&[Decl]]) -> Vec<Interval> {
    let mut by_key: BTreeMap<(Class, u32), Vec<Decl>> = BTreeMap::new();
    for d in stages.iter().flat_map(|s| s.iter()) {
        by_key.entry((d.class, d.space)).or_default().push(*d);
    }
    let mut out = Vec::new();
    for ((class, space), mut decls) in by_key {
        decls.sort_by_key(|d| d.lower);
        let mut cur: Option<Interval> = None;
        for d in decls {
            match &mut cur {
                Some(i) if i.upper.is_none_or(|u| d.lower <= u) => {
                    i.upper = match (i.upper, d.upper) {
                        (Some(a), Some(b)) => Some(a.max(b)),
                        _ => None,
                    };
                    i.decls.push(d);
                }
                _ => {
                    out.extend(cur.take());
                    cur = Some(Interval {
                        class,
                        space,
                        lower: d.lower,
                        upper: d.upper,
                        decls: vec![d],
                    });
                }
            }
        }
        out.extend(cur);
    }
    out
}

/// What a root parameter is set to at draw or dispatch time.
enum Value {
    Constants(Vec<u32>),
    Cbv(Resource),
    /// A table starting at this descriptor of the view heap (or the sampler heap).
    Table {
        sampler: bool,
        start: u32,
    },
}

/// A root signature with its parameters' values, ready to record.
pub struct Bound {
    pub root: RootSignature,
    values: Vec<Value>,
    /// Objects the descriptors refer to (constant buffers, UAV counters), kept until the
    /// work has run.
    _keep: Vec<Resource>,
    /// The UAV counter buffer, zeroed at the start of the work, and its zeros.
    counters: Option<(Resource, Resource)>,
    uses_samplers: bool,
}

/// The largest root signature D3D12 allows, in DWORDs.
const ROOT_BUDGET: u32 = 64;
/// How large root constants may grow before `b0` becomes a root CBV instead.
const MAX_ROOT_CONSTANTS: u32 = 48;

/// Builds the root signature for `stages` and writes their descriptors. `flags`: the root
/// signature flags (input layout, stream output).
pub fn bind(
    dev: &D3d12,
    heaps: &Heaps,
    stages: &[&[Decl]],
    src: &Sources<'_>,
    flags: u32,
) -> Result<Bound, RunError> {
    let ivs = intervals(stages);
    // Resources the shaders use that failed to be created fail (or skip) the check first.
    for iv in &ivs {
        let kind = match iv.class {
            Class::Srv => ResourceKind::Srv,
            Class::Uav => ResourceKind::Uav,
            _ => continue,
        };
        for (&(k, space, reg), e) in src.resource_errors {
            let covered = |r: u32| r >= iv.lower && iv.upper.is_none_or(|u| r <= u);
            let maps_here = (iv.lower..=iv.upper.unwrap_or(iv.lower).min(iv.lower + 1023))
                .any(|r| resource_key(src.descriptors, kind, iv.space, r) == (k, space, reg));
            if k == kind && ((space == iv.space && covered(reg)) || maps_here) {
                return Err(e.clone());
            }
        }
    }
    let mut params = Vec::new();
    let mut values = Vec::new();
    let mut keep = Vec::new();
    let mut cost = 0u32;
    // Root constants and root CBVs.
    let mut tables: BTreeMap<Class, Vec<&Interval>> = BTreeMap::new();
    let mut unbounded = Vec::new();
    let mut root_cbs = Vec::new();
    for iv in &ivs {
        if iv.class == Class::Cbv && iv.single() {
            root_cbs.push(iv);
        } else if iv.upper.is_none() {
            unbounded.push(iv);
        } else {
            tables.entry(iv.class).or_default().push(iv);
        }
    }
    let table_cost = (tables.len() + unbounded.len()) as u32;
    let cbv_cost = 2 * root_cbs.len() as u32;
    for iv in root_cbs {
        let vectors = declared_vectors(iv);
        let words = src
            .cbuffers
            .get(&(iv.space, iv.lower))
            .cloned()
            .unwrap_or_default();
        let count = (vectors * 4).max(1);
        // Root constants take `count` DWORDs where a root CBV takes 2.
        let fits = count <= MAX_ROOT_CONSTANTS && table_cost + cbv_cost - 2 + count <= ROOT_BUDGET;
        let dynamic = iv
            .decls
            .iter()
            .any(|d| matches!(d.kind, Kind::Cbv { dynamic: true, .. }));
        if (iv.space, iv.lower) == (0, 0) && fits && !dynamic {
            let mut data = words;
            data.resize(count as usize, 0);
            params.push(RootParam::Constants {
                register: 0,
                space: 0,
                count,
            });
            values.push(Value::Constants(data));
            cost += count;
        } else {
            let buf = constant_buffer(dev, &words, vectors)?;
            params.push(RootParam::Cbv {
                register: iv.lower,
                space: iv.space,
            });
            values.push(Value::Cbv(buf));
            cost += 2;
        }
    }
    // Descriptor tables.
    let mut next_view = 0u32;
    let mut next_sampler = 0u32;
    let mut counters: Vec<(u32, u32, u32)> = Vec::new(); // (heap index, space, register)
    let mut pending: Vec<(u32, &Interval, u32, u32)> = Vec::new(); // (heap start, iv, first, count)
    let mut groups: Vec<(bool, Vec<&Interval>)> = tables
        .into_iter()
        .map(|(c, v)| (c == Class::Sampler, v))
        .collect();
    groups.extend(
        unbounded
            .into_iter()
            .map(|iv| (iv.class == Class::Sampler, vec![iv])),
    );
    let mut uses_samplers = false;
    for (sampler, ivs) in groups {
        let next = if sampler {
            &mut next_sampler
        } else {
            &mut next_view
        };
        let start = *next;
        let mut ranges = Vec::new();
        for iv in ivs {
            let count = match iv.upper {
                Some(u) => u - iv.lower + 1,
                None => provided_count(iv, src),
            };
            let offset = *next - start;
            ranges.push(DescriptorRange {
                range_type: match iv.class {
                    Class::Cbv => DESCRIPTOR_RANGE_TYPE_CBV,
                    Class::Srv => DESCRIPTOR_RANGE_TYPE_SRV,
                    Class::Uav => DESCRIPTOR_RANGE_TYPE_UAV,
                    Class::Sampler => DESCRIPTOR_RANGE_TYPE_SAMPLER,
                },
                num_descriptors: if iv.upper.is_some() { count } else { u32::MAX },
                base_shader_register: iv.lower,
                register_space: iv.space,
                offset_in_descriptors_from_table_start: offset,
            });
            pending.push((*next, iv, iv.lower, count));
            *next = next
                .checked_add(count)
                .filter(|&n| {
                    n <= if sampler {
                        SAMPLER_HEAP_SIZE
                    } else {
                        VIEW_HEAP_SIZE
                    }
                })
                .ok_or_else(|| {
                    RunError::Skip(format!(
                        "{} descriptors: more than the executor's heaps hold",
                        iv.describe_count(count)
                    ))
                })?;
        }
        uses_samplers |= sampler;
        params.push(RootParam::Table(ranges));
        values.push(Value::Table { sampler, start });
        cost += 1;
    }
    if cost > ROOT_BUDGET {
        return Err(RunError::Skip(format!(
            "the shaders need a root signature of {cost} DWORDs (D3D12 allows {ROOT_BUDGET})"
        )));
    }
    // Write the descriptors.
    for (at, iv, first, count) in pending {
        for i in 0..count {
            let reg = first + i;
            let decl = iv.decl_at(reg);
            write_descriptor(
                dev,
                heaps,
                src,
                iv,
                decl,
                reg,
                at + i,
                &mut keep,
                &mut counters,
            )?;
        }
    }
    let counters = if counters.is_empty() {
        None
    } else {
        let size = u64::from(counters.len() as u32) * 4096;
        let buf = dev
            .create_buffer(
                HEAP_TYPE_DEFAULT,
                size,
                RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
                RESOURCE_STATE_COPY_DEST,
            )
            .map_err(RunError::Fail)?;
        let zeros = dev
            .create_buffer(HEAP_TYPE_UPLOAD, size, 0, RESOURCE_STATE_GENERIC_READ)
            .map_err(RunError::Fail)?;
        zeros
            .write(0, &vec![0u8; size as usize])
            .map_err(RunError::Fail)?;
        for (n, &(index, space, reg)) in counters.iter().enumerate() {
            let key = resource_key(src.descriptors, ResourceKind::Uav, space, reg);
            let r = src.resources.get(&key);
            let decl = Kind::Structured(r.and_then(|r| r.decl.stride).unwrap_or(4));
            let desc = views::uav_desc(r, decl, Some(n as u64 * 4096)).map_err(RunError::Fail)?;
            dev.create_uav(
                r.map(|r| &r.res),
                Some(&buf),
                &desc,
                heaps.view.cpu(index).map_err(RunError::Fail)?,
            );
        }
        Some((buf, zeros))
    };
    let root = dev
        .create_root_signature(&params, flags)
        .map_err(RunError::Fail)?;
    Ok(Bound {
        root,
        values,
        _keep: keep,
        counters,
        uses_samplers,
    })
}

impl Interval {
    fn describe_count(&self, count: u32) -> String {
        format!("{count} {} (space {})", self.class.letter(), self.space)
    }
}

/// The largest size any stage declares for a constant buffer, in vectors.
fn declared_vectors(iv: &Interval) -> u32 {
    iv.decls
        .iter()
        .map(|d| match d.kind {
            Kind::Cbv { vectors, .. } => vectors,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
        .max(1)
}

/// How many descriptors an unbounded range binds: the test's registers of its class and
/// space from its first on (at least one).
fn provided_count(iv: &Interval, src: &Sources<'_>) -> u32 {
    let last = match iv.class {
        Class::Srv | Class::Uav => {
            let kind = if iv.class == Class::Srv {
                ResourceKind::Srv
            } else {
                ResourceKind::Uav
            };
            src.resources
                .keys()
                .chain(src.resource_errors.keys())
                .filter(|(k, s, r)| *k == kind && *s == iv.space && *r >= iv.lower)
                .map(|(_, _, r)| *r)
                .max()
        }
        Class::Sampler => src
            .samplers
            .keys()
            .filter(|(s, r)| *s == iv.space && *r >= iv.lower)
            .map(|(_, r)| *r)
            .max(),
        Class::Cbv => src
            .cbuffers
            .keys()
            .filter(|(s, r)| *s == iv.space && *r >= iv.lower)
            .map(|(_, r)| *r)
            .max(),
    };
    last.map_or(1, |l| l - iv.lower + 1)
}

/// An upload-heap constant buffer holding `words`, zero-filled to `vectors` (D3D12's CBV
/// sizes are multiples of 256 bytes).
fn constant_buffer(dev: &D3d12, words: &[u32], vectors: u32) -> Result<Resource, RunError> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let size = (bytes.len() as u64)
        .max(u64::from(vectors) * 16)
        .next_multiple_of(256)
        .max(256);
    let buf = dev
        .create_buffer(HEAP_TYPE_UPLOAD, size, 0, RESOURCE_STATE_GENERIC_READ)
        .map_err(RunError::Fail)?;
    let mut data = bytes;
    data.resize(size as usize, 0);
    buf.write(0, &data).map_err(RunError::Fail)?;
    Ok(buf)
}

#[allow(clippy::too_many_arguments)]
fn write_descriptor(
    dev: &D3d12,
    heaps: &Heaps,
    src: &Sources<'_>,
    iv: &Interval,
    decl: Option<&Decl>,
    reg: u32,
    index: u32,
    keep: &mut Vec<Resource>,
    counters: &mut Vec<(u32, u32, u32)>,
) -> Result<(), RunError> {
    let fail = RunError::Fail;
    let single = decl.is_some_and(|d| d.upper == Some(d.lower));
    let missing = |what: &str| {
        RunError::Fail(format!(
            "the shaders use {}{reg}{} but the test declares no [{what} {reg}{}]",
            iv.class.letter(),
            if iv.space == 0 {
                String::new()
            } else {
                format!(" space {}", iv.space)
            },
            if iv.space == 0 {
                String::new()
            } else {
                format!(" space {}", iv.space)
            },
        ))
    };
    match iv.class {
        Class::Cbv => {
            let at = heaps.view.cpu(index).map_err(fail)?;
            match src.cbuffers.get(&(iv.space, reg)) {
                Some(words) => {
                    let vectors = decl.map_or(1, |d| match d.kind {
                        Kind::Cbv { vectors, .. } => vectors,
                        _ => 1,
                    });
                    let buf = constant_buffer(dev, words, vectors)?;
                    let size = buf.desc.width as u32;
                    dev.create_cbv(Some((&buf, 0, size)), at);
                    keep.push(buf);
                }
                None if decl.is_some() => {
                    let buf = constant_buffer(dev, &[], declared_vectors(iv))?;
                    let size = buf.desc.width as u32;
                    dev.create_cbv(Some((&buf, 0, size)), at);
                    keep.push(buf);
                }
                None => dev.create_cbv(None, at),
            }
        }
        Class::Srv | Class::Uav => {
            let (kind, word) = if iv.class == Class::Srv {
                (ResourceKind::Srv, "srv")
            } else {
                (ResourceKind::Uav, "uav")
            };
            let key = resource_key(src.descriptors, kind, iv.space, reg);
            let r = src.resources.get(&key);
            if r.is_none() && single {
                return Err(missing(word));
            }
            let shape = decl.map_or(
                Kind::Typed(translator::sm4::ResourceDimension::Texture2D),
                |d| d.kind,
            );
            let at = heaps.view.cpu(index).map_err(fail)?;
            if iv.class == Class::Srv {
                let desc = views::srv_desc(r, shape).map_err(fail)?;
                dev.create_srv(r.map(|r| &r.res), &desc, at);
            } else if decl.is_some_and(|d| d.counter) && r.is_some() {
                // Written once the counter buffer exists.
                counters.push((index, iv.space, reg));
            } else {
                let desc = views::uav_desc(r, shape, None).map_err(fail)?;
                dev.create_uav(r.map(|r| &r.res), None, &desc, at);
            }
        }
        Class::Sampler => {
            let s = src.samplers.get(&(iv.space, reg));
            if s.is_none() && single {
                return Err(missing("sampler"));
            }
            let at = heaps.sampler.cpu(index).map_err(fail)?;
            dev.create_sampler(&views::sampler_desc(s), at);
        }
    }
    Ok(())
}

impl Bound {
    /// Records what comes before the draw or dispatch: zeroed UAV counters, the heaps, the
    /// root signature and every parameter.
    pub fn record(&self, rec: &mut Recorder, heaps: &Heaps, compute: bool) -> Result<(), String> {
        if let Some((buf, zeros)) = &self.counters {
            rec.copy_buffer(buf, 0, zeros, 0, buf.desc.width);
            rec.transition(
                buf,
                RESOURCE_STATE_COPY_DEST,
                RESOURCE_STATE_UNORDERED_ACCESS,
            );
        }
        if self.uses_samplers {
            rec.set_descriptor_heaps(&[&heaps.view, &heaps.sampler]);
        } else {
            rec.set_descriptor_heaps(&[&heaps.view]);
        }
        rec.set_root_signature(&self.root, compute);
        for (i, v) in self.values.iter().enumerate() {
            let i = i as u32;
            match v {
                Value::Constants(words) => rec.set_constants(i, words, compute),
                Value::Cbv(buf) => rec.set_cbv(i, buf, 0, compute),
                Value::Table { sampler, start } => {
                    let heap = if *sampler {
                        &heaps.sampler
                    } else {
                        &heaps.view
                    };
                    rec.set_table(i, heap.gpu(*start)?, compute)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use translator::sm4::ResourceDimension;

    fn d(class: Class, lower: u32, upper: Option<u32>) -> Decl {
        Decl {
            class,
            space: 0,
            lower,
            upper,
            kind: Kind::Typed(ResourceDimension::Texture2D),
            counter: false,
        }
    }

    #[test]
    fn stages_merge_overlapping_ranges() {
        let vs = [d(Class::Srv, 0, Some(0)), d(Class::Srv, 4, Some(4))];
        let ps = [d(Class::Srv, 0, Some(3)), d(Class::Sampler, 0, Some(0))];
        let ivs = intervals(&[&vs, &ps]);
        let got: Vec<(Class, u32, Option<u32>, usize)> = ivs
            .iter()
            .map(|i| (i.class, i.lower, i.upper, i.decls.len()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Class::Srv, 0, Some(3), 2),
                (Class::Srv, 4, Some(4), 1),
                (Class::Sampler, 0, Some(0), 1)
            ]
        );
        let ivs = intervals(&[&[d(Class::Uav, 2, None), d(Class::Uav, 5, Some(7))]]);
        assert_eq!(ivs.len(), 1);
        assert_eq!((ivs[0].lower, ivs[0].upper), (2, None));
        assert!(ivs[0].decl_at(9).is_some() && ivs[0].decl_at(1).is_none());
    }
}
