import type { Organization, Role, User } from '../store';
import { hashPassword } from './passwords';

/** The account the subgraph signs in with when it embeds the emulator. */
export const DEMO_API_USER = { email: 'api@demo.example', password: 'demo-api-password' } as const;

export interface DemoCredential {
  email: string;
  password: string;
  /** What signing in with it demonstrates. */
  note: string;
}

// The demo organization's site is the largest generated demo site.
const DEMO_ORGANIZATION: Organization = { id: 1, name: 'The Daily Globe', domain: 'dailyglobe.example', ssoEnforced: false };
const SSO_ORGANIZATION: Organization = { id: 2, name: 'SSO Media', domain: 'sso.example', ssoEnforced: true };

interface DemoUserSpec {
  id: number;
  name: string;
  surname: string;
  email: string;
  roles: Role[];
  organization: Organization;
  /** The web password; SSO organizations have none. */
  password: string | null;
  /** The separate API password an SSO organization requires. */
  apiPassword: string | null;
  /** The password to sign in with, as shown to people trying the emulator. */
  shownPassword: string;
  note: string;
}

const DEMO_USER_SPECS: readonly DemoUserSpec[] = [
  {
    id: 101,
    name: 'Demo',
    surname: 'Integration',
    email: DEMO_API_USER.email,
    roles: ['api'],
    organization: DEMO_ORGANIZATION,
    password: DEMO_API_USER.password,
    apiPassword: null,
    shownPassword: DEMO_API_USER.password,
    note: 'API user, organization without SSO: 200',
  },
  {
    id: 102,
    name: 'Rita',
    surname: 'Reader',
    email: 'reader@demo.example',
    roles: ['editor'],
    organization: DEMO_ORGANIZATION,
    password: 'demo-reader-password',
    apiPassword: null,
    shownPassword: 'demo-reader-password',
    note: 'valid user without the API role: 403',
  },
  {
    id: 201,
    name: 'Ada',
    surname: 'Admin',
    email: 'admin@sso.example',
    roles: ['admin', 'api'],
    organization: SSO_ORGANIZATION,
    password: null,
    apiPassword: 'demo-admin-password',
    shownPassword: 'demo-admin-password',
    note: 'admin of an organization that forces SSO: 403',
  },
  {
    id: 202,
    name: 'Sam',
    surname: 'Service',
    email: 'api@sso.example',
    roles: ['api'],
    organization: SSO_ORGANIZATION,
    password: null,
    apiPassword: 'demo-sso-api-password',
    shownPassword: 'demo-sso-api-password',
    note: 'API user of an SSO organization, signs in with its API password: 200',
  },
  {
    id: 203,
    name: 'Nora',
    surname: 'Nopass',
    email: 'nopass@sso.example',
    roles: ['api'],
    organization: SSO_ORGANIZATION,
    password: null,
    apiPassword: null,
    shownPassword: 'any-password',
    note: 'API user of an SSO organization without an API password (any password): 403',
  },
];

/** Fixed, so sign-in responses are the same on every run. */
const REGISTERED = Date.UTC(2024, 0, 15, 9, 30, 0);
const UPDATED = Date.UTC(2025, 5, 1, 12, 0, 0);

/** Builds the demo users with freshly salted hashes (hashed in parallel: startup stays fast). */
export async function createDemoUsers(): Promise<User[]> {
  // One object per organization per emulator, shared by its users.
  const organizations = new Map<number, Organization>();
  const organizationOf = (spec: DemoUserSpec): Organization => {
    let organization = organizations.get(spec.organization.id);
    if (!organization) {
      organization = { ...spec.organization };
      organizations.set(organization.id, organization);
    }
    return organization;
  };
  return Promise.all(
    DEMO_USER_SPECS.map(async (spec): Promise<User> => ({
      id: spec.id,
      name: spec.name,
      surname: spec.surname,
      email: spec.email,
      passwordHash: spec.password === null ? null : await hashPassword(spec.password),
      apiPasswordHash: spec.apiPassword === null ? null : await hashPassword(spec.apiPassword),
      roles: [...spec.roles],
      organization: organizationOf(spec),
      registered: REGISTERED,
      updatedAt: UPDATED,
    })),
  );
}

export function demoCredentials(): DemoCredential[] {
  return DEMO_USER_SPECS.map((spec) => ({ email: spec.email, password: spec.shownPassword, note: spec.note }));
}
