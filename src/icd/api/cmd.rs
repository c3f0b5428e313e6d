//! Command pool and command buffer commands.

use ash::vk::{self, Handle};

use super::device::device;
use super::{input, out, slice};
use crate::vk::VkResult;
use crate::vk::buffer::Buffer;
use crate::vk::cmd::{
    ActivePass, BeginInfo, BoundRange, CommandBuffer, CommandPool, Counter, DrawParams,
    IndexBinding, bind_point_index,
};
use crate::vk::handle;
use crate::vk::pipeline::Pipeline;
use crate::vk::query::QueryPool;
use crate::vk::render_pass::RenderPass;

fn cmd<'a>(c: vk::CommandBuffer) -> VkResult<&'a CommandBuffer> {
    // SAFETY: the caller passes a live command buffer (valid usage).
    unsafe { handle::dispatchable::<CommandBuffer>(c.as_raw() as *mut u8) }
}

fn pool<'a>(p: vk::CommandPool) -> VkResult<&'a CommandPool> {
    // SAFETY: the caller passes a live pool (valid usage).
    unsafe { handle::handle::<CommandPool>(p.as_raw()) }
}

crate::vk_entry_points! {
    fn vkCreateCommandPool(
        device: vk::Device,
        p_create_info: *const vk::CommandPoolCreateInfo<'_>,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
        p_command_pool: *mut vk::CommandPool,
    ) -> vk::Result {
        let d = self::device(device)?;
        let info = input(p_create_info)?;
        let p = CommandPool::new(&d.core, info)?;
        out(p_command_pool, vk::CommandPool::from_raw(handle::new_handle(p)))
    }

    fn vkDestroyCommandPool(_device: vk::Device, command_pool: vk::CommandPool, _p_allocator: *const vk::AllocationCallbacks<'_>) {
        drop(handle::free_handle::<CommandPool>(command_pool.as_raw()));
    }

    fn vkResetCommandPool(_device: vk::Device, command_pool: vk::CommandPool, flags: vk::CommandPoolResetFlags) -> vk::Result {
        self::pool(command_pool)?.reset(flags.contains(vk::CommandPoolResetFlags::RELEASE_RESOURCES));
        Ok(())
    }

    fn vkAllocateCommandBuffers(
        _device: vk::Device,
        p_allocate_info: *const vk::CommandBufferAllocateInfo<'_>,
        p_command_buffers: *mut vk::CommandBuffer,
    ) -> vk::Result {
        let info = input(p_allocate_info)?;
        let p = self::pool(info.command_pool)?;
        if ![vk::CommandBufferLevel::PRIMARY, vk::CommandBufferLevel::SECONDARY].contains(&info.level) {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        if p_command_buffers.is_null() {
            return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
        }
        for i in 0..info.command_buffer_count as usize {
            let raw = p.allocate(info.command_pool.as_raw(), info.level);
            p_command_buffers.add(i).write(vk::CommandBuffer::from_raw(raw.0 as u64));
        }
        Ok(())
    }

    fn vkFreeCommandBuffers(
        _device: vk::Device,
        command_pool: vk::CommandPool,
        count: u32,
        p_command_buffers: *const vk::CommandBuffer,
    ) {
        let Ok(p) = self::pool(command_pool) else { return };
        for c in slice(p_command_buffers, count) {
            if !c.is_null() {
                p.free(crate::vk::RawHandle(c.as_raw() as *mut u8));
            }
        }
    }

    fn vkBeginCommandBuffer(command_buffer: vk::CommandBuffer, p_begin_info: *const vk::CommandBufferBeginInfo<'_>) -> vk::Result {
        let info = input(p_begin_info)?;
        let cb = self::cmd(command_buffer)?;
        cb.begin(begin_info(cb, info))
    }

    fn vkEndCommandBuffer(command_buffer: vk::CommandBuffer) -> vk::Result {
        self::cmd(command_buffer)?.end()
    }

    fn vkResetCommandBuffer(command_buffer: vk::CommandBuffer, _flags: vk::CommandBufferResetFlags) -> vk::Result {
        self::cmd(command_buffer)?.reset();
        Ok(())
    }

    fn vkCmdWriteTimestamp(
        command_buffer: vk::CommandBuffer,
        _pipeline_stage: vk::PipelineStageFlags,
        query_pool: vk::QueryPool,
        query: u32,
    ) {
        // Jobs of a command buffer run in order, so every stage is "done"
        // when the timestamp job runs.
        if let (Ok(c), Ok(qp)) = (self::cmd(command_buffer), handle::handle::<QueryPool>(query_pool.as_raw())) {
            c.state.lock().unwrap().write_timestamp(qp, query);
        }
    }

    // Core Begin/End: index 0 (VK_EXT_transform_feedback: "equivalent to
    // vkCmdBeginQueryIndexedEXT with index zero"). Only stream and
    // primitives-generated queries can be begun; PRECISE does not apply.
    fn vkCmdBeginQuery(command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, query: u32, _flags: vk::QueryControlFlags) {
        if let (Ok(c), Ok(qp)) = (self::cmd(command_buffer), handle::handle::<QueryPool>(query_pool.as_raw())) {
            c.state.lock().unwrap().begin_query(qp, query, 0);
        }
    }

    fn vkCmdEndQuery(command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, query: u32) {
        if let (Ok(c), Ok(qp)) = (self::cmd(command_buffer), handle::handle::<QueryPool>(query_pool.as_raw())) {
            c.state.lock().unwrap().end_query(qp, query, 0);
        }
    }

    fn vkCmdResetQueryPool(
        command_buffer: vk::CommandBuffer,
        query_pool: vk::QueryPool,
        first_query: u32,
        query_count: u32,
    ) {
        if let (Ok(c), Ok(qp)) = (self::cmd(command_buffer), handle::handle::<QueryPool>(query_pool.as_raw())) {
            c.state.lock().unwrap().reset_queries(qp, first_query, query_count);
        }
    }
}

/// What vkBeginCommandBuffer's info says. `pInheritanceInfo` is read only
/// for secondaries (for primaries it is ignored and may be garbage).
unsafe fn begin_info(cb: &CommandBuffer, info: &vk::CommandBufferBeginInfo<'_>) -> BeginInfo {
    let mut begin = BeginInfo {
        usage: info.flags,
        continues: None,
    };
    if cb.level == vk::CommandBufferLevel::SECONDARY
        && info.flags.contains(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
        // SAFETY: valid for secondaries (valid usage).
        && let Some(inh) = unsafe { info.p_inheritance_info.as_ref() }
    {
        // SAFETY: a live render pass (valid usage).
        match unsafe { handle::handle::<RenderPass>(inh.render_pass.as_raw()) } {
            Ok(rp) => {
                begin.continues = Some(ActivePass {
                    subpass: inh.subpass.min(rp.subpasses.saturating_sub(1)),
                    subpasses: rp.subpasses,
                    view_masks: rp.view_masks.clone(),
                })
            }
            Err(_) => log::warn!(
                "vkBeginCommandBuffer: RENDER_PASS_CONTINUE without a render pass (invalid usage)"
            ),
        }
    }
    begin
}

/// A buffer range as bound by a command: GPU address, size, BO (`None`
/// for VK_NULL_HANDLE or an unbound buffer).
fn range(buffer: vk::Buffer, offset: u64, size: u64) -> Option<BoundRange> {
    if buffer == vk::Buffer::null() {
        return None;
    }
    // SAFETY: the caller passes a live buffer (valid usage).
    let b = unsafe { handle::handle::<Buffer>(buffer.as_raw()) }.ok()?;
    b.range(offset, size)
        .map(|(address, size, bo)| BoundRange { address, size, bo })
}

/// The four indirect draw commands (`count`: the count buffer and offset
/// of the `Count` forms; `draw_count` is then maxDrawCount).
fn draw_indirect(
    command_buffer: vk::CommandBuffer,
    buffer: vk::Buffer,
    offset: u64,
    draw_count: u32,
    stride: u32,
    indexed: bool,
    count: Option<(vk::Buffer, u64)>,
) {
    if draw_count == 0 {
        return;
    }
    let Some(commands) = range(buffer, offset, vk::WHOLE_SIZE) else {
        log::warn!("indirect draw: no buffer memory at the offset (invalid usage)");
        return;
    };
    let count = match count {
        Some((b, o)) => match range(b, o, 4) {
            Some(c) => Some(c),
            None => {
                log::warn!("indirect draw: no count buffer memory at the offset (invalid usage)");
                return;
            }
        },
        None => None,
    };
    with(command_buffer, |r| {
        r.draw_indirect(commands, draw_count, stride, indexed, count)
    });
}

/// Run `f` on the recording of a command buffer (nothing for a bad handle).
fn with(c: vk::CommandBuffer, f: impl FnOnce(&mut crate::vk::cmd::Recording)) {
    if let Ok(cb) = self::cmd(c) {
        f(&mut cb.state.lock().unwrap());
    }
}

/// Counter buffers of Begin/End transform feedback, held in place: at
/// most four exist (`firstCounterBuffer + counterBufferCount` ≤
/// `maxTransformFeedbackBuffers`, VUID-vkCmdBeginTransformFeedbackEXT-
/// firstCounterBuffer-02370 and -02371, the same for End); entries past the
/// fourth would name bindings that do not exist, which the recording
/// ignores, so they are dropped here (logged). Returns the array and how
/// many entries it holds.
unsafe fn counters(
    buffers: *const vk::Buffer,
    offsets: *const vk::DeviceSize,
    count: u32,
) -> ([Counter; 4], usize) {
    // SAFETY: per the caller's contract (valid usage).
    let bufs = unsafe { slice(buffers, count) };
    // SAFETY: as above; pCounterBufferOffsets may be NULL (offset 0).
    let offs = unsafe { slice(offsets, if offsets.is_null() { 0 } else { count }) };
    if bufs.len() > 4 {
        log::warn!(
            "{} transform feedback counter buffers, at most 4 exist (invalid usage): the rest ignored",
            bufs.len()
        );
    }
    let mut out = [None; 4];
    for (i, (c, &b)) in out.iter_mut().zip(bufs).enumerate() {
        let off = offs.get(i).copied().unwrap_or(0);
        *c = range(b, off, 4).map(|r| (r.address, r.bo));
    }
    (out, bufs.len().min(4))
}

crate::vk_entry_points! {
    fn vkCmdBindPipeline(command_buffer: vk::CommandBuffer, _bind_point: vk::PipelineBindPoint, pipeline: vk::Pipeline) {
        if let Ok(p) = handle::handle::<Pipeline>(pipeline.as_raw()) {
            with(command_buffer, |r| r.bind_pipeline(p));
        }
    }

    fn vkCmdBindDescriptorSets(
        command_buffer: vk::CommandBuffer,
        bind_point: vk::PipelineBindPoint,
        _layout: vk::PipelineLayout,
        first_set: u32,
        set_count: u32,
        p_sets: *const vk::DescriptorSet,
        dynamic_offset_count: u32,
        p_dynamic_offsets: *const u32,
    ) {
        let Some(bp) = bind_point_index(bind_point) else { return };
        let sets: Vec<u64> = slice(p_sets, set_count).iter().map(|s| s.as_raw()).collect();
        let offsets = slice(p_dynamic_offsets, dynamic_offset_count);
        with(command_buffer, |r| r.bind_descriptor_sets(bp, first_set, &sets, offsets));
    }

    fn vkCmdPushConstants(
        command_buffer: vk::CommandBuffer,
        _layout: vk::PipelineLayout,
        _stages: vk::ShaderStageFlags,
        offset: u32,
        size: u32,
        p_values: *const std::ffi::c_void,
    ) {
        let bytes = slice(p_values.cast::<u8>(), size);
        with(command_buffer, |r| r.push_constants(offset, bytes));
    }

    fn vkCmdBindVertexBuffers(
        command_buffer: vk::CommandBuffer,
        first_binding: u32,
        binding_count: u32,
        p_buffers: *const vk::Buffer,
        p_offsets: *const vk::DeviceSize,
    ) {
        let bufs = slice(p_buffers, binding_count);
        let offs = slice(p_offsets, binding_count);
        let ranges: Vec<_> = bufs
            .iter()
            .enumerate()
            .map(|(i, &b)| range(b, offs.get(i).copied().unwrap_or(0), vk::WHOLE_SIZE))
            .collect();
        with(command_buffer, |r| r.bind_vertex_buffers(first_binding, &ranges));
    }

    fn vkCmdBindIndexBuffer(command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, index_type: vk::IndexType) {
        let size = match index_type {
            // VK_EXT_index_type_uint8.
            vk::IndexType::UINT8_EXT => Some(1),
            vk::IndexType::UINT16 => Some(2),
            vk::IndexType::UINT32 => Some(4),
            other => {
                log::warn!("vkCmdBindIndexBuffer: {other:?} indices are not supported (invalid usage)");
                None
            }
        };
        // An unsupported type unbinds: a later indexed draw must not read
        // the previous buffer as if it were this one.
        let binding = size.and_then(|size| {
            range(buffer, offset, vk::WHOLE_SIZE).map(|range| IndexBinding { range, size })
        });
        with(command_buffer, |r| r.bind_index_buffer(binding));
    }

    fn vkCmdDraw(command_buffer: vk::CommandBuffer, vertex_count: u32, instance_count: u32, first_vertex: u32, first_instance: u32) {
        with(command_buffer, |r| r.draw(DrawParams {
            count: vertex_count,
            instances: instance_count,
            first: first_vertex,
            first_instance,
            vertex_offset: 0,
            indexed: false,
        }));
    }

    fn vkCmdDrawIndexed(
        command_buffer: vk::CommandBuffer,
        index_count: u32,
        instance_count: u32,
        first_index: u32,
        vertex_offset: i32,
        first_instance: u32,
    ) {
        with(command_buffer, |r| r.draw(DrawParams {
            count: index_count,
            instances: instance_count,
            first: first_index,
            first_instance,
            vertex_offset,
            indexed: true,
        }));
    }

    fn vkCmdDispatch(command_buffer: vk::CommandBuffer, x: u32, y: u32, z: u32) {
        with(command_buffer, |r| r.dispatch([x, y, z]));
    }

    fn vkCmdDispatchIndirect(command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize) {
        let Some(command) = range(buffer, offset, vk::WHOLE_SIZE) else {
            log::warn!("vkCmdDispatchIndirect: no buffer memory at the offset (invalid usage)");
            return;
        };
        with(command_buffer, |r| r.dispatch_indirect(command));
    }

    fn vkCmdDrawIndirect(command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32) {
        draw_indirect(command_buffer, buffer, offset, draw_count, stride, false, None);
    }

    fn vkCmdDrawIndexedIndirect(command_buffer: vk::CommandBuffer, buffer: vk::Buffer, offset: vk::DeviceSize, draw_count: u32, stride: u32) {
        draw_indirect(command_buffer, buffer, offset, draw_count, stride, true, None);
    }

    // VK_KHR_draw_indirect_count
    fn vkCmdDrawIndirectCountKHR(
        command_buffer: vk::CommandBuffer,
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        count_buffer: vk::Buffer,
        count_offset: vk::DeviceSize,
        max_draw_count: u32,
        stride: u32,
    ) {
        draw_indirect(command_buffer, buffer, offset, max_draw_count, stride, false, Some((count_buffer, count_offset)));
    }

    fn vkCmdDrawIndexedIndirectCountKHR(
        command_buffer: vk::CommandBuffer,
        buffer: vk::Buffer,
        offset: vk::DeviceSize,
        count_buffer: vk::Buffer,
        count_offset: vk::DeviceSize,
        max_draw_count: u32,
        stride: u32,
    ) {
        draw_indirect(command_buffer, buffer, offset, max_draw_count, stride, true, Some((count_buffer, count_offset)));
    }

    fn vkCmdBeginRenderPass(command_buffer: vk::CommandBuffer, p_begin: *const vk::RenderPassBeginInfo<'_>, _contents: vk::SubpassContents) {
        let Ok(info) = input(p_begin) else { return };
        if let Ok(rp) = handle::handle::<RenderPass>(info.render_pass.as_raw()) {
            with(command_buffer, |r| r.begin_render_pass(rp));
        }
    }

    fn vkCmdNextSubpass(command_buffer: vk::CommandBuffer, _contents: vk::SubpassContents) {
        with(command_buffer, |r| r.next_subpass());
    }

    fn vkCmdEndRenderPass(command_buffer: vk::CommandBuffer) {
        with(command_buffer, |r| r.end_render_pass());
    }

    // VK_KHR_create_renderpass2: the same commands; the subpass begin/end
    // infos carry only `contents` and (without extensions we offer)
    // nothing else.
    fn vkCmdBeginRenderPass2KHR(
        command_buffer: vk::CommandBuffer,
        p_begin: *const vk::RenderPassBeginInfo<'_>,
        _p_subpass_begin_info: *const vk::SubpassBeginInfo<'_>,
    ) {
        let Ok(info) = input(p_begin) else { return };
        if let Ok(rp) = handle::handle::<RenderPass>(info.render_pass.as_raw()) {
            with(command_buffer, |r| r.begin_render_pass(rp));
        }
    }

    fn vkCmdNextSubpass2KHR(
        command_buffer: vk::CommandBuffer,
        _p_subpass_begin_info: *const vk::SubpassBeginInfo<'_>,
        _p_subpass_end_info: *const vk::SubpassEndInfo<'_>,
    ) {
        with(command_buffer, |r| r.next_subpass());
    }

    fn vkCmdEndRenderPass2KHR(command_buffer: vk::CommandBuffer, _p_subpass_end_info: *const vk::SubpassEndInfo<'_>) {
        with(command_buffer, |r| r.end_render_pass());
    }

    // VK_KHR_maintenance1: trimming may release unused memory; our pools
    // keep their BOs for reuse until reset with RELEASE_RESOURCES or
    // destroyed, which the command allows ("may").
    fn vkTrimCommandPoolKHR(_device: vk::Device, _pool: vk::CommandPool, _flags: vk::CommandPoolTrimFlags) {}

    fn vkCmdPipelineBarrier(
        command_buffer: vk::CommandBuffer,
        _src_stage_mask: vk::PipelineStageFlags,
        _dst_stage_mask: vk::PipelineStageFlags,
        _dependency_flags: vk::DependencyFlags,
        _memory_barrier_count: u32,
        _p_memory_barriers: *const vk::MemoryBarrier<'_>,
        _buffer_memory_barrier_count: u32,
        _p_buffer_memory_barriers: *const vk::BufferMemoryBarrier<'_>,
        _image_memory_barrier_count: u32,
        _p_image_memory_barriers: *const vk::ImageMemoryBarrier<'_>,
    ) {
        with(command_buffer, |r| r.pipeline_barrier());
    }

    // Dynamic rasterization state. Nothing is rasterized yet (no
    // attachments can exist), so these change nothing on the GPU; they are
    // accepted because pipelines with dynamic state require them.
    fn vkCmdSetViewport(_command_buffer: vk::CommandBuffer, _first: u32, _count: u32, _p_viewports: *const vk::Viewport) {}
    fn vkCmdSetScissor(_command_buffer: vk::CommandBuffer, _first: u32, _count: u32, _p_scissors: *const vk::Rect2D) {}
    fn vkCmdSetLineWidth(_command_buffer: vk::CommandBuffer, _width: f32) {}
    fn vkCmdSetDepthBias(_command_buffer: vk::CommandBuffer, _constant: f32, _clamp: f32, _slope: f32) {}
    fn vkCmdSetBlendConstants(_command_buffer: vk::CommandBuffer, _constants: *const [f32; 4]) {}
    fn vkCmdSetDepthBounds(_command_buffer: vk::CommandBuffer, _min: f32, _max: f32) {}
    fn vkCmdSetStencilCompareMask(_command_buffer: vk::CommandBuffer, _face: vk::StencilFaceFlags, _mask: u32) {}
    fn vkCmdSetStencilWriteMask(_command_buffer: vk::CommandBuffer, _face: vk::StencilFaceFlags, _mask: u32) {}
    fn vkCmdSetStencilReference(_command_buffer: vk::CommandBuffer, _face: vk::StencilFaceFlags, _reference: u32) {}

    fn vkCmdBindTransformFeedbackBuffersEXT(
        command_buffer: vk::CommandBuffer,
        first_binding: u32,
        binding_count: u32,
        p_buffers: *const vk::Buffer,
        p_offsets: *const vk::DeviceSize,
        p_sizes: *const vk::DeviceSize,
    ) {
        let bufs = slice(p_buffers, binding_count);
        let offs = slice(p_offsets, binding_count);
        // pSizes may be NULL: every binding to the end of its buffer.
        let sizes = slice(p_sizes, if p_sizes.is_null() { 0 } else { binding_count });
        let ranges: Vec<_> = bufs
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                let size = sizes.get(i).copied().unwrap_or(vk::WHOLE_SIZE);
                range(b, offs.get(i).copied().unwrap_or(0), size)
            })
            .collect();
        with(command_buffer, |r| r.bind_xfb_buffers(first_binding, &ranges));
    }

    fn vkCmdBeginTransformFeedbackEXT(
        command_buffer: vk::CommandBuffer,
        first_counter_buffer: u32,
        counter_buffer_count: u32,
        p_counter_buffers: *const vk::Buffer,
        p_counter_buffer_offsets: *const vk::DeviceSize,
    ) {
        let (c, n) = counters(p_counter_buffers, p_counter_buffer_offsets, counter_buffer_count);
        with(command_buffer, |r| r.begin_xfb(first_counter_buffer, &c[..n]));
    }

    fn vkCmdEndTransformFeedbackEXT(
        command_buffer: vk::CommandBuffer,
        first_counter_buffer: u32,
        counter_buffer_count: u32,
        p_counter_buffers: *const vk::Buffer,
        p_counter_buffer_offsets: *const vk::DeviceSize,
    ) {
        let (c, n) = counters(p_counter_buffers, p_counter_buffer_offsets, counter_buffer_count);
        with(command_buffer, |r| r.end_xfb(first_counter_buffer, &c[..n]));
    }

    // Stream and primitives-generated queries: `index` is the vertex
    // stream; only stream 0 exists, another index is logged and ignored
    // (vk::cmd::query).
    fn vkCmdBeginQueryIndexedEXT(command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, query: u32, _flags: vk::QueryControlFlags, index: u32) {
        let Ok(qp) = handle::handle::<QueryPool>(query_pool.as_raw()) else { return };
        with(command_buffer, |r| r.begin_query(qp, query, index));
    }

    fn vkCmdEndQueryIndexedEXT(command_buffer: vk::CommandBuffer, query_pool: vk::QueryPool, query: u32, index: u32) {
        let Ok(qp) = handle::handle::<QueryPool>(query_pool.as_raw()) else { return };
        with(command_buffer, |r| r.end_query(qp, query, index));
    }

    fn vkCmdDrawIndirectByteCountEXT(
        command_buffer: vk::CommandBuffer,
        instance_count: u32,
        first_instance: u32,
        counter_buffer: vk::Buffer,
        counter_buffer_offset: vk::DeviceSize,
        counter_offset: u32,
        vertex_stride: u32,
    ) {
        let Some(counter) = range(counter_buffer, counter_buffer_offset, 4) else {
            log::warn!("vkCmdDrawIndirectByteCountEXT: no counter buffer memory (invalid usage)");
            return;
        };
        with(command_buffer, |r| {
            r.draw_indirect_byte_count(instance_count, first_instance, counter, counter_offset, vertex_stride)
        });
    }
}

fn buffer<'a>(b: vk::Buffer) -> VkResult<&'a Buffer> {
    // SAFETY: the caller passes a live buffer (valid usage).
    unsafe { handle::handle::<Buffer>(b.as_raw()) }
}

crate::vk_entry_points! {
    fn vkCmdCopyBuffer(
        command_buffer: vk::CommandBuffer,
        src_buffer: vk::Buffer,
        dst_buffer: vk::Buffer,
        region_count: u32,
        p_regions: *const vk::BufferCopy,
    ) {
        let (Ok(src), Ok(dst)) = (buffer(src_buffer), buffer(dst_buffer)) else { return };
        let regions = slice(p_regions, region_count);
        with(command_buffer, |r| r.copy_buffer(src, dst, regions));
    }

    fn vkCmdFillBuffer(command_buffer: vk::CommandBuffer, dst_buffer: vk::Buffer, dst_offset: vk::DeviceSize, size: vk::DeviceSize, data: u32) {
        let Ok(dst) = buffer(dst_buffer) else { return };
        with(command_buffer, |r| r.fill_buffer(dst, dst_offset, size, data));
    }

    fn vkCmdUpdateBuffer(
        command_buffer: vk::CommandBuffer,
        dst_buffer: vk::Buffer,
        dst_offset: vk::DeviceSize,
        data_size: vk::DeviceSize,
        p_data: *const std::ffi::c_void,
    ) {
        let Ok(dst) = buffer(dst_buffer) else { return };
        let Ok(n) = u32::try_from(data_size) else { return };
        let data = slice(p_data.cast::<u8>(), n);
        with(command_buffer, |r| r.update_buffer(dst, dst_offset, data));
    }

    fn vkCmdCopyQueryPoolResults(
        command_buffer: vk::CommandBuffer,
        query_pool: vk::QueryPool,
        first_query: u32,
        query_count: u32,
        dst_buffer: vk::Buffer,
        dst_offset: vk::DeviceSize,
        stride: vk::DeviceSize,
        flags: vk::QueryResultFlags,
    ) {
        let (Ok(qp), Ok(dst)) = (handle::handle::<QueryPool>(query_pool.as_raw()), buffer(dst_buffer)) else { return };
        with(command_buffer, |r| r.copy_query_results(qp, first_query, query_count, dst, dst_offset, stride, flags));
    }
}

// Secondary command buffers (`vk::cmd::segment`).
crate::vk_entry_points! {
    fn vkCmdExecuteCommands(command_buffer: vk::CommandBuffer, count: u32, p_command_buffers: *const vk::CommandBuffer) {
        let Ok(primary) = self::cmd(command_buffer) else { return };
        let secondaries: Vec<&CommandBuffer> = slice(p_command_buffers, count)
            .iter()
            .filter_map(|&c| self::cmd(c).ok())
            .collect();
        primary.execute_commands(&secondaries);
    }
}
