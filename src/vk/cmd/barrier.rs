//! vkCmdPipelineBarrier: the next job waits for every job recorded before
//! it (the job header's `Barrier` bit). Coarser than the stage masks ask
//! for, never weaker: memory is coherent (one host-coherent memory type,
//! and the GPU's caches are flushed between jobs of a chain on Bifrost JM).

use super::recording::Recording;

impl Recording {
    pub fn pipeline_barrier(&mut self) {
        self.record(|r| {
            r.rec.barrier();
            Ok(())
        });
    }
}
