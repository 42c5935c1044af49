/** The eight act types (spec §2.1), two groups of four. */
export const COORDINATION_ACTS = ['INTEND', 'DO', 'KNOW', 'LEARN'] as const;
export const EFFECT_ACTS = ['GET', 'PUT', 'CALL', 'MAP'] as const;
export const ACTS = [...COORDINATION_ACTS, ...EFFECT_ACTS] as const;

export type Act = (typeof ACTS)[number];

const actSet: ReadonlySet<string> = new Set(ACTS);

export function isAct(value: unknown): value is Act {
  return typeof value === 'string' && actSet.has(value);
}
