/**
 * Configuration errors speak the API's terms (docs/decisions.md, "Validation
 * messages"): for every field of every loaded topic, a value of the wrong
 * kind is refused with 400 INVALID_SHAPE naming the field and what is
 * accepted, never with the validator's own words (`must match a schema in
 * anyOf`), and writes nothing.
 */
import { expect } from 'chai';
import type { TSchema } from 'typebox';
import { ConfigTopicsToken, type ConfigTopics } from '../../core/engine/config-topics.js';
import { expectEnvelope, request, startServer, type StartedServer } from '../helpers/http-server.js';

/** Words of the validator (TypeBox/JSON Schema) that must never reach a client. */
const VALIDATOR_WORDS = /anyOf|oneOf|allOf|must match a schema|must be equal to constant|schema is false|must NOT|must have required/;

/** A value of the wrong kind for a field's schema. */
function wrongValue(schema: Record<string, unknown>): unknown {
  switch (schema['type']) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
    case 'boolean':
    case 'array':
      return 'not-that';
    case 'object':
      return 'not-an-object';
    default:
      return { unexpected: true }; // a union: no branch takes an object of nonsense
  }
}

/** A plausible value, so that the other required fields are present and the field under test is the one refused. */
function plausible(schema: Record<string, unknown>): unknown {
  if ('const' in schema) return schema['const'];
  // A patterned string (a URL, a DID) says what fits through its examples.
  if (Array.isArray(schema['examples'])) return schema['examples'][0];
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  if (Array.isArray(schema['anyOf'])) return plausible(schema['anyOf'][0] as Record<string, unknown>);
  switch (schema['type']) {
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return (schema['minimum'] as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return {};
  }
}

describe('configuration errors over HTTP', function () {
  this.timeout(60_000);
  let server: StartedServer;

  before(async () => {
    server = await startServer({ federation: {} });
  });
  after(() => server?.stop());

  it('every field of every topic: a wrong value is a 400 naming the field and what is accepted, in the API\'s words', async () => {
    const topics = server.loom.container.resolve(ConfigTopicsToken) as ConfigTopics;
    const head = await server.loom.engine.store.watermark();
    let checked = 0;
    for (const { topic } of topics.list()) {
      const properties = ((topic.schema as TSchema & { properties?: Record<string, Record<string, unknown>> }).properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = ((topic.schema as { required?: string[] }).required ?? []).filter((name) => properties[name]);
      const base = Object.fromEntries(required.map((name) => [name, plausible(properties[name]!)]));
      for (const [field, schema] of Object.entries(properties)) {
        const answer = await request(server.url, 'POST', `/v1/config/${topic.topic}`, { json: { ...base, [field]: wrongValue(schema) } });
        const where = `${topic.topic}.${field}: ${answer.text}`;
        expectEnvelope(answer, 400, 'INVALID_SHAPE', where);
        expect(answer.json.message, where).to.not.match(VALIDATOR_WORDS);
        // It names a field: this one, or a required one that is missing.
        expect(answer.json.message, where).to.match(new RegExp(`\\b${field}\\b|is required|are required`));
        checked++;
      }
    }
    expect(checked).to.be.greaterThan(40);
    expect(await server.loom.engine.store.watermark()).to.deep.equal(head);
  });
});
