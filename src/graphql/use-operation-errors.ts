// A mutation or subscription passes graphql-js's validation on a schema without that root type and
// fails at execution with an error that has no code; this refuses it first, as BAD_REQUEST. Nothing
// has run, so the answer has no `data`: 400 in application/graphql-response+json, 200 in
// application/json (GraphQL over HTTP's `spec` status, which Yoga applies by the negotiated type).
import { type DocumentNode, type GraphQLError, type GraphQLSchema, getOperationAST, OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { codedError } from '../domain/coded-error.js';
import { forFreeFormDocuments } from './builder.js';

const REQUEST_ERROR = { status: 400, spec: true };

interface Execution {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  contextValue: unknown;
}

export function operationErrors({ schema, document, operationName }: Execution): GraphQLError[] {
  const operation = getOperationAST(document, operationName);
  // No operation to choose: Yoga refuses the request before this (OPERATION_RESOLUTION_FAILURE, a 400).
  if (!operation || schema.getRootType(operation.operation)) return [];
  const kind = operation.operation === OperationTypeNode.MUTATION ? 'mutations' : 'subscriptions';
  return [
    codedError('BAD_REQUEST', `This API is read-only and has no ${kind}: only queries are served`, { nodes: [operation], extensions: { http: REQUEST_ERROR } }),
  ];
}

export function useOperationErrors(): Plugin {
  // Not called for the REST facade's executions: every REST document is a query (rest/use-rest.ts
  // checks each with operationErrors when the app starts), so this would find nothing in one.
  const check = forFreeFormDocuments(
    ({ args, setResultAndStopExecution }: { args: Execution; setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void }) => {
      const errors = operationErrors(args);
      if (errors.length > 0) setResultAndStopExecution({ errors });
    },
  );
  return { onExecute: check, onSubscribe: check };
}
