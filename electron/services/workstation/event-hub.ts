// The workstation's internal emitter. Each adapter connection (an Electron window, a browser
// tab's WebSocket) is one client: it hears every session, counters, export and output event,
// and the 'stream' events of the sessions it subscribed to, so a tab that reloads and asks for
// a session's bytes from 0 does not replay them into the other tabs.

import type { WorkstationEvent } from '../../../structs/api/contract.js';

export type StreamEvent = Extract<WorkstationEvent, { type: 'stream' }>;
export type BroadcastEvent = Exclude<WorkstationEvent, { type: 'stream' }>;
export type EventListener = (event: WorkstationEvent) => void;

/** Resolves when the client's transport has taken in what it was given (browser mode: the socket's buffer drained). */
export type Drained = () => Promise<void>;

const nextTurn: Drained = () => new Promise((resolve) => setImmediate(resolve));

export class HubClient {
  private readonly listeners = new Set<EventListener>();
  private readonly subscriptions = new Set<string>();
  /** The replay under way per session: a newer subscribe, an unsubscribe or close() ends it. */
  private readonly replays = new Map<string, object>();
  private closed = false;
  private drainedBy: Drained = nextTurn;

  constructor(private readonly hub: EventHub) {}

  /** How a replay waits for this client between steps; by default it lets other work run. */
  setDrained(drained: Drained): void {
    this.drainedBy = drained;
  }

  drained(): Promise<void> {
    return this.drainedBy();
  }

  /** A new replay of `sessionId` for this client: live chunks stop until it calls subscribe(); an older replay's ticket stops being current. */
  beginReplay(sessionId: string): object {
    const ticket = {};
    this.subscriptions.delete(sessionId);
    if (!this.closed) this.replays.set(sessionId, ticket);
    return ticket;
  }

  /** Whether `ticket` is still the replay this client wants of the session. */
  replayCurrent(sessionId: string, ticket: object): boolean {
    return !this.closed && this.replays.get(sessionId) === ticket;
  }

  /** No more chunks of the session for this client, live or replayed. */
  unsubscribe(sessionId: string): void {
    this.subscriptions.delete(sessionId);
    this.replays.delete(sessionId);
  }

  onEvent(listener: EventListener): () => void {
    // A wrapper, so the same function registered twice is two registrations.
    const entry: EventListener = (event) => listener(event);
    this.listeners.add(entry);
    return () => { this.listeners.delete(entry); };
  }

  isSubscribed(sessionId: string): boolean {
    return this.subscriptions.has(sessionId);
  }

  /** From now on this client hears the session's live chunks (the caller replayed what came before, up to this turn). */
  subscribe(sessionId: string): void {
    this.replays.delete(sessionId);
    if (!this.closed) this.subscriptions.add(sessionId);
  }

  deliver(event: WorkstationEvent): void {
    if (this.closed) return;
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (err) {
        // One broken listener must not starve the others or the session that emitted.
        console.error('clrscope: an event listener failed:', err);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
    this.subscriptions.clear();
    this.replays.clear();
    this.hub.remove(this);
  }
}

export class EventHub {
  private readonly clients = new Set<HubClient>();

  client(): HubClient {
    const client = new HubClient(this);
    this.clients.add(client);
    return client;
  }

  remove(client: HubClient): void {
    this.clients.delete(client);
  }

  /** Session, counters, export-progress and output events reach every client. */
  broadcast(event: BroadcastEvent): void {
    for (const client of [...this.clients]) client.deliver(event);
  }

  /** A closed session: no client hears of it again. */
  forget(sessionId: string): void {
    for (const client of this.clients) client.unsubscribe(sessionId);
  }

  /** A live stream chunk reaches the clients subscribed to its session. */
  stream(event: StreamEvent): void {
    for (const client of [...this.clients]) {
      if (client.isSubscribed(event.sessionId)) client.deliver(event);
    }
  }
}
