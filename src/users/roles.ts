/** What a user of a team may do (contract.md section 8). */
export type Role = 'owner' | 'admin' | 'member';

export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export const isRole = (value: unknown): value is Role => ROLES.includes(value as Role);

/** Changes anything of the team's: rooms, documents, links, keys, webhooks. */
export const canChange = (role: Role): boolean => role === 'owner' || role === 'admin';

/** Invites, changes and removes the team's users. */
export const canManageUsers = (role: Role): boolean => role === 'owner';
