/**
 * `directory_enabled` (spec §4.13 `config.directory_enabled`, a configuration
 * record on th_engine_config, spec §2.9): `{enabled: true}` turns the did:sync
 * directory on, hot, with no restart; absent or false, it is off (the
 * default). Off, the directory routes answer 404 DIRECTORY_DISABLED, and the
 * capability `federation.directory` is false; the fold and the gate keep
 * working, so records an import brings are still checked and the directory
 * is current the moment it is turned on.
 */
import { Type } from 'typebox';
import { defineConfigTopic, type Config } from '../../../core/folds/config/config-topic.js';

export const directoryEnabledTopic = defineConfigTopic({
  topic: 'directory_enabled',
  description: 'Turns the did:sync directory on (enabled: true) or off (false, the default): POST /directory/genesis|update/{hash}|revoke/{hash}, GET /directory/{hash}/did.json|operations, /directory/handle/{handle}.',
  schema: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
  keyedBy: 'single',
});

/** Whether the directory is on now (no configuration plugin: off). */
export function directoryEnabled(config: Config | null): () => boolean {
  return () => config?.single(directoryEnabledTopic)?.enabled === true;
}
