//! vkCmdPipelineBarrier: the next job waits for every job recorded before
//! it (the job header's `Barrier` bit). Coarser than the stage masks ask
//! for, never weaker. The stage and access masks are not looked at; cache
//! maintenance between dependent jobs is the job manager's (the simulator
//! has no caches), and the one memory type is host-coherent.

use super::recording::Recording;

impl Recording {
    pub fn pipeline_barrier(&mut self) {
        self.record(|r| {
            r.rec.barrier();
            Ok(())
        });
    }
}
