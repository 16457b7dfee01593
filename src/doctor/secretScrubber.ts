/** What stands in for a secret that would otherwise have been printed. */
const REDACTED = '[redacted]';

/**
 * Shorter values are not scrubbed: a three-letter password would blank out
 * ordinary words of the output and so reveal itself rather than hide.
 */
const MIN_SCRUBBED_LENGTH = 4;

/**
 * The last line of defence for the doctor's output: no check prints a
 * password or a token on purpose, but an upstream's error message may echo
 * one back, so every line passes through here. A secret is also looked for in
 * the forms it travels in (JSON-escaped, base64, URL-encoded).
 */
export class SecretScrubber {
  private readonly forms: string[] = [];

  add(secret: string | undefined): void {
    if (secret === undefined || secret.length < MIN_SCRUBBED_LENGTH) return;
    const candidates = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret, 'utf8').toString('base64'),
      Buffer.from(secret, 'utf8').toString('base64url'),
      encodeURIComponent(secret),
    ];
    for (const form of candidates) if (!this.forms.includes(form)) this.forms.push(form);
    // Longest first, so a form that contains another is replaced whole.
    this.forms.sort((a, b) => b.length - a.length);
  }

  scrub(text: string): string {
    return this.forms.reduce((scrubbed, form) => scrubbed.split(form).join(REDACTED), text);
  }
}
