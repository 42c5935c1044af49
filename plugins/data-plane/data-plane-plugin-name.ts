/** The data plane's plugin name: the `plugin` its writes are made through. */
export const DATA_PLANE_PLUGIN = 'data-plane';
