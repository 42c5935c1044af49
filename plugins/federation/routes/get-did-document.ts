import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DidDocumentToken } from '../federation-token.js';

/** Served only when a domain is configured: the did:web document naming the instance's did:key as well. */
export const getDidDocument = defineRoute({
  operationId: 'getDidDocument',
  method: 'GET',
  path: '/.well-known/did.json',
  summary: "This instance's did:web DID document",
  description: 'The did:web of the configured domain, with the instance key as its verification method and the did:key in alsoKnownAs; peers check that the manifest DID is the one the domain serves.',
  tags: ['federation'],
  auth: 'none',
  responses: { 200: { description: 'DID document.', schema: Type.Object({ id: Type.String() }, { additionalProperties: true, $id: 'DidDocument' }) } },
  errors: [],
  inject: { document: DidDocumentToken },
  handler: (_input, { document }) => document,
});
