// What an introspection selection (`__schema`, `__type`) costs: the number of fields its response
// holds, counted exactly. The schema is fixed, so its lists have known lengths; a flat multiplier
// would be wrong both ways (GraphiQL's introspection query would cost more than the limit, while
// `types { fields { type { fields ... } } }` returns far more than ten entries a list). The count
// walks the schema with the introspection types' own resolvers and stops as soon as it passes the
// budget, so even a document whose response would be huge is costed in bounded time.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
} from 'graphql';

interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  budget: number;
  count: number;
}

class OverBudget extends Error {}

/**
 * The fields of a root selection's `__schema` and `__type` subtrees, as the response would hold
 * them; stops counting past `budget` (the result is then `budget + 1`).
 */
export function introspectionCost(
  schema: GraphQLSchema,
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  budget: number,
): number {
  const walk: Walk = { schema, fragments, variables, budget, count: 0 };
  try {
    for (const field of fieldsOf(walk, selectionSet)) {
      const meta = field.name.value === '__schema' ? SchemaMetaFieldDef : field.name.value === '__type' ? TypeMetaFieldDef : undefined;
      if (!meta || !field.selectionSet) continue;
      const args = getArgumentValues(meta, field, variables);
      const value = field.name.value === '__schema' ? schema : schema.getType(String(args.name));
      if (value) countSelection(walk, getNamedType(meta.type) as GraphQLObjectType, field.selectionSet, value);
    }
  } catch (error) {
    if (error instanceof OverBudget) return budget + 1;
    throw error;
  }
  return walk.count;
}

function countSelection(walk: Walk, type: GraphQLObjectType, selectionSet: SelectionSetNode, source: unknown): void {
  for (const node of fieldsOf(walk, selectionSet)) {
    walk.count += 1;
    if (walk.count > walk.budget) throw new OverBudget();
    const field = type.getFields()[node.name.value];
    if (!field?.resolve || !node.selectionSet) continue;
    const args = getArgumentValues(field, node, walk.variables);
    // The introspection resolvers read only `schema` from the resolve info.
    const value: unknown = field.resolve(source, args, undefined, { schema: walk.schema } as never);
    const itemType = getNamedType(field.type);
    if (!isObjectType(itemType) || value == null) continue;
    for (const item of Array.isArray(value) ? value : [value]) countSelection(walk, itemType, node.selectionSet, item);
  }
}

/**
 * The field nodes of a selection set, through fragments. Type conditions and @skip/@include are
 * not looked at: counting a field that is left out errs on the safe side.
 */
function* fieldsOf(walk: Walk, selectionSet: SelectionSetNode): Generator<FieldNode> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) yield selection;
    else if (selection.kind === Kind.INLINE_FRAGMENT) yield* fieldsOf(walk, selection.selectionSet);
    else {
      const fragment = walk.fragments[selection.name.value];
      if (fragment) yield* fieldsOf(walk, fragment.selectionSet);
    }
  }
}
