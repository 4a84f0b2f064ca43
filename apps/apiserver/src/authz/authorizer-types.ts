// The authorizer types this server builds: @cl/webhook-authz's own (AlwaysAllow, AlwaysDeny, Webhook) and the two
// that read the store (RBAC, Node), which ./builtin supplies to the chain. ABAC is refused at start.
import { SUPPORTED_AUTHORIZER_TYPES } from '@cl/webhook-authz';

export const STORE_AUTHORIZER_TYPES = ['RBAC', 'Node'] as const;
export const SERVER_AUTHORIZER_TYPES: readonly string[] = [...SUPPORTED_AUTHORIZER_TYPES, ...STORE_AUTHORIZER_TYPES];
