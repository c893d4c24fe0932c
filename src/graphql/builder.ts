// The Pothos schema builder: configuration only. Types and fields live in ./schema/*.ts.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure } from '@pothos/plugin-scope-auth';
import { GraphQLError } from 'graphql';
import type { Scope } from '../domain/values.js';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { GraphQLContext } from './context.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: Record<Scope, boolean>;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Date: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authScopes: (context) => ({
      'interactions:read': context.key.scopes.includes('interactions:read'),
      'metrics:read': context.key.scopes.includes('metrics:read'),
      'campaigns:read': context.key.scopes.includes('campaigns:read'),
      'clinics:read': context.key.scopes.includes('clinics:read'),
    }),
    unauthorizedError: (_parent, _context, info, result) => {
      const scope = failedScope(result.failure);
      return new GraphQLError(`This API key lacks the scope needed for ${info.parentType.name}.${info.fieldName}${scope ? ` (${scope})` : ''}`, {
        extensions: { code: 'INSUFFICIENT_SCOPE', ...(scope ? { details: { required_scope: scope } } : {}) },
      });
    },
  },
  prisma: {
    client: (context) => context.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
});

/**
 * The scope a failed check asked for. A field's `authScopes: { 'x:read': true }` fails as an
 * "any of" map whose single member is the scope, so the scope sits one level down.
 */
function failedScope(failure: AuthFailure): string | undefined {
  if ('scope' in failure) return failure.scope;
  if ('failures' in failure) {
    for (const inner of failure.failures) {
      const scope = failedScope(inner);
      if (scope) return scope;
    }
  }
  return undefined;
}
