// The app's own pages, those that need no API key: health, /metrics, the reference (/docs and the
// OpenAPI document), GraphiQL's files, and the front door (/ and the REST index /api/v1). The
// path was matched once (app-routes.ts), and unknown paths and methods refused (useRoutes, there);
// this plugin calls the page the route's area names, so a REST or GraphQL request runs no page's
// code at all. It runs before admission: no page is authenticated or counted against a key.
//
// GraphiQL's page itself is Yoga's answer at /graphql (app.ts's `graphiql` option, use-graphiql.ts
// renders it); the request is marked when Yoga renders it, and only then are the page's own
// headers added to the answer.
import type { Plugin } from 'graphql-yoga';
import { stateOf } from '../request/state.js';
import { type AppRoute, routeOf } from './app-routes.js';

/** The areas (app-routes.ts) whose paths are pages. */
export type PageArea = 'health' | 'metrics' | 'docs' | 'graphiql' | 'front-door';

/** A page: the answer to a GET or HEAD of one of its area's paths (its route says which). */
export type Page<A extends PageArea = PageArea> = (
  request: Request,
  route: AppRoute & { area: A },
  fetchAPI: { Response: typeof Response },
) => Response | Promise<Response>;

export type Pages = { [A in PageArea]?: Page<A> } & {
  /** Adds its own headers to GraphiQL's page, which Yoga renders (`rendersGraphiQL`). */
  graphiqlPage?: (response: Response) => void;
};

declare module '../request/state.js' {
  interface RequestState {
    /** Yoga answers it with GraphiQL's page (app.ts's `graphiql` option said so). */
    graphiqlPage?: boolean;
  }
}

/** `options`, and the request marked as answered by GraphiQL's page (for createYoga's `graphiql` option). */
export function rendersGraphiQL<T>(request: Request, options: T): T {
  stateOf(request).graphiqlPage = true;
  return options;
}

export function usePages(pages: Pages): Plugin {
  const pageOf = pages as Partial<Record<AppRoute['area'], Page>>;
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const route = routeOf(request, url);
      const page = pageOf[route.area];
      if (!page) return;
      return Promise.resolve(page(request, route as AppRoute & { area: PageArea }, fetchAPI)).then(endResponse);
    },
    onResponse({ request, response }) {
      if (stateOf(request).graphiqlPage) pages.graphiqlPage?.(response);
    },
  };
}
