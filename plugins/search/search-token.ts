import { token } from '../../core/di/token.js';
import type { FindService } from './find-service.js';
import type { SemanticSearch } from './semantic-search.js';

export const SemanticSearchToken = token<SemanticSearch>('search.SemanticSearch');
export const FindServiceToken = token<FindService>('search.FindService');
