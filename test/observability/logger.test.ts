import { Writable } from 'node:stream';
import { createLogger } from '../../src/observability/logger';
import { Secret } from '../../src/redaction/secret';

function captureLogs(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  test('redacts passwords, tokens and authorization headers at the usual depths', () => {
    const { lines, stream } = captureLogs();
    const logger = createLogger({ logLevel: 'info' }, stream);

    logger.info(
      { password: 'pw-1', token: 'tok-1', body: { password: 'pw-2' }, request: { headers: { authorization: 'Bearer tok-2' } } },
      'm',
    );
    logger.info({ config: { upstream: { password: new Secret('pw-3') } } }, 'n');

    const output = lines.join('');
    for (const secret of ['pw-1', 'tok-1', 'pw-2', 'tok-2', 'pw-3']) expect(output).not.toContain(secret);
    expect(JSON.parse(lines[0])).toMatchObject({ password: '[redacted]', token: '[redacted]', body: { password: '[redacted]' }, msg: 'm' });
  });

  test('honours the configured level', () => {
    const { lines, stream } = captureLogs();
    const logger = createLogger({ logLevel: 'warn' }, stream);

    logger.info('hidden');
    logger.warn('shown');

    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['shown']);
  });
});
