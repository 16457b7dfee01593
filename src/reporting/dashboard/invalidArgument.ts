/** One argument problem: where (e.g. `query.filters[1].values`) and what is wrong. graphql/errors turns a list of them into one BAD_USER_INPUT. */
export interface InvalidArgument {
  path: string;
  message: string;
}
