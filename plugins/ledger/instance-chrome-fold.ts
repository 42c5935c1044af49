/**
 * instance_chrome: the instance's shell and metadata (spec §4.12, §6), records
 * of kind core.instance.shell.v1 and core.instance.metadata.v1 on
 * th_instance_registry. The owner is the actor of the first chrome record
 * (or the DID it names in `body.owner`); later chrome records count only
 * when the owner writes them, so no other writer can restyle the instance.
 * A shell carries `lifecycle` (`published`, the default, or `draft`); the
 * latest of each lifecycle wins, and `version` is `body.version` when it is
 * an integer, else the count of published shells.
 */
import { token } from '../../core/di/token.js';
import type { Fold } from '../../core/folds/fold.js';
import type { OwnFold } from '../../core/plugin/own-fold.js';
import type { LoomRecord } from '../../core/records/record.js';
import { TH_INSTANCE_REGISTRY } from '../../core/records/reserved-threads.js';

export const SHELL_KIND = 'core.instance.shell.v1';
export const METADATA_KIND = 'core.instance.metadata.v1';

export interface InstanceChrome {
  owner: string | null;
  published: { record: LoomRecord; version: number } | null;
  draft: { record: LoomRecord; version: number } | null;
  metadata: LoomRecord | null;
  published_count: number;
}

export const instanceChromeFold: Fold<InstanceChrome, InstanceChrome> = {
  name: 'instance_chrome',
  scope: 'global',
  description: "The instance's published and draft shell, its metadata record and its owner, from th_instance_registry.",
  threads: [TH_INSTANCE_REGISTRY],
  kinds: [SHELL_KIND, METADATA_KIND],
  initial: () => ({ owner: null, published: null, draft: null, metadata: null, published_count: 0 }),
  apply(chrome, { record }) {
    if (record.thread !== TH_INSTANCE_REGISTRY) return chrome;
    const kind = record.body['kind'];
    if (kind !== SHELL_KIND && kind !== METADATA_KIND) return chrome;
    if (chrome.owner === null) {
      const named = record.body['owner'];
      chrome.owner = typeof named === 'string' && named.startsWith('did:') ? named : record.actor;
    } else if (record.actor !== chrome.owner) {
      return chrome;
    }
    if (kind === METADATA_KIND) {
      chrome.metadata = record;
      return chrome;
    }
    const declared = record.body['version'];
    if (record.body['lifecycle'] === 'draft') {
      chrome.draft = { record, version: Number.isSafeInteger(declared) ? (declared as number) : chrome.published_count + 1 };
    } else {
      chrome.published_count += 1;
      chrome.published = { record, version: Number.isSafeInteger(declared) ? (declared as number) : chrome.published_count };
    }
    return chrome;
  },
  value: (chrome) => structuredClone(chrome),
};

/** Whether a caller is the chrome's owner: its acting DID or principal is the owner's DID. */
export function isChromeOwner(chrome: InstanceChrome, caller: { actor: string | null; principal: string | null }): boolean {
  return chrome.owner !== null && (caller.actor === chrome.owner || caller.principal === chrome.owner);
}

/** The ledger's own view of the chrome fold, for its instance routes. */
export const InstanceChromeToken = token<OwnFold<InstanceChrome>>('ledger.InstanceChrome');
