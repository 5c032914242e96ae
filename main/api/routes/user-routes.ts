import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  JwtPair,
  SaveUserRequest,
  User,
  UserActivationLink,
  UserDashboardsInfo,
  UserEmailInfo,
} from '../../../shared/schemas/auth.ts';
import { JsonObject, OptionalPageQuery, PageData, PageQuery, Uuid } from '../../../shared/schemas/common.ts';
import { requireCustomerAccess, requireTenantAdmin } from '../../platform/auth/principal.ts';
import { notFound } from '../../platform/errors.ts';
import { settingsType } from '../../platform/user-settings.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, requirePage, type Api, type RouteDeps } from '../route-types.ts';

const USER_SORT = ['createdTime', 'email', 'firstName', 'lastName'] as const;

/** The origin this request reached, for the links ThingsBoard would mail. */
export function baseUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

export function registerUserRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['Users'];
  const settingsTags = ['User settings'];
  const IdParams = Type.Object({ id: Uuid });

  const activationLink = async (request: FastifyRequest, userId: string) => {
    const { token, ttlMs } = await services.userCredentials.activationToken(userId, principalOf(request));
    return { value: `${baseUrl(request)}/api/noauth/activate?activateToken=${token}`, ttlMs };
  };
  /** ThingsBoard mails the link; Sandboard has no mail, so the link goes to the server log. */
  const logActivationLink = (request: FastifyRequest, email: string, link: string) =>
    request.log.warn(`No mail is sent: the activation link of ${email} is ${link}`);

  app.post(
    '/api/user',
    {
      schema: {
        tags,
        summary:
          'Create or update a user; without a password it waits for activation (its link: GET /api/user/{id}/activationLink)',
        body: SaveUserRequest,
        querystring: Type.Object({
          sendActivationMail: Type.Optional(
            Type.Boolean({ default: true, description: 'no mail is sent: the activation link is logged' }),
          ),
        }),
        response: { 200: User, ...authErrors },
      },
    },
    async (request) => {
      const user = await services.users.save(request.body, principalOf(request));
      if (!request.body.id && !request.body.password && request.query.sendActivationMail !== false)
        logActivationLink(request, user.email, (await activationLink(request, user.id.id)).value);
      return user;
    },
  );
  app.get(
    '/api/user/:id',
    { schema: { tags, summary: 'A user', params: IdParams, response: { 200: User, ...authErrors } } },
    async (request) => services.users.get(request.params.id, principalOf(request)),
  );
  app.delete(
    '/api/user/:id',
    { schema: { tags, summary: 'Delete a user', params: IdParams, response: emptyOk } },
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
        tags,
        summary:
          "The tenant's users (a customer user: its customer's), a page at a time, or by userIds (repeated or comma-separated)",
        querystring: Type.Object({
          ...OptionalPageQuery(USER_SORT).properties,
          userIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })),
        }),
        response: { 200: Type.Union([PageData(User), Type.Array(User)]), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const q = request.query;
      if (q.userIds) return services.users.byIds(q.userIds, p);
      const page = { ...q, ...requirePage(q) };
      if (p.authority === 'TENANT_ADMIN') return services.users.page(page, {});
      return services.users.page(page, { customerId: p.customerId ?? undefined });
    },
  );
  app.get(
    '/api/users/info',
    {
      schema: {
        tags,
        summary: 'Id, email and names of the users you may see, a page at a time',
        querystring: PageQuery(USER_SORT),
        response: { 200: PageData(UserEmailInfo), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      if (p.authority === 'TENANT_ADMIN') return services.users.page(request.query, {});
      return services.users.page(request.query, { customerId: p.customerId ?? undefined });
    },
  );
  app.get(
    '/api/users/assign/:alarmId',
    {
      schema: {
        tags,
        summary:
          "The users an alarm may be assigned to: the tenant's administrators and its originator's customer's users (a customer user: its customer's)",
        params: Type.Object({ alarmId: Uuid }),
        querystring: PageQuery(USER_SORT),
        response: { 200: PageData(UserEmailInfo), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      const alarm = services.alarms.accessibleRow(request.params.alarmId, p);
      if (p.authority !== 'TENANT_ADMIN')
        return services.users.page(request.query, { customerId: alarm.customer_id ?? undefined });
      if (!alarm.customer_id) return services.users.page(request.query, { authority: 'TENANT_ADMIN' });
      const owner = services.directory.find(alarm.originator_type, alarm.originator_id)?.customerId;
      return owner
        ? services.users.page(request.query, { adminsAndCustomer: owner })
        : services.users.page(request.query, { authority: 'TENANT_ADMIN' });
    },
  );
  app.get(
    '/api/customer/:customerId/users',
    {
      schema: {
        tags,
        summary: 'Users of a customer',
        params: Type.Object({ customerId: Uuid }),
        querystring: PageQuery(USER_SORT),
        response: { 200: PageData(User), ...authErrors },
      },
    },
    async (request) => {
      const p = principalOf(request);
      requireCustomerAccess(p, request.params.customerId);
      return services.users.page(request.query, { customerId: request.params.customerId });
    },
  );
  app.get(
    '/api/tenant/:tenantId/users',
    {
      schema: {
        tags,
        summary:
          "The tenant's administrators (ThingsBoard's system administrator reads them; here the tenant administrator does)",
        params: Type.Object({ tenantId: Uuid }),
        querystring: PageQuery(USER_SORT),
        response: { 200: PageData(User), ...authErrors },
      },
    },
    async (request) => {
      services.tenant.get(request.params.tenantId, principalOf(request));
      return services.users.page(request.query, { authority: 'TENANT_ADMIN' });
    },
  );
  app.get(
    '/api/user/tokenAccessEnabled',
    {
      schema: {
        tags,
        summary: 'Whether an administrator may get tokens of other users (GET /api/user/{id}/token)',
        response: { 200: Type.Boolean(), ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      return true;
    },
  );
  app.get(
    '/api/user/:id/token',
    {
      schema: {
        tags,
        summary:
          'A token pair of another user of the tenant (log in as that user), with a session of its own',
        params: IdParams,
        response: { 200: JwtPair, ...authErrors },
      },
    },
    async (request) => {
      requireTenantAdmin(principalOf(request));
      const user = services.users.findRow(request.params.id);
      if (!user) throw notFound(`User with id [${request.params.id}] is not found`);
      return services.auth.issueFor(user);
    },
  );
  app.get(
    '/api/user/:id/activationLink',
    {
      schema: {
        tags,
        summary:
          'The link a user who is not yet active sets its password with (ThingsBoard mails it), as text',
        params: IdParams,
        response: { 200: Type.String(), ...authErrors },
      },
    },
    async (request, reply) =>
      reply.type('text/plain; charset=utf-8').send((await activationLink(request, request.params.id)).value),
  );
  app.get(
    '/api/user/:id/activationLinkInfo',
    {
      schema: {
        tags,
        summary: 'The activation link of a user who is not yet active, with the time it has left',
        params: IdParams,
        response: { 200: UserActivationLink, ...authErrors },
      },
    },
    async (request) => activationLink(request, request.params.id),
  );
  app.post(
    '/api/user/sendActivationMail',
    {
      schema: {
        tags,
        summary: 'ThingsBoard mails the activation link again; Sandboard has no mail and logs it',
        querystring: Type.Object({ email: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      requireTenantAdmin(principalOf(request));
      const user = services.users.findRowByEmail(request.query.email);
      if (!user) throw notFound(`User with email [${request.query.email}] is not found`);
      logActivationLink(request, user.email, (await activationLink(request, user.id)).value);
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/user/:id/userCredentialsEnabled',
    {
      schema: {
        tags,
        summary: "Enable or disable a user's login; disabling ends its sessions at once",
        params: IdParams,
        querystring: Type.Object({ userCredentialsEnabled: Type.Optional(Type.Boolean({ default: true })) }),
        response: emptyOk,
      },
    },
    async (request, reply) => {
      await services.users.setEnabled(
        request.params.id,
        request.query.userCredentialsEnabled ?? true,
        principalOf(request),
      );
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/user/dashboards',
    {
      schema: {
        tags,
        summary: 'Last visited and starred dashboards (Sandboard keeps neither: both empty)',
        response: { 200: UserDashboardsInfo, ...authErrors },
      },
    },
    async (request) => {
      principalOf(request);
      return { last: [], starred: [] };
    },
  );

  // Settings of the current user, per type (general when the path names none).
  const TypeParams = Type.Object({
    type: Type.String({ description: 'general, quick_links, doc_links, dashboards, ... (any case)' }),
  });
  const PathsParams = Type.Object({
    paths: Type.String({ minLength: 1, description: 'comma-separated JSON paths' }),
  });
  app.get(
    '/api/user/settings',
    {
      schema: {
        tags: settingsTags,
        summary: 'Your general settings',
        response: { 200: JsonObject, ...authErrors },
      },
    },
    async (request) => services.userSettings.get(principalOf(request).userId, 'GENERAL'),
  );
  app.post(
    '/api/user/settings',
    {
      schema: {
        tags: settingsTags,
        summary: 'Replace your general settings; returns them',
        body: JsonObject,
        response: { 200: JsonObject, ...authErrors },
      },
    },
    async (request) => services.userSettings.save(principalOf(request).userId, 'GENERAL', request.body),
  );
  for (const path of ['/api/user/settings', '/api/user/settings/:type'] as const) {
    app.put(
      path,
      {
        schema: {
          tags: settingsTags,
          summary: 'Update fields of your settings ("a.b" keys set nested fields)',
          ...(path.endsWith(':type') ? { params: TypeParams } : {}),
          body: JsonObject,
          response: emptyOk,
        },
      },
      async (request, reply) => {
        const type = (request.params as { type?: string }).type;
        await services.userSettings.update(
          principalOf(request).userId,
          type ? settingsType(type) : 'GENERAL',
          request.body,
        );
        return reply.code(200).send(undefined);
      },
    );
  }
  app.get(
    '/api/user/settings/:type',
    {
      schema: {
        tags: settingsTags,
        summary: 'Your settings of a type',
        params: TypeParams,
        response: { 200: JsonObject, ...authErrors },
      },
    },
    async (request) =>
      services.userSettings.get(principalOf(request).userId, settingsType(request.params.type)),
  );
  for (const path of ['/api/user/settings/:paths', '/api/user/settings/:type/:paths'] as const) {
    app.delete(
      path,
      {
        schema: {
          tags: settingsTags,
          summary: 'Delete fields of your settings by their JSON paths',
          params: path.includes(':type')
            ? Type.Object({ ...TypeParams.properties, ...PathsParams.properties })
            : PathsParams,
          response: emptyOk,
        },
      },
      async (request, reply) => {
        const { type, paths } = request.params as { type?: string; paths: string };
        await services.userSettings.delete(
          principalOf(request).userId,
          type ? settingsType(type) : 'GENERAL',
          paths.split(','),
        );
        return reply.code(200).send(undefined);
      },
    );
  }
}
