/**
 * The clock the rules plugin reads (Unix ms): every loop, rule, trigger and
 * the dispatch route read this one, so a test drives them all together.
 */
import { token } from '../../core/di/token.js';

export type RulesClock = () => number;

export const RulesClockToken = token<RulesClock>('rules.Clock');
