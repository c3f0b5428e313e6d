//! Name → function tables for vkGetInstanceProcAddr, vkGetDeviceProcAddr and
//! vk_icdGetPhysicalDeviceProcAddr.
//!
//! Only implemented commands are listed: a device command we do not
//! implement resolves to NULL, never to a stub. Every core 1.0
//! instance-level command is listed (the loader crashes otherwise). Each
//! entry is type-checked against ash's PFN type by [`crate::procedure!`].

use ash::vk;

use super::api::{
    cmd, device, event, instance, memory, physical_device as pd, pipeline, query, sync, test_hooks,
};
use super::exports;
use crate::procedure;

/// Which dispatch level a command belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Callable without an instance.
    Global,
    Instance,
    PhysicalDevice,
    Device,
}

pub struct Entry {
    pub name: &'static str,
    pub scope: Scope,
    pub pfn: vk::PFN_vkVoidFunction,
}

macro_rules! entries {
    ($($scope:ident $name:literal => $func:path, $pfn:ident;)*) => {
        &[$(Entry { name: $name, scope: Scope::$scope, pfn: procedure!($func, vk::$pfn) },)*]
    };
}

/// Every command we implement.
pub static ENTRIES: &[Entry] = entries! {
    Global "vkCreateInstance" => instance::vkCreateInstance, PFN_vkCreateInstance;
    Global "vkEnumerateInstanceExtensionProperties" => instance::vkEnumerateInstanceExtensionProperties, PFN_vkEnumerateInstanceExtensionProperties;
    Global "vkEnumerateInstanceLayerProperties" => instance::vkEnumerateInstanceLayerProperties, PFN_vkEnumerateInstanceLayerProperties;
    Global "vkGetInstanceProcAddr" => exports::vkGetInstanceProcAddr, PFN_vkGetInstanceProcAddr;

    Instance "vkDestroyInstance" => instance::vkDestroyInstance, PFN_vkDestroyInstance;
    Instance "vkEnumeratePhysicalDevices" => instance::vkEnumeratePhysicalDevices, PFN_vkEnumeratePhysicalDevices;
    Instance "vkGetDeviceProcAddr" => exports::vkGetDeviceProcAddr, PFN_vkGetDeviceProcAddr;

    PhysicalDevice "vkGetPhysicalDeviceFeatures" => pd::vkGetPhysicalDeviceFeatures, PFN_vkGetPhysicalDeviceFeatures;
    PhysicalDevice "vkGetPhysicalDeviceProperties" => pd::vkGetPhysicalDeviceProperties, PFN_vkGetPhysicalDeviceProperties;
    PhysicalDevice "vkGetPhysicalDeviceFormatProperties" => pd::vkGetPhysicalDeviceFormatProperties, PFN_vkGetPhysicalDeviceFormatProperties;
    PhysicalDevice "vkGetPhysicalDeviceImageFormatProperties" => pd::vkGetPhysicalDeviceImageFormatProperties, PFN_vkGetPhysicalDeviceImageFormatProperties;
    PhysicalDevice "vkGetPhysicalDeviceSparseImageFormatProperties" => pd::vkGetPhysicalDeviceSparseImageFormatProperties, PFN_vkGetPhysicalDeviceSparseImageFormatProperties;
    PhysicalDevice "vkGetPhysicalDeviceQueueFamilyProperties" => pd::vkGetPhysicalDeviceQueueFamilyProperties, PFN_vkGetPhysicalDeviceQueueFamilyProperties;
    PhysicalDevice "vkGetPhysicalDeviceMemoryProperties" => pd::vkGetPhysicalDeviceMemoryProperties, PFN_vkGetPhysicalDeviceMemoryProperties;
    PhysicalDevice "vkEnumerateDeviceExtensionProperties" => pd::vkEnumerateDeviceExtensionProperties, PFN_vkEnumerateDeviceExtensionProperties;
    PhysicalDevice "vkEnumerateDeviceLayerProperties" => pd::vkEnumerateDeviceLayerProperties, PFN_vkEnumerateDeviceLayerProperties;
    PhysicalDevice "vkCreateDevice" => pd::vkCreateDevice, PFN_vkCreateDevice;
    // VK_KHR_get_physical_device_properties2
    PhysicalDevice "vkGetPhysicalDeviceFeatures2KHR" => pd::vkGetPhysicalDeviceFeatures2, PFN_vkGetPhysicalDeviceFeatures2;
    PhysicalDevice "vkGetPhysicalDeviceProperties2KHR" => pd::vkGetPhysicalDeviceProperties2, PFN_vkGetPhysicalDeviceProperties2;
    PhysicalDevice "vkGetPhysicalDeviceFormatProperties2KHR" => pd::vkGetPhysicalDeviceFormatProperties2, PFN_vkGetPhysicalDeviceFormatProperties2;
    PhysicalDevice "vkGetPhysicalDeviceImageFormatProperties2KHR" => pd::vkGetPhysicalDeviceImageFormatProperties2, PFN_vkGetPhysicalDeviceImageFormatProperties2;
    PhysicalDevice "vkGetPhysicalDeviceQueueFamilyProperties2KHR" => pd::vkGetPhysicalDeviceQueueFamilyProperties2, PFN_vkGetPhysicalDeviceQueueFamilyProperties2;
    PhysicalDevice "vkGetPhysicalDeviceMemoryProperties2KHR" => pd::vkGetPhysicalDeviceMemoryProperties2, PFN_vkGetPhysicalDeviceMemoryProperties2;
    PhysicalDevice "vkGetPhysicalDeviceSparseImageFormatProperties2KHR" => pd::vkGetPhysicalDeviceSparseImageFormatProperties2, PFN_vkGetPhysicalDeviceSparseImageFormatProperties2;

    Device "vkDestroyDevice" => device::vkDestroyDevice, PFN_vkDestroyDevice;
    Device "vkGetDeviceQueue" => device::vkGetDeviceQueue, PFN_vkGetDeviceQueue;
    Device "vkQueueSubmit" => device::vkQueueSubmit, PFN_vkQueueSubmit;
    Device "vkQueueWaitIdle" => device::vkQueueWaitIdle, PFN_vkQueueWaitIdle;
    Device "vkDeviceWaitIdle" => device::vkDeviceWaitIdle, PFN_vkDeviceWaitIdle;
    Device "vkAllocateMemory" => memory::vkAllocateMemory, PFN_vkAllocateMemory;
    Device "vkFreeMemory" => memory::vkFreeMemory, PFN_vkFreeMemory;
    Device "vkMapMemory" => memory::vkMapMemory, PFN_vkMapMemory;
    Device "vkUnmapMemory" => memory::vkUnmapMemory, PFN_vkUnmapMemory;
    Device "vkFlushMappedMemoryRanges" => memory::vkFlushMappedMemoryRanges, PFN_vkFlushMappedMemoryRanges;
    Device "vkInvalidateMappedMemoryRanges" => memory::vkInvalidateMappedMemoryRanges, PFN_vkInvalidateMappedMemoryRanges;
    Device "vkGetDeviceMemoryCommitment" => memory::vkGetDeviceMemoryCommitment, PFN_vkGetDeviceMemoryCommitment;
    Device "vkCreateBuffer" => memory::vkCreateBuffer, PFN_vkCreateBuffer;
    Device "vkDestroyBuffer" => memory::vkDestroyBuffer, PFN_vkDestroyBuffer;
    Device "vkGetBufferMemoryRequirements" => memory::vkGetBufferMemoryRequirements, PFN_vkGetBufferMemoryRequirements;
    Device "vkBindBufferMemory" => memory::vkBindBufferMemory, PFN_vkBindBufferMemory;
    Device "vkCreateFence" => sync::vkCreateFence, PFN_vkCreateFence;
    Device "vkDestroyFence" => sync::vkDestroyFence, PFN_vkDestroyFence;
    Device "vkResetFences" => sync::vkResetFences, PFN_vkResetFences;
    Device "vkGetFenceStatus" => sync::vkGetFenceStatus, PFN_vkGetFenceStatus;
    Device "vkWaitForFences" => sync::vkWaitForFences, PFN_vkWaitForFences;
    Device "vkCreateSemaphore" => sync::vkCreateSemaphore, PFN_vkCreateSemaphore;
    Device "vkDestroySemaphore" => sync::vkDestroySemaphore, PFN_vkDestroySemaphore;
    Device "vkCreateQueryPool" => query::vkCreateQueryPool, PFN_vkCreateQueryPool;
    Device "vkDestroyQueryPool" => query::vkDestroyQueryPool, PFN_vkDestroyQueryPool;
    Device "vkGetQueryPoolResults" => query::vkGetQueryPoolResults, PFN_vkGetQueryPoolResults;
    Device "vkCreateCommandPool" => cmd::vkCreateCommandPool, PFN_vkCreateCommandPool;
    Device "vkDestroyCommandPool" => cmd::vkDestroyCommandPool, PFN_vkDestroyCommandPool;
    Device "vkResetCommandPool" => cmd::vkResetCommandPool, PFN_vkResetCommandPool;
    Device "vkAllocateCommandBuffers" => cmd::vkAllocateCommandBuffers, PFN_vkAllocateCommandBuffers;
    Device "vkFreeCommandBuffers" => cmd::vkFreeCommandBuffers, PFN_vkFreeCommandBuffers;
    Device "vkBeginCommandBuffer" => cmd::vkBeginCommandBuffer, PFN_vkBeginCommandBuffer;
    Device "vkEndCommandBuffer" => cmd::vkEndCommandBuffer, PFN_vkEndCommandBuffer;
    Device "vkResetCommandBuffer" => cmd::vkResetCommandBuffer, PFN_vkResetCommandBuffer;
    Device "vkCmdWriteTimestamp" => cmd::vkCmdWriteTimestamp, PFN_vkCmdWriteTimestamp;
    Device "vkCmdResetQueryPool" => cmd::vkCmdResetQueryPool, PFN_vkCmdResetQueryPool;
    Device "vkCmdBeginQuery" => cmd::vkCmdBeginQuery, PFN_vkCmdBeginQuery;
    Device "vkCmdEndQuery" => cmd::vkCmdEndQuery, PFN_vkCmdEndQuery;
    Device "vkCreateShaderModule" => pipeline::vkCreateShaderModule, PFN_vkCreateShaderModule;
    Device "vkDestroyShaderModule" => pipeline::vkDestroyShaderModule, PFN_vkDestroyShaderModule;
    Device "vkCreateDescriptorSetLayout" => pipeline::vkCreateDescriptorSetLayout, PFN_vkCreateDescriptorSetLayout;
    Device "vkDestroyDescriptorSetLayout" => pipeline::vkDestroyDescriptorSetLayout, PFN_vkDestroyDescriptorSetLayout;
    Device "vkCreatePipelineLayout" => pipeline::vkCreatePipelineLayout, PFN_vkCreatePipelineLayout;
    Device "vkDestroyPipelineLayout" => pipeline::vkDestroyPipelineLayout, PFN_vkDestroyPipelineLayout;
    Device "vkCreateDescriptorPool" => pipeline::vkCreateDescriptorPool, PFN_vkCreateDescriptorPool;
    Device "vkDestroyDescriptorPool" => pipeline::vkDestroyDescriptorPool, PFN_vkDestroyDescriptorPool;
    Device "vkResetDescriptorPool" => pipeline::vkResetDescriptorPool, PFN_vkResetDescriptorPool;
    Device "vkAllocateDescriptorSets" => pipeline::vkAllocateDescriptorSets, PFN_vkAllocateDescriptorSets;
    Device "vkFreeDescriptorSets" => pipeline::vkFreeDescriptorSets, PFN_vkFreeDescriptorSets;
    Device "vkUpdateDescriptorSets" => pipeline::vkUpdateDescriptorSets, PFN_vkUpdateDescriptorSets;
    Device "vkCreatePipelineCache" => pipeline::vkCreatePipelineCache, PFN_vkCreatePipelineCache;
    Device "vkDestroyPipelineCache" => pipeline::vkDestroyPipelineCache, PFN_vkDestroyPipelineCache;
    Device "vkGetPipelineCacheData" => pipeline::vkGetPipelineCacheData, PFN_vkGetPipelineCacheData;
    Device "vkMergePipelineCaches" => pipeline::vkMergePipelineCaches, PFN_vkMergePipelineCaches;
    Device "vkCreateGraphicsPipelines" => pipeline::vkCreateGraphicsPipelines, PFN_vkCreateGraphicsPipelines;
    Device "vkCreateComputePipelines" => pipeline::vkCreateComputePipelines, PFN_vkCreateComputePipelines;
    Device "vkDestroyPipeline" => pipeline::vkDestroyPipeline, PFN_vkDestroyPipeline;
    Device "vkCreateRenderPass" => pipeline::vkCreateRenderPass, PFN_vkCreateRenderPass;
    Device "vkDestroyRenderPass" => pipeline::vkDestroyRenderPass, PFN_vkDestroyRenderPass;
    Device "vkGetRenderAreaGranularity" => pipeline::vkGetRenderAreaGranularity, PFN_vkGetRenderAreaGranularity;
    Device "vkCreateFramebuffer" => pipeline::vkCreateFramebuffer, PFN_vkCreateFramebuffer;
    Device "vkDestroyFramebuffer" => pipeline::vkDestroyFramebuffer, PFN_vkDestroyFramebuffer;
    Device "vkCmdBindPipeline" => cmd::vkCmdBindPipeline, PFN_vkCmdBindPipeline;
    Device "vkCmdBindDescriptorSets" => cmd::vkCmdBindDescriptorSets, PFN_vkCmdBindDescriptorSets;
    Device "vkCmdPushConstants" => cmd::vkCmdPushConstants, PFN_vkCmdPushConstants;
    Device "vkCmdBindVertexBuffers" => cmd::vkCmdBindVertexBuffers, PFN_vkCmdBindVertexBuffers;
    Device "vkCmdBindIndexBuffer" => cmd::vkCmdBindIndexBuffer, PFN_vkCmdBindIndexBuffer;
    Device "vkCmdDraw" => cmd::vkCmdDraw, PFN_vkCmdDraw;
    Device "vkCmdDrawIndexed" => cmd::vkCmdDrawIndexed, PFN_vkCmdDrawIndexed;
    Device "vkCmdDispatch" => cmd::vkCmdDispatch, PFN_vkCmdDispatch;
    Device "vkCmdDispatchIndirect" => cmd::vkCmdDispatchIndirect, PFN_vkCmdDispatchIndirect;
    Device "vkCmdDrawIndirect" => cmd::vkCmdDrawIndirect, PFN_vkCmdDrawIndirect;
    Device "vkCmdDrawIndexedIndirect" => cmd::vkCmdDrawIndexedIndirect, PFN_vkCmdDrawIndexedIndirect;
    Device "vkCmdBeginRenderPass" => cmd::vkCmdBeginRenderPass, PFN_vkCmdBeginRenderPass;
    Device "vkCmdNextSubpass" => cmd::vkCmdNextSubpass, PFN_vkCmdNextSubpass;
    Device "vkCmdEndRenderPass" => cmd::vkCmdEndRenderPass, PFN_vkCmdEndRenderPass;
    Device "vkCmdPipelineBarrier" => cmd::vkCmdPipelineBarrier, PFN_vkCmdPipelineBarrier;
    Device "vkCmdSetViewport" => cmd::vkCmdSetViewport, PFN_vkCmdSetViewport;
    Device "vkCmdSetScissor" => cmd::vkCmdSetScissor, PFN_vkCmdSetScissor;
    Device "vkCmdSetLineWidth" => cmd::vkCmdSetLineWidth, PFN_vkCmdSetLineWidth;
    Device "vkCmdSetDepthBias" => cmd::vkCmdSetDepthBias, PFN_vkCmdSetDepthBias;
    Device "vkCmdSetBlendConstants" => cmd::vkCmdSetBlendConstants, PFN_vkCmdSetBlendConstants;
    Device "vkCmdSetDepthBounds" => cmd::vkCmdSetDepthBounds, PFN_vkCmdSetDepthBounds;
    Device "vkCmdSetStencilCompareMask" => cmd::vkCmdSetStencilCompareMask, PFN_vkCmdSetStencilCompareMask;
    Device "vkCmdSetStencilWriteMask" => cmd::vkCmdSetStencilWriteMask, PFN_vkCmdSetStencilWriteMask;
    Device "vkCmdSetStencilReference" => cmd::vkCmdSetStencilReference, PFN_vkCmdSetStencilReference;
    Device "vkCmdCopyBuffer" => cmd::vkCmdCopyBuffer, PFN_vkCmdCopyBuffer;
    Device "vkCmdFillBuffer" => cmd::vkCmdFillBuffer, PFN_vkCmdFillBuffer;
    Device "vkCmdUpdateBuffer" => cmd::vkCmdUpdateBuffer, PFN_vkCmdUpdateBuffer;
    Device "vkCmdCopyQueryPoolResults" => cmd::vkCmdCopyQueryPoolResults, PFN_vkCmdCopyQueryPoolResults;
    Device "vkCmdExecuteCommands" => cmd::vkCmdExecuteCommands, PFN_vkCmdExecuteCommands;
    Device "vkCreateEvent" => event::vkCreateEvent, PFN_vkCreateEvent;
    Device "vkDestroyEvent" => event::vkDestroyEvent, PFN_vkDestroyEvent;
    Device "vkGetEventStatus" => event::vkGetEventStatus, PFN_vkGetEventStatus;
    Device "vkSetEvent" => event::vkSetEvent, PFN_vkSetEvent;
    Device "vkResetEvent" => event::vkResetEvent, PFN_vkResetEvent;
    Device "vkCmdSetEvent" => event::vkCmdSetEvent, PFN_vkCmdSetEvent;
    Device "vkCmdResetEvent" => event::vkCmdResetEvent, PFN_vkCmdResetEvent;
    Device "vkCmdWaitEvents" => event::vkCmdWaitEvents, PFN_vkCmdWaitEvents;
    // VK_KHR_descriptor_update_template, VK_KHR_maintenance1
    Device "vkCreateDescriptorUpdateTemplateKHR" => pipeline::vkCreateDescriptorUpdateTemplateKHR, PFN_vkCreateDescriptorUpdateTemplate;
    Device "vkDestroyDescriptorUpdateTemplateKHR" => pipeline::vkDestroyDescriptorUpdateTemplateKHR, PFN_vkDestroyDescriptorUpdateTemplate;
    Device "vkUpdateDescriptorSetWithTemplateKHR" => pipeline::vkUpdateDescriptorSetWithTemplateKHR, PFN_vkUpdateDescriptorSetWithTemplate;
    Device "vkTrimCommandPoolKHR" => cmd::vkTrimCommandPoolKHR, PFN_vkTrimCommandPool;
    // VK_KHR_create_renderpass2
    Device "vkCreateRenderPass2KHR" => pipeline::vkCreateRenderPass2KHR, PFN_vkCreateRenderPass2;
    Device "vkCmdBeginRenderPass2KHR" => cmd::vkCmdBeginRenderPass2KHR, PFN_vkCmdBeginRenderPass2;
    Device "vkCmdNextSubpass2KHR" => cmd::vkCmdNextSubpass2KHR, PFN_vkCmdNextSubpass2;
    Device "vkCmdEndRenderPass2KHR" => cmd::vkCmdEndRenderPass2KHR, PFN_vkCmdEndRenderPass2;
    // VK_EXT_host_query_reset
    Device "vkResetQueryPoolEXT" => query::vkResetQueryPoolEXT, PFN_vkResetQueryPool;
    // VK_KHR_draw_indirect_count
    Device "vkCmdDrawIndirectCountKHR" => cmd::vkCmdDrawIndirectCountKHR, PFN_vkCmdDrawIndirectCount;
    Device "vkCmdDrawIndexedIndirectCountKHR" => cmd::vkCmdDrawIndexedIndirectCountKHR, PFN_vkCmdDrawIndexedIndirectCount;
    // VK_KHR_timeline_semaphore
    Device "vkGetSemaphoreCounterValueKHR" => sync::vkGetSemaphoreCounterValueKHR, PFN_vkGetSemaphoreCounterValue;
    Device "vkWaitSemaphoresKHR" => sync::vkWaitSemaphoresKHR, PFN_vkWaitSemaphores;
    Device "vkSignalSemaphoreKHR" => sync::vkSignalSemaphoreKHR, PFN_vkSignalSemaphore;
    // VK_EXT_transform_feedback
    Device "vkCmdBindTransformFeedbackBuffersEXT" => cmd::vkCmdBindTransformFeedbackBuffersEXT, PFN_vkCmdBindTransformFeedbackBuffersEXT;
    Device "vkCmdBeginTransformFeedbackEXT" => cmd::vkCmdBeginTransformFeedbackEXT, PFN_vkCmdBeginTransformFeedbackEXT;
    Device "vkCmdEndTransformFeedbackEXT" => cmd::vkCmdEndTransformFeedbackEXT, PFN_vkCmdEndTransformFeedbackEXT;
    Device "vkCmdBeginQueryIndexedEXT" => cmd::vkCmdBeginQueryIndexedEXT, PFN_vkCmdBeginQueryIndexedEXT;
    Device "vkCmdEndQueryIndexedEXT" => cmd::vkCmdEndQueryIndexedEXT, PFN_vkCmdEndQueryIndexedEXT;
    Device "vkCmdDrawIndirectByteCountEXT" => cmd::vkCmdDrawIndirectByteCountEXT, PFN_vkCmdDrawIndirectByteCountEXT;
};

/// Test-only commands (BIFROST_VK_TEST_HOOKS=1), device scope.
pub static TEST_HOOKS: &[Entry] = &[
    Entry {
        name: "vkBifrostTestPanic",
        scope: Scope::Device,
        pfn: procedure!(test_hooks::vkBifrostTestPanic, test_hooks::PfnTestPanic),
    },
    Entry {
        name: "vkBifrostTestBoStats",
        scope: Scope::Device,
        pfn: procedure!(test_hooks::vkBifrostTestBoStats, test_hooks::PfnTestBoStats),
    },
    Entry {
        name: "vkBifrostTestPipelineCacheStats",
        scope: Scope::Device,
        pfn: procedure!(
            test_hooks::vkBifrostTestPipelineCacheStats,
            test_hooks::PfnTestPipelineCacheStats
        ),
    },
    Entry {
        name: "vkBifrostTestRecordFault",
        scope: Scope::Device,
        pfn: procedure!(
            test_hooks::vkBifrostTestRecordFault,
            test_hooks::PfnTestRecordFault
        ),
    },
];

/// Look `name` up among the entries whose scope `allow` accepts.
pub fn lookup(name: &[u8], allow: impl Fn(Scope) -> bool) -> vk::PFN_vkVoidFunction {
    ENTRIES
        .iter()
        .find(|e| e.name.as_bytes() == name && allow(e.scope))
        .and_then(|e| e.pfn)
}

pub fn lookup_test_hook(name: &[u8]) -> vk::PFN_vkVoidFunction {
    if !crate::util::test_hooks_enabled() {
        return None;
    }
    TEST_HOOKS
        .iter()
        .find(|e| e.name.as_bytes() == name)
        .and_then(|e| e.pfn)
}
