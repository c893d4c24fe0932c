// The filters of interaction lists that read patient data: `search` (a substring of the phone
// number) and `text` (REST `q`, full-text search of what was said). A key without `phi:read` may
// not use them (decisions section 11): 403 INSUFFICIENT_SCOPE with `required_scope: phi:read`,
// judged before the values of the arguments, as every scope is (decisions section 1).
import type { GraphQLError } from 'graphql';
import { codedError } from '../domain/coded-error.js';
import { type ParameterNames, PHI_FILTER_KEYS, type PhiFilterKey } from '../filters/interaction-filters.js';
import { PHI_SCOPE, readsPhi } from './masking.js';

/** The filters that need `phi:read`, by their GraphQL argument names (declared so in filters/interaction-filters.ts). */
export const PHI_FILTERS = PHI_FILTER_KEYS;
export type PhiFilter = PhiFilterKey;

/** The first filter of `args` that needs `phi:read`, if any is sent (an empty value counts: it is sent). */
export function phiFilterOf(args: { readonly [K in PhiFilter]?: unknown }): PhiFilter | undefined {
  return PHI_FILTERS.find((name) => args[name] != null);
}

/** The message of the refusal, naming the parameter as the caller does. */
export function phiScopeMessage(parameter: string): string {
  return `This API key lacks the scope ${PHI_SCOPE} needed to filter by ${parameter}`;
}

/** The error of a list field asked for a filter the key may not use, or undefined. */
export function phiScopeError(
  context: { key: { readonly scopes: readonly string[] }; parameters: { names: ParameterNames } },
  args: { readonly [K in PhiFilter]?: unknown },
): GraphQLError | undefined {
  if (readsPhi(context.key)) return undefined;
  const used = phiFilterOf(args);
  if (!used) return undefined;
  const names = context.parameters.names as Partial<Record<PhiFilter, string>>;
  return codedError('INSUFFICIENT_SCOPE', phiScopeMessage(names[used] ?? used), { extensions: { details: { required_scope: PHI_SCOPE } } });
}

/**
 * Refuses a list whose arguments use `search` or `text` when the key lacks `phi:read`. Called by
 * every interaction list (root, cursor, nested) before its arguments are checked.
 */
export function requirePhiScope(
  context: { key: { readonly scopes: readonly string[] }; parameters: { names: ParameterNames } },
  args: { readonly [K in PhiFilter]?: unknown },
): void {
  const error = phiScopeError(context, args);
  if (error) throw error;
}

/** The values of the PHI filters in a REST query, found by the caller's names for them. */
export function phiArgumentsOf(query: Readonly<Record<string, string | undefined>>, names: ParameterNames): { [K in PhiFilter]?: string } {
  const named = names as Partial<Record<PhiFilter, string>>;
  return Object.fromEntries(PHI_FILTERS.map((filter) => [filter, named[filter] === undefined ? undefined : query[named[filter]]]));
}
