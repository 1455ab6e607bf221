//! Rasterizer-ordered views (`_rov` on `dcl_uav_*`, HLSL `RasterizerOrdered*`): D3D runs the
//! accesses of overlapping pixel shader invocations to such UAVs in primitive order. Vulkan's
//! way is fragment shader interlock (SPV_EXT_fragment_shader_interlock), whose critical
//! section must begin and end exactly once, in uniform control flow of the entry point. The
//! whole program is made the critical section: the emitter calls the lowered function between
//! `OpBeginInvocationInterlockEXT` and `OpEndInvocationInterlockEXT` (`Module::interlock`), so
//! `ret` anywhere and `discard` (a demote: the invocation runs on as a helper) keep the pair
//! balanced. [`crate::RovMode::Unordered`] is the fallback for devices without interlock.

use super::Lowerer;
use crate::options::RovMode;
use crate::reflect::ShaderStage;

impl Lowerer<'_, '_> {
    /// Whether a UAV declared with `flags` is accessed inside the interlock critical section;
    /// it is then `Coherent`, so that what one invocation wrote is what the next one reads
    /// (the critical section orders the invocations, not the caches they read through).
    pub(super) fn interlocked(&self, flags: &crate::sm4::UavFlags) -> bool {
        flags.rasterizer_ordered
            && self.stage == ShaderStage::Pixel
            && self.opts.rov == RovMode::Interlock
    }

    /// Makes a pixel shader that declares a rasterizer-ordered UAV one interlock critical
    /// section. Whether it is ordered per pixel or per sample (when Vulkan runs the shader
    /// per sample) depends on which inputs the finished module uses, so the emitter chooses
    /// ([`crate::ir::Module::interlock_kind`]) and adds the capability and execution mode.
    /// In other stages `_rov` orders nothing (D3D orders only pixel shader invocations; fxc
    /// refuses it elsewhere), so it changes nothing there.
    pub(super) fn rasterizer_ordered_views(&mut self) {
        if self.res.rasterizer_ordered
            && self.stage == ShaderStage::Pixel
            && self.opts.rov == RovMode::Interlock
        {
            self.b.m.extension("SPV_EXT_fragment_shader_interlock");
            self.b.m.interlock = true;
        }
    }
}
