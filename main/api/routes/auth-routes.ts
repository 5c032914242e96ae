import { Type } from 'typebox';
import {
  ActivateUserRequest,
  ChangePasswordRequest,
  JwtPair,
  LoginRequest,
  PublicLoginRequest,
  RefreshTokenRequest,
  ResetPasswordEmailRequest,
  ResetPasswordRequest,
  User,
  UserPasswordPolicy,
} from '../../../shared/schemas/auth.ts';
import { ErrorResponse } from '../../../shared/schemas/common.ts';
import { PASSWORD_POLICY } from '../../platform/auth/password-policy.ts';
import type { LinkTokenState } from '../../platform/auth/user-credentials.ts';
import { notFound } from '../../platform/errors.ts';
import { baseUrl } from './user-routes.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, type Api, type RouteDeps } from '../route-types.ts';

const noauth = { public: true };
const noauthErrors = { 400: ErrorResponse, 401: ErrorResponse };

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
    '/api/auth/login/public',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Log in as the public customer (the viewer of a public dashboard)',
        description:
          "The public customer's id (a public dashboard's `publicId` link parameter) gives a token pair " +
          'for its virtual user: a customer user that reads only what is assigned to the public customer, ' +
          'and gets 403 for any write.',
        security: [],
        body: PublicLoginRequest,
        response: { 200: JwtPair, 400: ErrorResponse, 401: ErrorResponse },
      },
    },
    async (request) => services.auth.loginPublic(request.body.publicId),
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
      // the public customer's virtual user, as ThingsBoard makes it for a public login
      if (p.isPublic)
        return {
          id: { entityType: 'USER' as const, id: p.userId },
          createdTime: 0,
          tenantId: { entityType: 'TENANT' as const, id: p.tenantId },
          customerId: { entityType: 'CUSTOMER' as const, id: p.customerId! },
          email: p.email,
          name: p.email,
          authority: p.authority,
          firstName: 'Public',
          lastName: 'Public',
          additionalInfo: { isPublic: true },
        };
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

  app.get(
    '/api/noauth/userPasswordPolicy',
    {
      config: noauth,
      schema: {
        tags,
        summary: 'The password policy new passwords must meet',
        security: [],
        response: { 200: UserPasswordPolicy },
      },
    },
    async () => PASSWORD_POLICY,
  );

  /** ThingsBoard's answer to a mailed link: 409 unknown, else a redirect to the page that takes the password. */
  const linkAnswer = (
    state: LinkTokenState,
    expiredPage: string,
    page: string,
  ): { status: 303 | 409; location?: string } =>
    state === 'unknown'
      ? { status: 409 }
      : { status: 303, location: state === 'expired' ? expiredPage : page };
  app.get(
    '/api/noauth/activate',
    {
      config: noauth,
      schema: {
        tags,
        summary: 'Open an activation link: 303 to the create-password page, 409 for an unknown token',
        security: [],
        querystring: Type.Object({ activateToken: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 303: Type.Null(), 409: Type.Null(), 400: ErrorResponse },
      },
    },
    async (request, reply) => {
      const token = request.query.activateToken;
      const answer = linkAnswer(
        services.userCredentials.activateTokenState(token),
        '/activationLinkExpired',
        `/login/createPassword?activateToken=${encodeURIComponent(token)}`,
      );
      if (answer.location) reply.header('location', answer.location);
      return reply.code(answer.status).send(null);
    },
  );
  app.post(
    '/api/noauth/activate',
    {
      config: noauth,
      schema: {
        tags,
        summary: "Set a new user's password with its activation token; logs it in",
        security: [],
        body: ActivateUserRequest,
        querystring: Type.Object({
          sendActivationMail: Type.Optional(
            Type.Boolean({ default: true, description: 'accepted; Sandboard sends no mail' }),
          ),
        }),
        response: { 200: JwtPair, ...noauthErrors },
      },
    },
    async (request) => {
      const user = await services.userCredentials.activate(request.body.activateToken, request.body.password);
      return services.auth.issueFor(user);
    },
  );
  app.post(
    '/api/noauth/resetPasswordByEmail',
    {
      config: noauth,
      schema: {
        tags,
        summary:
          'Ask for a password reset link: always 200; ThingsBoard mails the link, Sandboard logs it on the server',
        security: [],
        body: ResetPasswordEmailRequest,
        response: { 200: Type.Unknown({ description: 'OK, empty body' }), 400: ErrorResponse },
      },
    },
    async (request, reply) => {
      const token = await services.userCredentials.requestReset(request.body.email);
      if (token)
        request.log.warn(
          `No mail is sent: the password reset link of ${request.body.email} is ${baseUrl(request)}/api/noauth/resetPassword?resetToken=${token}`,
        );
      return reply.code(200).send(undefined);
    },
  );
  app.get(
    '/api/noauth/resetPassword',
    {
      config: noauth,
      schema: {
        tags,
        summary: 'Open a password reset link: 303 to the reset-password page, 409 for an unknown token',
        security: [],
        querystring: Type.Object({ resetToken: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 303: Type.Null(), 409: Type.Null(), 400: ErrorResponse },
      },
    },
    async (request, reply) => {
      const token = request.query.resetToken;
      const answer = linkAnswer(
        services.userCredentials.resetTokenState(token),
        '/passwordResetLinkExpired',
        `/login/resetPassword?resetToken=${encodeURIComponent(token)}`,
      );
      if (answer.location) reply.header('location', answer.location);
      return reply.code(answer.status).send(null);
    },
  );
  app.post(
    '/api/noauth/resetPassword',
    {
      config: noauth,
      schema: {
        tags,
        summary: 'Set a new password with a reset token; sessions from before end',
        security: [],
        body: ResetPasswordRequest,
        response: { 200: Type.Unknown({ description: 'OK, empty body' }), ...noauthErrors },
      },
    },
    async (request, reply) => {
      await services.userCredentials.resetPassword(request.body.resetToken, request.body.password);
      return reply.code(200).send(undefined);
    },
  );
}
