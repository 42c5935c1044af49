/**
 * A plugin is a plain object (hapi's plugin shape): a unique kebab-case name,
 * a version, the names of the plugins it needs (and of those it uses when
 * they are loaded), a TypeBox schema for its
 * options (validated, with defaults applied, before register runs) and
 * `register(scope, options)`.
 */
import type { Static, TSchema } from 'typebox';
import type { PluginScope } from './plugin-scope.js';

export interface LoomPlugin<O extends TSchema = TSchema> {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: readonly string[];
  /**
   * Plugins this one uses when they are loaded and works without (the search
   * plugin indexes the data plane's files; actors show trust scores). Each
   * that is loaded registers first; a missing one is no error. Every service
   * it exposes is looked up with `isRegistered` before use.
   */
  readonly optionalDependencies?: readonly string[];
  readonly options?: O;
  /** What each OpenAPI tag of its routes covers, by tag (the document's tag descriptions). */
  readonly tags?: Readonly<Record<string, string>>;
  register(scope: PluginScope, options: Static<O>): void | Promise<void>;
}

/** A plugin, or a plugin with its options. */
export type PluginRegistration = LoomPlugin | { readonly plugin: LoomPlugin; readonly options?: unknown };

/** Identity with inference, so `options` is typed from the schema. */
export function definePlugin<O extends TSchema>(plugin: LoomPlugin<O>): LoomPlugin<O> {
  return plugin;
}
