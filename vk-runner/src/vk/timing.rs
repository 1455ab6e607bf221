//! GPU time of recorded work: a two-query timestamp pool written around the commands
//! (`vkCmdWriteTimestamp`), read back after the submission in nanoseconds. The benchmark mode
//! (`vk-bench`) times repeated dispatches and draws with it.

use super::context::Gpu;
use ash::vk;

/// A pair of timestamp queries.
pub struct Timer {
    device: ash::Device,
    pool: vk::QueryPool,
    /// Nanoseconds per timestamp tick.
    period: f64,
    /// Bits of the timestamps that are valid.
    valid_bits: u32,
}

impl Drop for Timer {
    fn drop(&mut self) {
        // SAFETY: created by this device; callers wait for the queue before dropping.
        unsafe { self.device.destroy_query_pool(self.pool, None) }
    }
}

impl Timer {
    /// Fails when the device's queue cannot write timestamps.
    pub fn new(gpu: &Gpu) -> Result<Timer, String> {
        // SAFETY: valid instance and physical device.
        let families = unsafe {
            gpu.instance
                .get_physical_device_queue_family_properties(gpu.pdev)
        };
        let valid_bits = families
            .get(gpu.queue_family as usize)
            .map_or(0, |f| f.timestamp_valid_bits);
        if valid_bits == 0 {
            return Err("the queue does not support timestamps (timestampValidBits = 0)".into());
        }
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2);
        // SAFETY: valid device and create info.
        let pool = unsafe { gpu.device.create_query_pool(&info, None) }
            .map_err(|e| format!("vkCreateQueryPool: {e}"))?;
        Ok(Timer {
            device: gpu.device.clone(),
            pool,
            period: f64::from(gpu.props.limits.timestamp_period),
            valid_bits,
        })
    }

    /// Resets the queries and writes the first timestamp. Outside a render pass instance.
    ///
    /// # Safety
    /// `cb` is recording, on this timer's device.
    pub unsafe fn start(&self, cb: vk::CommandBuffer) {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.device.cmd_reset_query_pool(cb, self.pool, 0, 2);
            self.device
                .cmd_write_timestamp(cb, vk::PipelineStageFlags::TOP_OF_PIPE, self.pool, 0);
        }
    }

    /// Writes the second timestamp once all earlier commands have completed.
    ///
    /// # Safety
    /// `cb` is recording, on this timer's device, after [`Timer::start`].
    pub unsafe fn stop(&self, cb: vk::CommandBuffer) {
        // SAFETY: forwarded from the caller.
        unsafe {
            self.device.cmd_write_timestamp(
                cb,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                self.pool,
                1,
            );
        }
    }

    /// Nanoseconds between the two timestamps of the last completed submission.
    pub fn nanoseconds(&self) -> Result<f64, String> {
        let mut ticks = [0u64; 2];
        // SAFETY: the pool has two queries; the submission that wrote them has completed.
        unsafe {
            self.device.get_query_pool_results(
                self.pool,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(|e| format!("vkGetQueryPoolResults: {e}"))?;
        let mask = if self.valid_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.valid_bits) - 1
        };
        let delta = ticks[1].wrapping_sub(ticks[0]) & mask;
        Ok(delta as f64 * self.period)
    }
}
