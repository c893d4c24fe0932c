// Executions compiled to JavaScript (graphql-jit) where that pays off: the REST facade's fixed
// documents always, and a free-form /graphql document once it is hot (executed HOT_FROM times;
// Yoga's parser cache hands each repeat the same DocumentNode). A year of daily metrics is 365
// objects of 9 fields, which graphql-js resolves one field at a time; what an application sends over
// and over runs compiled, while a document sent once or twice (a developer in GraphiQL, a client
// sending a new document on every request) never pays for a compilation. The compiled and the
// reference executor answer alike (test/rest/jit-equivalence.test.ts, test/graphql/hot-documents.test.ts).
//
// Not @envelop/graphql-jit: it keeps one compilation per document whatever operation is asked, so
// once a document of two operations was hot, asking for the second answered the first; and it keeps a
// failed compilation (an operation name the document lacks) as that document's answer. Here a
// compilation is kept per document and operation name, and a document that does not compile runs on
// the reference executor, which gives the usual errors.
//
// It must come before any plugin that hands an execution elsewhere (useHeavyLane): the last executor
// set is the one that runs.
import { isPromise, makeExecute } from '@envelop/core';
import {
  BREAK,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLBoolean,
  GraphQLError,
  GraphQLFloat,
  GraphQLInt,
  GraphQLString,
  type Source,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { isRestExecution } from './builder.js';
import { perOperation } from './per-operation.js';

/** Executions of one free-form document after which it runs compiled. */
export const HOT_FROM = 3;

export function useCompiledExecution(): Plugin {
  /** Executions of each free-form document so far; -1: never compiled (see namesProto). */
  const seen = new WeakMap<DocumentNode, number>();
  const isHot = (document: DocumentNode) => {
    const count = seen.get(document) ?? 0;
    if (count < 0) return false;
    if (count >= HOT_FROM) return true;
    if (count + 1 < HOT_FROM) {
      seen.set(document, count + 1);
      return false;
    }
    // Checked once, when it becomes hot: graphql-jit builds answers as object literals, where a
    // response name `__proto__` would set the prototype instead of a member.
    const compiles = !namesProto(document);
    seen.set(document, compiles ? HOT_FROM : -1);
    return compiles;
  };

  /** Per document, per operation name: its compilation, or null when it does not compile. */
  const compiled = perOperation<CompiledQuery | null>();
  const compilationOf = (args: ExecutionArgs): CompiledQuery | null => {
    const operationName = args.operationName ?? undefined;
    return compiled(args.document, operationName, () => {
      const result = compileQuery(args.schema, args.document, operationName, { customSerializers: FAST_LEAVES });
      return isCompiledQuery(result) ? result : null;
    });
  };

  return {
    onExecute({ args, setExecuteFn }) {
      if (!isRestExecution(args.contextValue) && !isHot(args.document)) return;
      const compilation = compilationOf(args);
      if (!compilation) return;
      // Yoga writes the answer with the compilation's serializer when the result has one.
      const withStringify = (result: ExecutionResult) => Object.assign(result, { stringify: compilation.stringify });
      setExecuteFn(
        makeExecute((execution) => {
          const result = compilation.query(execution.rootValue, execution.contextValue, execution.variableValues ?? {});
          return isPromise(result) ? result.then(withStringify) : withStringify(result);
        }),
      );
      // graphql-jit's field errors carry their `locations` but not the nodes or positions they came
      // from, which is what every later step (ours, Yoga's) rebuilds an error from: without this the
      // locations would be lost and a compiled answer would differ from the reference one.
      return {
        onExecuteDone: ({ result, setResult }) => {
          if (!('errors' in result) || !result.errors?.some(isUnplaced)) return;
          const source = args.document.loc?.source;
          if (source) setResult({ ...result, errors: result.errors.map((error) => (isUnplaced(error) ? placed(error, source) : error)) });
        },
      };
    },
  };
}

/** An error with locations but nothing to compute them from (graphql-jit's). */
const isUnplaced = (error: GraphQLError) => error.locations !== undefined && error.nodes === undefined && error.positions === undefined;

/** The same error, placed in `source` by the positions of its locations (GraphQLError computes them back). */
function placed(error: GraphQLError, source: Source): GraphQLError {
  const lineStarts = [0];
  for (const match of source.body.matchAll(/\r\n|[\n\r]/g)) lineStarts.push((match.index ?? 0) + match[0].length);
  const positions = (error.locations ?? []).map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1);
  return new GraphQLError(error.message, { source, positions, path: error.path, originalError: error.originalError, extensions: error.extensions });
}

/** Whether a document names a field or alias `__proto__` (answered by the reference executor alone). */
function namesProto(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__proto__' || node.alias?.value === '__proto__') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

const MAX_INT = 2 ** 31 - 1;
const MIN_INT = -(2 ** 31);

/**
 * The built-in scalars' serializers with a fast path for values that are already what they output
 * (which is what every resolver returns); anything else goes to graphql's own, errors included.
 * graphql's serializers first look for valueOf and toJSON: a tenth of a microsecond per field,
 * 175,000 fields in a year of hourly buckets with a comparison.
 */
const FAST_LEAVES = {
  Int: (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value <= MAX_INT && value >= MIN_INT ? value : GraphQLInt.serialize(value)),
  Float: (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : GraphQLFloat.serialize(value)),
  String: (value: unknown) => (typeof value === 'string' ? value : GraphQLString.serialize(value)),
  Boolean: (value: unknown) => (typeof value === 'boolean' ? value : GraphQLBoolean.serialize(value)),
};
