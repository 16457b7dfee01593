import { hashTagged } from '../../src/redis/connection/client';

describe('the key prefix a cluster hashes on', () => {
  test.each([
    ['analytics-subgraph:', '{analytics-subgraph:}'],
    ['team-a:{analytics}:', 'team-a:{analytics}:'],
    // Redis hashes on the first `{…}` only, and an empty one does not count.
    ['a{}b{c}:', '{a{}b{c}:}'],
    ['{x', '{{x}'],
  ])('%s → %s', (prefix, tagged) => {
    expect(hashTagged(prefix)).toBe(tagged);
  });
});
