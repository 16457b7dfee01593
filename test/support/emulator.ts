import { DEMO_API_USER, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator';

/** A small, quiet emulator on a free port; the caller closes it in afterAll. */
export function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ port: 0, scale: 0.01, ...options });
}

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: T;
}

export interface CallOptions {
  method?: string;
  /** Sent as JSON unless it is already a string. */
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

/**
 * One HTTP call to the emulator. `T` is what the test expects the body to be;
 * every response is also checked to be JSON (or empty for 204).
 */
export async function call<T = unknown>(emulator: RunningEmulator, path: string, options: CallOptions = {}): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${emulator.url}${path}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  if (response.status === 204) {
    if (text !== '') throw new Error(`204 from ${path} carried a body: ${text}`);
    return { status: response.status, headers: response.headers, body: undefined as T };
  }
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('application/json')) {
    throw new Error(`${path} answered ${response.status} with content-type "${contentType}"`);
  }
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as T };
}

export interface SignInBody {
  id: number;
  name: string;
  surname: string;
  email: string;
  registered: string;
  langIso: null;
  timezoneId: null;
  dataRules: null;
  sitesId: number;
  updatedAt: string;
  Timezone: null;
  Site: { id: number; name: string; domain: string };
  token: string;
  role: string;
}

export interface ErrorBody {
  msg: string;
  errors?: { path: string; message: string }[];
}

export function signIn(emulator: RunningEmulator, email: string, password: string) {
  return call<SignInBody & ErrorBody>(emulator, '/api/user/signin', { body: { email, password } });
}

/** A token of the demo API user. */
export async function apiToken(emulator: RunningEmulator): Promise<string> {
  const response = await signIn(emulator, DEMO_API_USER.email, DEMO_API_USER.password);
  if (response.status !== 200) throw new Error(`demo sign-in failed with ${response.status}`);
  return response.body.token;
}

/** A valid dashboard body (page views, last 30 days, daily); `overrides` replace top-level fields. */
export function dashboardQuery(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    dates: { last: { number: 30, dimension: 'day' } },
    filters: [],
    groupBy: [],
    metrics: ['pageViewsTotal'],
    order: { metric: 'pageViewsTotal', sort: 'DESC' },
    granularity: 'daily',
    ...overrides,
  };
}
