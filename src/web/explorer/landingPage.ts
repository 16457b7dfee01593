import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { LandingPage } from '../../config';
import { CONTENT_SECURITY_POLICY, explorerPage } from './page';
import { withOfflineHint } from './sandboxOfflineNotice';

/** The Apollo plugin that answers a browser's GET /graphql, per LANDING_PAGE. */
export function landingPagePlugin(choice: LandingPage): ApolloServerPlugin<BaseContext> {
  switch (choice) {
    case 'sandbox':
      return sandboxWithOfflineHint();
    case 'offline':
      return offlineExplorerPlugin();
    case 'none':
      return ApolloServerPluginLandingPageDisabled();
  }
}

/** No page of ours may be framed by another site (clickjacking): the header form, since a meta tag cannot say it. */
const NOT_FRAMED = { 'content-security-policy': "frame-ancestors 'none'", 'x-frame-options': 'DENY' } as const;

/**
 * The headers of the HTML page a browser's GET /graphql gets. Apollo's
 * landing-page hook returns HTML only, so src/web/graphqlHandler.ts adds these
 * to a text/html answer. The offline explorer's whole policy travels here; the
 * Sandbox keeps its own (a meta tag Apollo writes) and gets only the framing rule.
 */
export function landingPageHeaders(choice: LandingPage): Readonly<Record<string, string>> {
  switch (choice) {
    case 'sandbox':
      return NOT_FRAMED;
    case 'offline':
      return { ...NOT_FRAMED, 'content-security-policy': CONTENT_SECURITY_POLICY };
    case 'none':
      return {};
  }
}

function offlineExplorerPlugin(): ApolloServerPlugin<BaseContext> {
  const html = explorerPage();
  return {
    async serverWillStart() {
      return { renderLandingPage: async () => ({ html }) };
    },
  };
}

/** Apollo's Sandbox page, whose offline fallback also says how to get the bundled explorer. */
function sandboxWithOfflineHint(): ApolloServerPlugin<BaseContext> {
  const sandbox = ApolloServerPluginLandingPageLocalDefault({ footer: false });
  return {
    async serverWillStart(service) {
      const listener = await sandbox.serverWillStart?.(service);
      const render = listener?.renderLandingPage;
      if (!render) throw new Error("Apollo's Sandbox plugin rendered no landing page");
      return {
        async renderLandingPage() {
          const page = await render();
          // A function: Apollo renders the page per request (a fresh nonce for its inline scripts).
          return { html: async () => withOfflineHint(typeof page.html === 'string' ? page.html : await page.html()) };
        },
      };
    },
  };
}
