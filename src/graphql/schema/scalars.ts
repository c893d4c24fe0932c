import { GraphQLError, Kind } from 'graphql';
import { builder } from '../builder.js';

builder.scalarType('DateTime', {
  description: 'An instant, as an ISO 8601 UTC string with milliseconds, e.g. `2026-01-31T09:05:00.000Z`.',
  serialize: (value) => (value as Date).toISOString(),
  parseValue: (value) => {
    const date = typeof value === 'string' ? new Date(value) : undefined;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO 8601 string');
    return date;
  },
});

builder.scalarType('Date', {
  description: 'A UTC calendar day, `YYYY-MM-DD`.',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new GraphQLError('Date must be YYYY-MM-DD');
    return value;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast) => {
    if (ast.kind === Kind.STRING || ast.kind === Kind.BOOLEAN) return ast.value;
    if (ast.kind === Kind.INT || ast.kind === Kind.FLOAT) return Number(ast.value);
    if (ast.kind === Kind.NULL) return null;
    throw new GraphQLError('JSON literals must be scalars; pass objects as variables');
  },
});
