/**
 * The one clock of a Loom: Unix milliseconds, `Date.now` unless the embedder
 * or a test injects another through `LoomOptions.clock`. Plugins resolve it
 * instead of taking a clock through a factory of their own, so one fake
 * clock moves every loop, rule, expiry and signature together.
 */
import { token } from '../di/token.js';

export type Clock = () => number;

export const ClockToken = token<Clock>('core.Clock');
