/**
 * Real `loom serve --federation` processes for the federation process tests:
 * one started with an admin and a writer (or restarted on its data directory
 * and port with the credentials it had), records written as an agent, and the
 * reads those tests repeat.
 */
import { expect } from 'chai';
import { bootstrapAdmin, bearer, createAccount, type Credential } from '../helpers/auth.js';
import { get, request } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';

export interface Instance {
  process: LoomProcess;
  admin: Credential;
  writer: Credential;
  did: string;
}

/** A fresh instance, or `existing` started again on its data directory (and, with `samePort`, its port). */
export async function startInstance(options: { existing?: Instance; samePort?: boolean; dataDir?: string; admin?: Credential; writer?: Credential } = {}): Promise<Instance> {
  const { existing } = options;
  const port = existing && options.samePort ? new URL(existing.process.url).port : '0';
  const dataDir = existing?.process.dataDir ?? options.dataDir;
  const process = await startLoomProcess({ args: ['--federation', '--port', port], ...(dataDir ? { dataDir } : {}) });
  const admin = existing?.admin ?? options.admin ?? (await bootstrapAdmin(process.url));
  const writer = existing?.writer ?? options.writer ?? (await createAccount(process.url, admin, 'writer', ['records:write', 'records:read'], ['did:sync:agent:*']));
  return { process, admin, writer, did: (await get(process.url, '/health')).json.instance_did };
}

/** Writes records as `did:sync:agent:<name>` with a clock of its own: answers each record's id. */
export function recordWriter(name: string): (instance: Instance, thread: string) => Promise<string> {
  const actor = `did:sync:agent:${name}`;
  let clock = 0;
  return async (instance, thread) => {
    const answer = await request(instance.process.url, 'POST', '/v1/records', {
      headers: { ...bearer(instance.writer), 'x-service-actor': actor },
      json: { thread, actor, act: 'DO', body: { n: clock }, clock: clock++, data_type: 'SCALAR', parents: [] },
    });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id;
  };
}

export const hasRecord = async (instance: Instance, id: string): Promise<boolean> => (await get(instance.process.url, `/v1/records/${id}`, bearer(instance.admin))).status === 200;

export const pairOn = async (instance: Instance, id: string) => (await get(instance.process.url, `/v1/federation/pairs/${id}`, bearer(instance.admin))).json;

export async function threadIds(instance: Instance, thread: string): Promise<string[]> {
  const answer = await get(instance.process.url, `/v1/threads/${thread}/records?limit=1000`, bearer(instance.admin));
  expect(answer.status, answer.text).to.equal(200);
  return answer.json.data.map((r: { id: string }) => r.id);
}
