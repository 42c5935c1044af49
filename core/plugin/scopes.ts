/** The closed scope enum (spec §5.2). */
export const SCOPES = ['records:read', 'records:write', 'threads:write', 'federation:manage', 'config:read', 'config:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];
