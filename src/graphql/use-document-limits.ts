// Every bound on a free-form GraphQL document, each checked before the work it protects:
//   body size   before the body is read whole (Content-Length, then while it streams): 413
//   tokens      before the document is parsed (the lexer counts them)
//   aliases     at validation, `__typename` ones included
//   `then`      at validation: a response name the executor cannot deliver (see below)
//   cost        before execution, over the whole operation: depth, breadth and cost with the
//               model of @pothos/plugin-complexity (builder.ts), plus introspection, costed by
//               what it returns (introspection-cost.ts)
// Together they bound the time one document can hold the event loop and the size of its response.
// The REST facade's fixed documents are not checked: they are neither parsed nor validated per
// request, and each is bounded by its route.
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { ComplexityErrorKind, complexityFromQuery } from '@pothos/plugin-complexity';
import {
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  Kind,
  Lexer,
  parse,
  Source,
  TokenKind,
  type ValidationContext,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { codedError, httpOf } from '../domain/coded-error.js';
import { COMPLEXITY_CODES, complexityError, forFreeFormDocuments, QUERY_LIMITS } from './builder.js';
import { introspectionCost } from './introspection-cost.js';
import { perOperation } from './per-operation.js';

/** Aliases in one operation, `__typename` ones included. */
export const MAX_ALIASES = 15;
/**
 * Lexical tokens in one document (graphql-armor's default). GraphiQL's introspection query has
 * 184, the REST documents at most 159 with their fragments, a query selecting QUERY_LIMITS.breadth
 * fields about 420. It also bounds validation: graphql-js compares same-named fields pairwise.
 */
export const MAX_TOKENS = 1_000;
/** Bytes of a POST /graphql body (query and variables), or of a GET /graphql query string. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Response names refused at validation, see reservedResponseNames. */
const RESERVED_RESPONSE_NAMES: ReadonlySet<string> = new Set(['then']);

export function useDocumentLimits(): Plugin[] {
  return [
    useBodyLimit(),
    useTokenLimit(),
    maxAliasesPlugin({
      n: MAX_ALIASES,
      // The library exempts `__typename` by default: 400,000 aliased `__typename`s held the event
      // loop for 13 s.
      allowList: [],
      propagateOnRejection: false,
      onReject: [
        (context, error) =>
          context?.reportError(codedError('TOO_MANY_ALIASES', error.message.replace(/^Syntax Error: /, ''), { extensions: { limit: MAX_ALIASES } })),
      ],
    }) as Plugin,
    {
      onValidate({ addValidationRule }) {
        addValidationRule(reservedResponseNames);
      },
    },
    useOperationCost(),
  ];
}

function tooLarge(headers: Record<string, string> = {}): GraphQLError {
  return codedError('REQUEST_TOO_LARGE', `The request is too large: at most ${MAX_BODY_BYTES} bytes of query and variables`, {
    extensions: { limit: MAX_BODY_BYTES, http: httpOf('REQUEST_TOO_LARGE', { status: 413, headers }) },
  });
}

/**
 * Yoga reads a POST body whole before it looks at it; this plugin puts a reader with a cap in
 * front of the parser Yoga chose for the content type, so a large body is refused unread.
 */
function useBodyLimit(): Plugin {
  return {
    onRequestParse({ request, url, requestParser, setRequestParser, fetchAPI }) {
      if (!requestParser) return;
      if (request.method === 'GET' || request.method === 'HEAD') {
        if (url.search.length > MAX_BODY_BYTES)
          setRequestParser(() => {
            throw tooLarge();
          });
        return;
      }
      setRequestParser(async (incoming) => {
        const length = incoming.headers.get('content-length');
        const declared = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
        // Refused before a byte is read: Node discards the unread body and keeps the connection.
        if (declared !== undefined && declared > MAX_BODY_BYTES) throw tooLarge();
        // Node's parser delivers exactly a declared Content-Length (it refuses one that is not a
        // single number), so such a body is read whole, without a stream reader per request (the
        // length is checked again for a Request built in-process); a body of unknown length is
        // read under the cap as it streams.
        const body = !incoming.body
          ? ''
          : declared !== undefined
            ? await incoming.text().then((text) => (Buffer.byteLength(text) > MAX_BODY_BYTES ? undefined : text))
            : await readAtMost(incoming.body, MAX_BODY_BYTES);
        // Part of the body is left unread: the connection cannot carry another request.
        if (body === undefined) throw tooLarge({ Connection: 'close' });
        if (body === '') throw codedError('BAD_REQUEST', 'The POST body is empty: send the query as JSON', { extensions: { http: { status: 400 } } });
        return requestParser(new fetchAPI.Request(incoming.url, { method: incoming.method, headers: incoming.headers, body }));
      });
    },
  };
}

/**
 * The stream's text, or undefined as soon as it has more than `limit` bytes. (Text: every body
 * this API takes is JSON, a GraphQL string or a form; the schema has no file uploads.)
 */
async function readAtMost(stream: ReadableStream<Uint8Array>, limit: number): Promise<string | undefined> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks, size).toString('utf8');
      size += value.byteLength;
      if (size > limit) return undefined;
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Counts tokens with graphql-js's own lexer before parsing, so the parser never builds the AST of
 * a document over the limit. (graphql-js's `maxTokens` parse option does the same, but tells its
 * error apart from a syntax error only by the message's wording.)
 */
function useTokenLimit(): Plugin {
  return {
    onParse({ setParseFn }) {
      setParseFn((source, options) => {
        const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
        let tokens = 0;
        while (lexer.advance().kind !== TokenKind.EOF) {
          if (++tokens > MAX_TOKENS) {
            throw codedError('TOO_MANY_TOKENS', `The document has more than ${MAX_TOKENS} tokens (names, punctuation, values); send a smaller query`, {
              extensions: { limit: MAX_TOKENS, http: httpOf('TOO_MANY_TOKENS') },
            });
          }
        }
        return parse(source, options);
      });
    },
  };
}

/**
 * Graphql-yoga's executor (@graphql-tools/executor, through @whatwg-node/promise-helpers) takes
 * every value with a non-null `then` for a promise, result objects included: an alias `then`
 * failed every object it appeared in with "completedItem.then is not a function", one error per
 * list item. That check runs on every value in the executor and in envelop and Yoga around it, so
 * the name is refused here, with an error that says why, instead of patched at each place.
 */
function reservedResponseNames(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      const name = (node.alias ?? node.name).value;
      if (!RESERVED_RESPONSE_NAMES.has(name)) return;
      context.reportError(
        codedError(
          'RESERVED_ALIAS',
          `"${name}" cannot be a response name (alias): this server would take the object holding it for a promise; choose another alias`,
          {
            nodes: [node],
            extensions: { alias: name },
          },
        ),
      );
    },
  };
}

/**
 * Depth, breadth and cost of the whole operation, before it runs. @pothos/plugin-complexity checks
 * them only inside root fields' resolvers, so a document of `__typename`s and introspection was
 * never costed; here every field counts, and introspection subtrees cost the fields they return.
 */
function useOperationCost(): Plugin {
  return {
    // Not called for the REST facade's executions: its fixed documents are exempt (the header says why).
    onExecute: forFreeFormDocuments(({ args, setResultAndStopExecution }) => {
      const error = costOf(args.schema, args.document, args.operationName ?? undefined, args.variableValues ?? {}, args.contextValue);
      if (error) setResultAndStopExecution({ errors: [error] });
    }),
  };
}

/**
 * The verdict on an operation without variables, by the parsed document (Yoga keeps one per query
 * text), so a document sent again is not costed again: its cost depends only on the document and
 * the variables (no field's cost reads the context).
 */
const verdicts = perOperation<GraphQLError | undefined>();

function costOf(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variableValues: Record<string, unknown>, context: unknown) {
  const verdict = () => operationCostError(schema, document, operationName, variableValues, context);
  return Object.keys(variableValues).length > 0 ? verdict() : verdicts(document, operationName, verdict);
}

function operationCostError(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variableValues: Record<string, unknown>,
  context: unknown,
): GraphQLError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const variables = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues, { maxErrors: 1 });
  // Variables that do not fit: execution refuses the operation with its own error.
  if (variables.errors) return undefined;
  const { depth, breadth, complexity } = complexityFromQuery(
    { kind: Kind.DOCUMENT, definitions: [operation, ...Object.values(fragments)] },
    { schema, variables: variableValues, ctx: context as object },
  );
  const total = complexity + introspectionCost(schema, operation.selectionSet, fragments, variables.coerced, QUERY_LIMITS.complexity);
  const result = {
    depth,
    breadth,
    complexity: total,
    maxDepth: QUERY_LIMITS.depth,
    maxBreadth: QUERY_LIMITS.breadth,
    maxComplexity: QUERY_LIMITS.complexity,
  };
  const kind =
    depth > QUERY_LIMITS.depth
      ? ComplexityErrorKind.Depth
      : breadth > QUERY_LIMITS.breadth
        ? ComplexityErrorKind.Breadth
        : total > QUERY_LIMITS.complexity
          ? ComplexityErrorKind.Complexity
          : undefined;
  if (!kind) return undefined;
  const error = complexityError(kind, result);
  // Nothing ran: a request error, like a document that fails validation.
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: httpOf(COMPLEXITY_CODES[kind]) } });
}
