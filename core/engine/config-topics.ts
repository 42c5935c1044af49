/**
 * The registry of configuration topics, read-only: which topics the loaded
 * plugins registered and who owns each. Registration goes through
 * `scope.configTopic`; the values in force are the engine_config fold, read
 * through the record reader with the caller.
 */
import { token } from '../di/token.js';
import type { ConfigTopicRegistry } from '../folds/config/config-topic.js';

export type ConfigTopics = Pick<ConfigTopicRegistry, 'get' | 'ownerOf' | 'list'>;

export const ConfigTopicsToken = token<ConfigTopics>('core.ConfigTopics');
