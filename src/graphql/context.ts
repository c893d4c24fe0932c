// What every resolver receives. Built once per request, after authentication.
import type { ApiKeyPrincipal } from '../auth/api-keys.js';
import type { Db } from '../db/client.js';
import type { VisibleClinics } from '../filters/visibility.js';
import { createLoaders, type Loaders } from './loaders.js';

export interface GraphQLContext {
  db: Db;
  key: ApiKeyPrincipal;
  /** The clinics this key may see (`null`: all); applied in every query's WHERE. */
  visibleClinics: VisibleClinics;
  loaders: Loaders;
  now: Date;
}

export function createGraphQLContext(db: Db, key: ApiKeyPrincipal, now = new Date()): GraphQLContext {
  const visibleClinics = key.clinicIds && key.clinicIds.length > 0 ? key.clinicIds : null;
  return { db, key, visibleClinics, loaders: createLoaders(db, visibleClinics), now };
}
