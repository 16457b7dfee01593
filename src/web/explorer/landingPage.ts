import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { LandingPage } from '../../config';
import { explorerPage } from './page';

/** The Apollo plugin that answers a browser's GET /graphql, per LANDING_PAGE. */
export function landingPagePlugin(choice: LandingPage): ApolloServerPlugin<BaseContext> {
  switch (choice) {
    case 'sandbox':
      return ApolloServerPluginLandingPageLocalDefault({ footer: false });
    case 'offline':
      return offlineExplorerPlugin();
    case 'none':
      return ApolloServerPluginLandingPageDisabled();
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
