/**
 * Constants of the live WebSocket protocol (see ws-messages.ts for the messages). Plain values, no
 * schema library, so the UI's bundle can import them for free.
 */
export const WS_PATH = '/api/sandboard/ws';

/** Close codes (4000-4999 are the application's own). */
export const WsCloseCode = {
  /** no token within the time allowed, or an invalid / expired / revoked one */
  UNAUTHENTICATED: 4401,
  /** a message that is not JSON or not one of WsClientMessage */
  BAD_MESSAGE: 4400,
  /** the server is stopping */
  GOING_AWAY: 1001,
} as const;

/** How long a connection may stay unauthenticated. */
export const WS_AUTH_TIMEOUT_MS = 5_000;
/** How many devices one connection may follow at once. */
export const WS_MAX_SUBSCRIPTIONS = 200;
