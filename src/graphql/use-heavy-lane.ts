// Hands a heavy GraphQL document (limits/heavy-lane.ts: a field whose units grow with its
// arguments, such as a year of hourly buckets) to the heavy lane's worker once this thread has
// admitted it and taken its units (builder.ts, before this plugin), and answers with the
// worker's finished response: its status, media type and bytes, never its objects. The REST facade
// hands its heavy routes over itself (rest/use-rest.ts), before it builds a context.
import type { ExecutionResult } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { type HeavyWork, isHeavy } from '../limits/heavy-lane.js';
import { stateOf } from '../request/state.js';
import type { GraphQLContext } from './builder.js';
import { isRestExecution, refusesFields, unitsTaken } from './builder.js';

export function useHeavyLane(lane: HeavyWork): Plugin {
  const answers = new WeakMap<Request, Response>();
  return {
    onExecute({ args, setExecuteFn }) {
      const context = args.contextValue as Partial<GraphQLContext> & Partial<YogaInitialContext>;
      const { key, request, params } = context;
      // Without the client's own text the worker would report other line and column numbers; a
      // field the per-field limit refused must fail here, where that decision was taken.
      if (!key || !request || typeof params?.query !== 'string' || isRestExecution(context) || refusesFields(context)) return;
      // The units the concurrency limit just took for this execution (builder.ts): heavy
      // by its root fields' own units (units by arguments), not by what their nested fields hold.
      const units = unitsTaken(context);
      if (!units || !isHeavy(units.map((field) => field.own))) return;
      setExecuteFn(async () => {
        const admitted = stateOf(request).admitted;
        const response = await lane.serve({
          method: 'POST',
          url: request.url,
          headers: [
            ['content-type', 'application/json'],
            ['accept', request.headers.get('accept') ?? '*/*'],
            ['x-request-id', stateOf(request).id],
          ],
          body: JSON.stringify({ query: params.query, variables: params.variables, operationName: params.operationName, extensions: params.extensions }),
          key,
          quota: admitted?.ok ? admitted.quota : undefined,
        });
        answers.set(request, response);
        // What this thread's hooks see of the execution: its result is in the response.
        return { data: null } satisfies ExecutionResult;
      });
    },
    // After useGraphQLOverHttp's (the last processor set is the one Yoga uses).
    onResultProcess({ request, setResultProcessor }) {
      const response = answers.get(request);
      if (!response) return;
      answers.delete(request);
      setResultProcessor(() => response, response.headers.get('content-type') ?? 'application/json');
    },
  };
}
