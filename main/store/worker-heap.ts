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

/**
 * No allocation-site pretenuring, for every isolate of the process (set at start rather than on the command
 * line: `sandboard`'s #!/usr/bin/env line has no room left on Linux before 5.1, 127 bytes). V8 otherwise
 * allocates straight in the old generation the objects of every allocation site whose objects survived a
 * young collection. Under steady ingest tens of sites are so marked (--trace-pretenuring), though their
 * objects die soon after, such as those of messages waiting for their fsync: the old generation filled with
 * about 22 MB/s of garbage, and V8 lets it grow to four times its live size between full collections (a
 * 186 MB heap for 50-60 MB live). Without pretenuring such objects die young: about 3 MB/s reach the old
 * generation and the heap stays about 100 MB, at the same datapoints per CPU-second.
 */
export function withoutAllocationSitePretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
