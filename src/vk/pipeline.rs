//! VkPipeline: graphics and compute pipelines, compiled at creation.
//!
//! A graphics pipeline compiles its vertex shader through the front half
//! (`compiler::pipeline::compile_vertex_capture`) and the Bifrost backend. Until
//! images and attachments exist (a later issue) nothing is rasterized, so
//! the only program a draw runs is the vertex shader's **XFB variant**:
//! as the capture job when the shader has XFB outputs and transform
//! feedback is active, and as the vertex stage (one invocation per vertex)
//! when the shader writes memory (`vertexPipelineStoresAndAtomics`).
//! The rasterization variant is neither made nor compiled: without
//! attachments its outputs go nowhere, and its stores are the XFB
//! variant's.
//! Fragment shaders are accepted and not compiled, for the same reason
//! (`fragmentStoresAndAtomics` is not advertised, so a fragment shader has
//! no side effects, and no attachment receives its outputs).
//!
//! Each compiled program's code is uploaded once into an executable BO
//! (`jm::ShaderCode`); command buffers only point at it. With a pipeline
//! cache, a stage compiled before is taken from the cache instead of being
//! compiled again (`vk::pipeline_cache`); its code is still uploaded into
//! the new pipeline's own BO.

use std::sync::Arc;

use ash::vk::{self, Handle};

use super::descriptor::{PipelineLayout, SetLayoutInfo};
use super::device::DeviceCore;
use super::handle::{self, Object};
use super::pipeline_cache::{CompiledProgram, CompiledStage, PipelineCache, stage_key};
use super::shader_module::ShaderModule;
use crate::compiler::bifrost::{Options, compile_optimized};
use crate::compiler::ir::Stage;
use crate::compiler::passes::lower_xfb::{ProvokingVertex, XFB_MAX_BUFFERS, XfbTopology};
use crate::compiler::passes::{IoLayout, PushUniformLayout};
use crate::compiler::pipeline::{
    FrontError, FrontOptions, LoweredShader, compile_front_with, compile_vertex_capture,
};
use crate::compiler::spirv::SpecConstants;
use crate::hw::format::{ComponentType, VertexFormat};
use crate::jm::ShaderCode;
use crate::vk::VkResult;

/// Vertex input bindings and attributes (`maxVertexInputBindings` and
/// `maxVertexInputAttributes`: the Vulkan minimum of 16 each).
pub const MAX_VERTEX_BINDINGS: u32 = 16;
pub const MAX_VERTEX_ATTRIBUTES: u32 = 16;
/// `maxVertexInputAttributeOffset` / `maxVertexInputBindingStride`
/// (the spec's minimums; the attribute offset field is 32 bits).
pub const MAX_VERTEX_ATTRIBUTE_OFFSET: u32 = 2047;
pub const MAX_VERTEX_BINDING_STRIDE: u32 = 2048;

/// A compiled program and the layouts the job emitter fills from.
pub struct Program {
    pub code: ShaderCode,
    pub push: PushUniformLayout,
    pub io: IoLayout,
}

impl Program {
    /// Upload a compiled program's code into an executable BO of its own
    /// (also on a pipeline-cache hit: pipelines never share code BOs).
    fn upload(core: &DeviceCore, compiled: &CompiledProgram, what: &str) -> VkResult<Program> {
        let code = ShaderCode::upload(&core.kdev, compiled.binary.clone()).map_err(|e| {
            log::error!("{what}: {e}");
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
        })?;
        Ok(Program {
            code,
            push: compiled.push.clone(),
            io: compiled.io.clone(),
        })
    }
}

/// Run the Bifrost backend on one lowered variant.
fn compile_program(
    core: &DeviceCore,
    lowered: &LoweredShader,
    what: &str,
) -> VkResult<CompiledProgram> {
    // The front half returns its variants in SSA form and optimised, so
    // the backend skips `compile`'s copy and passes (`backend_corpus.rs`
    // checks both entries give the same code).
    let binary = compile_optimized(
        &lowered.shader,
        Options {
            arch: core.arch.into(),
            push_uniform_words: Some(lowered.push_uniforms.fau_words()),
            // UBO loads through the job's UBO table (`cmd::dispatch`'s
            // `ubo_table` fills it): what the stage was lowered for.
            ubo_table: true,
        },
    )
    .map_err(|e| {
        log::error!("{what}: the Bifrost backend rejects the shader: {e}");
        vk::Result::ERROR_UNKNOWN
    })?;
    Ok(CompiledProgram {
        binary,
        push: lowered.push_uniforms.clone(),
        io: lowered.io.clone(),
    })
}

/// The set layouts and push-constant size a pipeline was created with.
#[derive(Clone)]
pub struct LayoutInfo {
    pub sets: Vec<Option<Arc<SetLayoutInfo>>>,
    pub push_constant_size: u32,
}

impl LayoutInfo {
    fn of(layout: vk::PipelineLayout) -> VkResult<LayoutInfo> {
        // SAFETY: a live pipeline layout (valid usage).
        let l = unsafe { handle::handle::<PipelineLayout>(layout.as_raw()) }?;
        Ok(LayoutInfo {
            sets: l.sets.clone(),
            push_constant_size: l.push_constant_size,
        })
    }
}

#[derive(Clone, Copy, Debug)]
pub struct VertexBinding {
    pub binding: u32,
    pub stride: u32,
    pub per_instance: bool,
}

#[derive(Clone, Copy, Debug)]
pub struct VertexAttribute {
    pub location: u32,
    pub binding: u32,
    pub format: VertexFormat,
    pub offset: u32,
}

/// The vertex formats the attribute unit fetches for us, by VkFormat
/// (reported as `VERTEX_BUFFER` in the format properties).
pub fn vertex_format(f: vk::Format) -> Option<VertexFormat> {
    use ComponentType as C;
    use vk::Format as F;
    let (ty, n) = match f {
        F::R32_SFLOAT => (C::F32, 1),
        F::R32G32_SFLOAT => (C::F32, 2),
        F::R32G32B32_SFLOAT => (C::F32, 3),
        F::R32G32B32A32_SFLOAT => (C::F32, 4),
        F::R32_UINT => (C::U32, 1),
        F::R32G32_UINT => (C::U32, 2),
        F::R32G32B32_UINT => (C::U32, 3),
        F::R32G32B32A32_UINT => (C::U32, 4),
        F::R32_SINT => (C::I32, 1),
        F::R32G32_SINT => (C::I32, 2),
        F::R32G32B32_SINT => (C::I32, 3),
        F::R32G32B32A32_SINT => (C::I32, 4),
        _ => return None,
    };
    Some(VertexFormat::new(ty, n))
}

pub struct GraphicsPipeline {
    pub layout: LayoutInfo,
    /// The vertex shader's XFB variant, if it has XFB outputs or writes
    /// memory.
    pub xfb: Option<Program>,
    /// `XfbStride` per buffer (0: not captured).
    pub xfb_strides: [u32; XFB_MAX_BUFFERS as usize],
    /// The vertex shader writes memory: every draw runs its vertex stage
    /// (the XFB variant as a point list, `vk::cmd::draw`).
    pub vertex_stores: bool,
    pub topology: XfbTopology,
    pub primitive_restart: bool,
    pub provoking: ProvokingVertex,
    pub bindings: Vec<VertexBinding>,
    pub attributes: Vec<VertexAttribute>,
}

impl GraphicsPipeline {
    /// The XFB variant when the vertex shader has XFB outputs (the capture
    /// job; a variant made only for stores captures nothing).
    pub fn capture(&self) -> Option<&Program> {
        self.xfb
            .as_ref()
            .filter(|_| self.xfb_strides.iter().any(|&s| s != 0))
    }
}

pub struct ComputePipeline {
    pub layout: LayoutInfo,
    pub program: Program,
    pub local_size: [u32; 3],
}

pub enum Pipeline {
    Graphics(Arc<GraphicsPipeline>),
    Compute(Arc<ComputePipeline>),
}

impl Object for Pipeline {
    const TAG: u64 = 0x6276_6b5f_7069_7065; // "bvk_pipe"
}

fn spec_constants(info: Option<&vk::SpecializationInfo<'_>>) -> SpecConstants {
    let mut spec = SpecConstants::new();
    let Some(info) = info else { return spec };
    // SAFETY: the arrays of a valid specialization info.
    let entries = unsafe { crate::util::c_slice(info.p_map_entries, info.map_entry_count) };
    let data: &[u8] = if info.p_data.is_null() {
        &[]
    } else {
        // SAFETY: `data_size` bytes at `p_data` (valid usage).
        unsafe { std::slice::from_raw_parts(info.p_data.cast(), info.data_size) }
    };
    for e in entries {
        let start = e.offset as usize;
        if let Some(bytes) = data.get(start..start + e.size) {
            spec.insert(e.constant_id, bytes.to_vec());
        } else {
            log::warn!(
                "specialization constant {} lies outside pData (invalid usage)",
                e.constant_id
            );
        }
    }
    spec
}

fn stage_name(stage: &vk::PipelineShaderStageCreateInfo<'_>) -> String {
    if stage.p_name.is_null() {
        return "main".into();
    }
    // SAFETY: a NUL-terminated entry point name (valid usage).
    unsafe { std::ffi::CStr::from_ptr(stage.p_name) }
        .to_string_lossy()
        .into_owned()
}

/// Compile one shader stage (front half and backend), or find it in
/// `cache` (`vk::pipeline_cache`: the key covers every input the result
/// depends on). Without a cache it is compiled every time.
fn compile_stage(
    core: &DeviceCore,
    stage: &vk::PipelineShaderStageCreateInfo<'_>,
    ir_stage: Stage,
    what: &str,
    cache: Option<&PipelineCache>,
) -> VkResult<Arc<CompiledStage>> {
    // SAFETY: a live shader module (valid usage).
    let module = unsafe { handle::handle::<ShaderModule>(stage.module.as_raw()) }?;
    let entry = stage_name(stage);
    // SAFETY: the specialization info of a valid stage, or null.
    let spec = spec_constants(unsafe { stage.p_specialization_info.as_ref() });
    let options = FrontOptions {
        robust_buffer_access: core.enabled.robust_buffer_access,
        ..FrontOptions::DRIVER
    };
    let key = cache.map(|_| stage_key(core.arch, ir_stage, &module.code, &entry, &spec, options));
    if let (Some(cache), Some(key)) = (cache, &key)
        && let Some(hit) = cache.get(key)
    {
        return Ok(hit);
    }
    let failed = |e: FrontError| {
        log::error!("{what}: shader \"{entry}\" cannot be compiled: {e}");
        vk::Result::ERROR_UNKNOWN
    };
    // The compiler handles images and samplers, but no image descriptor
    // can exist yet (`descriptor.rs` refuses their types), so nothing could
    // fill the texture tables such a program reads: refused here, not a
    // GPU fault at the first dispatch.
    let no_images = |shader: &crate::compiler::ir::Shader| {
        if samples_images(shader) {
            log::error!(
                "{what}: shader \"{entry}\" uses images or samplers, which are not supported yet"
            );
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        Ok(())
    };
    let compiled = match ir_stage {
        // Only the XFB variant is made and compiled (module doc).
        Stage::Vertex => {
            let f = compile_vertex_capture(&module.code, &entry, &spec, options).map_err(failed)?;
            if let Some(x) = &f.xfb {
                no_images(&x.shader)?;
            }
            CompiledStage {
                main: None,
                xfb: f
                    .xfb
                    .as_ref()
                    .map(|x| compile_program(core, x, what))
                    .transpose()?,
                xfb_strides: f.xfb_strides,
                local_size: [0; 3],
                vertex_stores: f.vertex_stores,
            }
        }
        Stage::Compute => {
            let f = compile_front_with(&module.code, &entry, ir_stage, &spec, options)
                .map_err(failed)?;
            no_images(&f.main.shader)?;
            CompiledStage {
                main: Some(compile_program(core, &f.main, what)?),
                xfb: None,
                xfb_strides: f.xfb_strides,
                local_size: f.main.shader.info.local_size,
                vertex_stores: false,
            }
        }
        // Never asked for: graphics pipelines do not compile fragment
        // shaders yet (module doc).
        Stage::Fragment => {
            log::error!("{what}: fragment shaders are not compiled");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
    };
    let compiled = Arc::new(compiled);
    if let (Some(cache), Some(key)) = (cache, key) {
        cache.insert(key, compiled.clone());
    }
    Ok(compiled)
}

impl GraphicsPipeline {
    pub fn new(
        core: &DeviceCore,
        info: &vk::GraphicsPipelineCreateInfo<'_>,
        provoking_last: bool,
        cache: Option<&PipelineCache>,
    ) -> VkResult<GraphicsPipeline> {
        const WHAT: &str = "vkCreateGraphicsPipelines";
        // SAFETY: the arrays of a valid create info.
        let stages = unsafe { crate::util::c_slice(info.p_stages, info.stage_count) };
        let mut xfb = None;
        let mut xfb_strides = [0; XFB_MAX_BUFFERS as usize];
        let mut vertex_stores = false;
        let mut have_vertex = false;
        for s in stages {
            match s.stage {
                vk::ShaderStageFlags::VERTEX => {
                    let c = compile_stage(core, s, Stage::Vertex, WHAT, cache)?;
                    if let Some(x) = &c.xfb {
                        xfb = Some(Program::upload(core, x, WHAT)?);
                        xfb_strides = c.xfb_strides;
                        vertex_stores = c.vertex_stores;
                    }
                    have_vertex = true;
                }
                vk::ShaderStageFlags::FRAGMENT => {
                    // Not compiled (module docs): nothing receives its outputs.
                }
                other => {
                    log::error!("{WHAT}: {other:?} shaders are not supported");
                    return Err(vk::Result::ERROR_UNKNOWN);
                }
            }
        }
        if !have_vertex {
            log::error!("{WHAT}: no vertex shader");
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        // SAFETY: valid create-info pointers or null.
        let ia = unsafe { info.p_input_assembly_state.as_ref() };
        let topology = ia
            .and_then(|ia| XfbTopology::from_vk(ia.topology.as_raw() as u32))
            .ok_or_else(|| {
                log::error!("{WHAT}: unsupported primitive topology");
                vk::Result::ERROR_UNKNOWN
            })?;
        let primitive_restart = ia.is_some_and(|ia| ia.primitive_restart_enable != 0);
        let mut bindings = Vec::new();
        let mut attributes = Vec::new();
        // SAFETY: as above.
        if let Some(vi) = unsafe { info.p_vertex_input_state.as_ref() } {
            // SAFETY: the arrays of a valid vertex input state.
            let bs = unsafe {
                crate::util::c_slice(
                    vi.p_vertex_binding_descriptions,
                    vi.vertex_binding_description_count,
                )
            };
            // SAFETY: as above.
            let attrs = unsafe {
                crate::util::c_slice(
                    vi.p_vertex_attribute_descriptions,
                    vi.vertex_attribute_description_count,
                )
            };
            for b in bs {
                if b.binding >= MAX_VERTEX_BINDINGS || b.stride > MAX_VERTEX_BINDING_STRIDE {
                    log::error!("{WHAT}: vertex binding {} out of range", b.binding);
                    return Err(vk::Result::ERROR_UNKNOWN);
                }
                bindings.push(VertexBinding {
                    binding: b.binding,
                    stride: b.stride,
                    per_instance: b.input_rate == vk::VertexInputRate::INSTANCE,
                });
            }
            for a in attrs {
                let format = vertex_format(a.format).ok_or_else(|| {
                    log::error!("{WHAT}: vertex format {:?} is not supported", a.format);
                    vk::Result::ERROR_UNKNOWN
                })?;
                if a.location >= MAX_VERTEX_ATTRIBUTES
                    || a.offset > MAX_VERTEX_ATTRIBUTE_OFFSET
                    || !bindings.iter().any(|b| b.binding == a.binding)
                {
                    log::error!("{WHAT}: vertex attribute {} out of range", a.location);
                    return Err(vk::Result::ERROR_UNKNOWN);
                }
                attributes.push(VertexAttribute {
                    location: a.location,
                    binding: a.binding,
                    format,
                    offset: a.offset,
                });
            }
        }
        Ok(GraphicsPipeline {
            layout: LayoutInfo::of(info.layout)?,
            xfb,
            xfb_strides,
            vertex_stores,
            topology,
            primitive_restart,
            provoking: if provoking_last {
                ProvokingVertex::Last
            } else {
                ProvokingVertex::First
            },
            bindings,
            attributes,
        })
    }
}

/// Whether a lowered program samples, fetches or queries an image, or
/// loads from, stores to or runs an atomic on a storage image.
fn samples_images(s: &crate::compiler::ir::Shader) -> bool {
    use crate::compiler::ir::{Intrinsic, Op};
    let mut found = false;
    s.body.for_each_instr(&mut |i| {
        found |= matches!(
            &i.op,
            Op::Intrinsic(x) if matches!(
                x.kind,
                Intrinsic::Texture { .. }
                    | Intrinsic::TextureSize { .. }
                    | Intrinsic::ImageLoad { .. }
                    | Intrinsic::ImageStore { .. }
                    | Intrinsic::ImageAtomic { .. }
            )
        );
    });
    found
}

impl ComputePipeline {
    pub fn new(
        core: &DeviceCore,
        info: &vk::ComputePipelineCreateInfo<'_>,
        cache: Option<&PipelineCache>,
    ) -> VkResult<ComputePipeline> {
        const WHAT: &str = "vkCreateComputePipelines";
        if info.stage.stage != vk::ShaderStageFlags::COMPUTE {
            return Err(vk::Result::ERROR_UNKNOWN);
        }
        let c = compile_stage(core, &info.stage, Stage::Compute, WHAT, cache)?;
        let Some(main) = &c.main else {
            log::error!("{WHAT}: no compute program (pipeline cache entry of another stage?)");
            return Err(vk::Result::ERROR_UNKNOWN);
        };
        let program = Program::upload(core, main, WHAT)?;
        Ok(ComputePipeline {
            layout: LayoutInfo::of(info.layout)?,
            program,
            local_size: c.local_size,
        })
    }
}

/// Create `infos.len()` pipelines with `make`, writing handles to `out`.
/// On a failure, the pipelines already made stay valid and the rest are
/// VK_NULL_HANDLE, as the spec asks; the first error is returned.
pub fn create_all<I>(
    infos: &[I],
    out: &mut [vk::Pipeline],
    make: impl Fn(&I) -> VkResult<Pipeline>,
) -> VkResult<()> {
    let mut result = Ok(());
    for (info, slot) in infos.iter().zip(out.iter_mut()) {
        *slot = vk::Pipeline::null();
        if result.is_err() {
            continue;
        }
        match make(info) {
            Ok(p) => *slot = vk::Pipeline::from_raw(handle::new_handle(p)),
            Err(e) => result = Err(e),
        }
    }
    result
}
