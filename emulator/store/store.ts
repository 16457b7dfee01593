import { Dictionary } from './dictionary';
import { PageViewTable } from './pageViews';
import type { Article, Experience, PageViewRow, User } from './types';

/**
 * All emulator state. Mutations go through the methods so that `version`
 * moves: engines cache indexes derived from the data keyed by it.
 */
export class EmulatorStore {
  /** Articles by index; an upsert replaces in place, so indexes are stable. */
  readonly articles: Article[] = [];
  readonly views: PageViewTable;
  /** Client ids (readers) as interned integers; index into `clientRows`. */
  readonly clients = new Dictionary();
  /** Row indexes of each client's page views, in insertion order. */
  readonly clientRows: number[][] = [];
  readonly experiences = new Map<string, Experience>();
  readonly users: User[] = [];
  /** Bumped on every change of articles or page views. */
  version = 0;

  private readonly articleByUrl = new Map<string, number>();

  constructor(expectedPageViews = 1024) {
    this.views = new PageViewTable(expectedPageViews);
  }

  articleIndex(url: string): number | undefined {
    return this.articleByUrl.get(url);
  }

  /** Inserts new articles and replaces existing ones (by url). */
  upsertArticles(articles: readonly Article[]): void {
    for (const article of articles) {
      const existing = this.articleByUrl.get(article.url);
      if (existing === undefined) {
        this.articleByUrl.set(article.url, this.articles.length);
        this.articles.push(article);
      } else {
        this.articles[existing] = article;
      }
    }
    this.version++;
  }

  /** Appends enriched page views; each row's `article` must be a valid index. */
  addPageViews(rows: readonly PageViewRow[]): void {
    for (const row of rows) {
      if (!(row.article >= 0 && row.article < this.articles.length)) {
        throw new RangeError(`page view refers to article ${row.article}, the store has ${this.articles.length}`);
      }
      const client = this.clients.intern(row.clientId);
      const rowIndex = this.views.append(row, client);
      (this.clientRows[client] ??= []).push(rowIndex);
    }
    this.version++;
  }

  userByEmail(email: string): User | undefined {
    const wanted = email.toLowerCase();
    return this.users.find((u) => u.email.toLowerCase() === wanted);
  }
}
