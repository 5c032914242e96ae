import { Type } from 'typebox';
import { SaveUserRequest, User } from '../../../shared/schemas/auth.ts';
import { PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import { Customer, SaveCustomerRequest } from '../../../shared/schemas/entities.ts';
import { requireCustomerAccess, requireTenantAdmin } from '../../platform/auth/principal.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

export function registerCustomerRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['Customers'];
  const userTags = ['Users'];
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
        summary: 'Customers, a page at a time',
        querystring: PageQuery(['createdTime', 'title', 'email', 'country', 'city']),
        response: { 200: PageData(Customer), ...authErrors },
      },
    },
    async (request) => services.customers.page(request.query, principalOf(request)),
  );

  app.post(
    '/api/user',
    {
      schema: {
        tags: userTags,
        summary: 'Create or update a user (tenant administrator or customer user)',
        body: SaveUserRequest,
        querystring: Type.Object({ sendActivationMail: Type.Optional(Type.Boolean()) }),
        response: { 200: User, ...authErrors },
      },
    },
    async (request) => services.users.save(request.body, principalOf(request)),
  );
  app.post(
    '/api/user/:id/userCredentialsEnabled',
    {
      schema: {
        tags: userTags,
        summary: 'Enable or disable a user; disabling ends its sessions and refresh tokens at once',
        params: IdParams,
        querystring: Type.Object({ userCredentialsEnabled: Type.Boolean({ default: true }) }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await services.users.setEnabled(
        request.params.id,
        request.query.userCredentialsEnabled,
        principalOf(request),
      );
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/user/:id',
    {
      schema: { tags: userTags, summary: 'A user', params: IdParams, response: { 200: User, ...authErrors } },
    },
    async (request) => services.users.get(request.params.id, principalOf(request)),
  );
  app.delete(
    '/api/user/:id',
    { schema: { tags: userTags, summary: 'Delete a user', params: IdParams, response: emptyOk } },
    async (request, reply) => {
      await services.users.delete(request.params.id, principalOf(request));
      services.apiKeys.forgetUser(request.params.id);
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/users',
    {
      schema: {
        tags: userTags,
        summary: 'All users of the tenant',
        querystring: PageQuery(['createdTime', 'email', 'firstName', 'lastName']),
        response: { 200: PageData(User), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return services.users.page(request.query, {});
    },
  );
  app.get(
    '/api/customer/:customerId/users',
    {
      schema: {
        tags: userTags,
        summary: 'Users of a customer',
        params: Type.Object({ customerId: Uuid }),
        querystring: PageQuery(['createdTime', 'email', 'firstName', 'lastName']),
        response: { 200: PageData(User), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireCustomerAccess(p, request.params.customerId);
      return services.users.page(request.query, { customerId: request.params.customerId });
    },
  );
}
