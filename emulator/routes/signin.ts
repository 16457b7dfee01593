import { primaryRole } from '../auth/roles';
import { checkSignIn } from '../auth/signIn';
import type { EmulatorContext } from '../context';
import type { EmulatorRequest } from '../http/request';
import { failureReply, json, tooManyRequests } from '../http/reply';
import type { Handler } from '../http/router';
import { instrument } from '../control/instrument';
import { invalidParams, ok, type Outcome } from '../outcome';
import type { User } from '../store';
import { FieldReader, isRecord } from '../validation/fields';

interface Credentials {
  email: string;
  password: string;
}

/** `POST /api/user/signin` (docs/upstream-contract.md §1). */
export function signInRoute(context: EmulatorContext): Handler {
  return instrument('signin', signInStatsKey, context.instruments, async (request) => {
    const body = await request.json();
    if (!body.ok) return failureReply(body);
    const credentials = parseCredentials(body.value);
    if (!credentials.ok) return failureReply(credentials);
    const { email, password } = credentials.value;
    // Limited per email before the password is checked: that is what stops guessing.
    const decision = context.limits.signin.take(`email:${email.toLowerCase()}`);
    if (!decision.allowed) return tooManyRequests(decision.retryAfterSeconds);
    const outcome = await checkSignIn(context.store, email, password, context.dummyVerification);
    if (!outcome.ok) return failureReply(outcome);
    const token = await context.tokens.issue(outcome.value);
    return json(200, signInResponse(outcome.value, token));
  });
}

async function signInStatsKey(request: EmulatorRequest): Promise<string> {
  const body = await request.json();
  const email = body.ok && isRecord(body.value) ? body.value.email : undefined;
  return typeof email === 'string' ? email.toLowerCase() : '';
}

function parseCredentials(body: unknown): Outcome<Credentials> {
  if (!isRecord(body)) return invalidParams([{ path: 'body', message: 'must be a JSON object {email, password}' }]);
  const fields = new FieldReader(body);
  const email = fields.string('email', { required: true });
  const password = fields.string('password', { required: true });
  if (email === undefined || password === undefined) return invalidParams(fields.errors);
  return ok({ email, password });
}

function signInResponse(user: User, token: string) {
  const site = user.organization;
  return {
    id: user.id,
    name: user.name,
    surname: user.surname,
    email: user.email,
    registered: new Date(user.registered).toISOString(),
    langIso: null,
    timezoneId: null,
    dataRules: null,
    sitesId: site.id,
    updatedAt: new Date(user.updatedAt).toISOString(),
    Timezone: null,
    Site: { id: site.id, name: site.name, domain: site.domain },
    token,
    role: primaryRole(user),
  };
}
