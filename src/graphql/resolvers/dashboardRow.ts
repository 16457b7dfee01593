import type { DashboardRowResolvers } from '../__generated__/resolvers-types';
import { Dimension } from '../../../contract';

export const DashboardRow: DashboardRowResolvers = {
  dimensions: (row) => row.items,
  // The url item's `value` is the URL itself; `id` is documented only as an opaque id.
  article: (row) => {
    const urlItem = row.items.find((item) => item.type === Dimension.URL);
    return urlItem === undefined ? null : { url: urlItem.value };
  },
};
