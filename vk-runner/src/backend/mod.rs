//! Backends turn DXBC into SPIR-V plus a [`translator::Reflection`]: ours (the `translator`
//! crate) or vkd3d's (`vkd3d-compiler`), for bringing the harness up and cross-checking.

pub mod spirv_info;
pub mod vkd3d;
pub mod vkd3d_asm;

use translator::{Options, TargetEnv, Translation};

/// Which translator runs.
pub enum Backend {
    Ours { options: Options },
    Vkd3d(vkd3d::Vkd3dBackend),
}

impl Backend {
    pub fn ours(target_env: TargetEnv) -> Self {
        #[allow(clippy::needless_update)]
        let options = Options {
            target_env,
            debug_names: false,
            ..Default::default()
        };
        Backend::Ours { options }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Backend::Ours { .. } => "ours",
            Backend::Vkd3d(_) => "vkd3d",
        }
    }

    /// Translates one DXBC container. The error is a one-line description.
    pub fn translate(&self, dxbc: &[u8]) -> Result<Translation, String> {
        match self {
            Backend::Ours { options } => {
                translator::translate(dxbc, options).map_err(|e| e.to_string())
            }
            Backend::Vkd3d(b) => b.translate(dxbc),
        }
    }
}
