import { createHmac, timingSafeEqual } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import type { Secret } from '../../redaction/secret';

/** Where Hive Gateway's `hmacSignature` puts the signature (its default extension name). */
export const HMAC_EXTENSION = 'hmac-signature';

/** What Hive Gateway signs of a subgraph request: the query and, when there are any, its variables. */
export interface SignedParams {
  query?: unknown;
  variables?: unknown;
}

/**
 * The exact text Hive Gateway signs (`@graphql-mesh/hmac-upstream-signature`,
 * `defaultParamsSerializer`): stable JSON of `query` and of `variables` when
 * they hold anything. Signer and verifier must share this serializer; a
 * variable changed after signing changes the text, and the signature fails.
 */
function signedText(params: SignedParams): string {
  const variables = params.variables;
  const hasVariables = variables !== null && typeof variables === 'object' && Object.keys(variables).length > 0;
  return stableStringify({ query: params.query, ...(hasVariables ? { variables } : {}) });
}

/** HMAC-SHA256 of the signed text, base64 (Hive Gateway's encoding). */
export function signParams(params: SignedParams, secret: Secret): string {
  return createHmac('sha256', secret.reveal()).update(signedText(params), 'utf8').digest('base64');
}

/** Whether `signature` (base64) is the secret's signature of the params, compared in constant time. */
export function isValidSignature(params: SignedParams, signature: string, secret: Secret): boolean {
  const expected = Buffer.from(signParams(params, secret), 'base64');
  const presented = Buffer.from(signature, 'base64');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
