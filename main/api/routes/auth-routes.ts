import {
  ChangePasswordRequest,
  JwtPair,
  LoginRequest,
  RefreshTokenRequest,
  User,
} from '../../../shared/schemas/auth.ts';
import { ErrorResponse } from '../../../shared/schemas/common.ts';
import { notFound } from '../../platform/errors.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

export function registerAuthRoutes(app: Api, { services }: RouteDeps): void {
  const tags = ['Auth'];
  app.post(
    '/api/auth/login',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Log in with username (email) and password',
        security: [],
        body: LoginRequest,
        response: { 200: JwtPair, 400: ErrorResponse, 401: ErrorResponse, 429: ErrorResponse },
      },
    },
    async (request) => services.auth.login(request.body.username, request.body.password, request.ip),
  );
  app.post(
    '/api/auth/token',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Exchange a refresh token for a new token pair',
        security: [],
        body: RefreshTokenRequest,
        response: { 200: JwtPair, 400: ErrorResponse, 401: ErrorResponse },
      },
    },
    async (request) => services.auth.refresh(request.body.refreshToken),
  );
  app.get(
    '/api/auth/user',
    { schema: { tags, summary: 'The current user', response: { 200: User, ...authErrors } } },
    async (request) => {
      const p = principalOf(request);
      const row = services.users.findRow(p.userId);
      if (!row) throw notFound();
      return services.users.toUser(row);
    },
  );
  app.post(
    '/api/auth/logout',
    { schema: { tags, summary: 'Invalidate the tokens of this session', response: emptyOk } },
    async (request, reply) => {
      await services.auth.logout(principalOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    '/api/auth/changePassword',
    {
      schema: {
        tags,
        summary: 'Change the password; returns a new token pair and invalidates older tokens',
        body: ChangePasswordRequest,
        response: { 200: JwtPair, ...authErrors },
      },
    },
    async (request) =>
      services.auth.changePassword(
        principalOf(request),
        request.body.currentPassword,
        request.body.newPassword,
      ),
  );
}
