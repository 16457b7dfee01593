import { SecretScrubber } from '../../src/doctor/secretScrubber';

describe("the doctor's secret scrubber", () => {
  const secret = 'pa"ss\\wörd/+?';

  it.each([
    ['as is', secret],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
    ['base64', Buffer.from(secret).toString('base64')],
    ['base64url', Buffer.from(secret).toString('base64url')],
    ['URL-encoded', encodeURIComponent(secret)],
  ])('replaces a secret %s, every time it occurs', (_form, shown) => {
    const scrubber = new SecretScrubber();
    scrubber.add(secret);
    expect(scrubber.scrub(`a ${shown} b ${shown}`)).toBe('a [redacted] b [redacted]');
  });

  it('keeps other text, and ignores secrets too short to hide without blanking ordinary words', () => {
    const scrubber = new SecretScrubber();
    scrubber.add('abc');
    scrubber.add(undefined);
    expect(scrubber.scrub('abc and more')).toBe('abc and more');
  });

  it('replaces several secrets, a longer one whole even when it contains a shorter one', () => {
    const scrubber = new SecretScrubber();
    scrubber.add('token');
    scrubber.add('token-and-more');
    expect(scrubber.scrub('x token-and-more y token z')).toBe('x [redacted] y [redacted] z');
  });
});
