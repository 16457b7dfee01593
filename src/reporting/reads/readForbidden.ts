/**
 * A read the caller may not make: a site outside its sites, or a metric
 * outside its scopes. graphql/ answers it FORBIDDEN
 * (src/graphql/errors/formatError.ts), its field null, the fields beside it
 * answered; a subscription is refused with it before any table is asked.
 */
export class ReadForbidden extends Error {
  override readonly name = 'ReadForbidden';
}
