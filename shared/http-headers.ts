/**
 * A request header a client sends to get a timeout answered with 504 instead of ThingsBoard's 408.
 * Browsers (Chromium, so also Electron) silently send a request again when it gets 408 on a reused
 * keep-alive connection; for an RPC that would be a second command to the device.
 */
export const TIMEOUT_STATUS_HEADER = 'x-sandboard-timeout-status';
