/**
 * V8 flags the reference server runs with (`npm start` and the `loom`
 * command's shebang carry them; node-flags.test.ts keeps the three in step).
 *
 * `--max-semi-space-size=32` (MiB; Node 20's default is 16): under ingest
 * load a record lives from receipt until the applier has written it to the
 * driver, a few hundred milliseconds, so with the default young generation
 * most records are copied twice and then promoted, and old-generation
 * collections pause the event loop that acknowledgements wait on. Measured
 * (64 producers into SQLite, full durability): ~16k -> ~21k records/s,
 * p99 event-loop delay 8.5 -> 6.9 ms. Costs up to ~100 MB more young
 * generation when busy. Embedders should pass the same flag to node.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
