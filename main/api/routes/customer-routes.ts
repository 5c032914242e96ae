import { Type } from 'typebox';
import { OptionalPageQuery, PageData, Uuid } from '../../../shared/schemas/common.ts';
import { Customer, SaveCustomerRequest } from '../../../shared/schemas/entities.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, requirePage, type Api, type RouteDeps } from '../route-types.ts';

export function registerCustomerRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['Customers'];
  const IdParams = Type.Object({ id: Uuid });
  app.post(
    '/api/customer',
    {
      schema: {
        tags,
        summary: 'Create or update a customer',
        body: SaveCustomerRequest,
        response: { 200: Customer, ...authErrors },
      },
    },
    async (request) => services.customers.save(request.body, principalOf(request)),
  );
  app.get(
    '/api/customer/:id',
    { schema: { tags, summary: 'A customer', params: IdParams, response: { 200: Customer, ...authErrors } } },
    async (request) => services.customers.get(request.params.id, principalOf(request)),
  );
  app.delete(
    '/api/customer/:id',
    {
      schema: {
        tags,
        summary: 'Delete a customer with its users; its devices return to the tenant',
        params: IdParams,
        response: emptyOk,
      },
    },
    async (request, reply) => {
      const userIds = await services.customers.delete(request.params.id, principalOf(request));
      for (const id of userIds) {
        services.apiKeys.forgetUser(id);
        services.users.forget(id);
      }
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/customers',
    {
      schema: {
        tags,
        summary: 'Customers, a page at a time, or by customerIds (repeated or comma-separated)',
        querystring: Type.Object({
          ...OptionalPageQuery(['createdTime', 'title', 'email', 'country', 'city']).properties,
          customerIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
        }),
        response: { 200: Type.Union([PageData(Customer), Type.Array(Customer)]), ...authErrors },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.customerIds) return services.customers.byIds(q.customerIds, principalOf(request));
      return services.customers.page({ ...q, ...requirePage(q) }, principalOf(request));
    },
  );
  app.get(
    '/api/customer/:id/shortInfo',
    {
      schema: {
        tags,
        summary: "A customer's title and whether it is the public customer",
        params: IdParams,
        response: {
          200: Type.Object({ title: Type.String(), isPublic: Type.Boolean() }),
          ...authErrors,
        },
      },
    },
    async (request) => services.customers.shortInfo(request.params.id, principalOf(request)),
  );
  app.get(
    '/api/customer/:id/title',
    {
      schema: {
        tags,
        summary: "A customer's title, as text (application/text)",
        params: IdParams,
        produces: ['application/text'],
        response: { 200: Type.String(), ...authErrors },
      },
    },
    async (request, reply) => {
      const { title } = services.customers.get(request.params.id, principalOf(request));
      return reply.type('application/text; charset=utf-8').send(title);
    },
  );
  app.get(
    '/api/tenant/customers',
    {
      schema: {
        tags,
        summary: 'The customer with a title',
        querystring: Type.Object({ customerTitle: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: Customer, ...authErrors },
      },
    },
    async (request) => services.customers.byTitle(request.query.customerTitle, principalOf(request)),
  );
}
