import { Type, type Static } from 'typebox';
import { EntityId, NULL_UUID } from './common.ts';

export { NULL_UUID };

export const Authority = Type.Union([Type.Literal('TENANT_ADMIN'), Type.Literal('CUSTOMER_USER')]);
export type Authority = Static<typeof Authority>;

export const LoginRequest = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 255, description: 'User email' }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type LoginRequest = Static<typeof LoginRequest>;

export const PublicLoginRequest = Type.Object({
  publicId: Type.String({ minLength: 1, maxLength: 64, description: 'The public customer’s id' }),
});
export type PublicLoginRequest = Static<typeof PublicLoginRequest>;

export const JwtPair = Type.Object({
  token: Type.String({ description: 'JWT access token' }),
  refreshToken: Type.String({ description: 'JWT refresh token' }),
  scope: Type.Optional(Type.Union([Authority, Type.Null()])),
});
export type JwtPair = Static<typeof JwtPair>;

export const RefreshTokenRequest = Type.Object({ refreshToken: Type.String({ minLength: 1 }) });

export const ChangePasswordRequest = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
  newPassword: Type.String({ minLength: 6, maxLength: 1024 }),
});
export type ChangePasswordRequest = Static<typeof ChangePasswordRequest>;

export const User = Type.Object({
  id: EntityId('USER'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  customerId: EntityId('CUSTOMER'),
  email: Type.String(),
  name: Type.String(),
  authority: Authority,
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  additionalInfo: Type.Record(Type.String(), Type.Unknown()),
});
export type User = Static<typeof User>;

export const SaveUserRequest = Type.Object({
  id: Type.Optional(EntityId('USER')),
  email: Type.String({ format: 'email', maxLength: 255 }),
  authority: Authority,
  customerId: Type.Optional(
    Type.Object({ entityType: Type.Optional(Type.Literal('CUSTOMER')), id: Type.String() }),
  ),
  firstName: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  lastName: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  additionalInfo: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  password: Type.Optional(
    Type.String({
      minLength: 6,
      maxLength: 1024,
      description: 'Sandboard extension: the initial password (ThingsBoard sends an activation link instead)',
    }),
  ),
});
export type SaveUserRequest = Static<typeof SaveUserRequest>;

export const ApiKey = Type.Object({
  id: EntityId('API_KEY'),
  createdTime: Type.Integer(),
  tenantId: EntityId('TENANT'),
  userId: EntityId('USER'),
  description: Type.String(),
  expirationTime: Type.Integer({ description: 'Epoch ms; 0 means the key never expires' }),
  enabled: Type.Boolean(),
  expired: Type.Boolean({ readOnly: true }),
});
export type ApiKey = Static<typeof ApiKey>;

export const CreatedApiKey = Type.Intersect([
  ApiKey,
  Type.Object({ value: Type.String({ description: 'The key itself; returned only once, at creation' }) }),
]);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const CreateApiKeyRequest = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 255 }),
  expirationTime: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Epoch ms; 0 or absent: never expires' }),
  ),
  enabled: Type.Optional(Type.Boolean()),
  userId: Type.Optional(Type.Object({ entityType: Type.Optional(Type.Literal('USER')), id: Type.String() })),
});
export type CreateApiKeyRequest = Static<typeof CreateApiKeyRequest>;

export const UserEmailInfo = Type.Object({
  id: EntityId('USER'),
  email: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
});

export const UserActivationLink = Type.Object({
  value: Type.String({ description: 'The activation link ThingsBoard would mail' }),
  ttlMs: Type.Integer({ description: 'ms until the link expires' }),
});

export const ActivateUserRequest = Type.Object({
  activateToken: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const ResetPasswordRequest = Type.Object({
  resetToken: Type.String({ minLength: 1, maxLength: 255 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const ResetPasswordEmailRequest = Type.Object({ email: Type.String({ maxLength: 255 }) });

export const UserPasswordPolicy = Type.Object({
  minimumLength: Type.Integer(),
  maximumLength: Type.Integer(),
  minimumUppercaseLetters: Type.Union([Type.Integer(), Type.Null()]),
  minimumLowercaseLetters: Type.Union([Type.Integer(), Type.Null()]),
  minimumDigits: Type.Union([Type.Integer(), Type.Null()]),
  minimumSpecialCharacters: Type.Union([Type.Integer(), Type.Null()]),
  allowWhitespaces: Type.Boolean(),
  forceUserToResetPasswordIfNotValid: Type.Boolean(),
  passwordExpirationPeriodDays: Type.Union([Type.Integer(), Type.Null()]),
  passwordReuseFrequencyDays: Type.Union([Type.Integer(), Type.Null()]),
});

/** Last visited and starred dashboards: Sandboard has no dashboards, so both lists stay empty. */
export const UserDashboardsInfo = Type.Object({
  last: Type.Array(Type.Unknown()),
  starred: Type.Array(Type.Unknown()),
});
