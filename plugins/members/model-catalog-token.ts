import { token } from '../../core/di/token.js';
import type { ModelCatalog } from './model-catalog.js';

export const ModelCatalogToken = token<ModelCatalog>('members.ModelCatalog');
