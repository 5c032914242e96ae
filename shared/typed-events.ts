/**
 * Typed event descriptors, as MQTT-Explorer's events module has them: a descriptor names an event and
 * carries its payload's type, so a publisher and its subscribers agree on the shape without sharing a
 * class. A TypedEvents source costs one Map lookup per emit when nobody listens.
 */
export interface EventDescriptor<T> {
  readonly name: string;
  /** never set: carries the payload type */
  readonly payload?: T;
}

export function eventDescriptor<T>(name: string): EventDescriptor<T> {
  return { name };
}

export class TypedEvents {
  private readonly listeners = new Map<string, Set<(payload: never) => void>>();

  /** Subscribes; returns the unsubscribe. */
  on<T>(event: EventDescriptor<T>, listener: (payload: T) => void): () => void {
    let set = this.listeners.get(event.name);
    if (!set) this.listeners.set(event.name, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => {
      set.delete(listener as (payload: never) => void);
      if (set.size === 0) this.listeners.delete(event.name);
    };
  }

  has(event: EventDescriptor<unknown>): boolean {
    return this.listeners.has(event.name);
  }

  emit<T>(event: EventDescriptor<T>, payload: T): void {
    const set = this.listeners.get(event.name);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as (payload: T) => void)(payload);
      } catch {
        // a listener's failure is its own; the publisher goes on
      }
    }
  }
}
