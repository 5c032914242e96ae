import { setFlagsFromString } from 'node:v8';

/**
 * The core is launched with a young generation of 2 x 16 MiB committed from the start (scripts/
 * start-plan.ts's CORE_NODE_FLAGS): for the network thread, which allocates a message's objects by the
 * thousand. V8 reads those flags again for each worker thread's isolate it creates, where they cost 16 to
 * 32 MiB of resident memory per worker (the snapshot thread, the report replicas, the simulator's shards)
 * and buy nothing: a worker allocates few objects, and its large buffers live outside the young
 * generation. After this call, isolates created from then on size their young generation as V8 does by
 * default (from 1 MiB, grown as needed); the network thread's, already made, keeps its size.
 * bench:ingest's memory breakdown measures it.
 */
export function workersGetDefaultYoungGeneration(): void {
  setFlagsFromString('--min-semi-space-size=0');
  setFlagsFromString('--max-semi-space-size=0');
}
