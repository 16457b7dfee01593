/**
 * The offline explorer, in the browser: GraphiQL 5 against the page's own
 * origin. scripts/buildExplorer.mjs bundles it, with React and Monaco's
 * workers, into dist/explorer/; nothing is loaded from another host.
 */
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import 'graphiql/style.css';
import './page.css';
import { createRoot } from 'react-dom/client';

/** Where the page's script came from: the workers sit beside it. */
const assetsUrl = new URL('.', document.currentScript.src);

// Monaco runs its language services in workers; each is its own bundle on this origin (CSP worker-src 'self').
globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    const name = label === 'json' || label === 'graphql' ? label : 'editor';
    return new Worker(new URL(`${name}.worker.js`, assetsUrl));
  },
};

// The page is served at the GraphQL endpoint itself (GET /graphql with Accept: text/html). Subscriptions go over
// graphql-ws to the same path on the same origin (ws: or wss:, as the page; CSP connect-src 'self' allows it).
const endpoint = new URL(window.location.pathname, window.location.origin);
const fetcher = createGraphiQLFetcher({
  url: endpoint.href,
  subscriptionUrl: endpoint.href.replace(/^http/, 'ws'),
});

// A link can carry an operation: /graphql?query=…&variables=… (Apollo serves this page for any browser GET).
const linked = new URLSearchParams(window.location.search);

createRoot(document.getElementById('explorer')).render(
  <GraphiQL
    fetcher={fetcher}
    initialQuery={linked.get('query') ?? undefined}
    initialVariables={linked.get('variables') ?? undefined}
    defaultEditorToolsVisibility
  />,
);
