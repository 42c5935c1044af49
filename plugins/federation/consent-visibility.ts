/**
 * Read policy: the federation control threads (consent grants, pair
 * lifecycle) are visible only to callers covering federation:manage. They
 * name peers, URLs and namespaces that ordinary readers and peers need not see.
 */
import type { ReadPolicy } from '../../core/access/read-policy.js';
import { covers } from '../../core/access/scopes.js';
import { TH_CONSENT, TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import type { FilterNode } from '../../storage/contract/query/filter-ast.js';

const HIDDEN: FilterNode = { op: 'not', node: { op: 'in', field: { kind: 'column', column: 'thread' }, values: [TH_CONSENT, TH_FEDERATION_PAIRS] } };

export const controlThreadsPolicy: ReadPolicy = {
  name: 'federation.control-threads',
  restrict: (caller) => (caller.kind === 'system' || covers(caller.scopes, 'federation:manage') ? undefined : HIDDEN),
};
