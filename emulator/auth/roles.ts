import type { User } from '../store';

const API_ROLE_MISSING = 'API role not enabled for this user';
export const SSO_ADMIN_REFUSED = 'Admin users cannot use the API when SSO is enforced';
export const SSO_API_PASSWORD_MISSING = 'Set an API password with the forgot-password option';

/**
 * Why a user whose credentials are right may still not use the API, or null
 * when they may. Checked at sign-in and again on every bearer request, so a
 * role removed after sign-in takes effect at once.
 */
export function apiAccessRefusal(user: User): string | null {
  if (user.organization.ssoEnforced && user.roles.includes('admin')) return SSO_ADMIN_REFUSED;
  if (!user.roles.includes('api')) return API_ROLE_MISSING;
  return null;
}

/** The role name the sign-in response reports: the most privileged one. */
export function primaryRole(user: User): string {
  if (user.roles.includes('admin')) return 'admin';
  if (user.roles.includes('api')) return 'api';
  return user.roles[0] ?? 'none';
}
