import { Type } from 'typebox';
import { COMPONENT_TYPES, ComponentDescriptor, RuleChainType } from '../../../shared/rule-engine.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { badRequestParams, notFound } from '../../platform/errors.ts';
import { componentDescriptor, componentTypeOf, offeredFor } from '../../rule-engine/component-descriptors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, type Api, type RouteDeps } from '../route-types.ts';

function componentTypes(text: string): string[] {
  const types = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of types)
    if (!(COMPONENT_TYPES as readonly string[]).includes(t))
      throw badRequestParams(`No enum constant ComponentType.${t} (one of ${COMPONENT_TYPES.join(', ')})`);
  return types;
}

/** ThingsBoard's component descriptors: the node types an editor written for ThingsBoard lists. */
export function registerComponentRoutes(app: Api, { ruleChains }: RouteDeps): void {
  const tags = ['Rule chains'];
  const list = (types: string[], chainType: 'CORE' | 'EDGE' = 'CORE') =>
    ruleChains
      .nodeDefinitions()
      .filter((d) => types.includes(componentTypeOf(d)) && offeredFor(d, chainType))
      .map(componentDescriptor);

  app.get(
    '/api/components',
    {
      schema: {
        tags,
        summary: 'Node descriptors of the given component types (comma-separated), for a chain type',
        querystring: Type.Object({
          componentTypes: Type.String({ minLength: 1, maxLength: 200 }),
          ruleChainType: Type.Optional(RuleChainType),
        }),
        response: { 200: Type.Array(ComponentDescriptor), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return list(componentTypes(request.query.componentTypes), request.query.ruleChainType);
    },
  );
  app.get(
    '/api/components/:componentType',
    {
      schema: {
        tags,
        summary:
          'Node descriptors of one component type (FILTER, ENRICHMENT, TRANSFORMATION, ACTION, EXTERNAL, FLOW)',
        params: Type.Object({ componentType: Type.String({ maxLength: 32 }) }),
        querystring: Type.Object({ ruleChainType: Type.Optional(RuleChainType) }),
        response: { 200: Type.Array(ComponentDescriptor), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return list(componentTypes(request.params.componentType), request.query.ruleChainType);
    },
  );
  app.get(
    '/api/component/:componentDescriptorClazz',
    {
      schema: {
        tags,
        summary: 'The descriptor of one node class',
        params: Type.Object({ componentDescriptorClazz: Type.String({ maxLength: 255 }) }),
        response: { 200: ComponentDescriptor, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      const def = ruleChains
        .nodeDefinitions()
        .find((d) => d.type === request.params.componentDescriptorClazz);
      if (!def)
        throw notFound(
          `Component descriptor with clazz [${request.params.componentDescriptorClazz}] is not found`,
        );
      return componentDescriptor(def);
    },
  );
}
