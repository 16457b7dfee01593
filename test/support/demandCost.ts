/**
 * A router's static cost estimate of one subgraph operation, as Apollo
 * Router's demand control computes it (`static_estimated`: the router's
 * cost_calculator/static_cost.rs), so tests can check what our @cost and
 * @listSize weights make a router refuse:
 *
 *   field = instances × (weight + selections) + arguments
 *
 * where weight is the field's @cost, else its type's @cost (default: 1 for
 * an object, 0 for a scalar or enum), instances 1 for a non-list and the @listSize size for a
 * list (the largest slicing argument given or defaulted, else assumedSize,
 * else the router's `list_size`), and an argument costs its @cost (default:
 * 1 for an input object, 0 otherwise) plus that of what it contains.
 * Not covered (unused here): @skip/@include, sizedFields, @requires.
 * RouterCostEstimator (below) adds up these estimates over a query plan, as
 * the router does for a client operation.
 */
import { operationFromDocument, ROUTER_SUPPORTED_SUPERGRAPH_FEATURES, Supergraph } from '@apollo/federation-internals';
import { QueryPlanner, type PlanNode } from '@apollo/query-planner';
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isInputObjectType,
  isListType,
  isObjectType,
  Kind,
  parse,
  valueFromASTUntyped,
  type ConstDirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

function directiveArg(directives: readonly ConstDirectiveNode[] | undefined, directive: string, arg: string): unknown {
  const node = directives?.find((d) => d.name.value === directive)?.arguments?.find((a) => a.name.value === arg);
  return node === undefined ? undefined : valueFromASTUntyped(node.value);
}

function costWeight(node: { directives?: readonly ConstDirectiveNode[] } | null | undefined): number | undefined {
  const weight = directiveArg(node?.directives, 'cost', 'weight');
  return weight === undefined ? undefined : Number(weight);
}

export class CostEstimator {
  constructor(
    private readonly schema: GraphQLSchema,
    /** The router's `list_size` for lists without @listSize (Apollo's documented starting configuration: 10). */
    private readonly defaultListSize = 10,
  ) {}

  estimate(document: DocumentNode, variables: Record<string, unknown> = {}): number {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
    if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error('no operation in the document');
    const root = this.schema.getRootType(operation.operation);
    if (!root) throw new Error(`no ${operation.operation} type`);
    return (operation.operation === 'mutation' ? 10 : 0) + this.selectionSet(operation.selectionSet, root, fragments, variables);
  }

  private selectionSet(
    selectionSet: SelectionSetNode | undefined,
    parent: GraphQLCompositeType,
    fragments: Map<string, FragmentDefinitionNode>,
    variables: Record<string, unknown>,
  ): number {
    let cost = 0;
    for (const selection of selectionSet?.selections ?? []) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment) throw new Error(`unknown fragment ${selection.name.value}`);
        cost += this.selectionSet(fragment.selectionSet, this.compositeType(fragment.typeCondition.name.value), fragments, variables);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? this.compositeType(selection.typeCondition.name.value) : parent;
        cost += this.selectionSet(selection.selectionSet, type, fragments, variables);
      } else if (selection.name.value !== '__typename') {
        if (!isObjectType(parent)) throw new Error(`fields on ${parent.name} are not estimated here`);
        const field = parent.getFields()[selection.name.value];
        if (!field) throw new Error(`${parent.name}.${selection.name.value} is not in the schema`);
        const given = new Map((selection.arguments ?? []).map((arg) => [arg.name.value, arg.value]));
        const named = getNamedType(field.type);
        const instances = isListType(getNullableType(field.type)) ? this.listSize(field, given, variables) : 1;
        // The field's own @cost wins over its type's (apollo-federation's cost_directive_from_field).
        const weight = costWeight(field.astNode) ?? costWeight(named.astNode) ?? (isCompositeType(named) ? 1 : 0);
        const selections = isCompositeType(named) ? this.selectionSet(selection.selectionSet, named, fragments, variables) : 0;
        let argumentsCost = 0;
        for (const [name, value] of given) {
          const definition = field.args.find((arg) => arg.name === name);
          if (!definition) throw new Error(`unknown argument ${name}`);
          argumentsCost += this.argument(valueFromASTUntyped(value, variables), definition.type, costWeight(definition.astNode));
        }
        cost += instances * (weight + selections) + argumentsCost;
      }
    }
    return cost;
  }

  private listSize(field: GraphQLField<unknown, unknown>, given: Map<string, ValueNode>, variables: Record<string, unknown>): number {
    const directives = field.astNode?.directives;
    if (!directives?.some((d) => d.name.value === 'listSize')) return this.defaultListSize;
    const slicing = (directiveArg(directives, 'listSize', 'slicingArguments') as string[] | undefined) ?? [];
    const sizes = slicing.flatMap((name) => {
      const value = given.has(name)
        ? valueFromASTUntyped(given.get(name) as ValueNode, variables)
        : field.args.find((arg) => arg.name === name)?.defaultValue;
      return typeof value === 'number' ? [value] : [];
    });
    if (sizes.length > 0) return Math.max(...sizes);
    const assumed = directiveArg(directives, 'listSize', 'assumedSize');
    return typeof assumed === 'number' ? assumed : this.defaultListSize;
  }

  private argument(value: unknown, type: GraphQLInputType, weight: number | undefined): number {
    const named = getNamedType(type);
    if (value === null || value === undefined) return 0;
    if (Array.isArray(value)) return (weight ?? 0) + value.reduce((sum: number, item) => sum + this.argument(item, type, weight), 0);
    if (isInputObjectType(named) && typeof value === 'object') {
      const fields = named.getFields();
      return Object.entries(value as Record<string, unknown>).reduce((sum, [name, inner]) => {
        const field = fields[name];
        return field === undefined ? sum : sum + this.argument(inner, field.type, costWeight(field.astNode));
      }, weight ?? 1);
    }
    return weight ?? 0;
  }

  private compositeType(name: string): GraphQLCompositeType {
    const type = this.schema.getType(name);
    if (!isCompositeType(type)) throw new Error(`${name} is not a composite type`);
    return type;
  }
}

/** One subgraph fetch of a router's query plan and its estimate. */
export interface FetchCost {
  subgraph: string;
  cost: number;
}

/**
 * Apollo Router's estimate of a client operation: it plans the operation over
 * the supergraph and adds up the estimate of every subgraph fetch in the plan
 * (static_cost.rs `score_plan_node`: sequences and parallels add up, a
 * condition counts its larger branch), each estimated as above on that
 * subgraph's schema. The plan comes from @apollo/query-planner, the planner
 * @apollo/gateway runs (Apollo Router's is its Rust port).
 */
export class RouterCostEstimator {
  private readonly supergraph: Supergraph;
  private readonly planner: QueryPlanner;

  constructor(
    supergraphSdl: string,
    /** One estimator per subgraph, by the subgraph's name in the supergraph. */
    private readonly subgraphs: Record<string, CostEstimator>,
  ) {
    // The features Apollo Router supports (its authorization directives among them), not @apollo/gateway's narrower set.
    this.supergraph = Supergraph.build(supergraphSdl, { supportedFeatures: ROUTER_SUPPORTED_SUPERGRAPH_FEATURES });
    this.planner = new QueryPlanner(this.supergraph);
  }

  /** The total and, in plan order, each fetch's share of it. */
  estimate(query: string, variables: Record<string, unknown> = {}): { total: number; fetches: FetchCost[] } {
    const operation = operationFromDocument(this.supergraph.schema, parse(query), { validate: true });
    const plan = this.planner.buildQueryPlan(operation);
    const fetches: FetchCost[] = [];
    const total = plan.node ? this.node(plan.node as PlanNode, variables, fetches) : 0;
    return { total, fetches };
  }

  private node(node: PlanNode, variables: Record<string, unknown>, fetches: FetchCost[]): number {
    switch (node.kind) {
      case 'Fetch': {
        const estimator = this.subgraphs[node.serviceName];
        if (!estimator) throw new Error(`no estimator for subgraph ${node.serviceName}`);
        const cost = estimator.estimate(parse(node.operation), variables);
        fetches.push({ subgraph: node.serviceName, cost });
        return cost;
      }
      case 'Sequence':
      case 'Parallel':
        return node.nodes.reduce((sum, inner) => sum + this.node(inner, variables, fetches), 0);
      case 'Flatten':
        return this.node(node.node, variables, fetches);
      case 'Condition':
        return Math.max(
          node.ifClause ? this.node(node.ifClause, variables, []) : 0,
          node.elseClause ? this.node(node.elseClause, variables, []) : 0,
        );
      default:
        throw new Error(`${node.kind} plan nodes are not estimated here`);
    }
  }
}
