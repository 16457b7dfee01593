/**
 * The subgraph's upstreams signed in as the emulator's demo API user, with a
 * quiet logger: what most integration tests over the emulator build. Reporting
 * at `reportingBaseUrl` (the emulator, or a recording proxy in front of it).
 */
import { DEMO_API_USER } from '../../emulator';
import { Secret } from '../../src/redaction/secret';
import { createUpstreams, type Upstreams } from '../../src/upstream/upstreams';
import { silentLogger } from './subgraph';
import { upstreamOptions, type UpstreamOptionsOverrides } from './upstreamOptions';

export type DemoUpstreamsOptions = Omit<UpstreamOptionsOverrides, 'email' | 'password' | 'logger' | 'timeoutMs'> & { timeoutMs?: number };

export function demoUpstreams(options: DemoUpstreamsOptions): Upstreams {
  return createUpstreams(
    upstreamOptions({
      email: DEMO_API_USER.email,
      password: new Secret(DEMO_API_USER.password),
      timeoutMs: 10_000,
      logger: silentLogger,
      ...options,
    }),
  );
}
