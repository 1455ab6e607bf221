//! The D3D12 executor (`vk-runner --executor d3d12`): runs `.shader_test` files through
//! vkd3d's Direct3D 12 implementation instead of driving Vulkan directly. HLSL is compiled
//! to DXBC as for the direct executor, and the DXBC goes to `CreateGraphicsPipelineState` /
//! `CreateComputePipelineState`, so vkd3d translates it with whichever `libvkd3d-shader.so.1`
//! is loaded: the stock one, or our translator standing in for it. That tests our translator
//! inside a real layer, with the layer's binding model (root signatures, descriptor heaps,
//! root constants), where the direct executor binds exactly as our reflection asks.
//!
//! Modules: [`ffi`] (the only unsafe code: loading vkd3d, COM calls, process calls), [`scan`] (what shaders
//! declare), [`bind`] (root signature and descriptors), [`views`] (view descriptions),
//! [`resource`] (test resources, upload, readback), [`exec`] (draw, dispatch, clear, copy,
//! probe), [`shaders`] (bytecode per block), [`mod@run`] (the file walker), [`isolate`] (worker
//! processes, so that a crash costs one file, not the run).

pub mod bind;
pub mod exec;
pub mod ffi;
pub mod isolate;
pub mod resource;
pub mod run;
pub mod scan;
pub mod shaders;
pub mod views;

use crate::hlsl::HlslCompiler;
use crate::parse::qualifier::ShaderModel;
use crate::report::Report;
use isolate::{Message, Sender};
use std::path::PathBuf;
use std::time::Duration;

/// What a D3D12 run needs besides the files.
pub struct Options<'a> {
    pub hlsl: Option<&'a HlslCompiler>,
    pub hlsl_error: Option<String>,
    pub min_model: ShaderModel,
    pub max_model: ShaderModel,
    pub header_selects_d3d9: bool,
    /// How long one file may run before its worker is stopped.
    pub file_timeout: Duration,
}

/// The environment variable that makes the worker abort when it starts a file whose path
/// contains its value: how the tests check that a crash costs one file and no more.
pub const CRASH_TEST_VAR: &str = "VK_RUNNER_D3D12_CRASH_ON";

/// Runs `files` through vkd3d, each worker process creating one device. `announce` gets the
/// device description (or why there is none) once.
pub fn run(
    files: &[PathBuf],
    opts: &Options<'_>,
    report: &mut Report,
    announce: &dyn Fn(&Result<String, String>),
) -> isolate::Outcome {
    let work = |s: &mut Sender, first: usize| worker(s, first, files, opts);
    let unavailable = |why: &str, f: &std::path::Path, report: &mut Report| {
        runner(opts, Err(why.to_string()), Vec::new()).run_file(f, report);
    };
    isolate::run_isolated(
        files,
        opts.file_timeout,
        report,
        &work,
        &unavailable,
        announce,
    )
}

fn runner<'a>(
    opts: &'a Options<'a>,
    device: Result<(&'a ffi::D3d12, &'a bind::Heaps), String>,
    tags: Vec<(String, [u32; 3])>,
) -> run::Runner<'a> {
    run::Runner {
        device,
        compiler: shaders::Compiler {
            hlsl: opts.hlsl,
            hlsl_error: opts.hlsl_error.as_deref(),
        },
        tags,
        min_model: opts.min_model,
        max_model: opts.max_model,
        header_selects_d3d9: opts.header_selects_d3d9,
    }
}

/// What a worker process does: create the device, then run files `first..`.
fn worker(s: &mut Sender, first: usize, files: &[PathBuf], opts: &Options<'_>) {
    let device = ffi::Library::load()
        .and_then(ffi::D3d12::new)
        .and_then(|d| {
            let heaps = bind::Heaps::new(&d)?;
            Ok((d, heaps))
        });
    let (device, tags) = match &device {
        Ok((d, h)) => {
            s.send(&Message::Ready(describe(d)));
            (Ok((d, h)), run::tags(d))
        }
        Err(e) => {
            s.send(&Message::Unavailable(e.clone()));
            (Err(format!("no D3D12 device: {e}")), Vec::new())
        }
    };
    let runner = runner(opts, device, tags);
    let crash_on = std::env::var(CRASH_TEST_VAR).ok().filter(|v| !v.is_empty());
    for (i, f) in files.iter().enumerate().skip(first) {
        s.send(&Message::File(i));
        if crash_on
            .as_deref()
            .is_some_and(|c| f.display().to_string().contains(c))
        {
            std::process::abort();
        }
        let Ok(mut out) = s.try_clone() else {
            return;
        };
        let mut report =
            Report::forwarding(move |c| out.send(&Message::Check(isolate::WireCheck::from(c))));
        runner.run_file(f, &mut report);
        s.send(&Message::Done(i));
    }
}

/// `vkd3d D3D12 (PATH) on DEVICE, driver DRIVER (INFO), Vulkan X.Y`.
fn describe(d: &ffi::D3d12) -> String {
    let on = match &d.vulkan {
        Some(v) => format!(
            " on {}, driver {} ({}), Vulkan {}.{}",
            v.name,
            v.driver_name,
            v.driver_info,
            ash::vk::api_version_major(v.api_version),
            ash::vk::api_version_minor(v.api_version)
        ),
        None => String::new(),
    };
    format!("vkd3d D3D12, feature level 11.0 ({}){on}", d.lib.path)
}
