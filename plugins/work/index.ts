/**
 * The work plugin: members doing work (spec §1 work loops, §3 run states,
 * §4.8, §4.15 run doors, §6). A run is a thread; the run engine drives each
 * one through a model provider (providers/), one record per turn, tool call,
 * tool result and outcome, under the ceilings of tier, member and request,
 * and resumes runs a stopped server left `running` from their threads.
 * Loom's own tools (tools/) are contributed to the members plugin's tool
 * registry, so define and patch accept them and the loop can run them.
 */
import { Type } from 'typebox';
import { resolve } from '../../core/di/token.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { ToolRegistryToken } from '../members/index.js';
// ---- compensation review (plugins/work/compensation/) ----
import { registerCompensation } from './compensation/register-compensation.js';
export { COMPENSATION_ROUTES } from './compensation/register-compensation.js';
export { COMPENSATION_FOLD } from './compensation/compensation-fold.js';
// ---- end compensation review ----

export const WorkOptionsSchema = Type.Object(
  {
    /** Runs this server drives at once; one more start is 503 ADMISSION_CEILING. */
    maxConcurrentRuns: Type.Integer({ minimum: 1, maximum: 10_000, default: 16 }),
  },
  { additionalProperties: false },
);

export const workPlugin = definePlugin({
  name: 'work',
  version: '1.0.0',
  tags: { work: 'Work loops and runs: members doing work through model providers, under ceilings, as records on the run thread.' },
  dependencies: ['ledger', 'members'],
  optionalDependencies: ['auth', 'rules', 'search', 'trust', 'folds', 'data-plane', 'federation'],
  options: WorkOptionsSchema,
  register(scope) {
    const tools = resolve(scope.container, ToolRegistryToken);
    void tools;
    registerCompensation(scope); // ---- compensation review ----
  },
});
