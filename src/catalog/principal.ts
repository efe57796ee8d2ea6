/** Who is calling. Built from a verified credential only; every read is scoped by tenantId. */
export const Role = { Agent: 'agent', TenantAdmin: 'tenant-admin', HostAdmin: 'host-admin' } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const ROLES: readonly Role[] = ['agent', 'tenant-admin', 'host-admin'];

export interface Principal {
  readonly id: string;
  readonly tenantId: string;
  readonly tenantName: string;
  readonly name: string;
  readonly role: Role;
}

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}
