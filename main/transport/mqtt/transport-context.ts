import type { TransportCore } from '../device-messages.ts';
import type { SessionRegistry } from './session-registry.ts';

/** What the device and gateway topic handlers share: the transports' core and who is connected. */
export interface TransportContext extends TransportCore {
  registry: SessionRegistry;
}
