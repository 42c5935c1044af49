/** The work plugin's services, for its routes and for plugins that drive runs (the dispatch adapter). */
import { token } from '../../core/di/token.js';
import type { RunControl } from './loop/run-control.js';
import type { RunEngine } from './loop/run-engine.js';
import type { RunStarter } from './loop/run-starter.js';

export const RunStarterToken = token<RunStarter>('work.RunStarter');
export const RunControlToken = token<RunControl>('work.RunControl');
export const RunEngineToken = token<RunEngine>('work.RunEngine');
