import { token } from '../../core/di/token.js';
import type { DataPlaneOptions } from './config.js';
import type { DataPlane } from './data-plane.js';

/** What plugins that read files (search) see of the data plane. */
export const DataPlaneToken = token<DataPlane>('data-plane.DataPlane');

/** The plugin's options as registered (the capabilities route reports them). */
export const DataPlaneOptionsToken = token<DataPlaneOptions>('data-plane.Options');
