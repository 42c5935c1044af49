import { token } from '../../core/di/token.js';
import type { StorageProbe } from './storage-probe.js';

export const StorageProbeToken = token<StorageProbe>('ledger.StorageProbe');
