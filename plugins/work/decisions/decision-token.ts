import { token } from '../../../core/di/token.js';
import type { DecisionService } from './decision-service.js';

export const DecisionServiceToken = token<DecisionService>('work.DecisionService');
