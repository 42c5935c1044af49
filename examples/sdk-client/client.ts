// The README's SDK example (TypeScript). Run against a server: LOOM_URL (default
// http://127.0.0.1:9100) and LOOM_TOKEN (a token with records:read and records:write).
import { createLoomClient, taskThreadId, newThreadNonce, computeRecordId } from '@loom-ledger/server/sdk';

const loom = createLoomClient({ baseUrl: process.env.LOOM_URL ?? 'http://127.0.0.1:9100', token: process.env.LOOM_TOKEN });
const thread = taskThreadId('REL-42', newThreadNonce());
const record = { thread, actor: 'did:sync:user:alice', act: 'INTEND' as const, body: { goal: 'ship 1.0' },
                 clock: 0, data_type: 'SCALAR' as const, parents: [], judged_by: null };

const { data, error, response } = await loom.ingestRecord({ body: record });
if (error) console.error(error.code, error.message);          // typed ErrorEnvelope (AUTH_REQUIRED without a token)
else console.log(response.status, data.id === computeRecordId(record));  // 201 true

const state = await loom.getThreadState({ path: { id: thread } });
console.log(state.data?.value.actor_clocks);                  // { 'did:sync:user:alice': 0 }: next clock = highest + 1
const hits = await loom.queryRecords({ body: { thread, filter: { act: 'INTEND' } } });
console.log(hits.data?.matched_total);                        // 1
