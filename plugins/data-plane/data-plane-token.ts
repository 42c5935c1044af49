import { token } from '../../core/di/token.js';
import type { DataPlane } from './data-plane.js';

/** The data plane's service, for its routes and for plugins that read files (search). */
export const DataPlaneToken = token<DataPlane>('data-plane.DataPlane');
